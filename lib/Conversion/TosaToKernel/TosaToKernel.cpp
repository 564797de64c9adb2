//===- TosaToKernel.cpp - convert-tosa-to-kn ------------------------------===//
//
// TOSA into kernel graphs. Elementwise TOSA ops become scalar expressions
// over their operands (TOSA's broadcasting, equal ranks with size-1 dims
// stretching, is kn's); the kn operators that compute them come from the
// operator records' scalar forms (FrontendConversion.h). Matmul,
// reductions and data movement map to their kn ops one to one.
//
//===----------------------------------------------------------------------===//

#include "mirage/Conversion/Frontend/FrontendConversion.h"
#include "mirage/Conversion/Frontend/Passes.h"

#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>

namespace mirage {
#define GEN_PASS_DEF_CONVERTTOSATOKERNEL
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

LogicalResult refuse(Refusal &why, const Twine &message) {
  why.message = message.str();
  why.at = nullptr;
  return failure();
}

/// The number every element of a splat constant (tosa.const) holds.
std::optional<double> getSplatValue(Value value) {
  auto constant = value.getDefiningOp<tosa::ConstOp>();
  if (!constant)
    return std::nullopt;
  auto elements = dyn_cast<DenseElementsAttr>(constant.getValues());
  if (!elements || !elements.isSplat())
    return std::nullopt;
  Type element = elements.getElementType();
  if (isa<FloatType>(element))
    return elements.getSplatValue<APFloat>().convertToDouble();
  if (isa<IntegerType>(element))
    return static_cast<double>(elements.getSplatValue<APInt>().getSExtValue());
  return std::nullopt;
}

/// The values of a tosa.const_shape.
std::optional<SmallVector<int64_t, 4>> getShapeValues(Value value) {
  auto constant = value.getDefiningOp<tosa::ConstShapeOp>();
  if (!constant)
    return std::nullopt;
  SmallVector<int64_t, 4> values;
  for (const APInt &element : constant.getValues().getValues<APInt>())
    values.push_back(element.getSExtValue());
  return values;
}

bool isElementwise(Operation *op) {
  return isa<tosa::AddOp, tosa::SubOp, tosa::MulOp, tosa::NegateOp, tosa::ExpOp,
             tosa::ReciprocalOp, tosa::RsqrtOp, tosa::SigmoidOp, tosa::PowOp,
             tosa::MaximumOp, tosa::ClampOp, tosa::ErfOp, tosa::TanhOp,
             tosa::IdentityOp>(op);
}

class TosaConversion : public FrontendConversion {
public:
  using FrontendConversion::FrontendConversion;

protected:
  bool owns(Operation *op) override {
    return op->getName().getDialectNamespace() == "tosa";
  }

  bool readsExpressions(Operation *user) override {
    return isElementwise(user);
  }

