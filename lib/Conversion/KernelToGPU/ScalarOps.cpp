//===- ScalarOps.cpp - The f32 formula of each elementwise operator -------===//
//
// The code-generation facet of the operator records: what one element of
// each elementwise operator is, in arith and math ops on f32. The meaning
// matches the float64 evaluation in lib/Semantics/Elementwise.cpp.
//
//===----------------------------------------------------------------------===//

#include "Codegen.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/TypeUtilities.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mirage;
using namespace mirage::codegen;

static Value constantLike(OpBuilder &b, Location loc, Value like,
                          double value) {
  Type type = like.getType();
  auto scalar = b.getFloatAttr(getElementTypeOrSelf(type), value);
  if (auto vector = dyn_cast<VectorType>(type))
    return arith::ConstantOp::create(b, loc,
                                     DenseElementsAttr::get(vector, scalar));
  return arith::ConstantOp::create(b, loc, scalar);
}

/// 1 / (1 + e^-x), the logistic function silu and sigmoid share.
static Value logistic(OpBuilder &b, Location loc, Value x) {
  Value one = constantLike(b, loc, x, 1.0);
  Value e = math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, x));
  return arith::DivFOp::create(b, loc, one,
                               arith::AddFOp::create(b, loc, one, e));
}

Value codegen::emitScalarOp(OpBuilder &b, Location loc, OpKind kind,
                            const OpParams &params, ValueRange operands) {
  Value x = operands[0];
  switch (kind) {
  case OpKind::Exp:
    return math::ExpOp::create(b, loc, x);
  case OpKind::Sqrt:
    return math::SqrtOp::create(b, loc, x);
  case OpKind::Square:
    return arith::MulFOp::create(b, loc, x, x);
  case OpKind::Silu:
    return arith::MulFOp::create(b, loc, x, logistic(b, loc, x));
  case OpKind::Sigmoid:
    return logistic(b, loc, x);
  case OpKind::Gelu: {
    // x * Phi(x) = x / 2 * (1 + erf(x / sqrt(2))).
    Value scaled = arith::MulFOp::create(b, loc, x,
                                         constantLike(b, loc, x, M_SQRT1_2));
    Value erf = math::ErfOp::create(b, loc, scaled);
    Value one = constantLike(b, loc, x, 1.0);
    Value half = arith::MulFOp::create(b, loc, x, constantLike(b, loc, x, 0.5));
    return arith::MulFOp::create(b, loc, half,
                                 arith::AddFOp::create(b, loc, one, erf));
  }
  case OpKind::Relu:
    return arith::MaximumFOp::create(b, loc, x, constantLike(b, loc, x, 0.0));
  case OpKind::Neg:
    return arith::NegFOp::create(b, loc, x);
  case OpKind::MulScalar:
    return arith::MulFOp::create(b, loc, x,
                                 constantLike(b, loc, x, params.scalar));
  case OpKind::AddScalar:
    return arith::AddFOp::create(b, loc, x,
                                 constantLike(b, loc, x, params.scalar));
  case OpKind::Add:
    return arith::AddFOp::create(b, loc, x, operands[1]);
  case OpKind::Sub:
    return arith::SubFOp::create(b, loc, x, operands[1]);
  case OpKind::Mul:
    return arith::MulFOp::create(b, loc, x, operands[1]);
  case OpKind::Div:
    return arith::DivFOp::create(b, loc, x, operands[1]);
  case OpKind::Pow:
    return math::PowFOp::create(b, loc, x, operands[1]);
  default:
    llvm_unreachable("not an elementwise operator");
  }
}

Value codegen::emitCombine(OpBuilder &b, Location loc, OpKind kind,
                           Value accumulated, Value value) {
  switch (kind) {
  case OpKind::ReduceSum:
  case OpKind::AccumSum:
    return arith::AddFOp::create(b, loc, accumulated, value);
  case OpKind::ReduceMax:
  case OpKind::AccumMax:
    return arith::MaximumFOp::create(b, loc, accumulated, value);
  default:
    llvm_unreachable("not a sum or maximum");
  }
}

Value codegen::emitKeepFactor(OpBuilder &b, Location loc, Value from,
                              Value to) {
  Value factor =
      math::ExpOp::create(b, loc, arith::SubFOp::create(b, loc, from, to));
  Value unset = arith::CmpFOp::create(
      b, loc, arith::CmpFPredicate::OEQ, from,
      constantLike(b, loc, from, -std::numeric_limits<double>::infinity()));
  return arith::SelectOp::create(b, loc, unset, constantLike(b, loc, from, 0.0),
                                 factor);
}

double codegen::getCombineIdentity(OpKind kind) {
  if (kind == OpKind::ReduceMax || kind == OpKind::AccumMax)
    return -std::numeric_limits<double>::infinity();
  return 0.0;
}
