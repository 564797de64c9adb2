//===- KernelToTile.cpp - Kernel graphs as tile programs ------------------===//
//
// Part of the Mirage MLIR project.
//
//===----------------------------------------------------------------------===//

#include "mirage/TileEqsat/KernelToTile.h"
#include "mirage/Semantics/OpKindCases.h"

#include "mirage/Dialect/Kernel/IR/Kernel.h"
#include "mirage/IR/SemanticsOpInterface.h"
#include "mirage/Semantics/Formula.h"

#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"

#include <map>

using namespace mlir;
using namespace mirage;
using namespace mirage::tile;
using egraph::Payload;

namespace {

using Mode = AxisVar::Mode;

llvm::Error failAt(Operation *op, const Twine &message) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "'" << op->getName() << "' ";
  if (auto loc = dyn_cast<FileLineColLoc>(op->getLoc()))
    os << "at " << loc.getFilename() << ":" << loc.getLine() << " ";
  os << message;
  return llvm::createStringError(text);
}

ArrayRef<int64_t> shapeOf(Value value) {
  return cast<ShapedType>(value.getType()).getShape();
}

/// The split of a large axis into an outer and inner axes by a reshape.
struct Split {
  unsigned big;
  llvm::SmallVector<unsigned> small;
};

/// One op's loop nest before grouping: loops (outermost first, with a fixed
/// step where the axis's own step does not apply), initializations, the
/// accumulation loop, the stores of its body.
struct Stmt {
  Operation *op = nullptr;
  OpKind kind = OpKind::Exp;
  llvm::SmallVector<std::pair<unsigned, std::optional<int64_t>>> loops;
  llvm::SmallVector<unsigned> inits;
  std::optional<unsigned> reduced;
  llvm::SmallVector<unsigned> stores;
};

class Converter {
public:
  Converter(func::FuncOp function, const KernelToTileOptions &options)
      : function(function), options(options) {
    program.context = std::make_unique<TileContext>();
    builder.emplace(*program.context);
  }

  llvm::Expected<TileProgram> run();

private:
  // Axes.
  unsigned axis(Value value, unsigned dim);
  unsigned find(unsigned a) {
    while (parent[a] != a)
      a = parent[a] = parent[parent[a]];
    return a;
  }
  void unite(Value a, unsigned da, Value b, unsigned db) {
    unsigned x = find(axis(a, da)), y = find(axis(b, db));
    if (x == y)
      return;
    // The axis seen first names the union.
    if (y < x)
      std::swap(x, y);
    parent[y] = x;
  }
  llvm::Error collectAxes();
  /// A reshape's axes: dims that line up one to one are one axis, one dim
  /// against several is a split.
  llvm::Error collectReshapeAxes(Operation *op);
  void assignModes();

  // Statements.
  unsigned tensorOf(Value value);
  unsigned indexElem(unsigned axisClass);
  /// The index of `value` with the dims in `whole` kept whole.
  unsigned indexOf(Value value, ArrayRef<unsigned> whole = {});
  unsigned load(Value value, ArrayRef<unsigned> whole = {}) {
    return loadWith(value, indexElems(value, whole));
  }
  /// The index elements of `value` with the dims in `whole` kept whole.
  SmallVector<unsigned> indexElems(Value value, ArrayRef<unsigned> whole = {});
  /// `value` at the index `elems`: a load, or the expression of an inlined
  /// elementwise op over its operands at the matching index.
  unsigned loadWith(Value value, ArrayRef<unsigned> elems);
  /// The value of an elementwise op from its operands' values.
  unsigned elementwise(Operation *op,
                       llvm::function_ref<unsigned(unsigned)> operand);
  /// The values an op reads, through inlined producers.
  void sources(Value value, SmallVectorImpl<Value> &out);
  /// Wraps the statement in loops over `vars` (outermost first).
  unsigned wrap(unsigned body, ArrayRef<unsigned> classes);
  /// The iterated axes among `value`'s dims (not in `whole`), outermost
  /// first.
  llvm::SmallVector<unsigned> loopsOf(Value value,
                                      ArrayRef<unsigned> whole = {});
  unsigned step(unsigned cls);
  unsigned loop(unsigned cls, unsigned body, std::optional<int64_t> step = {});
  const std::string &varName(unsigned cls) { return vars[find(cls)].name; }
  /// Broadcast markers: (bcast:d x) for every size-1 dim d of `operand`
  /// against a larger dim of `result` (right-aligned).
  unsigned broadcast(unsigned value, Value operand, Value result);
  /// An accumulation into `result` over the axis `reduced` (or a plain
  /// store when it is not iterated), inside the loops over the result.
  llvm::Error emitReduction(Value result, unsigned value, unsigned reduced,
                            ArrayRef<unsigned> resultWhole = {});
  llvm::Error emit(Operation *op);
  llvm::Error emitReshape(Operation *op);
  llvm::Error emitRmsNorm(Operation *op, const OpParams &params);

