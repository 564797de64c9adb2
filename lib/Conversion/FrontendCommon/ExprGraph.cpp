//===- ExprGraph.cpp - Scalar expressions over tensors --------------------===//
//
// Hash-consed, normalized scalar expressions, the operators' scalar forms
// parsed from the operator records, and matching a form against an
// expression.
//
//===----------------------------------------------------------------------===//

#include "mirage/Conversion/Frontend/FrontendConversion.h"
#include "mirage/Semantics/Formula.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstring>

using namespace mlir;
using namespace mirage;
using namespace mirage::frontend;

//===----------------------------------------------------------------------===//
// Building
//===----------------------------------------------------------------------===//

std::string frontend::formatNumber(double value) {
  return llvm::formatv("{0}", llvm::format("%g", value)).str();
}

static uint64_t bitsOf(double value) {
  uint64_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}

ExprId ExprGraph::intern(ExprNode node) {
  std::vector<uint64_t> key = {static_cast<uint64_t>(node.kind),
                               node.index, bitsOf(node.value)};
  key.insert(key.end(), node.operands.begin(), node.operands.end());
  auto [it, inserted] = interned.try_emplace(std::move(key), nodes.size());
  if (inserted)
    nodes.push_back(std::move(node));
  return it->second;
}

ExprId ExprGraph::leaf(Value tensor, ArrayRef<int64_t> dims) {
  // Leaves are interned by tensor and dims; the node refers to its leaf.
  std::vector<uint64_t> key = {
      static_cast<uint64_t>(ExprKind::Leaf), ~0ull,
      reinterpret_cast<uint64_t>(tensor.getAsOpaquePointer())};
  for (int64_t dim : dims)
    key.push_back(static_cast<uint64_t>(dim));
  auto it = interned.find(key);
  if (it != interned.end())
    return it->second;
  ExprNode node{ExprKind::Leaf, {}, 0.0,
                static_cast<unsigned>(leaves.size()), nullptr};
  leaves.push_back({tensor, SmallVector<int64_t, 4>(dims)});
  ExprId id = nodes.size();
  nodes.push_back(node);
  interned.emplace(std::move(key), id);
  return id;
}

ExprId ExprGraph::identityLeaf(Value tensor) {
  auto type = cast<ShapedType>(tensor.getType());
  SmallVector<int64_t, 4> dims = llvm::to_vector<4>(llvm::seq<int64_t>(0, type.getRank()));
  return leaf(tensor, dims);
}

ExprId ExprGraph::constant(double value) {
  if (value == 0.0)
    value = 0.0; // one zero
  return intern({ExprKind::Const, {}, value, 0, nullptr});
}

ExprId ExprGraph::empty(Operation *origin) {
  return intern({ExprKind::Empty, {}, 0.0, 0, origin});
}

ExprId ExprGraph::acc(unsigned index) {
  return intern({ExprKind::Acc, {}, 0.0, index, nullptr});
}

ExprId ExprGraph::opaque(Operation *origin, const llvm::Twine &reason,
                         ArrayRef<ExprId> operands) {
  ExprNode node{ExprKind::Opaque,
                SmallVector<ExprId, 2>(operands.begin(), operands.end()), 0.0,
                static_cast<unsigned>(opaqueReasons.size()), origin};
  opaqueReasons.push_back(reason.str());
  return intern(std::move(node));
}

