//===- Primitives.h - The meanings of each primitive (internal) -*- C++ -*-===//
//
// One record per primitive of the operators' formulas (Formula.h) with every
// meaning the semantics library gives it. The elementwise family
// (Elementwise.cpp) evaluates formulas through these records.
//
//===----------------------------------------------------------------------===//

#ifndef MIRAGE_LIB_SEMANTICS_PRIMITIVES_H
#define MIRAGE_LIB_SEMANTICS_PRIMITIVES_H

#include "mirage/Semantics/AbstractExpr.h"
#include "mirage/Semantics/Evaluation.h"
#include "mirage/Semantics/Formula.h"

namespace mirage::detail {

/// The most operands one primitive application of an operator's formula
/// may have (getOpFormula checks the table).
constexpr unsigned kMaxPrimitiveOperands = 8;

/// A primitive's value and partial derivative in one floating-point type,
/// for one element and, as loops the compiler inlines them into, for n.
template <typename T>
struct ScalarMeaning {
  /// The value at `x`.
  T (*value)(llvm::ArrayRef<T> x) = nullptr;
  /// The partial derivative by operand `i` at `x`, where the value is `r`.
  T (*partial)(llvm::ArrayRef<T> x, T r, unsigned i) = nullptr;
  /// out[k] = value(x[0][k], x[1][k], ...) for k < n.
  void (*values)(llvm::ArrayRef<const T *> x, T *out, size_t n) = nullptr;
  /// out[k] = partial(x[0][k], ..., r[k], i) for k < n.
  void (*partials)(llvm::ArrayRef<const T *> x, const T *r, unsigned i, T *out,
                   size_t n) = nullptr;
};

/// One definition in two precisions: double for the float64 check (values
/// and the error bounds' slopes), long double for evaluateFormula.
struct ScalarMeanings {
  ScalarMeaning<long double> extended;
  ScalarMeaning<double> f64;
};

/// A primitive's meanings. Leaves (operands, scalar, constants) and
/// reductions have none: the formula evaluators read leaves themselves and
/// reductions are only matched by the frontends.
struct PrimitiveRecord {
  PrimitiveInfo info;
  ScalarMeanings scalar;
  /// The finite-field value, null outside the fingerprint. Operands have
  /// one size, or size 1 (a constant, broadcast); the result has a q
  /// component where every operand has one, unless the primitive consumes
  /// it (an exponential). `what` names the operator in messages.
  llvm::Expected<FFTensor> (*ff)(llvm::ArrayRef<const FFTensor *> x,
                                 const Fingerprinter &fp, llvm::StringRef what);
  /// The degree as a rational function of the inputs.
  Degree (*degree)(llvm::ArrayRef<Degree> x);
  /// The abstract expression.
  ExprId (*expr)(llvm::ArrayRef<ExprId> x, ExprContext &context);
  /// Singular where its operand is 0 (recip): a bound on the derivative may
  /// not be sampled across 0.
  bool poleAtZero = false;
};

const PrimitiveRecord &getPrimitiveRecord(Primitive primitive);

} // namespace mirage::detail

#endif // MIRAGE_LIB_SEMANTICS_PRIMITIVES_H
