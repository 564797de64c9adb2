//===- TileIR.cpp - Trinity's tile IR as e-graph terms --------------------===//
//
// Part of the Mirage MLIR project.
//
//===----------------------------------------------------------------------===//

#include "mirage/TileEqsat/TileIR.h"

#include "mirage/EGraph/SExpr.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <cstdio>

using namespace mirage;
using namespace mirage::tile;
using namespace mirage::egraph;
using llvm::ArrayRef;
using llvm::Expected;
using llvm::SmallVector;
using llvm::StringRef;
using llvm::Twine;

StringRef mirage::tile::stringifyTensorKind(TensorKind kind) {
  switch (kind) {
  case TensorKind::Input:
    return "input";
  case TensorKind::Output:
    return "output";
  case TensorKind::Variable:
    return "variable";
  }
  return "";
}

TileOps::TileOps(Language &l)
    : num(Language::numOp), fconst(l.getOrAddOp("fconst")),
      input(l.getOrAddOp("input")), output(l.getOrAddOp("output")),
      variable(l.getOrAddOp("variable")), fulltile(l.getOrAddOp("fulltile")),
      tile(l.getOrAddOp("tile")), elem(l.getOrAddOp("elem")),
      constTile(l.getOrAddOp("const_tile")), index(l.getOrAddOp("index")),
      tsize(l.getOrAddOp("tsize")), load(l.getOrAddOp("load")),
      store(l.getOrAddOp("store")), add(l.getOrAddOp("+")),
      sub(l.getOrAddOp("-")), mul(l.getOrAddOp("*")), div(l.getOrAddOp("/")),
      exp(l.getOrAddOp("exp")), sqrt(l.getOrAddOp("sqrt")),
      sigmoid(l.getOrAddOp("sigmoid")), rsum(l.getOrAddOp("rsum")),
      matmul(l.getOrAddOp("matmul")), concat(l.getOrAddOp("concat")),
      permute(l.getOrAddOp("permute")), squeeze(l.getOrAddOp("squeeze")),
      unsqueeze(l.getOrAddOp("unsqueeze")), bcast(l.getOrAddOp("bcast")),
      seq(l.getOrAddOp("seq")), loop(l.getOrAddOp("loop")),
      dummy(l.getOrAddOp("dummy")) {}

TileContext::TileContext() : ops(language) {}

llvm::Error TileContext::addTensor(StringRef name, TensorKind kind,
                                   ArrayRef<int64_t> shape) {
  SymbolId symbol = language.getOrAddSymbol(name);
  if (const TensorInfo *existing = getTensor(symbol)) {
    if (existing->kind == kind && ArrayRef<int64_t>(existing->shape) == shape)
      return llvm::Error::success();
    return llvm::createStringError(
        llvm::formatv("tensor {0} is declared twice, as {1} {2} and {3} {4}",
                      name, stringifyTensorKind(existing->kind),
                      formatShape(existing->shape), stringifyTensorKind(kind),
                      formatShape(shape))
            .str());
  }
  for (int64_t size : shape)
    if (size <= 0 || size >= kSymbolicDimBase)
      return llvm::createStringError(
          llvm::formatv("tensor {0} has shape {1}: sizes must be positive "
                        "and below 2^20",
                        name, formatShape(shape))
              .str());
  tensorIndex[symbol] = tensors.size();
  tensors.push_back({name.str(), kind, Shape(shape)});
  return llvm::Error::success();
}

const TensorInfo *TileContext::getTensor(SymbolId name) const {
  auto it = tensorIndex.find(name);
  return it == tensorIndex.end() ? nullptr : &tensors[it->second];
}

const TensorInfo *TileContext::lookupTensor(StringRef name) const {
  std::optional<SymbolId> symbol = language.lookupSymbol(name);
  return symbol ? getTensor(*symbol) : nullptr;
}

OpId TileContext::getTensorOp(TensorKind kind) const {
  switch (kind) {
  case TensorKind::Input:
    return ops.input;
  case TensorKind::Output:
    return ops.output;
  case TensorKind::Variable:
    return ops.variable;
  }
  return ops.variable;
}

