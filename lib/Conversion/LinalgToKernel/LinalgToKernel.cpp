//===- LinalgToKernel.cpp - convert-linalg-to-kn --------------------------===//
//
// linalg on tensors (and the tensor ops around it) into kernel graphs. Every
// structured op is read through its indexing maps and its body: a body is a
// scalar expression over the operands' elements in the op's loop space; a
// parallel op's result is that expression, a reduction's is a kn reduction
// or matmul of it. The kn operators are found by the operator records'
// scalar forms (FrontendConversion.h).
//
//===----------------------------------------------------------------------===//

#include "mirage/Conversion/Frontend/FrontendConversion.h"
#include "mirage/Conversion/Frontend/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>

namespace mirage {
#define GEN_PASS_DEF_CONVERTLINALGTOKERNEL
#include "mirage/Conversion/Frontend/Passes.h.inc"
} // namespace mirage

using namespace mlir;
using namespace mirage;
using namespace mirage::frontend;

namespace {

template <typename T>
std::string str(const T &value) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << value;
  return os.str();
}

LogicalResult refuse(Refusal &why, const Twine &message,
                     Operation *at = nullptr) {
  why.message = message.str();
  why.at = at;
  return failure();
}

/// For each operand dim, the loop it follows, or -1 where the map reads
/// index 0 of a size-1 dim.
FailureOr<SmallVector<int64_t, 4>> readIndexingMap(AffineMap map,
                                                   ArrayRef<int64_t> shape,
                                                   unsigned operandNumber,
                                                   Refusal &why) {
  SmallVector<int64_t, 4> loops;
  for (auto [i, expr] : llvm::enumerate(map.getResults())) {
    if (auto dim = dyn_cast<AffineDimExpr>(expr)) {
      if (llvm::is_contained(loops, dim.getPosition())) {
        (void)refuse(why, "operand #" + Twine(operandNumber) +
                              " is read through " + str(map) +
                              ", which reads one loop twice (a diagonal)");
        return failure();
      }
      loops.push_back(dim.getPosition());
      continue;
    }
    auto constant = dyn_cast<AffineConstantExpr>(expr);
    if (constant && constant.getValue() == 0 && shape[i] == 1) {
      loops.push_back(-1);
      continue;
    }
    (void)refuse(why, "operand #" + Twine(operandNumber) +
                          " is read through " + str(map) +
                          ", which is not a projection of the loops (each "
                          "index a loop, or 0 on a size-1 dim)");
    return failure();
  }
  return loops;
}

class LinalgConversion : public FrontendConversion {
public:
  using FrontendConversion::FrontendConversion;

protected:
  bool owns(Operation *op) override {
    StringRef dialect = op->getName().getDialectNamespace();
    if (dialect == "linalg" || dialect == "tensor")
      return true;
    return isa<arith::ConstantOp>(op) &&
           isa<TensorType>(op->getResult(0).getType());
  }

  bool readsExpressions(Operation *user) override {
    return isa<linalg::LinalgOp>(user);
  }

  LogicalResult convert(Operation *op, Refusal &why) override;

private:
  LogicalResult convertStructured(linalg::LinalgOp op, Refusal &why);
  LogicalResult convertReduction(linalg::LinalgOp op, unsigned result,
                                 ExprId body, ArrayRef<int64_t> loops,
                                 ArrayRef<int64_t> reductionLoops,
                                 ArrayRef<int64_t> outputLoops, Refusal &why);
  /// The body's yielded values as expressions, given its arguments'.
  SmallVector<ExprId> translateBody(linalg::LinalgOp op,
                                    ArrayRef<ExprId> arguments);
  ExprId translateBodyOp(Operation *op, ArrayRef<ExprId> operands);
  /// `expr` (a value in `rank` loops) laid out with dim p following loop
  /// `order[p]`.
  FailureOr<Value> layOut(ExprId expr, unsigned rank,
                          ArrayRef<int64_t> order, Type elementType,
                          Location loc, Refusal &why);
  /// Transposes laying `expr` out in `order` takes.
  unsigned countTransposes(ExprId expr, ArrayRef<int64_t> order);

  LogicalResult convertReshape(Value source, Value result, Refusal &why);
  LogicalResult convertSlice(tensor::ExtractSliceOp op, Refusal &why);
  LogicalResult convertConcat(tensor::ConcatOp op, Refusal &why);
};