  func::FuncOp function;
  const KernelToTileOptions &options;
  TileProgram program;
  std::optional<TermBuilder> builder;
  std::map<std::pair<void *, unsigned>, unsigned> axisIds;
  std::vector<unsigned> parent;
  std::vector<int64_t> sizes;
  std::vector<bool> batch;
  std::vector<Split> splits;
  /// Per axis class root: its variable.
  std::map<unsigned, AxisVar> vars;
  llvm::DenseMap<Value, std::string> names;
  std::vector<Stmt> statements;
  /// Reshapes and transposes emitted as one statement with their neighbor.
  llvm::DenseMap<Operation *, Operation *> absorbedInto;
  /// Elementwise ops with one user, computed where they are used.
  llvm::DenseMap<Value, Operation *> inlined;
  llvm::Error emitReshapeChain(Operation *reshape, Operation *before,
                               Operation *after);
  Stmt makeStmt(Operation *op, ArrayRef<unsigned> classes) {
    Stmt stmt;
    stmt.op = op;
    stmt.kind = cast<SemanticsOpInterface>(op).getOpKind();
    for (unsigned cls : classes)
      stmt.loops.push_back({cls, std::nullopt});
    return stmt;
  }
  unsigned build(ArrayRef<const Stmt *> group);
  unsigned joinStatements();
};

unsigned Converter::axis(Value value, unsigned dim) {
  auto key = std::make_pair(value.getAsOpaquePointer(), dim);
  auto [it, inserted] = axisIds.try_emplace(key, parent.size());
  if (inserted) {
    parent.push_back(parent.size());
    sizes.push_back(shapeOf(value)[dim]);
    batch.push_back(false);
  }
  return it->second;
}

llvm::Error Converter::collectReshapeAxes(Operation *op) {
  // Runs of equal element count: one dim on each side lines up; one dim
  // against several is a split (or merge).
  Value x = op->getOperand(0), r = op->getResult(0);
  ArrayRef<int64_t> from = shapeOf(x), to = shapeOf(r);
  size_t i = 0, j = 0;
  while (i < from.size() || j < to.size()) {
    if (i < from.size() && from[i] == 1) {
      ++i;
      continue;
    }
    if (j < to.size() && to[j] == 1) {
      ++j;
      continue;
    }
    if (i >= from.size() || j >= to.size())
      return failAt(op, "has a reshape the tile IR cannot follow");
    size_t i0 = i, j0 = j;
    int64_t a = from[i++], b = to[j++];
    while (a != b) {
      if (a < b) {
        if (i >= from.size())
          break;
        a *= from[i++];
      } else {
        if (j >= to.size())
          break;
        b *= to[j++];
      }
    }
    if (a != b)
      return failAt(op, "has a reshape the tile IR cannot follow");
    size_t nf = i - i0, nt = j - j0;
    if (nf == 1 && nt == 1) {
      unite(x, i0, r, j0);
    } else if (nf == 1 || nt == 1) {
      Split split;
      split.big = nf == 1 ? axis(x, i0) : axis(r, j0);
      Value smallValue = nf == 1 ? r : x;
      size_t s0 = nf == 1 ? j0 : i0, s1 = nf == 1 ? j : i;
      for (size_t s = s0; s < s1; ++s)
        split.small.push_back(axis(smallValue, s));
      splits.push_back(split);
    } else {
      return failAt(op, "regroups several dims into several others; the "
                        "tile IR follows only splits and merges of one "
                        "dim");
    }
  }
  return llvm::Error::success();
}

llvm::Error Converter::collectAxes() {
  for (BlockArgument arg : function.getArguments())
    for (unsigned d = 0; d < shapeOf(arg).size(); ++d)
      axis(arg, d);
  for (Operation &op : function.getBody().front()) {
    if (isa<func::ReturnOp>(op))
      continue;
    auto semantics = dyn_cast<SemanticsOpInterface>(&op);
    if (!semantics || isa<kn::KernelOp>(op) ||
        op.getDialect()->getNamespace() != "kn")
      return failAt(&op, "is not a predefined kernel-graph operator");
    for (Value result : op.getResults())
      for (unsigned d = 0; d < shapeOf(result).size(); ++d)
        axis(result, d);
    OpKind kind = semantics.getOpKind();
    OpParams params = semantics.getOpParams();
    Value r = op.getNumResults() ? op.getResult(0) : Value();
    if (isa<kn::ReshapeOp>(op)) {
      if (llvm::Error error = collectReshapeAxes(&op))
        return error;
      continue;
    }
    // The dimension map ties what lines up: the dims on one space dim are
    // one axis, except on a dim the operator needs whole and whose size
    // changes (a concatenation's or split's dim). Broadcast dims index
    // none.
    SmallVector<ArrayRef<int64_t>, 3> shapes;
    for (Value operand : op.getOperands())
      shapes.push_back(shapeOf(operand));
    std::optional<DimMap> map =
        r ? getDimMap(kind, shapes, shapeOf(r), params) : std::nullopt;
    if (!map || !map->tiled)
      return failAt(&op, llvm::formatv("('{0}') has no tile-IR form",
                                       getOpInfo(kind).name));
    SmallVector<std::optional<std::pair<Value, unsigned>>, 4> tied(
        map->space.size());
    auto visit = [&](Value value, ArrayRef<int64_t> dims) {
      for (auto [d, s] : llvm::enumerate(dims)) {
        if (s < 0 || map->kinds[s] == SpaceDimKind::Whole)
          continue;
        if (tied[s])
          unite(tied[s]->first, tied[s]->second, value, d);
        else
          tied[s] = std::make_pair(value, unsigned(d));
      }
    };
    for (auto [operand, dims] : llvm::zip(op.getOperands(), map->operands))
      visit(operand, dims);
    for (auto [result, dims] : llvm::zip(op.getResults(), map->results))
      visit(result, dims);
    // A batched matmul's loops over its batch dims.
    if (isa<kn::MatmulOp>(op))
      for (unsigned d = 0; d + 2 < shapeOf(r).size(); ++d)
        batch[axis(r, d)] = true;
  }
  // Axes split into the same outer axis and inner dims of the same sizes
  // are the same axis (a loop over either with the inner size as its step
  // enumerates the outer axis; the inner dims are whole).
  bool changed = true;
  while (changed) {
    changed = false;
    std::map<std::vector<int64_t>, unsigned> seen;
    for (const Split &split : splits) {
      std::vector<int64_t> key{int64_t(find(split.small.front()))};
      for (unsigned s : llvm::drop_begin(split.small))
        key.push_back(-sizes[s]);
      auto [it, inserted] = seen.try_emplace(key, find(split.big));
      if (!inserted && find(it->second) != find(split.big)) {
        unsigned x = find(it->second), y = find(split.big);
        if (y < x)
          std::swap(x, y);
        parent[y] = x;
        changed = true;
      }
    }
  }
  return llvm::Error::success();
}