ExprId ExprGraph::makeCommutative(ExprKind kind, ArrayRef<ExprId> operands,
                                  Operation *origin) {
  bool isAdd = kind == ExprKind::Add;
  double folded = isAdd ? 0.0 : 1.0;
  bool hasConstant = false;
  SmallVector<ExprId, 4> terms;
  std::function<void(ExprId)> collect = [&](ExprId id) {
    const ExprNode &node = nodes[id];
    if (node.kind == kind) {
      SmallVector<ExprId, 4> inner(node.operands.begin(), node.operands.end());
      for (ExprId operand : inner)
        collect(operand);
      return;
    }
    if (node.kind == ExprKind::Const) {
      folded = isAdd ? folded + node.value : folded * node.value;
      hasConstant = true;
      return;
    }
    terms.push_back(id);
  };
  for (ExprId operand : operands)
    collect(operand);
  // A product with -1 is a negation: -(a * b), which neg() keeps canonical.
  if (!isAdd && hasConstant && folded == -1.0 && !terms.empty()) {
    ExprId product = makeCommutative(kind, terms, origin);
    return neg(product, origin);
  }
  bool identity = isAdd ? folded == 0.0 : folded == 1.0;
  if (hasConstant && !identity)
    terms.push_back(constant(folded));
  if (terms.empty())
    return constant(folded);
  if (terms.size() == 1)
    return terms.front();
  llvm::sort(terms);
  return intern({kind, SmallVector<ExprId, 2>(terms.begin(), terms.end()), 0.0, 0, origin});
}

ExprId ExprGraph::add(ArrayRef<ExprId> operands, Operation *origin) {
  return makeCommutative(ExprKind::Add, operands, origin);
}

ExprId ExprGraph::mul(ArrayRef<ExprId> operands, Operation *origin) {
  return makeCommutative(ExprKind::Mul, operands, origin);
}

ExprId ExprGraph::sub(ExprId a, ExprId b, Operation *origin) {
  return add({a, neg(b, origin)}, origin);
}

ExprId ExprGraph::div(ExprId a, ExprId b, Operation *origin) {
  return mul({a, recip(b, origin)}, origin);
}

ExprId ExprGraph::neg(ExprId a, Operation *origin) {
  ExprNode node = nodes[a]; // a copy: building moves the nodes
  if (node.kind == ExprKind::Const)
    return constant(-node.value);
  if (node.kind == ExprKind::Neg)
    return node.operands[0];
  if (node.kind == ExprKind::Mul) {
    // -(c * x) is (-c) * x.
    for (ExprId operand : node.operands)
      if (nodes[operand].kind == ExprKind::Const) {
        SmallVector<ExprId, 4> terms(node.operands.begin(), node.operands.end());
        for (ExprId &term : terms)
          if (term == operand)
            term = constant(-nodes[operand].value);
        return mul(terms, origin);
      }
  }
  return intern({ExprKind::Neg, {a}, 0.0, 0, origin});
}

ExprId ExprGraph::recip(ExprId a, Operation *origin) {
  const ExprNode &node = nodes[a];
  if (node.kind == ExprKind::Const && node.value != 0.0)
    return constant(1.0 / node.value);
  if (node.kind == ExprKind::Recip)
    return node.operands[0];
  return intern({ExprKind::Recip, {a}, 0.0, 0, origin});
}

ExprId ExprGraph::rsqrt(ExprId a, Operation *origin) {
  return recip(sqrt(a, origin), origin);
}

ExprId ExprGraph::exp(ExprId a, Operation *origin) {
  if (nodes[a].kind == ExprKind::Const)
    return constant(std::exp(nodes[a].value));
  return intern({ExprKind::Exp, {a}, 0.0, 0, origin});
}

ExprId ExprGraph::sqrt(ExprId a, Operation *origin) {
  if (nodes[a].kind == ExprKind::Const && nodes[a].value >= 0.0)
    return constant(std::sqrt(nodes[a].value));
  return intern({ExprKind::Sqrt, {a}, 0.0, 0, origin});
}

ExprId ExprGraph::erf(ExprId a, Operation *origin) {
  if (nodes[a].kind == ExprKind::Const)
    return constant(std::erf(nodes[a].value));
  return intern({ExprKind::Erf, {a}, 0.0, 0, origin});
}

ExprId ExprGraph::tanh(ExprId a, Operation *origin) {
  if (nodes[a].kind == ExprKind::Const)
    return constant(std::tanh(nodes[a].value));
  return intern({ExprKind::Tanh, {a}, 0.0, 0, origin});
}