//===----------------------------------------------------------------------===//
// Bodies
//===----------------------------------------------------------------------===//

ExprId LinalgConversion::translateBodyOp(Operation *op,
                                         ArrayRef<ExprId> operands) {
  auto binary = [&](auto build) { return build(operands[0], operands[1]); };
  return llvm::TypeSwitch<Operation *, ExprId>(op)
      .Case([&](arith::AddFOp) { return graph.add(operands, op); })
      .Case([&](arith::MulFOp) { return graph.mul(operands, op); })
      .Case([&](arith::SubFOp) {
        return binary([&](ExprId a, ExprId b) { return graph.sub(a, b, op); });
      })
      .Case([&](arith::DivFOp) {
        return binary([&](ExprId a, ExprId b) { return graph.div(a, b, op); });
      })
      .Case([&](arith::NegFOp) { return graph.neg(operands[0], op); })
      .Case<arith::MaximumFOp, arith::MaxNumFOp>(
          [&](Operation *) { return graph.max(operands[0], operands[1], op); })
      .Case([&](math::ExpOp) { return graph.exp(operands[0], op); })
      .Case([&](math::SqrtOp) { return graph.sqrt(operands[0], op); })
      .Case([&](math::RsqrtOp) { return graph.rsqrt(operands[0], op); })
      .Case([&](math::ErfOp) { return graph.erf(operands[0], op); })
      .Case([&](math::TanhOp) { return graph.tanh(operands[0], op); })
      .Case(
          [&](math::PowFOp) { return graph.pow(operands[0], operands[1], op); })
      .Case([&](arith::ConstantOp constant) {
        if (auto value = dyn_cast<FloatAttr>(constant.getValue()))
          return graph.constant(value.getValueAsDouble());
        return graph.opaque(op, "the body's constant " +
                                    str(constant.getValue()) +
                                    " is not a floating-point number");
      })
      .Case([&](linalg::IndexOp) {
        return graph.opaque(op, "the body reads the iteration index "
                                "(linalg.index), which no kn operator does");
      })
      .Case<arith::ExtFOp, arith::TruncFOp>([&](Operation *) {
        return graph.opaque(
            op, "the body converts the element type ('" +
                    op->getName().getStringRef() + "' from " +
                    str(op->getOperand(0).getType()) + " to " +
                    str(op->getResult(0).getType()) +
                    "); kn ops keep one element type",
            operands);
      })
      .Default([&](Operation *) {
        return graph.opaque(op,
                            "the body's '" + op->getName().getStringRef() +
                                "' has no kn operator",
                            operands);
      });
}

SmallVector<ExprId> LinalgConversion::translateBody(linalg::LinalgOp op,
                                                    ArrayRef<ExprId> arguments) {
  Block *block = op.getBlock();
  DenseMap<Value, ExprId> values;
  for (auto [argument, expr] : llvm::zip(block->getArguments(), arguments))
    values[argument] = expr;
  auto lookup = [&](Value value) -> ExprId {
    auto it = values.find(value);
    if (it != values.end())
      return it->second;
    if (auto constant = value.getDefiningOp<arith::ConstantOp>())
      if (auto number = dyn_cast<FloatAttr>(constant.getValue()))
        return graph.constant(number.getValueAsDouble());
    return graph.opaque(value.getDefiningOp() ? value.getDefiningOp()
                                              : op.getOperation(),
                        "the body reads a value of type " +
                            str(value.getType()) +
                            " defined outside it, which is not a constant");
  };
  for (Operation &inner : block->without_terminator()) {
    SmallVector<ExprId, 2> operands;
    for (Value operand : inner.getOperands())
      operands.push_back(lookup(operand));
    ExprId expr = inner.getNumResults() == 1
                      ? translateBodyOp(&inner, operands)
                      : graph.opaque(&inner,
                                     "the body's '" +
                                         inner.getName().getStringRef() +
                                         "' has no kn operator",
                                     operands);
    for (Value result : inner.getResults())
      values[result] = expr;
  }
  SmallVector<ExprId> yields;
  for (Value yielded : block->getTerminator()->getOperands())
    yields.push_back(lookup(yielded));
  return yields;
}

//===----------------------------------------------------------------------===//
// Structured ops
//===----------------------------------------------------------------------===//

