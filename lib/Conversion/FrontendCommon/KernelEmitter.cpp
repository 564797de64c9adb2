//===- KernelEmitter.cpp - Expressions to kn ops --------------------------===//
//
// Covers an expression with the scalar forms of kn operators (the fewest
// ops), then emits them; lays tensors out for the dims a value reads.
//
//===----------------------------------------------------------------------===//

#include "mirage/Conversion/Frontend/FrontendConversion.h"

#include "mirage/Dialect/Kernel/IR/Kernel.h"
#include "mirage/IR/SemanticsOpInterface.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/FormatVariadic.h"

#include <limits>

using namespace mlir;
using namespace mirage;
using namespace mirage::frontend;

//===----------------------------------------------------------------------===//
// Single ops
//===----------------------------------------------------------------------===//

bool frontend::isKernelTensorType(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape() || tensor.getEncoding())
    return false;
  if (llvm::any_of(tensor.getShape(), [](int64_t size) { return size <= 0; }))
    return false;
  Type element = tensor.getElementType();
  return element.isF16() || element.isBF16() || element.isF32();
}

FailureOr<Value> KernelEmitter::create(OpKind kind, const OpParams &params,
                                       ValueRange operands, Location loc,
                                       Refusal &why) {
  SmallVector<ArrayRef<int64_t>, 2> shapes;
  for (Value operand : operands)
    shapes.push_back(cast<ShapedType>(operand.getType()).getShape());
  auto inferred = inferShapes(kind, shapes, params);
  if (!inferred) {
    why.message = ("kn." + getOpInfo(kind).name + ": ").str() +
                  toString(inferred.takeError());
    return failure();
  }
  Type element = cast<ShapedType>(operands[0].getType()).getElementType();
  SmallVector<Type, 1> types;
  for (const Shape &shape : *inferred)
    types.push_back(RankedTensorType::get(shape, element));
  FailureOr<Operation *> op = createOperatorOp<kn::KernelDialect>(
      builder, loc, kind, operands, types,
      getOpAttributes(kind, params, builder));
  if (failed(op)) {
    why.message = ("no kn op for operator " + getOpInfo(kind).name).str();
    return failure();
  }
  return (*op)->getResult(0);
}

FailureOr<SmallVector<Value>> KernelEmitter::split(Value input, int64_t dim,
                                                   ArrayRef<int64_t> sizes,
                                                   Location loc,
                                                   Refusal &why) {
  OpParams params;
  params.dim = dim;
  params.ints.assign(sizes.begin(), sizes.end());
  auto inferred = inferShapes(
      OpKind::Split, {cast<ShapedType>(input.getType()).getShape()}, params);
  if (!inferred) {
    why.message = "kn.split: " + toString(inferred.takeError());
    return failure();
  }
  Type element = cast<ShapedType>(input.getType()).getElementType();
  SmallVector<Type> types;
  for (const Shape &shape : *inferred)
    types.push_back(RankedTensorType::get(shape, element));
  auto op = kn::SplitOp::create(builder, loc, types, input,
                                builder.getI64IntegerAttr(dim),
                                builder.getDenseI64ArrayAttr(sizes));
  return SmallVector<Value>(op->getResults());
}

Value KernelEmitter::reshape(Value input, ArrayRef<int64_t> shape,
                             Location loc) {
  auto type = cast<RankedTensorType>(input.getType());
  if (type.getShape() == shape)
    return input;
  // Reshapes compose: reshape the first one's input (the first, if now
  // unused, is erased with the conversion's other dead ops).
  Operation *producer = input.getDefiningOp();
  if (auto previous = dyn_cast_or_null<kn::ReshapeOp>(producer))
    return reshape(previous.getInput(), shape, loc);
  return kn::ReshapeOp::create(
      builder, loc, RankedTensorType::get(shape, type.getElementType()), input);
}

Value KernelEmitter::transpose(Value input, ArrayRef<int64_t> perm,
                               Location loc) {
  OpParams params;
  params.ints.assign(perm.begin(), perm.end());
  Refusal why;
  FailureOr<Value> result = create(OpKind::Transpose, params, input, loc, why);
  if (failed(result))
    llvm::report_fatal_error("frontend conversion: " + llvm::Twine(why.message));
  return *result;
}

//===----------------------------------------------------------------------===//
// Layouts
//===----------------------------------------------------------------------===//