ExprId ExprGraph::max(ExprId a, ExprId b, Operation *origin) {
  if (nodes[a].kind == ExprKind::Const && nodes[b].kind == ExprKind::Const)
    return constant(std::max(nodes[a].value, nodes[b].value));
  if (a == b)
    return a;
  if (b < a)
    std::swap(a, b);
  return intern({ExprKind::Max, {a, b}, 0.0, 0, origin});
}

ExprId ExprGraph::pow(ExprId a, ExprId b, Operation *origin) {
  const ExprNode &exponent = nodes[b];
  if (exponent.kind == ExprKind::Const) {
    double e = exponent.value;
    if (nodes[a].kind == ExprKind::Const)
      return constant(std::pow(nodes[a].value, e));
    if (e == 1.0)
      return a;
    if (e == 2.0)
      return mul({a, a}, origin);
    if (e == 0.5)
      return sqrt(a, origin);
    if (e == -1.0)
      return recip(a, origin);
    if (e == -0.5)
      return rsqrt(a, origin);
  }
  return intern({ExprKind::Pow, {a, b}, 0.0, 0, origin});
}

ExprId ExprGraph::build(ExprKind kind, ArrayRef<ExprId> operands,
                        Operation *origin) {
  switch (kind) {
  case ExprKind::Add:
    return add(operands, origin);
  case ExprKind::Mul:
    return mul(operands, origin);
  case ExprKind::Neg:
    return neg(operands[0], origin);
  case ExprKind::Recip:
    return recip(operands[0], origin);
  case ExprKind::Exp:
    return exp(operands[0], origin);
  case ExprKind::Sqrt:
    return sqrt(operands[0], origin);
  case ExprKind::Erf:
    return erf(operands[0], origin);
  case ExprKind::Tanh:
    return tanh(operands[0], origin);
  case ExprKind::Max:
    return max(operands[0], operands[1], origin);
  case ExprKind::Pow:
    return pow(operands[0], operands[1], origin);
  // Leaves, and the kinds of scalar forms only.
  case ExprKind::Leaf:
  case ExprKind::Const:
  case ExprKind::Empty:
  case ExprKind::Acc:
  case ExprKind::Opaque:
  case ExprKind::Var:
  case ExprKind::Scalar:
  case ExprKind::ReduceAdd:
  case ExprKind::ReduceMax:
    break;
  }
  llvm_unreachable("not a scalar operator");
}

ExprId ExprGraph::remap(ExprId expr, ArrayRef<int64_t> dimMap) {
  DenseMap<ExprId, ExprId> done;
  std::function<ExprId(ExprId)> visit = [&](ExprId id) -> ExprId {
    auto it = done.find(id);
    if (it != done.end())
      return it->second;
    ExprNode node = nodes[id];
    ExprId result = id;
    if (node.kind == ExprKind::Leaf) {
      ExprLeaf old = leaves[node.index];
      SmallVector<int64_t, 4> dims;
      for (int64_t dim : old.dims)
        dims.push_back(dim < 0 ? -1 : dimMap[dim]);
      result = leaf(old.tensor, dims);
    } else if (!node.operands.empty()) {
      SmallVector<ExprId, 4> operands;
      for (ExprId operand : node.operands)
        operands.push_back(visit(operand));
      result = rebuild(node, operands);
    }
    done[id] = result;
    return result;
  };
  return visit(expr);
}

ExprId ExprGraph::rebuild(const ExprNode &node, ArrayRef<ExprId> operands) {
  if (node.kind != ExprKind::Opaque)
    return build(node.kind, operands, node.origin);
  ExprNode copy = node;
  copy.operands.assign(operands.begin(), operands.end());
  return intern(std::move(copy));
}