void Converter::assignModes() {
  // Batch axes of batched matmuls, on any dim of their class.
  std::vector<bool> classBatch(parent.size(), false);
  for (unsigned a = 0; a < parent.size(); ++a)
    if (batch[a])
      classBatch[find(a)] = true;
  unsigned next = 0;
  for (unsigned a = 0; a < parent.size(); ++a) {
    unsigned root = find(a);
    if (vars.count(root))
      continue;
    AxisVar var;
    var.size = sizes[root];
    if (var.size == 1)
      var.mode = Mode::Full;
    else if (classBatch[root])
      var.mode = Mode::Elem;
    else if (var.size <= options.fullThreshold)
      var.mode = Mode::Full;
    else
      var.mode = Mode::Tile;
    // Every axis is named (a split loops over its large axis even when it is
    // kept whole elsewhere); names are letters in order of first
    // appearance, then letters with a number.
    unsigned n = next++;
    var.name = std::string(1, char('a' + n % 26));
    if (n >= 26)
      var.name += std::to_string(n / 26);
    vars[root] = var;
  }
}

unsigned Converter::tensorOf(Value value) {
  return builder->tensor(names.lookup(value));
}

unsigned Converter::indexElem(unsigned cls) {
  const AxisVar &var = vars[find(cls)];
  switch (var.mode) {
  case Mode::Full:
    return builder->fulltile();
  case Mode::Elem:
    return builder->elem(var.name);
  case Mode::Tile:
    return builder->tile(var.name);
  }
  return builder->fulltile();
}

SmallVector<unsigned> Converter::indexElems(Value value,
                                            ArrayRef<unsigned> whole) {
  SmallVector<unsigned> elements;
  for (unsigned d = 0; d < shapeOf(value).size(); ++d)
    elements.push_back(llvm::is_contained(whole, d)
                           ? builder->fulltile()
                           : indexElem(axis(value, d)));
  return elements;
}

unsigned Converter::indexOf(Value value, ArrayRef<unsigned> whole) {
  return builder->index(indexElems(value, whole));
}

unsigned Converter::loadWith(Value value, ArrayRef<unsigned> elems) {
  auto it = inlined.find(value);
  if (it == inlined.end())
    return builder->load(tensorOf(value), builder->index(elems));
  Operation *op = it->second;
  ArrayRef<int64_t> out = shapeOf(value);
  return elementwise(op, [&](unsigned i) {
    Value operand = op->getOperand(i);
    ArrayRef<int64_t> in = shapeOf(operand);
    int64_t skip = int64_t(out.size()) - int64_t(in.size());
    SmallVector<unsigned> operandElems;
    for (unsigned d = 0; d < in.size(); ++d)
      operandElems.push_back(in[d] == out[skip + d] ? elems[skip + d]
                                                    : builder->fulltile());
    return broadcast(loadWith(operand, operandElems), operand, value);
  });
}

void Converter::sources(Value value, SmallVectorImpl<Value> &out) {
  auto it = inlined.find(value);
  if (it == inlined.end()) {
    out.push_back(value);
    return;
  }
  for (Value operand : it->second->getOperands())
    sources(operand, out);
}