namespace {

/// The non-unit dims of a tensor and the position in `order` of the space
/// dim each follows.
struct Placement {
  SmallVector<int64_t, 4> dims;      // tensor dims of size > 1
  SmallVector<int64_t, 4> positions; // their positions in `order`
  SmallVector<int64_t, 4> shape;     // the arranged shape
};

Placement place(ArrayRef<int64_t> shape, ArrayRef<int64_t> dims,
                ArrayRef<int64_t> order) {
  Placement placement;
  placement.shape.assign(order.size(), 1);
  for (auto [i, size] : llvm::enumerate(shape)) {
    if (size == 1)
      continue;
    const int64_t *at = llvm::find(order, dims[i]);
    if (dims[i] < 0 || at == order.end())
      llvm::report_fatal_error("frontend conversion: a tensor dim of size " +
                               llvm::Twine(size) +
                               " follows no dim of the layout");
    int64_t position = at - order.begin();
    placement.dims.push_back(i);
    placement.positions.push_back(position);
    placement.shape[position] = size;
  }
  return placement;
}

} // namespace

bool KernelEmitter::needsTranspose(RankedTensorType type, ArrayRef<int64_t> dims,
                                   ArrayRef<int64_t> order) {
  Placement placement = place(type.getShape(), dims, order);
  return !llvm::is_sorted(placement.positions);
}

Value KernelEmitter::arrange(Value tensor, ArrayRef<int64_t> dims,
                             ArrayRef<int64_t> order, Location loc) {
  auto type = cast<RankedTensorType>(tensor.getType());
  Placement placement = place(type.getShape(), dims, order);
  if (llvm::is_sorted(placement.positions))
    return reshape(tensor, placement.shape, loc);
  SmallVector<int64_t, 4> squeezed;
  for (int64_t dim : placement.dims)
    squeezed.push_back(type.getDimSize(dim));
  Value compact = reshape(tensor, squeezed, loc);
  SmallVector<int64_t, 4> perm =
      llvm::to_vector<4>(llvm::seq<int64_t>(0, squeezed.size()));
  llvm::stable_sort(perm, [&](int64_t a, int64_t b) {
    return placement.positions[a] < placement.positions[b];
  });
  Value permuted = transpose(compact, perm, loc);
  return reshape(permuted, placement.shape, loc);
}

//===----------------------------------------------------------------------===//
// Covering an expression with operator forms
//===----------------------------------------------------------------------===//

struct KernelEmitter::Cover {
  struct Choice {
    bool feasible = false;
    double cost = std::numeric_limits<double>::infinity();
    OpKind kind = OpKind::Add;
    Binding binding;
    Refusal why;
  };

  ExprGraph &graph;
  Type elementType;
  std::map<ExprId, Choice> memo;

  static std::string from(Operation *origin) {
    if (!origin)
      return "";
    std::string text = ("(from '" + origin->getName().getStringRef() + "'")
                           .str();
    Operation *parent = origin->getParentOp();
    if (parent && !isa<func::FuncOp>(parent))
      text += (" in the body of '" + parent->getName().getStringRef() + "'")
                  .str();
    return " " + text + ")";
  }

  Refusal describe(ExprId id) {
    ExprNode node = graph.node(id);
    Refusal why;
    why.at = node.origin;
    std::string origin = from(node.origin);
    switch (node.kind) {
    case ExprKind::Const:
      why.message = llvm::formatv(
          "a constant tensor ({0}){1} is not a kn value: constants convert "
          "only as the scalar of kn.mul_scalar or kn.add_scalar",
          formatNumber(node.value), origin);
      break;
    case ExprKind::Empty:
      why.message = "it reads the uninitialized contents of a tensor" + origin;
      break;
    case ExprKind::Acc:
      why.message = "it reads the output it is reducing into";
      break;
    case ExprKind::Opaque:
      why.message = graph.getOpaqueReason(id);
      break;
    case ExprKind::Recip:
      why.message = "1 / x" + origin +
                    " is no kn operator: kn.div needs a tensor to divide, so "
                    "a reciprocal converts only where it multiplies another "
                    "tensor";
      break;
    case ExprKind::Erf:
      why.message = "erf" + origin +
                    " is part of a kn operator only in the exact GELU, "
                    "0.5 * x * (1 + erf(x / sqrt(2)))";
      break;
    case ExprKind::Max:
      why.message = "the maximum of two values" + origin +
                    " is a kn operator only between two tensors (kn.maximum) "
                    "or a tensor and 0 (kn.relu)";
      break;
    case ExprKind::Pow:
      if (graph.node(node.operands[1]).kind == ExprKind::Const)
        why.message = llvm::formatv(
            "pow with the constant exponent {0}{1} is no kn operator: kn.pow "
            "takes a tensor exponent (the exponents 1, 2, 0.5, -1 and -0.5 "
            "convert)",
            formatNumber(graph.node(node.operands[1]).value), origin);
      else
        why.message = "pow with a constant base" + origin +
                      " is no kn operator: kn.pow takes a tensor base";
      break;
    // Operators some kn operator computes, but none did here (and the kinds
    // of scalar forms only, which graphs do not hold): named as they are.
    case ExprKind::Leaf:
    case ExprKind::Add:
    case ExprKind::Mul:
    case ExprKind::Neg:
    case ExprKind::Exp:
    case ExprKind::Sqrt:
    case ExprKind::Tanh:
    case ExprKind::Var:
    case ExprKind::Scalar:
    case ExprKind::ReduceAdd:
    case ExprKind::ReduceMax:
      why.message = "no kn operator computes " + graph.print(id) + origin;
      break;
    }
    return why;
  }