std::optional<TensorKind> TileContext::getTensorKind(OpId op) const {
  if (op == ops.input)
    return TensorKind::Input;
  if (op == ops.output)
    return TensorKind::Output;
  if (op == ops.variable)
    return TensorKind::Variable;
  return std::nullopt;
}

bool TileContext::isValueOp(OpId op) const {
  return op == ops.add || op == ops.sub || op == ops.mul || op == ops.div ||
         op == ops.exp || op == ops.sqrt || op == ops.sigmoid ||
         op == ops.rsum || op == ops.matmul || op == ops.concat ||
         op == ops.permute || op == ops.squeeze || op == ops.unsqueeze ||
         op == ops.bcast;
}

//===----------------------------------------------------------------------===//
// Operator records
//===----------------------------------------------------------------------===//

static llvm::Error recordError(const Twine &message) {
  return llvm::createStringError(message.str());
}

Expected<std::pair<OpKind, OpParams>>
mirage::tile::getValueOpRecord(const TileContext &context, const ENode &node,
                               ArrayRef<ArrayRef<int64_t>> childShapes,
                               ArrayRef<int64_t> permutation) {
  const TileOps &ops = context.getOps();
  OpParams params;
  auto axis = [&]() -> Expected<int64_t> {
    if (!node.payload.isInt())
      return recordError("an axis operator needs an integer payload");
    return node.payload.getInt();
  };
  auto expect = [&](size_t n) -> llvm::Error {
    if (childShapes.size() != n)
      return recordError(llvm::formatv("{0} takes {1} operand(s), got {2}",
                                       context.getLanguage().getOpName(node.op),
                                       n, childShapes.size()));
    return llvm::Error::success();
  };
  OpId op = node.op;
  if (op == ops.add || op == ops.sub || op == ops.mul || op == ops.div ||
      op == ops.matmul) {
    if (llvm::Error e = expect(2))
      return std::move(e);
    OpKind kind = op == ops.add   ? OpKind::Add
                  : op == ops.sub ? OpKind::Sub
                  : op == ops.mul ? OpKind::Mul
                  : op == ops.div ? OpKind::Div
                                  : OpKind::Matmul;
    return std::make_pair(kind, params);
  }
  if (op == ops.exp || op == ops.sqrt || op == ops.sigmoid) {
    if (llvm::Error e = expect(1))
      return std::move(e);
    OpKind kind = op == ops.exp    ? OpKind::Exp
                  : op == ops.sqrt ? OpKind::Sqrt
                                   : OpKind::Sigmoid;
    return std::make_pair(kind, params);
  }
  if (op == ops.rsum) {
    if (llvm::Error e = expect(1))
      return std::move(e);
    Expected<int64_t> k = axis();
    if (!k)
      return k.takeError();
    params.dim = *k;
    params.keepDim = true;
    return std::make_pair(OpKind::ReduceSum, params);
  }
  if (op == ops.concat) {
    if (llvm::Error e = expect(2))
      return std::move(e);
    Expected<int64_t> k = axis();
    if (!k)
      return k.takeError();
    params.dim = *k;
    return std::make_pair(OpKind::Concat, params);
  }
  if (op == ops.permute) {
    if (llvm::Error e = expect(1))
      return std::move(e);
    params.ints.assign(permutation.begin(), permutation.end());
    return std::make_pair(OpKind::Transpose, params);
  }
  if (op == ops.squeeze || op == ops.unsqueeze || op == ops.bcast) {
    if (llvm::Error e = expect(1))
      return std::move(e);
    Expected<int64_t> k = axis();
    if (!k)
      return k.takeError();
    ArrayRef<int64_t> in = childShapes[0];
    int64_t rank = in.size();
    Shape out(in);
    if (op == ops.unsqueeze) {
      if (*k < 0 || *k > rank)
        return recordError(llvm::formatv(
            "unsqueeze axis {0} is out of range for rank {1}", *k, rank));
      out.insert(out.begin() + *k, 1);
    } else {
      if (*k < 0 || *k >= rank || in[*k] != 1)
        return recordError(llvm::formatv(
            "{0} axis {1} is not a dim of size 1 of shape {2}",
            context.getLanguage().getOpName(op), *k, formatShape(in)));
      if (op == ops.squeeze)
        out.erase(out.begin() + *k);
    }
    // (un)squeeze and bcast are row-major reinterpretations: a reshape. A
    // bcast keeps the shape (the size-1 axis broadcasts in the binary
    // operator that uses it).
    params.ints.assign(out.begin(), out.end());
    return std::make_pair(OpKind::Reshape, params);
  }
  return recordError(llvm::formatv("'{0}' is not a value operator",
                                   context.getLanguage().getOpName(op)));
}