/// Whether every primitive of `formula` has a tile-IR operator (erf, tanh,
/// max and pow have none; reductions are not elementwise).
static bool hasTileForm(const Formula &formula) {
  switch (formula.primitive) {
  case Primitive::Operand:
  case Primitive::Scalar:
  case Primitive::Constant:
  case Primitive::Add:
  case Primitive::Mul:
  case Primitive::Neg:
  case Primitive::Recip:
  case Primitive::Exp:
  case Primitive::Sqrt:
  case Primitive::Logistic:
    return llvm::all_of(formula.operands,
                        [](const Formula &f) { return hasTileForm(f); });
  case Primitive::NormalCdf:
  case Primitive::Erf:
  case Primitive::Tanh:
  case Primitive::Max:
  case Primitive::Pow:
  case Primitive::ReduceAdd:
  case Primitive::ReduceMax:
    return false;
  }
  llvm_unreachable("covered switch");
}

static bool hasTileForm(OpKind kind) {
  const Formula *formula = getOpFormula(kind);
  return formula && getOpInfo(kind).elementwise && hasTileForm(*formula);
}

namespace {
/// Builds the tile-IR term of a formula; each operand's term once.
struct TileFormBuilder {
  TermBuilder &b;
  const TileOps &ops;
  const OpParams &params;
  llvm::function_ref<unsigned(unsigned)> operand;
  /// The operands' terms, built on first use.
  std::optional<unsigned> operands[2];

  unsigned build(const Formula &formula) {
    switch (formula.primitive) {
    case Primitive::Operand: {
      std::optional<unsigned> &term = operands[formula.index];
      if (!term)
        term = operand(formula.index);
      return *term;
    }
    case Primitive::Scalar:
      return b.constant(params.scalar);
    case Primitive::Constant:
      return b.constant(formula.value);
    case Primitive::Add:
      // a + neg(b) is sub(a, b).
      return chain(formula, ops.add, ops.sub);
    case Primitive::Mul:
      // a * recip(b) is div(a, b).
      return chain(formula, ops.mul, ops.div);
    case Primitive::Neg:
      return b.op(ops.mul, {build(formula.operands[0]), b.num(-1)});
    case Primitive::Recip:
      return b.op(ops.div, {b.num(1), build(formula.operands[0])});
    case Primitive::Exp:
      return b.op(ops.exp, {build(formula.operands[0])});
    case Primitive::Sqrt:
      return b.op(ops.sqrt, {build(formula.operands[0])});
    case Primitive::Logistic:
      return b.op(ops.sigmoid, {build(formula.operands[0])});
    case Primitive::NormalCdf:
    case Primitive::Erf:
    case Primitive::Tanh:
    case Primitive::Max:
    case Primitive::Pow:
    case Primitive::ReduceAdd:
    case Primitive::ReduceMax:
      break;
    }
    llvm_unreachable("no tile form (callers ask hasTileForm first)");
  }

  /// `op` over the operands; `inverseOp` for an inverted one.
  unsigned chain(const Formula &formula, OpId op, OpId inverseOp) {
    return foldChain<unsigned>(
        formula, [&](const Formula &f) { return build(f); },
        [&](unsigned acc, unsigned x, bool inverse) {
          return b.op(inverse ? inverseOp : op, {acc, x});
        });
  }
};
} // namespace

unsigned
Converter::elementwise(Operation *op,
                       llvm::function_ref<unsigned(unsigned)> operand) {
  auto semantics = cast<SemanticsOpInterface>(op);
  OpParams params = semantics.getOpParams();
  TileFormBuilder form{*builder, program.context->getOps(), params, operand};
  return form.build(*getOpFormula(semantics.getOpKind()));
}

SmallVector<unsigned> Converter::loopsOf(Value value,
                                         ArrayRef<unsigned> whole) {
  SmallVector<unsigned> classes;
  for (unsigned d = 0; d < shapeOf(value).size(); ++d) {
    unsigned cls = find(axis(value, d));
    if (llvm::is_contained(whole, d) || vars[cls].mode == Mode::Full ||
        llvm::is_contained(classes, cls))
      continue;
    classes.push_back(cls);
  }
  // Element (batch) loops outermost, then by first appearance.
  llvm::stable_sort(classes, [&](unsigned a, unsigned b) {
    bool ea = vars[a].mode == Mode::Elem, eb = vars[b].mode == Mode::Elem;
    if (ea != eb)
      return ea;
    return a < b;
  });
  return classes;
}

unsigned Converter::step(unsigned cls) {
  const AxisVar &var = vars[find(cls)];
  if (var.mode == Mode::Elem)
    return builder->num(1);
  return builder->tileSize("t" + var.name);
}

unsigned Converter::loop(unsigned cls, unsigned body,
                         std::optional<int64_t> fixed) {
  const AxisVar &var = vars[find(cls)];
  unsigned s = fixed ? builder->num(*fixed) : step(cls);
  return builder->loop(var.name, 0, var.size, s, body);
}

unsigned Converter::wrap(unsigned body, ArrayRef<unsigned> classes) {
  for (unsigned cls : llvm::reverse(classes))
    body = loop(cls, body);
  return body;
}

unsigned Converter::broadcast(unsigned value, Value operand, Value result) {
  ArrayRef<int64_t> in = shapeOf(operand), out = shapeOf(result);
  if (in.size() != out.size())
    return value;
  for (unsigned d = 0; d < in.size(); ++d)
    if (in[d] == 1 && out[d] != 1)
      value = builder->axisOp(program.context->getOps().bcast, d, value);
  return value;
}