ExprId ExprGraph::substitute(ExprId expr, ArrayRef<ExprId> accs) {
  DenseMap<ExprId, ExprId> done;
  std::function<ExprId(ExprId)> visit = [&](ExprId id) -> ExprId {
    auto it = done.find(id);
    if (it != done.end())
      return it->second;
    ExprNode node = nodes[id];
    ExprId result = id;
    if (node.kind == ExprKind::Acc) {
      result = accs[node.index];
    } else if (!node.operands.empty()) {
      SmallVector<ExprId, 4> operands;
      for (ExprId operand : node.operands)
        operands.push_back(visit(operand));
      result = rebuild(node, operands);
    }
    done[id] = result;
    return result;
  };
  return visit(expr);
}

bool ExprGraph::contains(ExprId expr, ExprKind kind) const {
  if (nodes[expr].kind == kind)
    return true;
  return llvm::any_of(nodes[expr].operands,
                      [&](ExprId operand) { return contains(operand, kind); });
}

std::optional<ExprId> ExprGraph::find(ExprId expr, ExprKind kind) const {
  for (ExprId operand : nodes[expr].operands)
    if (std::optional<ExprId> found = find(operand, kind))
      return found;
  if (nodes[expr].kind == kind)
    return expr;
  return std::nullopt;
}

SmallVector<int64_t, 4> ExprGraph::support(ExprId expr) const {
  SmallVector<int64_t, 4> dims;
  std::function<void(ExprId)> visit = [&](ExprId id) {
    const ExprNode &node = nodes[id];
    if (node.kind == ExprKind::Leaf) {
      const ExprLeaf &leaf = leaves[node.index];
      ArrayRef<int64_t> shape =
          cast<ShapedType>(leaf.tensor.getType()).getShape();
      for (auto [size, dim] : llvm::zip(shape, leaf.dims))
        if (size != 1 && dim >= 0)
          dims.push_back(dim);
    }
    for (ExprId operand : node.operands)
      visit(operand);
  };
  visit(expr);
  llvm::sort(dims);
  dims.erase(std::unique(dims.begin(), dims.end()), dims.end());
  return dims;
}

std::string ExprGraph::print(ExprId expr) const {
  const ExprNode &node = nodes[expr];
  auto join = [&](StringRef separator) {
    std::string text = "(";
    for (auto [i, operand] : llvm::enumerate(node.operands)) {
      if (i)
        text += separator;
      text += print(operand);
    }
    return text + ")";
  };
  switch (node.kind) {
  case ExprKind::Leaf:
    return llvm::formatv("t{0}", node.index).str();
  case ExprKind::Const:
    return formatNumber(node.value);
  case ExprKind::Empty:
    return "<uninitialized>";
  case ExprKind::Acc:
    return llvm::formatv("<output {0}>", node.index).str();
  case ExprKind::Opaque:
    return node.origin ? ("<" + node.origin->getName().getStringRef() + ">")
                             .str()
                       : "<?>";
  case ExprKind::Add:
    return join(" + ");
  case ExprKind::Mul:
    return join(" * ");
  case ExprKind::Neg:
    return "-" + print(node.operands[0]);
  case ExprKind::Recip:
    return "1 / " + print(node.operands[0]);
  case ExprKind::Exp:
    return "exp" + join(", ");
  case ExprKind::Sqrt:
    return "sqrt" + join(", ");
  case ExprKind::Erf:
    return "erf" + join(", ");
  case ExprKind::Tanh:
    return "tanh" + join(", ");
  case ExprKind::Max:
    return "max" + join(", ");
  case ExprKind::Pow:
    return "pow" + join(", ");
  // Only in scalar forms, never in a graph.
  case ExprKind::Var:
  case ExprKind::Scalar:
  case ExprKind::ReduceAdd:
  case ExprKind::ReduceMax:
    return "?";
  }
  llvm_unreachable("covered switch");
}

//===----------------------------------------------------------------------===//
// Scalar forms
//===----------------------------------------------------------------------===//