ENode mirage::tile::makeConstant(TileContext &context, double value) {
  if (std::isfinite(value) && value == std::trunc(value) &&
      std::fabs(value) < 9.0e15)
    return ENode(Language::numOp, {}, Payload::integer(int64_t(value)));
  char buffer[64];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buffer, sizeof(buffer), "%.*g", precision, value);
    if (std::strtod(buffer, nullptr) == value)
      break;
  }
  return ENode(context.getOps().fconst, {},
               context.getLanguage().symbol(buffer));
}

std::optional<double> mirage::tile::getConstant(const TileContext &context,
                                                const ENode &node) {
  if (node.op == Language::numOp && node.payload.isInt())
    return double(node.payload.getInt());
  if (node.op == context.getOps().fconst && node.payload.isSymbol()) {
    StringRef text = context.getLanguage().getSymbolName(
        node.payload.getSymbol());
    double value;
    if (!text.getAsDouble(value))
      return value;
  }
  return std::nullopt;
}

Expected<Term> mirage::tile::parseTileTerm(TileContext &context,
                                           StringRef text) {
  return parseTerm(context.getLanguage(), text);
}

//===----------------------------------------------------------------------===//
// Printing
//===----------------------------------------------------------------------===//

namespace {
void printNode(const TileContext &context, llvm::raw_ostream &os,
               const Term &term, unsigned index, bool indent, unsigned depth) {
  const ENode &node = term[index];
  const Language &language = context.getLanguage();
  const TileOps &ops = context.getOps();
  if (node.children.empty()) {
    if (node.op == ops.fconst && node.payload.isSymbol()) {
      os << language.getSymbolName(node.payload.getSymbol());
      return;
    }
    bool wrap = context.getTensorKind(node.op).has_value() ||
                node.op == ops.tsize;
    if (wrap)
      os << "(";
    printHead(os, language, node);
    if (wrap)
      os << ")";
    return;
  }
  bool statement = node.op == ops.seq || node.op == ops.loop;
  os << "(";
  printHead(os, language, node);
  for (auto [i, child] : llvm::enumerate(node.children)) {
    bool childIsStatement =
        statement && context.isStmtOp(term[child].op) &&
        (node.op == ops.seq || i == 3);
    if (indent && childIsStatement) {
      os << "\n";
      os.indent(2 * (depth + 1));
    } else {
      os << " ";
    }
    printNode(context, os, term, child, indent,
              childIsStatement ? depth + 1 : depth);
  }
  os << ")";
}
} // namespace

void TileContext::print(llvm::raw_ostream &os, const Term &term,
                        std::optional<unsigned> root, bool indent) const {
  if (term.empty()) {
    os << "<empty>";
    return;
  }
  printNode(*this, os, term, root.value_or(term.getRoot()), indent, 0);
}

std::string TileContext::toString(const Term &term, bool indent) const {
  std::string text;
  llvm::raw_string_ostream os(text);
  print(os, term, std::nullopt, indent);
  return text;
}

//===----------------------------------------------------------------------===//
// TermBuilder
//===----------------------------------------------------------------------===//