llvm::Error Converter::emitReduction(Value result, unsigned value,
                                     unsigned reduced,
                                     ArrayRef<unsigned> resultWhole) {
  unsigned tensor = tensorOf(result);
  unsigned index = indexOf(result, resultWhole);
  const TileOps &ops = program.context->getOps();
  Stmt stmt = makeStmt(result.getDefiningOp(), loopsOf(result, resultWhole));
  if (vars[find(reduced)].mode == Mode::Full) {
    stmt.stores.push_back(builder->store(tensor, value, index));
  } else {
    stmt.inits.push_back(builder->store(tensor, builder->num(0), index));
    unsigned sum = builder->op(ops.add, {builder->load(tensor, index), value});
    stmt.reduced = find(reduced);
    stmt.stores.push_back(builder->store(tensor, sum, index));
  }
  statements.push_back(std::move(stmt));
  return llvm::Error::success();
}

llvm::Error Converter::emitRmsNorm(Operation *op, const OpParams &params) {
  const TileOps &ops = program.context->getOps();
  TileContext &context = *program.context;
  Value x = op->getOperand(0), y = op->getResult(0);
  ArrayRef<int64_t> shape = shapeOf(x);
  unsigned last = shape.size() - 1;
  // The sum of squares, a variable of x's shape with the last dim 1.
  Shape ssShape(shape);
  ssShape.back() = 1;
  std::string ssName = names.lookup(y) + "_ss";
  if (llvm::Error e =
          context.addTensor(ssName, TensorKind::Variable, ssShape))
    return e;
  unsigned ss = builder->tensor(ssName);
  SmallVector<unsigned> ssIndexElems;
  for (unsigned d = 0; d < shape.size(); ++d)
    ssIndexElems.push_back(d == last ? builder->fulltile()
                                     : indexElem(axis(x, d)));
  unsigned ssIndex = builder->index(ssIndexElems);
  unsigned xt = load(x);
  unsigned square = builder->op(ops.mul, {xt, xt});
  unsigned partial = builder->axisOp(ops.rsum, last, square);
  unsigned reduced = axis(x, last);
  Stmt sum = makeStmt(op, loopsOf(x, {last}));
  if (vars[find(reduced)].mode == Mode::Full) {
    sum.stores.push_back(builder->store(ss, partial, ssIndex));
  } else {
    sum.inits.push_back(builder->store(ss, builder->num(0), ssIndex));
    sum.reduced = find(reduced);
    sum.stores.push_back(builder->store(
        ss, builder->op(ops.add, {builder->load(ss, ssIndex), partial}),
        ssIndex));
  }
  statements.push_back(std::move(sum));

  // y = x * w / bcast(sqrt(ss / H + eps)).
  unsigned mean = builder->op(
      ops.mul, {builder->load(ss, ssIndex),
                builder->constant(1.0 / double(shape.back()))});
  if (params.scalar != 0)
    mean = builder->op(ops.add, {mean, builder->constant(params.scalar)});
  unsigned rms = builder->axisOp(ops.bcast, last,
                                 builder->op(ops.sqrt, {mean}));
  unsigned numerator = load(x);
  if (op->getNumOperands() > 1)
    numerator = builder->op(ops.mul, {numerator, load(op->getOperand(1))});
  unsigned value = builder->op(ops.div, {numerator, rms});
  Stmt div = makeStmt(op, loopsOf(y));
  div.stores.push_back(builder->store(tensorOf(y), value, indexOf(y)));
  statements.push_back(std::move(div));
  return llvm::Error::success();
}

llvm::Error Converter::emitReshape(Operation *op) {
  return emitReshapeChain(op, nullptr, nullptr);
}