namespace {

/// The expression kind a core primitive matches.
ExprKind getExprKind(Primitive primitive) {
  switch (primitive) {
  case Primitive::Operand:
    return ExprKind::Var;
  case Primitive::Scalar:
    return ExprKind::Scalar;
  case Primitive::Constant:
    return ExprKind::Const;
  case Primitive::Add:
    return ExprKind::Add;
  case Primitive::Mul:
    return ExprKind::Mul;
  case Primitive::Neg:
    return ExprKind::Neg;
  case Primitive::Recip:
    return ExprKind::Recip;
  case Primitive::Exp:
    return ExprKind::Exp;
  case Primitive::Sqrt:
    return ExprKind::Sqrt;
  case Primitive::Erf:
    return ExprKind::Erf;
  case Primitive::Tanh:
    return ExprKind::Tanh;
  case Primitive::Max:
    return ExprKind::Max;
  case Primitive::Pow:
    return ExprKind::Pow;
  case Primitive::ReduceAdd:
    return ExprKind::ReduceAdd;
  case Primitive::ReduceMax:
    return ExprKind::ReduceMax;
  case Primitive::Logistic:
  case Primitive::NormalCdf:
    break;
  }
  llvm_unreachable("expanded formulas have core primitives only");
}

/// An expanded formula as a pattern.
ScalarForm toScalarForm(const Formula &formula) {
  ScalarForm pattern{
      getExprKind(formula.primitive), {}, formula.value, formula.index};
  for (const Formula &operand : formula.operands)
    pattern.operands.push_back(toScalarForm(operand));
  return pattern;
}

/// Sum and product patterns list their variable operands last, so that the
/// last one can take the terms the others leave.
void orderOperands(ScalarForm &pattern) {
  for (ScalarForm &operand : pattern.operands)
    orderOperands(operand);
  if (pattern.kind == ExprKind::Add || pattern.kind == ExprKind::Mul)
    std::stable_partition(
        pattern.operands.begin(), pattern.operands.end(),
        [](const ScalarForm &operand) { return operand.kind != ExprKind::Var; });
}

} // namespace

std::optional<ScalarForm> frontend::parseScalarForm(StringRef form,
                                                    std::string &error) {
  llvm::Expected<Formula> formula = parseFormula(form);
  if (!formula) {
    error = llvm::toString(formula.takeError());
    return std::nullopt;
  }
  ScalarForm pattern = toScalarForm(expandFormula(*formula));
  orderOperands(pattern);
  return pattern;
}

double frontend::evaluateScalarForm(const ScalarForm &pattern, ArrayRef<double> x,
                                    double s) {
  auto at = [&](unsigned i) {
    return evaluateScalarForm(pattern.operands[i], x, s);
  };
  switch (pattern.kind) {
  case ExprKind::Var:
    return x[pattern.index];
  case ExprKind::Scalar:
    return s;
  case ExprKind::Const:
    return pattern.value;
  case ExprKind::Add: {
    double sum = 0.0;
    for (unsigned i = 0; i < pattern.operands.size(); ++i)
      sum += at(i);
    return sum;
  }
  case ExprKind::Mul: {
    double product = 1.0;
    for (unsigned i = 0; i < pattern.operands.size(); ++i)
      product *= at(i);
    return product;
  }
  case ExprKind::Neg:
    return -at(0);
  case ExprKind::Recip:
    return 1.0 / at(0);
  case ExprKind::Exp:
    return std::exp(at(0));
  case ExprKind::Sqrt:
    return std::sqrt(at(0));
  case ExprKind::Erf:
    return std::erf(at(0));
  case ExprKind::Tanh:
    return std::tanh(at(0));
  case ExprKind::Max:
    return std::max(at(0), at(1));
  case ExprKind::Pow:
    return std::pow(at(0), at(1));
  // Graph leaves are not in scalar forms; a reduction has no value at one
  // element.
  case ExprKind::Leaf:
  case ExprKind::Empty:
  case ExprKind::Acc:
  case ExprKind::Opaque:
  case ExprKind::ReduceAdd:
  case ExprKind::ReduceMax:
    return std::nan("");
  }
  llvm_unreachable("covered switch");
}