LogicalResult LinalgConversion::convertStructured(linalg::LinalgOp op,
                                                  Refusal &why) {
  Operation *raw = op.getOperation();
  if (!op.hasPureTensorSemantics())
    return refuse(why, "it works on memrefs; only linalg on tensors converts");
  for (Value result : raw->getResults())
    if (!isKernelTensorType(result.getType()))
      return refuse(why, "its result type " + str(result.getType()) +
                             " is no kn tensor type (static shape, f16, "
                             "bf16 or f32)");
  SmallVector<int64_t> loops = op.getStaticLoopRanges();
  if (llvm::any_of(loops, ShapedType::isDynamic))
    return refuse(why, "its loop ranges are not static");
  SmallVector<int64_t> reductionLoops;
  for (auto [i, iterator] : llvm::enumerate(op.getIteratorTypesArray()))
    if (iterator == utils::IteratorType::reduction)
      reductionLoops.push_back(i);

  unsigned numInputs = op.getNumDpsInputs();
  Block *block = op.getBlock();
  SmallVector<ExprId> arguments;
  SmallVector<SmallVector<int64_t, 4>> operandLoops(raw->getNumOperands());
  for (OpOperand &operand : raw->getOpOperands()) {
    unsigned number = operand.getOperandNumber();
    auto type = dyn_cast<RankedTensorType>(operand.get().getType());
    if (type) {
      FailureOr<SmallVector<int64_t, 4>> read = readIndexingMap(
          op.getMatchingIndexingMap(&operand), type.getShape(), number, why);
      if (failed(read))
        return failure();
      operandLoops[number] = std::move(*read);
    }
    if (number >= block->getNumArguments())
      continue;
    if (!type) {
      Value scalar = operand.get();
      auto constant = scalar.getDefiningOp<arith::ConstantOp>();
      auto floatValue = constant ? dyn_cast<FloatAttr>(constant.getValue())
                                 : FloatAttr();
      arguments.push_back(
          floatValue ? graph.constant(floatValue.getValueAsDouble())
                 : graph.opaque(raw, "it reads the scalar operand of type " +
                                         str(scalar.getType()) +
                                         ", which is not a constant"));
    } else if (number >= numInputs && !reductionLoops.empty()) {
      arguments.push_back(graph.acc(number - numInputs));
    } else {
      arguments.push_back(
          graph.remap(expressionOf(operand.get()), operandLoops[number]));
    }
  }
  SmallVector<ExprId> yields = translateBody(op, arguments);
  // What no kn operator computes is refused here, not where it is used.
  for (ExprId yielded : yields)
    if (std::optional<ExprId> opaque = graph.find(yielded, ExprKind::Opaque))
      return refuse(why, graph.getOpaqueReason(*opaque),
                    graph.node(*opaque).origin);

  for (unsigned result = 0; result < raw->getNumResults(); ++result) {
    ArrayRef<int64_t> outputLoops = operandLoops[numInputs + result];
    if (!reductionLoops.empty()) {
      if (failed(convertReduction(op, result, yields[result], loops,
                                  reductionLoops, outputLoops, why)))
        return failure();
      continue;
    }
    // A parallel op: its value at the output's indices is the body's.
    SmallVector<int64_t, 4> toValue(loops.size(), -1);
    for (auto [dim, loop] : llvm::enumerate(outputLoops))
      if (loop >= 0)
        toValue[loop] = dim;
    for (auto [loop, dim] : llvm::enumerate(toValue))
      if (dim < 0)
        return refuse(why, "its parallel loop " + Twine(loop) +
                               " does not index its output");
    define(raw->getResult(result), graph.remap(yields[result], toValue));
  }
  return success();
}

unsigned LinalgConversion::countTransposes(ExprId expr,
                                           ArrayRef<int64_t> order) {
  if (graph.node(expr).kind == ExprKind::Leaf) {
    const ExprLeaf &leaf = graph.getLeaf(expr);
    return KernelEmitter::needsTranspose(
        cast<RankedTensorType>(leaf.tensor.getType()), leaf.dims, order);
  }
  SmallVector<int64_t, 4> positions;
  for (int64_t loop : graph.support(expr))
    positions.push_back(llvm::find(order, loop) - order.begin());
  return !llvm::is_sorted(positions);
}