unsigned TermBuilder::add(ENode node) {
  std::vector<unsigned> children(node.children.begin(), node.children.end());
  auto key = std::make_tuple(node.op, uint8_t(node.payload.kind),
                             node.payload.value, std::move(children));
  auto [it, inserted] = memo.try_emplace(std::move(key), 0);
  if (inserted)
    it->second = term.add(std::move(node));
  return it->second;
}

unsigned TermBuilder::num(int64_t value) {
  return add(ENode(Language::numOp, {}, Payload::integer(value)));
}

unsigned TermBuilder::constant(double value) {
  return add(makeConstant(context, value));
}

unsigned TermBuilder::tensor(StringRef name) {
  const TensorInfo *info = context.lookupTensor(name);
  assert(info && "declare tensors before using them");
  return add(ENode(context.getTensorOp(info->kind), {},
                   context.getLanguage().symbol(name)));
}

unsigned TermBuilder::fulltile() { return add(ENode(context.getOps().fulltile)); }

unsigned TermBuilder::tile(StringRef var) {
  return add(ENode(context.getOps().tile, {}, context.getLanguage().symbol(var)));
}

unsigned TermBuilder::elem(StringRef var) {
  return add(ENode(context.getOps().elem, {}, context.getLanguage().symbol(var)));
}

unsigned TermBuilder::constTile(int64_t base, int64_t length) {
  unsigned b = num(base), l = num(length);
  return add(ENode(context.getOps().constTile, {b, l}));
}

unsigned TermBuilder::index(ArrayRef<unsigned> elements) {
  SmallVector<EClassId> children(elements.begin(), elements.end());
  return add(ENode(context.getOps().index, children));
}

unsigned TermBuilder::tileSize(StringRef symbol) {
  return add(
      ENode(context.getOps().tsize, {}, context.getLanguage().symbol(symbol)));
}

unsigned TermBuilder::load(unsigned tensor, unsigned index) {
  return add(ENode(context.getOps().load, {tensor, index}));
}

unsigned TermBuilder::store(unsigned tensor, unsigned value, unsigned index) {
  return add(ENode(context.getOps().store, {tensor, value, index}));
}

unsigned TermBuilder::op(OpId op, ArrayRef<unsigned> children,
                         Payload payload) {
  SmallVector<EClassId> c(children.begin(), children.end());
  return add(ENode(op, c, payload));
}

unsigned TermBuilder::axisOp(OpId op, int64_t axis, unsigned child) {
  return add(ENode(op, {child}, Payload::integer(axis)));
}

unsigned TermBuilder::permute(unsigned child, ArrayRef<int64_t> permutation) {
  SmallVector<EClassId> children{child};
  for (int64_t p : permutation)
    children.push_back(num(p));
  return add(ENode(context.getOps().permute, children));
}

unsigned TermBuilder::seq(unsigned first, unsigned second) {
  return add(ENode(context.getOps().seq, {first, second}));
}

unsigned TermBuilder::seq(ArrayRef<unsigned> statements) {
  if (statements.empty())
    return dummy();
  unsigned result = statements.back();
  for (unsigned s : llvm::reverse(statements.drop_back()))
    result = seq(s, result);
  return result;
}

unsigned TermBuilder::loop(StringRef var, int64_t start, int64_t end,
                           unsigned step, unsigned body) {
  unsigned s = num(start), e = num(end);
  return add(ENode(context.getOps().loop, {s, e, step, body},
                   context.getLanguage().symbol(var)));
}

unsigned TermBuilder::dummy() { return add(ENode(context.getOps().dummy)); }

SmallVector<unsigned> mirage::tile::getSequence(const TileContext &context,
                                                const Term &term,
                                                unsigned root) {
  SmallVector<unsigned> statements;
  OpId seq = context.getOps().seq;
  unsigned current = root;
  while (true) {
    const ENode &node = term[current];
    if (node.op != seq) {
      statements.push_back(current);
      return statements;
    }
    // A left-nested seq is flattened too.
    SmallVector<unsigned> first = getSequence(context, term, node.children[0]);
    statements.append(first.begin(), first.end());
    current = node.children[1];
  }
}