llvm::Error Converter::emitReshapeChain(Operation *op, Operation *before,
                                        Operation *after) {
  const TileOps &ops = program.context->getOps();
  Value x = op->getOperand(0), r = op->getResult(0);
  Value src = before ? before->getOperand(0) : x;
  Value dst = after ? after->getResult(0) : r;
  // The split or merge of the reshape, if any.
  const Split *split = nullptr;
  for (const Split &s : splits) {
    bool mine = false;
    for (unsigned d = 0; d < shapeOf(x).size(); ++d)
      mine |= axis(x, d) == s.big || llvm::is_contained(s.small, axis(x, d));
    for (unsigned d = 0; d < shapeOf(r).size(); ++d)
      mine |= axis(r, d) == s.big || llvm::is_contained(s.small, axis(r, d));
    if (mine) {
      if (split)
        return failAt(op, "splits or merges more than one dim");
      split = &s;
    }
  }
  std::optional<int64_t> splitStep;
  unsigned bigClass = 0;
  auto element = [&](Value v, unsigned d) -> unsigned {
    unsigned a = axis(v, d);
    if (split && a == split->big)
      return builder->tile(varName(a));
    if (split && a == split->small.front())
      return builder->elem(varName(split->big));
    if (split && llvm::is_contained(split->small, a))
      return builder->fulltile();
    return indexElem(a);
  };
  // The transposes' dims are the reshape's, permuted: element of a dim of
  // `before`'s operand or `after`'s result.
  auto srcElement = [&](unsigned d) -> unsigned {
    if (!before)
      return element(x, d);
    OpParams params = cast<SemanticsOpInterface>(before).getOpParams();
    for (unsigned i = 0; i < params.ints.size(); ++i)
      if (unsigned(params.ints[i]) == d)
        return element(x, i);
    return builder->fulltile();
  };
  auto dstElement = [&](unsigned d) -> unsigned {
    if (!after)
      return element(r, d);
    OpParams params = cast<SemanticsOpInterface>(after).getOpParams();
    return element(r, params.ints[d]);
  };
  if (split) {
    int64_t inner = 1;
    for (unsigned s : llvm::drop_begin(split->small)) {
      if (vars[find(s)].mode != Mode::Full)
        return failAt(op, "splits a dim into inner dims that are iterated");
      inner *= sizes[s];
    }
    splitStep = inner;
    bigClass = find(split->big);
  }
  SmallVector<unsigned> xIndex, rIndex, srcIndex, dstIndex;
  for (unsigned d = 0; d < shapeOf(x).size(); ++d)
    xIndex.push_back(element(x, d));
  for (unsigned d = 0; d < shapeOf(r).size(); ++d)
    rIndex.push_back(element(r, d));
  for (unsigned d = 0; d < shapeOf(src).size(); ++d)
    srcIndex.push_back(srcElement(d));
  for (unsigned d = 0; d < shapeOf(dst).size(); ++d)
    dstIndex.push_back(dstElement(d));
  // The tile value: x's tile with its unit dims removed, then r's unit dims
  // inserted (the remaining dims line up in order).
  auto unitDims = [&](Value v, ArrayRef<unsigned> index) {
    SmallVector<bool> unit;
    for (auto [d, e] : llvm::enumerate(index)) {
      const egraph::ENode &node = builder->getTerm()[e];
      unit.push_back(node.op == ops.elem ||
                     (node.op == ops.fulltile && shapeOf(v)[d] == 1));
    }
    return unit;
  };
  SmallVector<bool> xUnit = unitDims(x, xIndex), rUnit = unitDims(r, rIndex);
  unsigned value = loadWith(src, srcIndex);
  if (before) {
    OpParams params = cast<SemanticsOpInterface>(before).getOpParams();
    value = builder->permute(value, SmallVector<int64_t>(params.ints.begin(),
                                                         params.ints.end()));
  }
  for (int d = int(xUnit.size()) - 1; d >= 0; --d)
    if (xUnit[d])
      value = builder->axisOp(ops.squeeze, d, value);
  for (unsigned d = 0; d < rUnit.size(); ++d)
    if (rUnit[d])
      value = builder->axisOp(ops.unsqueeze, d, value);
  if (after) {
    OpParams params = cast<SemanticsOpInterface>(after).getOpParams();
    value = builder->permute(value, SmallVector<int64_t>(params.ints.begin(),
                                                         params.ints.end()));
  }
  // Loops: the iterated axes of the result other than the split's, then
  // the split's with the inner size as its step.
  Stmt stmt = makeStmt(after ? after : op, {});
  stmt.kind = OpKind::Reshape;
  for (unsigned d = 0; d < shapeOf(r).size(); ++d) {
    unsigned a = axis(r, d);
    if (split && (a == split->big || llvm::is_contained(split->small, a)))
      continue;
    unsigned cls = find(a);
    bool seen = llvm::any_of(stmt.loops, [&](auto &l) { return l.first == cls; });
    if (vars[cls].mode != Mode::Full && !seen)
      stmt.loops.push_back({cls, std::nullopt});
  }
  if (split)
    stmt.loops.push_back({bigClass, splitStep});
  stmt.stores.push_back(
      builder->store(tensorOf(dst), value, builder->index(dstIndex)));
  statements.push_back(std::move(stmt));
  return llvm::Error::success();
}