FailureOr<Value> LinalgConversion::layOut(ExprId expr, unsigned rank,
                                          ArrayRef<int64_t> order,
                                          Type elementType, Location loc,
                                          Refusal &why) {
  // The expression read in the order's dims, emitted at that rank.
  SmallVector<int64_t, 4> position(rank, -1);
  for (auto [p, loop] : llvm::enumerate(order))
    if (loop >= 0)
      position[loop] = p;
  return emitter.emit(graph.remap(expr, position), order.size(), elementType,
                      loc, why);
}

LogicalResult LinalgConversion::convertReduction(
    linalg::LinalgOp op, unsigned result, ExprId body, ArrayRef<int64_t> loops,
    ArrayRef<int64_t> reductionLoops, ArrayRef<int64_t> outputLoops,
    Refusal &why) {
  Operation *raw = op.getOperation();
  Location loc = op.getLoc();
  Value output = raw->getResult(result);
  Type elementType = cast<ShapedType>(output.getType()).getElementType();
  unsigned rank = loops.size();

  // The body must fold the output with + or max.
  ExprId accumulator = graph.acc(result);
  ExprNode top = graph.node(body);
  ExprKind combiner;
  ExprId rest;
  if (top.kind == ExprKind::Add &&
      llvm::count(top.operands, accumulator) == 1) {
    combiner = ExprKind::ReduceAdd;
    SmallVector<ExprId, 4> terms;
    for (ExprId operand : top.operands)
      if (operand != accumulator)
        terms.push_back(operand);
    rest = graph.add(terms, raw);
  } else if (top.kind == ExprKind::Max &&
             llvm::is_contained(top.operands, accumulator)) {
    combiner = ExprKind::ReduceMax;
    rest = top.operands[0] == accumulator ? top.operands[1] : top.operands[0];
  } else {
    return refuse(why, "its body makes the output " + graph.print(body) +
                           " of the output " + graph.print(accumulator) +
                           ", which is neither a sum nor a max of it (the "
                           "reductions kn has: kn.reduce_sum, kn.reduce_max, "
                           "kn.matmul)");
  }
  if (graph.contains(rest, ExprKind::Acc))
    return refuse(why, "its body reads an output other than as the running "
                       "sum or maximum");
  std::optional<OpKind> reduction = getReductionOperator(combiner);
  if (!reduction)
    return refuse(why, "no kn operator reduces by this combiner");

  // The reduced value, in loop space, as an expression over one kn tensor.
  std::optional<ExprId> reduced;
  auto contraction = getContractionOperator();
  if (combiner == ExprKind::ReduceAdd && reductionLoops.size() == 1 &&
      contraction) {
    int64_t k = reductionLoops.front();
    // Constant factors scale the result instead.
    double scale = 1.0;
    ExprId product = rest;
    ExprNode node = graph.node(rest);
    if (node.kind == ExprKind::Mul) {
      SmallVector<ExprId, 4> factors;
      for (ExprId factor : node.operands) {
        if (graph.node(factor).kind == ExprKind::Const)
          scale *= graph.node(factor).value;
        else
          factors.push_back(factor);
      }
      product = graph.mul(factors, raw);
    }
    struct Candidate {
      ExprId lhs, rhs;
      SmallVector<int64_t, 4> lhsOrder, rhsOrder, resultOrder;
      double elements;
      unsigned transposes;
    };
    std::optional<Candidate> best;
    // The form reduces a product of two operands: any two groups of the
    // product's factors, the one materializing the fewest elements (and
    // then needing the fewest transposes) chosen.
    bool isProduct = false;
    matchPattern(graph, *contraction->second, product, elementType,
                 [&](const Binding &) { isProduct = true; });
    SmallVector<ExprId, 4> factors;
    if (isProduct)
      factors.assign(graph.node(product).operands.begin(),
                     graph.node(product).operands.end());
    SmallVector<std::pair<ExprId, ExprId>> bindings;
    if (factors.size() >= 2 && factors.size() <= 8)
      for (unsigned mask = 1; mask + 1 < (1u << factors.size()); ++mask) {
        SmallVector<ExprId, 4> lhs, rhs;
        for (auto [i, factor] : llvm::enumerate(factors))
          (mask & (1u << i) ? lhs : rhs).push_back(factor);
        bindings.push_back({graph.mul(lhs, raw), graph.mul(rhs, raw)});
      }
    SmallVector<int64_t, 4> valueOf(rank, -1);
    for (auto [dim, loop] : llvm::enumerate(outputLoops))
      if (loop >= 0)
        valueOf[loop] = dim;
    auto elementsOf = [&](ArrayRef<int64_t> varying) {
      double elements = 1.0;
      for (int64_t loop : varying)
        elements *= static_cast<double>(loops[loop]);
      return elements;
    };
    for (auto [lhs, rhs] : bindings) {
      SmallVector<int64_t, 4> lhsLoops = graph.support(lhs);
      SmallVector<int64_t, 4> rhsLoops = graph.support(rhs);
      if (!llvm::is_contained(lhsLoops, k) || !llvm::is_contained(rhsLoops, k))
        continue;
      int64_t m = -1, n = -1;
      for (int64_t loop : lhsLoops)
        if (loop != k && !llvm::is_contained(rhsLoops, loop))
          m = loop;
      for (int64_t loop : rhsLoops)
        if (loop != k && !llvm::is_contained(lhsLoops, loop))
          n = loop;
      // Row-wise dot products (no free dim) stay a product and a sum.
      if (m < 0 && n < 0)
        continue;
      Candidate candidate{lhs, rhs, {}, {}, {},
                          elementsOf(lhsLoops) + elementsOf(rhsLoops), 0};
      for (int64_t loop = 0; loop < static_cast<int64_t>(rank); ++loop)
        if (loop != k && loop != m && loop != n) {
          candidate.lhsOrder.push_back(loop);
          candidate.rhsOrder.push_back(loop);
          candidate.resultOrder.push_back(loop);
        }
      candidate.lhsOrder.append({m, k});
      candidate.rhsOrder.append({k, n});
      candidate.resultOrder.append({m, n});
      // The matmul's result is read in the output's order.
      SmallVector<int64_t, 4> positions;
      for (int64_t loop : candidate.resultOrder)
        if (loop >= 0 && loops[loop] != 1)
          positions.push_back(valueOf[loop]);
      candidate.transposes = countTransposes(lhs, candidate.lhsOrder) +
                             countTransposes(rhs, candidate.rhsOrder) +
                             !llvm::is_sorted(positions);
      if (!best || candidate.elements < best->elements ||
          (candidate.elements == best->elements &&
           candidate.transposes < best->transposes))
        best = std::move(candidate);
    }
    if (best) {
      FailureOr<Value> lhs =
          layOut(best->lhs, rank, best->lhsOrder, elementType, loc, why);
      if (failed(lhs))
        return failure();
      FailureOr<Value> rhs =
          layOut(best->rhs, rank, best->rhsOrder, elementType, loc, why);
      if (failed(rhs))
        return failure();
      FailureOr<Value> matmul = emitter.create(contraction->first, OpParams(),
                                               {*lhs, *rhs}, loc, why);
      if (failed(matmul))
        return failure();
      reduced = graph.leaf(*matmul, best->resultOrder);
      if (scale != 1.0)
        reduced = graph.mul({*reduced, graph.constant(scale)}, raw);
    }
  }
  SmallVector<int64_t, 4> varying = graph.support(rest);
  if (!reduced && llvm::none_of(reductionLoops, [&](int64_t loop) {
        return llvm::is_contained(varying, loop);
      })) {
    // Nothing varies along the reduced loops: n equal terms, or the maximum
    // of equal values.
    double scale = 1.0;
    if (combiner == ExprKind::ReduceAdd)
      for (int64_t loop : reductionLoops)
        scale *= static_cast<double>(loops[loop]);
    reduced = scale == 1.0 ? rest
                           : graph.mul({rest, graph.constant(scale)}, raw);
  }
  if (!reduced) {
    FailureOr<Value> value = emitter.emit(rest, rank, elementType, loc, why);
    if (failed(value))
      return failure();
    Value tensor = *value;
    double scale = 1.0;
    for (int64_t loop : llvm::reverse(reductionLoops)) {
      if (!llvm::is_contained(varying, loop)) {
        // A sum of equal terms; the maximum of equal values is the value.
        if (combiner == ExprKind::ReduceAdd)
          scale *= static_cast<double>(loops[loop]);
        continue;
      }
      OpParams params;
      params.dim = loop;
      params.keepDim = true;
      FailureOr<Value> folded =
          emitter.create(*reduction, params, tensor, loc, why);
      if (failed(folded))
        return failure();
      tensor = *folded;
    }
    SmallVector<int64_t, 4> dims =
      llvm::to_vector<4>(llvm::seq<int64_t>(0, rank));
    for (int64_t loop : reductionLoops)
      dims[loop] = -1;
    reduced = graph.leaf(tensor, dims);
    if (scale != 1.0)
      reduced = graph.mul({*reduced, graph.constant(scale)}, raw);
  }

  // In the output's dims, folded with the output's initial value.
  SmallVector<int64_t, 4> toValue(rank, -1);
  for (auto [dim, loop] : llvm::enumerate(outputLoops)) {
    if (loop < 0)
      continue;
    if (llvm::is_contained(reductionLoops, loop))
      return refuse(why, "its output is indexed by the reduced loop " +
                             Twine(loop));
    toValue[loop] = dim;
  }
  for (int64_t loop = 0; loop < static_cast<int64_t>(rank); ++loop)
    if (toValue[loop] < 0 && !llvm::is_contained(reductionLoops, loop))
      return refuse(why, "its parallel loop " + Twine(loop) +
                             " does not index its output");
  ExprId value = graph.remap(*reduced, toValue);
  Value init = op.getDpsInits()[result];
  ExprId initial = expressionOf(init);
  ExprNode start = graph.node(initial);
  if (start.kind == ExprKind::Empty)
    return refuse(why,
                  "the reduction starts from the uninitialized contents of "
                  "its output; fill it with the reduction's identity first "
                  "(linalg.fill)",
                  start.origin);
  ExprId total;
  if (combiner == ExprKind::ReduceAdd) {
    total = graph.add({value, initial}, raw);
  } else {
    double lowest = -APFloat::getLargest(
                         cast<FloatType>(elementType).getFloatSemantics())
                         .convertToDouble();
    // -inf is max's identity, and NaN maxnumf's (upstream's choice in
    // softmax's decomposition); the lowest finite value differs only for
    // rows of -inf.
    bool identity =
        start.kind == ExprKind::Const &&
        (start.value <= lowest ||
         (std::isnan(start.value) && isa_and_nonnull<arith::MaxNumFOp>(
                                         top.origin)));
    if (identity)
      total = value;
    else
      total = graph.max(value, initial, raw);
  }
  define(output, total);
  return success();
}