namespace {

struct Forms {
  SmallVector<std::pair<OpKind, ScalarForm>> elementwise;
  std::optional<OpKind> reduceAdd, reduceMax;
  std::optional<std::pair<OpKind, ScalarForm>> contraction;

  Forms() {
    for (unsigned i = 0; i < kNumOpKinds; ++i) {
      auto kind = static_cast<OpKind>(i);
      const Formula *formula = getOpFormula(kind);
      if (!formula)
        continue;
      ScalarForm pattern = toScalarForm(expandFormula(*formula));
      orderOperands(pattern);
      if (pattern.kind == ExprKind::ReduceAdd ||
          pattern.kind == ExprKind::ReduceMax) {
        const ScalarForm &inner = pattern.operands[0];
        // The first operator with the form: reduce_sum before accum_sum.
        std::optional<OpKind> &reduction =
            pattern.kind == ExprKind::ReduceAdd ? reduceAdd : reduceMax;
        if (inner.kind == ExprKind::Var && !reduction)
          reduction = kind;
        else if (pattern.kind == ExprKind::ReduceAdd &&
                 inner.kind == ExprKind::Mul)
          contraction = {kind, inner};
      } else {
        elementwise.push_back({kind, std::move(pattern)});
      }
    }
  }
};

const Forms &getForms() {
  static const Forms forms;
  return forms;
}

} // namespace

ArrayRef<std::pair<OpKind, ScalarForm>> frontend::getElementwiseForms() {
  return getForms().elementwise;
}

std::optional<OpKind> frontend::getReductionOperator(ExprKind reduction) {
  return reduction == ExprKind::ReduceAdd ? getForms().reduceAdd
                                          : getForms().reduceMax;
}

std::optional<std::pair<OpKind, const ScalarForm *>>
frontend::getContractionOperator() {
  const auto &contraction = getForms().contraction;
  if (!contraction)
    return std::nullopt;
  return std::make_pair(contraction->first, &contraction->second);
}

//===----------------------------------------------------------------------===//
// Matching
//===----------------------------------------------------------------------===//

namespace {

constexpr ExprId kUnbound = ~0u;
/// Sums and products longer than this bind a variable operand to their
/// first term only.
constexpr size_t kMaxFreeTerms = 6;

struct Matcher {
  ExprGraph &graph;
  double tolerance;

  bool closeEnough(double a, double b) const {
    if (a == b)
      return true;
    if (!std::isfinite(a) || !std::isfinite(b))
      return false;
    return std::fabs(a - b) <= tolerance * std::max(std::fabs(a),
                                                    std::fabs(b));
  }

  using Continue = llvm::function_ref<void(const Binding &)>;

  void match(const ScalarForm &pattern, ExprId expr, const Binding &binding,
             Continue next) {
    // Copies: matching may add nodes, which moves them.
    ExprNode node = graph.node(expr);
    switch (pattern.kind) {
    case ExprKind::Var: {
      if (node.kind == ExprKind::Const)
        return; // operands are tensors
      Binding bound = binding;
      if (bound.operands.size() <= pattern.index)
        bound.operands.resize(pattern.index + 1, kUnbound);
      ExprId &slot = bound.operands[pattern.index];
      if (slot != kUnbound && slot != expr)
        return;
      slot = expr;
      next(bound);
      return;
    }
    case ExprKind::Scalar: {
      if (node.kind != ExprKind::Const)
        return;
      if (binding.scalar && !closeEnough(*binding.scalar, node.value))
        return;
      Binding bound = binding;
      bound.scalar = node.value;
      next(bound);
      return;
    }
    case ExprKind::Const:
      if (node.kind == ExprKind::Const && closeEnough(pattern.value,
                                                      node.value))
        next(binding);
      return;
    case ExprKind::Add:
    case ExprKind::Mul:
      if (node.kind != pattern.kind)
        return;
      matchTerms(pattern, 0, node.operands, binding, next);
      return;
    case ExprKind::Max:
      if (node.kind != ExprKind::Max)
        return;
      for (unsigned swap = 0; swap < 2; ++swap) {
        ExprId first = node.operands[swap], second = node.operands[1 - swap];
        match(pattern.operands[0], first, binding, [&](const Binding &bound) {
          match(pattern.operands[1], second, bound, next);
        });
      }
      return;
    // The other operators match a node of their kind, operands in order
    // (graph leaves do not occur in scalar forms).
    case ExprKind::Leaf:
    case ExprKind::Empty:
    case ExprKind::Acc:
    case ExprKind::Opaque:
    case ExprKind::Neg:
    case ExprKind::Recip:
    case ExprKind::Exp:
    case ExprKind::Sqrt:
    case ExprKind::Erf:
    case ExprKind::Tanh:
    case ExprKind::Pow:
    case ExprKind::ReduceAdd:
    case ExprKind::ReduceMax:
      if (node.kind != pattern.kind ||
          node.operands.size() != pattern.operands.size())
        return;
      matchSequence(pattern, 0, node.operands, binding, next);
      return;
    }
  }