  LogicalResult convert(Operation *op, Refusal &why) override;

private:
  LogicalResult convertElementwise(Operation *op, Refusal &why);
  LogicalResult convertMatmul(tosa::MatMulOp op, Refusal &why);
  LogicalResult convertReduction(Operation *op, ExprKind combiner,
                                 int64_t axis, Refusal &why);
  LogicalResult convertSlice(tosa::SliceOp op, Refusal &why);
  LogicalResult checkTypes(Operation *op, Refusal &why);
};

LogicalResult TosaConversion::checkTypes(Operation *op, Refusal &why) {
  for (Value result : op->getResults())
    if (!isKernelTensorType(result.getType()))
      return refuse(why, "its result type " + str(result.getType()) +
                             " is no kn tensor type (static shape, f16, "
                             "bf16 or f32)");
  return success();
}

LogicalResult TosaConversion::convertElementwise(Operation *op,
                                                 Refusal &why) {
  if (failed(checkTypes(op, why)))
    return failure();
  auto x = [&](unsigned i) { return expressionOf(op->getOperand(i)); };
  auto requireZero = [&](unsigned operand, StringRef what) {
    std::optional<double> value = getSplatValue(op->getOperand(operand));
    if (value && *value == 0.0)
      return success();
    return refuse(why, "its " + what +
                           " is not a constant 0 (kn has no quantized "
                           "arithmetic)");
  };
  std::optional<ExprId> expr;
  LogicalResult status =
      llvm::TypeSwitch<Operation *, LogicalResult>(op)
          .Case([&](tosa::AddOp) {
            expr = graph.add({x(0), x(1)}, op);
            return success();
          })
          .Case([&](tosa::SubOp) {
            expr = graph.sub(x(0), x(1), op);
            return success();
          })
          .Case([&](tosa::MulOp) {
            if (failed(requireZero(2, "shift")))
              return failure();
            expr = graph.mul({x(0), x(1)}, op);
            return success();
          })
          .Case([&](tosa::NegateOp) {
            if (failed(requireZero(1, "input zero point")) ||
                failed(requireZero(2, "output zero point")))
              return failure();
            expr = graph.neg(x(0), op);
            return success();
          })
          .Case([&](tosa::ExpOp) {
            expr = graph.exp(x(0), op);
            return success();
          })
          .Case([&](tosa::ReciprocalOp) {
            expr = graph.recip(x(0), op);
            return success();
          })
          .Case([&](tosa::RsqrtOp) {
            expr = graph.rsqrt(x(0), op);
            return success();
          })
          .Case([&](tosa::SigmoidOp) {
            // TOSA: sigmoid(x) = 1 / (1 + exp(-x)).
            expr = graph.recip(
                graph.add({graph.constant(1.0),
                           graph.exp(graph.neg(x(0), op), op)},
                          op),
                op);
            return success();
          })
          .Case([&](tosa::PowOp) {
            expr = graph.pow(x(0), x(1), op);
            return success();
          })
          .Case([&](tosa::MaximumOp) {
            expr = graph.max(x(0), x(1), op);
            return success();
          })
          .Case([&](tosa::ErfOp) {
            expr = graph.erf(x(0), op);
            return success();
          })
          .Case([&](tosa::TanhOp) {
            expr = graph.tanh(x(0), op);
            return success();
          })
          .Case([&](tosa::IdentityOp) {
            expr = x(0);
            return success();
          })
          .Case([&](tosa::ClampOp clamp) {
            auto low = dyn_cast<FloatAttr>(clamp.getMinValAttr());
            auto high = dyn_cast<FloatAttr>(clamp.getMaxValAttr());
            if (!low || !high)
              return refuse(why, "it clamps to non-float bounds");
            Type element =
                cast<ShapedType>(op->getResult(0).getType()).getElementType();
            double largest =
                APFloat::getLargest(
                    cast<FloatType>(element).getFloatSemantics())
                    .convertToDouble();
            double lo = low.getValueAsDouble(), hi = high.getValueAsDouble();
            if (hi < largest)
              return refuse(why, "a clamp to [" + formatNumber(lo) + ", " +
                                     formatNumber(hi) +
                                     "] has no kn operator (only [0, +inf), "
                                     "kn.relu, does)");
            if (lo <= -largest)
              expr = x(0);
            else if (lo == 0.0)
              expr = graph.max(x(0), graph.constant(0.0), op);
            else
              return refuse(why, "a clamp to [" + formatNumber(lo) +
                                     ", +inf) has no kn operator (only [0, "
                                     "+inf), kn.relu, does)");
            return success();
          })
          .Default([&](Operation *) {
            return refuse(why, "not an elementwise op");
          });
  if (failed(status))
    return failure();
  define(op->getResult(0), *expr);
  return success();
}

LogicalResult TosaConversion::convertMatmul(tosa::MatMulOp op, Refusal &why) {
  if (failed(checkTypes(op, why)))
    return failure();
  Type element = op.getType().getElementType();
  for (Value operand : {op.getA(), op.getB()})
    if (cast<ShapedType>(operand.getType()).getElementType() != element)
      return refuse(why, "it multiplies " +
                             str(cast<ShapedType>(operand.getType())
                                     .getElementType()) +
                             " operands into a " + str(element) +
                             " result; kn.matmul keeps its operands' element "
                             "type");
  for (Value zeroPoint : {op.getAZp(), op.getBZp()}) {
    std::optional<double> value = getSplatValue(zeroPoint);
    if (!value || *value != 0.0)
      return refuse(why, "its zero points are not constant 0 (kn has no "
                         "quantized matmul)");
  }
  FailureOr<Value> lhs = materialize(op.getA(), why);
  if (failed(lhs))
    return failure();
  FailureOr<Value> rhs = materialize(op.getB(), why);
  if (failed(rhs))
    return failure();
  std::optional<std::pair<OpKind, const ScalarForm *>> contraction =
      getContractionOperator();
  if (!contraction)
    return refuse(why, "no kn operator is a matmul");
  FailureOr<Value> product = emitter.create(contraction->first, OpParams(),
                                            {*lhs, *rhs}, op.getLoc(), why);
  if (failed(product))
    return failure();
  defineTensor(op.getResult(), *product);
  return success();
}

LogicalResult TosaConversion::convertReduction(Operation *op,
                                               ExprKind combiner, int64_t axis,
                                               Refusal &why) {
  if (failed(checkTypes(op, why)))
    return failure();
  std::optional<OpKind> reduction = getReductionOperator(combiner);
  if (!reduction)
    return refuse(why, "no kn operator reduces by this combiner");
  FailureOr<Value> input = materialize(op->getOperand(0), why);
  if (failed(input))
    return failure();
  OpParams params;
  params.dim = axis;
  params.keepDim = true;
  FailureOr<Value> reduced =
      emitter.create(*reduction, params, *input, op->getLoc(), why);
  if (failed(reduced))
    return failure();
  defineTensor(op->getResult(0), *reduced);
  return success();
}

LogicalResult TosaConversion::convertSlice(tosa::SliceOp op, Refusal &why) {
  if (failed(checkTypes(op, why)))
    return failure();
  std::optional<SmallVector<int64_t, 4>> start = getShapeValues(op.getStart());
  std::optional<SmallVector<int64_t, 4>> size = getShapeValues(op.getSize());
  if (!start || !size)
    return refuse(why, "its start and size are not tosa.const_shape values");
  auto type = cast<RankedTensorType>(op.getInput1().getType());
  FailureOr<Value> input = materialize(op.getInput1(), why);
  if (failed(input))
    return failure();
  Value tensor = *input;
  for (int64_t dim = 0; dim < type.getRank(); ++dim) {
    int64_t offset = (*start)[dim], full = type.getDimSize(dim);
    int64_t length = (*size)[dim] == -1 ? full - offset : (*size)[dim];
    if (length == full)
      continue;
    SmallVector<int64_t, 3> pieces;
    if (offset > 0)
      pieces.push_back(offset);
    unsigned piece = pieces.size();
    pieces.push_back(length);
    if (offset + length < full)
      pieces.push_back(full - offset - length);
    FailureOr<SmallVector<Value>> parts =
        emitter.split(tensor, dim, pieces, op.getLoc(), why);
    if (failed(parts))
      return failure();
    tensor = (*parts)[piece];
  }
  defineTensor(op.getResult(), tensor);
  return success();
}

LogicalResult TosaConversion::convert(Operation *op, Refusal &why) {
  if (isElementwise(op))
    return convertElementwise(op, why);
  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
      .Case([&](tosa::ConstOp constant) {
        std::optional<double> value = getSplatValue(constant.getResult());
        if (value && isa<FloatType>(constant.getType().getElementType()))
          define(constant.getResult(), graph.constant(*value));
        else
          define(constant.getResult(),
                 graph.opaque(op, "a constant tensor that is not a splat of "
                                  "a float has no kn equivalent (kn has no "
                                  "constant tensors)"));
        return success();
      })
      .Case([&](tosa::ConstShapeOp) { return success(); })
      .Case([&](tosa::MatMulOp matmul) { return convertMatmul(matmul, why); })
      .Case([&](tosa::ReduceSumOp reduce) {
        return convertReduction(op, ExprKind::ReduceAdd, reduce.getAxis(),
                                why);
      })
      .Case([&](tosa::ReduceMaxOp reduce) {
        return convertReduction(op, ExprKind::ReduceMax, reduce.getAxis(),
                                why);
      })
      .Case([&](tosa::ReshapeOp reshape) {
        if (failed(checkTypes(op, why)))
          return failure();
        FailureOr<Value> input = materialize(reshape.getInput1(), why);
        if (failed(input))
          return failure();
        defineTensor(reshape.getResult(),
                     emitter.reshape(*input, reshape.getType().getShape(),
                                     op->getLoc()));
        return success();
      })
      .Case([&](tosa::TransposeOp transpose) {
        if (failed(checkTypes(op, why)))
          return failure();
        FailureOr<Value> input = materialize(transpose.getInput1(), why);
        if (failed(input))
          return failure();
        SmallVector<int64_t, 4> perm(transpose.getPerms().begin(),
                                     transpose.getPerms().end());
        defineTensor(transpose.getResult(),
                     emitter.transpose(*input, perm, op->getLoc()));
        return success();
      })
      .Case([&](tosa::ConcatOp concat) {
        if (failed(checkTypes(op, why)))
          return failure();
        SmallVector<Value> inputs;
        for (Value input : concat.getInput1()) {
          FailureOr<Value> tensor = materialize(input, why);
          if (failed(tensor))
            return failure();
          inputs.push_back(*tensor);
        }
        OpParams params;
        params.dim = concat.getAxis();
        FailureOr<Value> result =
            emitter.create(OpKind::Concat, params, inputs, op->getLoc(), why);
        if (failed(result))
          return failure();
        defineTensor(concat.getResult(), *result);
        return success();
      })
      .Case([&](tosa::SliceOp slice) { return convertSlice(slice, why); })
      .Case([&](tosa::CastOp cast) {
        if (cast.getInput().getType() == cast.getType()) {
          define(cast.getResult(), expressionOf(cast.getInput()));
          return success();
        }
        return refuse(why, "it converts the element type (" +
                               str(getElementTypeOrSelf(cast.getInput())) +
                               " to " + str(getElementTypeOrSelf(cast)) +
                               "); kn ops keep one element type");
      })
      .Default([&](Operation *) {
        return refuse(why, "'" + op->getName().getStringRef() +
                               "' has no kn equivalent");
      });
}

struct ConvertTosaToKernelPass
    : public mirage::impl::ConvertTosaToKernelBase<ConvertTosaToKernelPass> {
  using Base::Base;

  void runOnOperation() override {
    bool failedAny = false;
    for (auto function : getOperation().getOps<func::FuncOp>()) {
      TosaConversion conversion(function, keepUnsupported, getArgument());
      failedAny |= failed(conversion.run());
    }
    if (failedAny)
      signalPassFailure();
  }
};

} // namespace