//===----------------------------------------------------------------------===//
// Tensor ops
//===----------------------------------------------------------------------===//

LogicalResult LinalgConversion::convertReshape(Value source, Value result,
                                               Refusal &why) {
  if (!isKernelTensorType(result.getType()))
    return refuse(why, "its result type " + str(result.getType()) +
                           " is no kn tensor type");
  FailureOr<Value> input = materialize(source, why);
  if (failed(input))
    return failure();
  defineTensor(result,
               emitter.reshape(*input,
                               cast<ShapedType>(result.getType()).getShape(),
                               result.getLoc()));
  return success();
}

LogicalResult LinalgConversion::convertSlice(tensor::ExtractSliceOp op,
                                             Refusal &why) {
  ArrayRef<int64_t> offsets = op.getStaticOffsets();
  ArrayRef<int64_t> sizes = op.getStaticSizes();
  ArrayRef<int64_t> strides = op.getStaticStrides();
  if (llvm::any_of(offsets, ShapedType::isDynamic) ||
      llvm::any_of(sizes, ShapedType::isDynamic) ||
      llvm::any_of(strides, ShapedType::isDynamic))
    return refuse(why, "its offsets, sizes or strides are not static");
  if (llvm::any_of(strides, [](int64_t stride) { return stride != 1; }))
    return refuse(why, "a strided slice has no kn operator");
  if (!isKernelTensorType(op.getType()))
    return refuse(why, "its result type " + str(op.getType()) +
                           " is no kn tensor type");
  FailureOr<Value> input = materialize(op.getSource(), why);
  if (failed(input))
    return failure();
  Value tensor = *input;
  ArrayRef<int64_t> shape = op.getSourceType().getShape();
  for (int64_t dim = 0; dim < static_cast<int64_t>(shape.size()); ++dim) {
    int64_t offset = offsets[dim], size = sizes[dim], full = shape[dim];
    if (size == full)
      continue;
    SmallVector<int64_t, 3> pieces;
    if (offset > 0)
      pieces.push_back(offset);
    unsigned piece = pieces.size();
    pieces.push_back(size);
    if (offset + size < full)
      pieces.push_back(full - offset - size);
    FailureOr<SmallVector<Value>> parts =
        emitter.split(tensor, dim, pieces, op.getLoc(), why);
    if (failed(parts))
      return failure();
    tensor = (*parts)[piece];
  }
  defineTensor(op.getResult(),
               emitter.reshape(tensor, op.getType().getShape(), op.getLoc()));
  return success();
}