llvm::Error Converter::emit(Operation *op) {
  const TileOps &ops = program.context->getOps();
  auto semantics = cast<SemanticsOpInterface>(op);
  OpKind kind = semantics.getOpKind();
  OpParams params = semantics.getOpParams();
  Value r = op->getResult(0);
  auto storeAll = [&](unsigned value) {
    Stmt stmt = makeStmt(op, loopsOf(r));
    stmt.stores.push_back(builder->store(tensorOf(r), value, indexOf(r)));
    statements.push_back(std::move(stmt));
    return llvm::Error::success();
  };
  auto operand = [&](unsigned i) {
    return broadcast(load(op->getOperand(i)), op->getOperand(i), r);
  };
  if (hasTileForm(kind))
    return storeAll(elementwise(op, operand));
  switch (kind) {
  case OpKind::Matmul: {
    Value a = op->getOperand(0);
    unsigned value = builder->op(ops.matmul, {load(a), load(op->getOperand(1))});
    return emitReduction(r, value, axis(a, shapeOf(a).size() - 1));
  }
  case OpKind::ReduceSum: {
    Value x = op->getOperand(0);
    unsigned value = builder->axisOp(ops.rsum, params.dim, load(x));
    if (!params.keepDim)
      value = builder->axisOp(ops.squeeze, params.dim, value);
    return emitReduction(r, value, axis(x, params.dim));
  }
  case OpKind::RmsNorm:
    return emitRmsNorm(op, params);
  case OpKind::Transpose: {
    // A transpose of a reshape (or before one) is one statement with it.
    for (auto &[absorbed, into] : absorbedInto)
      if (into == op && isa<kn::ReshapeOp>(absorbed))
        return emitReshapeChain(absorbed, nullptr, op);
    SmallVector<int64_t> perm(params.ints.begin(), params.ints.end());
    return storeAll(builder->permute(load(op->getOperand(0)), perm));
  }
  case OpKind::Concat: {
    unsigned d = params.dim;
    unsigned value = load(op->getOperand(0), {d});
    for (Value next : llvm::drop_begin(op->getOperands()))
      value = builder->op(ops.concat, {value, load(next, {d})},
                          Payload::integer(d));
    Stmt stmt = makeStmt(op, loopsOf(r, {d}));
    stmt.stores.push_back(builder->store(tensorOf(r), value, indexOf(r, {d})));
    statements.push_back(std::move(stmt));
    return llvm::Error::success();
  }
  case OpKind::Split: {
    unsigned d = params.dim;
    Value x = op->getOperand(0);
    int64_t offset = 0;
    Stmt stmt = makeStmt(op, loopsOf(x, {d}));
    for (Value result : op->getResults()) {
      int64_t size = shapeOf(result)[d];
      SmallVector<unsigned> elements;
      for (unsigned e = 0; e < shapeOf(x).size(); ++e)
        elements.push_back(e == d ? builder->constTile(offset, size)
                                  : indexElem(axis(x, e)));
      unsigned value = loadWith(x, elements);
      stmt.stores.push_back(
          builder->store(tensorOf(result), value, indexOf(result, {d})));
      offset += size;
    }
    statements.push_back(std::move(stmt));
    return llvm::Error::success();
  }
  case OpKind::Reshape:
    for (auto &[absorbed, into] : absorbedInto)
      if (into == op && isa<kn::TransposeOp>(absorbed))
        return emitReshapeChain(op, absorbed, nullptr);
    return emitReshape(op);
  // No tile-IR form: reduce_max, all_reduce, the block-graph structure ops,
  // and the elementwise ops whose formula uses a primitive the tile IR lacks
  // (the others were stored above, hasTileForm).
  case OpKind::ReduceMax:
  case OpKind::AllReduce:
  MIRAGE_GRAPH_STRUCTURE_OP_KIND_CASES:
  MIRAGE_ELEMENTWISE_OP_KIND_CASES:
    break;
  }
  return failAt(
      op, llvm::formatv("('{0}') has no tile-IR form", getOpInfo(kind).name));
}

unsigned Converter::build(ArrayRef<const Stmt *> group) {
  SmallVector<unsigned> inits, stores;
  for (const Stmt *stmt : group) {
    inits.append(stmt->inits.begin(), stmt->inits.end());
    stores.append(stmt->stores.begin(), stmt->stores.end());
  }
  const Stmt &first = *group.front();
  unsigned body = builder->seq(stores);
  if (first.reduced)
    body = loop(*first.reduced, body);
  if (!inits.empty()) {
    inits.push_back(body);
    body = builder->seq(inits);
  }
  for (auto &[cls, fixed] : llvm::reverse(first.loops))
    body = loop(cls, body, fixed);
  return body;
}

/// Consecutive statements of ops of one kind with the same loops, none
/// reading another's result, are one loop nest (Trinity's grouped
/// "Q1,K1,V1" statements); the rest are joined by a right-associated seq.
unsigned Converter::joinStatements() {
  SmallVector<unsigned> roots;
  for (size_t i = 0; i < statements.size();) {
    SmallVector<const Stmt *> group{&statements[i]};
    llvm::SmallPtrSet<Operation *, 4> ops{statements[i].op};
    size_t j = i + 1;
    for (; j < statements.size(); ++j) {
      const Stmt &a = statements[i], &b = statements[j];
      if (b.op == a.op || b.kind != a.kind || b.loops != a.loops ||
          b.reduced != a.reduced)
        break;
      // The values b reads: its op's operands and those of an op
      // absorbed into its statement.
      SmallVector<Value> direct(b.op->getOperands());
      for (auto &[absorbed, into] : absorbedInto)
        if (into == b.op)
          direct.append(absorbed->getOperands().begin(),
                        absorbed->getOperands().end());
      SmallVector<Value> reads;
      for (Value v : direct)
        sources(v, reads);
      bool dependent = llvm::any_of(reads, [&](Value v) {
        return v.getDefiningOp() && ops.count(v.getDefiningOp());
      });
      if (dependent)
        break;
      group.push_back(&b);
      ops.insert(b.op);
    }
    roots.push_back(build(group));
    i = j;
  }
  return builder->seq(roots);
}

