//===- Formula.h - Operators as formulas over primitives --------*- C++ -*-===//
//
// An elementwise operator is defined by its scalar formula (OpInfo::formula),
// an s-expression over a small set of primitives: `(mul x0 (logistic x0))` is
// silu. Each primitive is defined once with all its meanings (float64 value
// and derivatives, finite-field value, degree, abstract expression, cost in
// lib/Semantics/Primitives.cpp; the f32 code it lowers to in the GPU
// lowering; its arith/math counterpart in the frontends), so an operator
// made of primitives needs nothing but its ODS line and its formula.
//
// Syntax: `x0` and `x1` are the operands, `s` the scalar parameter, numbers
// are constants, and `(name operand...)` applies a primitive. `add` and `mul`
// take any number of operands (two or more).
//
//===----------------------------------------------------------------------===//

#ifndef MIRAGE_SEMANTICS_FORMULA_H
#define MIRAGE_SEMANTICS_FORMULA_H

#include "mirage/Semantics/OpSemantics.h"

#include <vector>

namespace mirage {

enum class Primitive : uint8_t {
  // Leaves.
  Operand,  // x0, x1
  Scalar,   // s, the operator's scalar parameter
  Constant, // a number
  // Elementwise.
  Add,
  Mul,
  Neg,
  Recip,
  Exp,
  Sqrt,
  Logistic,  // 1 / (1 + e^-a)
  NormalCdf, // Phi(a), the standard normal distribution function
  Erf,
  Tanh,
  Max,
  Pow,
  // Reductions over the operator's reduced dim (contractions, reductions).
  ReduceAdd,
  ReduceMax,
};

/// Static facts about a primitive.
struct PrimitiveInfo {
  Primitive primitive;
  llvm::StringRef name;
  /// Operand counts; maxOperands is nullopt for variadic add and mul.
  unsigned minOperands;
  std::optional<unsigned> maxOperands;
  /// Counts four element operations in the cost model, one otherwise.
  bool transcendental;
  /// How the primitive enters the finite-field fingerprint. The class of an
  /// operator is the strongest class among its formula's primitives.
  FingerprintClass fingerprint;
  /// A reduction: the primitive that folds two partial results (add, max).
  std::optional<Primitive> combine;
  /// A folding primitive: the value that leaves the other operand as it is
  /// (0 for add, -inf for max).
  std::optional<double> identity;
  /// A primitive that is not core: its definition over core primitives in
  /// `x0`, which the GPU lowering emits and the frontends match (they meet
  /// it spelled out, e.g. `1 / (1 + exp(-x))`). Empty for core primitives.
  llvm::StringRef expansion;
};

/// Returns the static facts of `primitive`.
const PrimitiveInfo &getPrimitiveInfo(Primitive primitive);

struct Formula {
  Primitive primitive;
  std::vector<Formula> operands;
  /// Constant: the number.
  double value = 0.0;
  /// Operand: 0 for x0, 1 for x1.
  unsigned index = 0;
};

/// Parses a formula; the error names the offending token.
llvm::Expected<Formula> parseFormula(llvm::StringRef text);

/// The formula of an operator, parsed once; null for operators without one
/// (normalization, data movement, structure).
const Formula *getOpFormula(OpKind kind);

/// `formula` with every non-core primitive replaced by its expansion and
/// nested sums and products flattened into their parent.
Formula expandFormula(const Formula &formula);

/// The primitive a reduction or accumulator folds partial results with
/// (its formula's reduction's `combine`: add for reduce_sum and accum_sum,
/// max for reduce_max and accum_max); nullopt for other operators.
std::optional<Primitive> getCombine(OpKind kind);

/// Whether `formula` contains a reduction.
bool hasReduction(const Formula &formula);

/// Whether `formula` reads the scalar parameter `s`.
bool usesScalar(const Formula &formula);

/// The strongest fingerprint class among the formula's primitives (Outside
/// over Exponential over SquareRoot over Division over Polynomial).
FingerprintClass getFingerprintClass(const Formula &formula);

/// The value of an elementwise formula at the operands `x` (x0, and x1 where
/// it reads one) and the scalar `s`, and its partial derivatives by x0 and
/// x1, through the primitives' meanings (long double).
struct FormulaPoint {
  long double value;
  long double slope[2];
};
FormulaPoint evaluateFormula(const Formula &formula,
                             llvm::ArrayRef<long double> x, double s = 0.0);

/// Folds a sum or product left to right, an operand wrapped in its inverse
/// (neg in a sum, recip in a product) folded by the inverse operation
/// instead, as code wants it: a + neg(b) is a - b, a * recip(b) is a / b.
/// `build(f)` makes an operand's value and `combine(acc, x, inverse)`
/// folds one in; a chain of inverses alone starts from the first, whole.
template <typename T, typename Build, typename Combine>
T foldChain(const Formula &formula, Build build, Combine combine) {
  Primitive inverse =
      formula.primitive == Primitive::Add ? Primitive::Neg : Primitive::Recip;
  std::optional<T> out;
  llvm::SmallVector<const Formula *, 2> inverted;
  for (const Formula &operand : formula.operands) {
    if (operand.primitive == inverse) {
      inverted.push_back(&operand);
      continue;
    }
    T value = build(operand);
    out = out ? combine(*out, value, false) : value;
  }
  for (const Formula *operand : inverted)
    out = out ? combine(*out, build(operand->operands[0]), true)
              : build(*operand);
  return *out;
}

/// `formula` printed back in the syntax above.
std::string printFormula(const Formula &formula);

} // namespace mirage

#endif // MIRAGE_SEMANTICS_FORMULA_H