  const Choice &solve(ExprId id) {
    auto it = memo.find(id);
    if (it != memo.end())
      return it->second;
    // Guards against cycles (none are expected: bindings are smaller).
    memo[id].why = describe(id);
    Choice best;
    ExprNode node = graph.node(id);
    switch (node.kind) {
    case ExprKind::Leaf: {
      Type element = cast<ShapedType>(graph.getLeaf(id).tensor.getType())
                         .getElementType();
      if (element != elementType) {
        std::string text;
        llvm::raw_string_ostream os(text);
        os << "it mixes element types (" << element << " and " << elementType
           << "); kn ops keep one element type";
        best.why.message = os.str();
      } else {
        best.feasible = true;
        best.cost = 0;
      }
      break;
    }
    case ExprKind::Const:
    case ExprKind::Empty:
    case ExprKind::Acc:
    case ExprKind::Opaque:
      best.why = describe(id);
      break;
    // Scalar operators: covered by the kn operators whose scalar forms
    // match here (Var, Scalar and the reductions occur only in scalar forms,
    // never in graphs).
    case ExprKind::Add:
    case ExprKind::Mul:
    case ExprKind::Neg:
    case ExprKind::Recip:
    case ExprKind::Exp:
    case ExprKind::Sqrt:
    case ExprKind::Erf:
    case ExprKind::Tanh:
    case ExprKind::Max:
    case ExprKind::Pow:
    case ExprKind::Var:
    case ExprKind::Scalar:
    case ExprKind::ReduceAdd:
    case ExprKind::ReduceMax: {
      std::optional<Refusal> childFailure;
      for (const auto &form : getElementwiseForms()) {
        OpKind kind = form.first;
        matchPattern(graph, form.second, id, elementType,
                     [&](const Binding &b) {
          double cost = 1;
          for (ExprId operand : b.operands) {
            const Choice &choice = solve(operand);
            if (!choice.feasible) {
              if (!childFailure)
                childFailure = choice.why;
              return;
            }
            cost += choice.cost;
          }
          if (cost < best.cost) {
            best.feasible = true;
            best.cost = cost;
            best.kind = kind;
            best.binding = b;
          }
        });
      }
      if (!best.feasible)
        best.why = childFailure ? *childFailure : describe(id);
      break;
    }
    }
    return memo[id] = std::move(best);
  }
};

FailureOr<Value> KernelEmitter::emit(ExprId expr, unsigned rank,
                                     Type elementType, Location loc,
                                     Refusal &why) {
  Cover cover{graph, elementType, {}};
  const Cover::Choice &root = cover.solve(expr);
  if (!root.feasible) {
    why = root.why;
    return failure();
  }
  SmallVector<int64_t, 4> identity =
      llvm::to_vector<4>(llvm::seq<int64_t>(0, rank));
  DenseMap<ExprId, Value> emitted;
  std::function<Value(ExprId)> visit = [&](ExprId id) -> Value {
    auto it = emitted.find(id);
    if (it != emitted.end())
      return it->second;
    Value result;
    if (graph.node(id).kind == ExprKind::Leaf) {
      ExprLeaf leaf = graph.getLeaf(id);
      // A leaf whose dims are the value's last ones broadcasts as it is.
      int64_t leafRank = leaf.dims.size();
      bool suffix = leafRank <= rank;
      for (int64_t i = 0; suffix && i < leafRank; ++i)
        suffix = leaf.dims[i] == static_cast<int64_t>(rank) - leafRank + i;
      result = suffix ? leaf.tensor
                      : arrange(leaf.tensor, leaf.dims, identity, loc);
    } else {
      const Cover::Choice &choice = cover.memo.at(id);
      SmallVector<Value, 2> operands;
      for (ExprId operand : choice.binding.operands)
        operands.push_back(visit(operand));
      OpParams params;
      params.scalar = choice.binding.scalar.value_or(0.0);
      FailureOr<Value> op = create(choice.kind, params, operands, loc, why);
      if (failed(op))
        return nullptr;
      result = *op;
    }
    emitted[id] = result;
    return result;
  };
  Value result = visit(expr);
  if (!result)
    return failure();
  auto type = cast<RankedTensorType>(result.getType());
  if (type.getRank() < rank) {
    SmallVector<int64_t, 4> dims =
      llvm::to_vector<4>(llvm::seq<int64_t>(rank - type.getRank(), rank));
    result = arrange(result, dims, identity, loc);
  }
  return result;
}