llvm::Expected<TileProgram> Converter::run() {
  Block &body = function.getBody().front();
  auto ret = cast<func::ReturnOp>(body.getTerminator());
  TileContext &context = *program.context;
  // Element type.
  auto typeOf = [](Value v) { return cast<ShapedType>(v.getType()); };
  for (BlockArgument arg : function.getArguments()) {
    if (!isa<RankedTensorType>(arg.getType()) ||
        !isa<FloatType>(typeOf(arg).getElementType()))
      return llvm::createStringError(
          "every argument must be a ranked tensor of floats");
    if (!program.elementType)
      program.elementType = typeOf(arg).getElementType();
  }
  // The cost model counts bytes of this type (found by mirage-fuzz).
  if (!program.elementType)
    return llvm::createStringError("the function has no tensor arguments");
  // Names: inputs, outputs, variables.
  for (auto [i, arg] : llvm::enumerate(function.getArguments())) {
    std::string name = "in" + std::to_string(i);
    names[arg] = name;
    program.inputs.push_back(name);
    if (llvm::Error e = context.addTensor(name, TensorKind::Input,
                                          shapeOf(arg)))
      return std::move(e);
  }
  for (auto [i, value] : llvm::enumerate(ret.getOperands())) {
    if (names.count(value))
      return llvm::createStringError(
          "result " + std::to_string(i) +
          " is an argument or another result; the tile IR writes every "
          "result once");
    std::string name = "out" + std::to_string(i);
    names[value] = name;
    program.outputs.push_back(name);
    if (llvm::Error e = context.addTensor(name, TensorKind::Output,
                                          shapeOf(value)))
      return std::move(e);
  }
  unsigned index = 0;
  for (Operation &op : body) {
    if (&op == ret.getOperation())
      continue;
    for (Value result : op.getResults()) {
      if (typeOf(result).getElementType() != program.elementType)
        return failAt(&op, "has another element type than the arguments");
      if (names.count(result))
        continue;
      std::string name = llvm::formatv("v{0}_{1}", index,
                                       op.getName().stripDialect())
                             .str();
      if (op.getNumResults() > 1)
        name += "_" + std::to_string(cast<OpResult>(result).getResultNumber());
      names[result] = name;
      if (llvm::Error e = context.addTensor(name, TensorKind::Variable,
                                            shapeOf(result)))
        return std::move(e);
    }
    ++index;
  }
  if (llvm::Error e = collectAxes())
    return std::move(e);
  assignModes();
  // A reshape whose only user is a transpose (or that is the only user of
  // one) is one statement with it, as in Trinity's head reshapes.
  llvm::DenseSet<Value> returned(ret.getOperands().begin(),
                                 ret.getOperands().end());
  for (Operation &op : body) {
    if (!isa<kn::ReshapeOp>(op))
      continue;
    Value r = op.getResult(0);
    if (r.hasOneUse() && !returned.count(r) &&
        isa<kn::TransposeOp>(*r.user_begin())) {
      absorbedInto[&op] = *r.user_begin();
      continue;
    }
    Operation *producer = op.getOperand(0).getDefiningOp();
    if (producer && isa<kn::TransposeOp>(producer) &&
        producer->getResult(0).hasOneUse() &&
        !returned.count(producer->getResult(0)) &&
        !absorbedInto.count(producer))
      absorbedInto[producer] = &op;
  }
  // Elementwise ops with one user (not returned) are computed where they
  // are used, as Trinity's frontend writes exp(Q K^T) as one statement.
  for (Operation &op : body) {
    auto semantics = dyn_cast<SemanticsOpInterface>(&op);
    if (!semantics || op.getNumResults() != 1 || absorbedInto.count(&op) ||
        !hasTileForm(semantics.getOpKind()))
      continue;
    Value r = op.getResult(0);
    if (r.hasOneUse() && !returned.count(r) &&
        !isa<func::ReturnOp>(*r.user_begin()))
      inlined[r] = &op;
  }
  // A value whose dims share an axis cannot be tiled per axis.
  for (Operation &op : body) {
    if (&op == ret.getOperation())
      continue;
    for (Value result : op.getResults()) {
      SmallVector<unsigned> seen;
      for (unsigned d = 0; d < shapeOf(result).size(); ++d) {
        unsigned cls = find(axis(result, d));
        if (vars[cls].mode != Mode::Full && llvm::is_contained(seen, cls))
          return failAt(&op, "has two dims on one axis (a square "
                             "contraction chain); the tile IR iterates each "
                             "axis once");
        seen.push_back(cls);
      }
    }
    if (absorbedInto.count(&op) ||
        (op.getNumResults() == 1 && inlined.count(op.getResult(0))))
      continue;
    if (llvm::Error e = emit(&op))
      return std::move(e);
  }
  joinStatements();
  program.term = builder->take();
  // The loop variables, in order of first appearance.
  llvm::StringSet<> used;
  for (const egraph::ENode &node : program.term.getNodes())
    if (node.op == context.getOps().loop)
      used.insert(context.getLanguage().getSymbolName(
          node.payload.getSymbol()));
  for (auto &[root, var] : vars)
    if (used.contains(var.name))
      program.vars.push_back(var);
  return std::move(program);
}

} // namespace

llvm::Expected<TileProgram>
mirage::tile::convertToTileProgram(func::FuncOp function,
                                   const KernelToTileOptions &options) {
  Converter converter(function, options);
  return converter.run();
}