LogicalResult LinalgConversion::convertConcat(tensor::ConcatOp op,
                                              Refusal &why) {
  if (!isKernelTensorType(op.getType()))
    return refuse(why, "its result type " + str(op.getType()) +
                           " is no kn tensor type");
  SmallVector<Value> inputs;
  for (Value input : op.getInputs()) {
    FailureOr<Value> tensor = materialize(input, why);
    if (failed(tensor))
      return failure();
    inputs.push_back(*tensor);
  }
  OpParams params;
  params.dim = op.getDim();
  FailureOr<Value> concat =
      emitter.create(OpKind::Concat, params, inputs, op.getLoc(), why);
  if (failed(concat))
    return failure();
  defineTensor(op.getResult(), *concat);
  return success();
}

LogicalResult LinalgConversion::convert(Operation *op, Refusal &why) {
  if (auto structured = dyn_cast<linalg::LinalgOp>(op))
    return convertStructured(structured, why);
  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
      .Case([&](tensor::EmptyOp empty) {
        define(empty.getResult(), graph.empty(op));
        return success();
      })
      .Case([&](arith::ConstantOp constant) {
        auto splat = dyn_cast<SplatElementsAttr>(constant.getValue());
        if (splat && isa<FloatType>(splat.getElementType())) {
          define(constant.getResult(),
                 graph.constant(
                     splat.getSplatValue<APFloat>().convertToDouble()));
        } else {
          define(constant.getResult(),
                 graph.opaque(op, "a constant tensor that is not a splat of "
                                  "a float has no kn equivalent (kn has no "
                                  "constant tensors)"));
        }
        return success();
      })
      .Case([&](tensor::ExpandShapeOp reshape) {
        return convertReshape(reshape.getSrc(), reshape.getResult(), why);
      })
      .Case([&](tensor::CollapseShapeOp reshape) {
        return convertReshape(reshape.getSrc(), reshape.getResult(), why);
      })
      .Case([&](tensor::ReshapeOp reshape) {
        return convertReshape(reshape.getSource(), reshape.getResult(), why);
      })
      .Case([&](tensor::ExtractSliceOp slice) {
        return convertSlice(slice, why);
      })
      .Case([&](tensor::ConcatOp concat) { return convertConcat(concat, why); })
      .Case([&](tensor::CastOp cast) {
        if (cast.getSource().getType() != cast.getType())
          return refuse(why, "it changes the static shape information of a "
                             "tensor; kn tensors are static");
        define(cast.getResult(), expressionOf(cast.getSource()));
        return success();
      })
      .Default([&](Operation *) {
        return refuse(why, "'" + op->getName().getStringRef() +
                               "' has no kn equivalent");
      });
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

/// linalg.softmax becomes the linalg ops of upstream's decomposition (max,
/// exp of the difference, sum, division), which convert.
void decomposeSoftmax(func::FuncOp function) {
  SmallVector<linalg::SoftmaxOp> softmaxes;
  function.walk([&](linalg::SoftmaxOp op) { softmaxes.push_back(op); });
  for (linalg::SoftmaxOp softmax : softmaxes) {
    if (!softmax.hasPureTensorSemantics())
      continue;
    OpBuilder builder(softmax);
    FailureOr<SmallVector<Value>> values =
        softmax.decomposeOperation(builder);
    if (failed(values))
      continue;
    softmax->replaceAllUsesWith(*values);
    softmax->erase();
  }
}

struct ConvertLinalgToKernelPass
    : public mirage::impl::ConvertLinalgToKernelBase<
          ConvertLinalgToKernelPass> {
  using Base::Base;

  void runOnOperation() override {
    bool failedAny = false;
    for (auto function : getOperation().getOps<func::FuncOp>()) {
      decomposeSoftmax(function);
      LinalgConversion conversion(function, keepUnsupported,
                                  getArgument());
      failedAny |= failed(conversion.run());
    }
    if (failedAny)
      signalPassFailure();
  }
};

} // namespace
