//===- ScalarOps.cpp - The f32 formula of each elementwise operator -------===//
//
// The code-generation meaning of each formula primitive: what one element
// of an elementwise operator is, in arith and math ops on f32, built from its
// formula (OpInfo::formula). The float64 meanings of the same primitives are
// in lib/Semantics/Primitives.cpp.
//
//===----------------------------------------------------------------------===//

#include "Codegen.h"

#include "mirage/Semantics/Formula.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/TypeUtilities.h"

#include <cmath>
#include <limits>
#include <type_traits>

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

namespace {
/// Emits an expanded formula (Formula.h): each core primitive as its arith
/// or math op.
struct FormulaEmitter {
  OpBuilder &b;
  Location loc;
  const OpParams &params;
  ValueRange operands;

  Value constant(double value) {
    return constantLike(b, loc, operands[0], value);
  }

  Value emit(const Formula &formula) {
    auto operand = [&](unsigned i) { return emit(formula.operands[i]); };
    switch (formula.primitive) {
    case Primitive::Operand:
      return operands[formula.index];
    case Primitive::Scalar:
      return constant(params.scalar);
    case Primitive::Constant:
      return constant(formula.value);
    case Primitive::Add:
      return chain<arith::AddFOp, arith::SubFOp>(formula);
    case Primitive::Mul:
      return chain<arith::MulFOp, arith::DivFOp>(formula);
    case Primitive::Neg:
      return arith::NegFOp::create(b, loc, operand(0));
    case Primitive::Recip:
      return emitDivide(b, loc, constant(1.0), operand(0));
    case Primitive::Exp:
      return emitExp(b, loc, operand(0));
    case Primitive::Sqrt:
      return math::SqrtOp::create(b, loc, operand(0));
    case Primitive::Erf:
      return math::ErfOp::create(b, loc, operand(0));
    case Primitive::Tanh:
      return math::TanhOp::create(b, loc, operand(0));
    case Primitive::Max:
      return arith::MaximumFOp::create(b, loc, operand(0), operand(1));
    case Primitive::Pow:
      return math::PowFOp::create(b, loc, operand(0), operand(1));
    case Primitive::Logistic:
    case Primitive::NormalCdf:
    case Primitive::ReduceAdd:
    case Primitive::ReduceMax:
      break;
    }
    llvm_unreachable("expanded elementwise formulas have core primitives only");
  }

  /// A sum or product; a - b and a / b where an operand is inverted.
  template <typename Op, typename InverseOp>
  Value chain(const Formula &formula) {
    return foldChain<Value>(
        formula, [&](const Formula &f) { return emit(f); },
        [&](Value acc, Value x, bool inverse) -> Value {
          if (!inverse)
            return Op::create(b, loc, acc, x);
          if constexpr (std::is_same_v<InverseOp, arith::DivFOp>)
            return emitDivide(b, loc, acc, x);
          return InverseOp::create(b, loc, acc, x);
        });
  }
};
} // namespace

Value codegen::emitDivide(OpBuilder &b, Location loc, Value lhs, Value rhs) {
  return arith::DivFOp::create(
      b, loc, lhs, rhs,
      arith::FastMathFlagsAttr::get(b.getContext(), arith::FastMathFlags::afn));
}

Value codegen::emitExp(OpBuilder &b, Location loc, Value x) {
  return math::ExpOp::create(
      b, loc, x,
      arith::FastMathFlagsAttr::get(b.getContext(), arith::FastMathFlags::afn));
}

Value codegen::emitScalarOp(OpBuilder &b, Location loc, OpKind kind,
                            const OpParams &params, ValueRange operands) {
  const Formula *formula = getOpFormula(kind);
  assert(formula && getOpInfo(kind).elementwise && "not an elementwise op");
  FormulaEmitter emitter{b, loc, params, operands};
  return emitter.emit(expandFormula(*formula));
}

Value codegen::emitCombine(OpBuilder &b, Location loc, OpKind kind,
                           Value accumulated, Value value) {
  std::optional<Primitive> combine = getCombine(kind);
  assert(combine && "not a reduction or accumulator");
  Formula fold{*combine,
               {Formula{Primitive::Operand, {}, 0.0, 0},
                Formula{Primitive::Operand, {}, 0.0, 1}}};
  OpParams params;
  // The emitter refers to its operands: they must outlive it.
  Value operands[] = {accumulated, value};
  FormulaEmitter emitter{b, loc, params, operands};
  return emitter.emit(fold);
}

Value codegen::emitKeepFactor(OpBuilder &b, Location loc, Value from,
                              Value to) {
  Value factor = emitExp(b, loc, arith::SubFOp::create(b, loc, from, to));
  Value unset = arith::CmpFOp::create(
      b, loc, arith::CmpFPredicate::OEQ, from,
      constantLike(b, loc, from, -std::numeric_limits<double>::infinity()));
  return arith::SelectOp::create(b, loc, unset, constantLike(b, loc, from, 0.0),
                                 factor);
}

double codegen::getCombineIdentity(OpKind kind) {
  std::optional<Primitive> combine = getCombine(kind);
  assert(combine && "not a reduction or accumulator");
  return *getPrimitiveInfo(*combine).identity;
}