  void matchSequence(const ScalarForm &pattern, unsigned index,
                     ArrayRef<ExprId> operands, const Binding &binding,
                     Continue next) {
    if (index == pattern.operands.size()) {
      next(binding);
      return;
    }
    match(pattern.operands[index], operands[index], binding,
          [&](const Binding &bound) {
            matchSequence(pattern, index + 1, operands, bound, next);
          });
  }

  /// Matches pattern operands [index, end) of a sum or product against the
  /// terms `remaining`; the last operand, when a variable, takes all terms
  /// left (as a sum or product of them).
  void matchTerms(const ScalarForm &pattern, unsigned index,
                  SmallVector<ExprId, 2> remaining, const Binding &binding,
                  Continue next) {
    unsigned count = pattern.operands.size();
    if (index == count) {
      if (remaining.empty())
        next(binding);
      return;
    }
    if (remaining.empty())
      return;
    const ScalarForm &operand = pattern.operands[index];
    if (index + 1 == count && operand.kind == ExprKind::Var) {
      ExprId rest = remaining.size() == 1
                        ? remaining.front()
                        : graph.build(pattern.kind, remaining, nullptr);
      match(operand, rest, binding, next);
      return;
    }
    // A variable takes any one term, except in long sums and products,
    // where it takes the first: trying every term there would try every
    // subset of the terms (a chain of residual additions folded into one
    // sum), and any grouping of plain terms costs the same operators.
    unsigned candidates = remaining.size();
    if (operand.kind == ExprKind::Var && remaining.size() > kMaxFreeTerms)
      candidates = 1;
    for (unsigned i = 0; i < candidates; ++i) {
      if (llvm::is_contained(ArrayRef<ExprId>(remaining).take_front(i),
                             remaining[i]))
        continue;
      SmallVector<ExprId, 2> rest = remaining;
      rest.erase(rest.begin() + i);
      match(operand, remaining[i], binding, [&](const Binding &bound) {
        matchTerms(pattern, index + 1, rest, bound, next);
      });
    }
  }
};

/// Relative tolerance for constants: two units in the last place.
double toleranceFor(Type elementType) {
  if (!elementType || !isa<FloatType>(elementType))
    return 0.0;
  unsigned mantissa = cast<FloatType>(elementType).getFPMantissaWidth();
  // getFPMantissaWidth counts the implicit bit.
  return std::ldexp(2.0, -static_cast<int>(mantissa - 1));
}

} // namespace

void frontend::matchPattern(ExprGraph &graph, const ScalarForm &pattern,
                            ExprId expr, Type elementType,
                            llvm::function_ref<void(const Binding &)> found) {
  Matcher matcher{graph, toleranceFor(elementType)};
  matcher.match(pattern, expr, Binding{}, found);
}
