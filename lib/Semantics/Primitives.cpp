//===- Primitives.cpp - Every meaning of every primitive ------------------===//
//
// The primitives of the operators' formulas, each defined once: facts (name,
// arity, cost, fingerprint class, expansion), float64 value and partial
// derivatives, finite-field value, degree and abstract expression.
//
//===----------------------------------------------------------------------===//

#include "Primitives.h"
#include "Records.h"

#include "llvm/ADT/STLExtras.h"

#include <cmath>
#include <limits>

using namespace mirage;
using namespace mirage::detail;

namespace {

using FC = FingerprintClass;
using FFArgs = ArrayRef<const FFTensor *>;

constexpr std::optional<unsigned> kVariadic = std::nullopt;
/// 2 / sqrt(pi) and 1 / sqrt(2 pi).
constexpr long double kTwoOverSqrtPi = 1.12837916709551257389615890312154517L;
constexpr long double kOneOverSqrtTwoPi =
    0.398942280401432677939946059934381868L;
constexpr long double kSqrtHalf = 0.707106781186547524400844362104849039L;

//===----------------------------------------------------------------------===//
// Finite fields
//===----------------------------------------------------------------------===//

inline int64_t lane(const FFTensor &x, int64_t i) {
  return x.size() == 1 ? 0 : i;
}

/// f(field, a) on both components of every element (q only where x has it).
template <typename Fn>
FFTensor mapFF(const FFTensor &x, const Fingerprinter &fp, Fn f) {
  FFTensor out(x.shape, x.hasQ());
  for (int64_t i = 0; i < x.size(); ++i)
    out.p[i] = f(fp.fieldP(), x.p[i]);
  for (int64_t i = 0; i < static_cast<int64_t>(x.q.size()); ++i)
    out.q[i] = f(fp.fieldQ(), x.q[i]);
  return out;
}

/// f(field, a, b) on both components, a size-1 operand broadcast.
template <typename Fn>
FFTensor zipFF(const FFTensor &a, const FFTensor &b, const Fingerprinter &fp,
               Fn f) {
  const FFTensor &larger = a.size() >= b.size() ? a : b;
  FFTensor out(larger.shape, a.hasQ() && b.hasQ());
  for (int64_t i = 0; i < out.size(); ++i)
    out.p[i] = f(fp.fieldP(), a.p[lane(a, i)], b.p[lane(b, i)]);
  for (int64_t i = 0; i < static_cast<int64_t>(out.q.size()); ++i)
    out.q[i] = f(fp.fieldQ(), a.q[lane(a, i)], b.q[lane(b, i)]);
  return out;
}

template <typename Fn>
FFTensor foldFF(FFArgs x, const Fingerprinter &fp, Fn f) {
  FFTensor out = *x[0];
  for (const FFTensor *operand : x.drop_front())
    out = zipFF(out, *operand, fp, f);
  return out;
}

/// An exponential reads the exponent field (q) of its operand; a value
/// that already passed one has none.
llvm::Error needsExponentField(const FFTensor &x, llvm::StringRef what) {
  if (x.hasQ())
    return llvm::Error::success();
  return makeError(what + " of a value that already passed an exponential "
                          "(outside the Lax fragment)");
}

/// Inverts every element of both components; a zero means the sampled
/// inputs hit a zero divisor, and the trial is redrawn.
Expected<FFTensor> invertFF(FFTensor x, const Fingerprinter &fp,
                            llvm::StringRef what) {
  if (!fp.fieldP().inverseAll(x.p))
    return llvm::make_error<ResampleError>(
        (what + " divides by a value that is 0 mod p").str());
  if (x.hasQ() && !fp.fieldQ().inverseAll(x.q))
    return llvm::make_error<ResampleError>(
        (what + " divides by a value that is 0 mod q").str());
  return x;
}

Expected<FFTensor> addFF(FFArgs x, const Fingerprinter &fp, llvm::StringRef) {
  return foldFF(x, fp, [](const PrimeField &f, uint64_t a, uint64_t b) {
    return f.add(a, b);
  });
}

Expected<FFTensor> mulFF(FFArgs x, const Fingerprinter &fp, llvm::StringRef) {
  return foldFF(x, fp, [](const PrimeField &f, uint64_t a, uint64_t b) {
    return f.mul(a, b);
  });
}

Expected<FFTensor> negFF(FFArgs x, const Fingerprinter &fp, llvm::StringRef) {
  return mapFF(*x[0], fp,
               [](const PrimeField &f, uint64_t a) { return f.neg(a); });
}

Expected<FFTensor> recipFF(FFArgs x, const Fingerprinter &fp,
                           llvm::StringRef what) {
  return invertFF(*x[0], fp, what);
}

Expected<FFTensor> expFF(FFArgs x, const Fingerprinter &fp,
                         llvm::StringRef what) {
  const FFTensor &a = *x[0];
  if (auto err = needsExponentField(a, what))
    return std::move(err);
  FFTensor out(a.shape, /*withQ=*/false);
  parallelChunks(a.size(), [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i)
      out.p[i] = fp.exp(a.p[i], a.q[i]);
  });
  return out;
}

/// 1 / (1 + w^-a_q); with w of odd order, 1 + w^y is never 0.
Expected<FFTensor> logisticFF(FFArgs x, const Fingerprinter &fp,
                              llvm::StringRef what) {
  const FFTensor &a = *x[0];
  if (auto err = needsExponentField(a, what))
    return std::move(err);
  const PrimeField &p = fp.fieldP(), &q = fp.fieldQ();
  FFTensor denominator(a.shape, /*withQ=*/false);
  parallelChunks(a.size(), [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i)
      denominator.p[i] = p.add(1, fp.exp(p.neg(a.p[i]), q.neg(a.q[i])));
  });
  return invertFF(std::move(denominator), fp, what);
}

Expected<FFTensor> sqrtFF(FFArgs x, const Fingerprinter &fp, llvm::StringRef) {
  const FFTensor &a = *x[0];
  FFTensor out(a.shape, a.hasQ());
  for (int64_t i = 0; i < a.size(); ++i) {
    auto root = fp.sqrt(a.p[i], a.hasQ() ? a.q[i] : 0, a.hasQ());
    if (!root)
      return llvm::make_error<ResampleError>("sqrt of a quadratic non-residue");
    out.p[i] = root->first;
    if (a.hasQ())
      out.q[i] = root->second;
  }
  return out;
}

//===----------------------------------------------------------------------===//
// Degrees: exponentials and roots count as new variables of degree 1.
//===----------------------------------------------------------------------===//

Degree addDeg(ArrayRef<Degree> x) {
  Degree out = x[0];
  for (Degree d : x.drop_front())
    out = addDegree(out, d);
  return out;
}
Degree mulDeg(ArrayRef<Degree> x) {
  Degree out = x[0];
  for (Degree d : x.drop_front())
    out = mulDegree(out, d);
  return out;
}
Degree keepDeg(ArrayRef<Degree> x) {
  Degree out = x[0];
  for (Degree d : x.drop_front())
    out = {std::max(out.num, d.num), std::max(out.den, d.den)};
  return out;
}
Degree recipDeg(ArrayRef<Degree> x) { return divDegree(Degree{0, 0}, x[0]); }
Degree newVariableDeg(ArrayRef<Degree>) { return Degree{1, 0}; }
/// 1 / (1 + e): the reciprocal of a new variable.
Degree logisticDeg(ArrayRef<Degree>) { return Degree{0, 1}; }

//===----------------------------------------------------------------------===//
// Abstract expressions
//===----------------------------------------------------------------------===//

ExprId addExpr(ArrayRef<ExprId> x, ExprContext &context) {
  ExprId out = x[0];
  for (ExprId e : x.drop_front())
    out = context.add(out, e);
  return out;
}
ExprId mulExpr(ArrayRef<ExprId> x, ExprContext &context) {
  ExprId out = x[0];
  for (ExprId e : x.drop_front())
    out = context.mul(out, e);
  return out;
}
ExprId recipExpr(ArrayRef<ExprId> x, ExprContext &context) {
  return context.div(context.constant(1.0), x[0]);
}
ExprId expExpr(ArrayRef<ExprId> x, ExprContext &context) {
  return context.exp(x[0]);
}
ExprId sqrtExpr(ArrayRef<ExprId> x, ExprContext &context) {
  return context.sqrt(x[0]);
}
/// The uninterpreted function named after the primitive.
template <Primitive P>
ExprId symbolExpr(ArrayRef<ExprId> x, ExprContext &context) {
  return context.opaque(getPrimitiveInfo(P).name, x);
}

//===----------------------------------------------------------------------===//
// Values and partial derivatives, generic in the floating-point type: the
// float64 evaluation and the error bounds' slopes run them in double,
// evaluateFormula in long double.
//===----------------------------------------------------------------------===//

/// The element type of a value list.
template <typename Xs>
using Real = std::decay_t<decltype(std::declval<Xs>()[0])>;

/// 1 / (1 + e^-a), and Phi(a) through erfc in long double: erfc keeps its
/// relative accuracy in the lower tail where 1 + erf(a / sqrt 2) cancels,
/// and the wider argument keeps erfc's sensitivity to it (2 z^2 ulps)
/// below the result's ulp.
template <typename T>
T logistic(T a) {
  return 1 / (1 + std::exp(-a));
}
template <typename T>
T normalCdf(T a) {
  long double z = -static_cast<long double>(a) * kSqrtHalf;
  return static_cast<T>(0.5L * std::erfc(z));
}

// Each primitive's value (x: its operands) and partial derivative by
// operand i (r: the value).
constexpr auto addValue = [](auto x) {
  Real<decltype(x)> sum = 0;
  for (auto v : x)
    sum += v;
  return sum;
};
constexpr auto onePartial = [](auto x, auto, unsigned) {
  return Real<decltype(x)>(1);
};
constexpr auto mulValue = [](auto x) {
  Real<decltype(x)> product = 1;
  for (auto v : x)
    product *= v;
  return product;
};
/// The product of the other operands.
constexpr auto mulPartial = [](auto x, auto, unsigned i) {
  Real<decltype(x)> product = 1;
  for (unsigned j = 0; j < x.size(); ++j)
    if (j != i)
      product *= x[j];
  return product;
};
constexpr auto negValue = [](auto x) { return -x[0]; };
constexpr auto negPartial = [](auto x, auto, unsigned) {
  return Real<decltype(x)>(-1);
};
constexpr auto recipValue = [](auto x) { return 1 / x[0]; };
constexpr auto recipPartial = [](auto, auto r, unsigned) { return -r * r; };
constexpr auto expValue = [](auto x) { return std::exp(x[0]); };
constexpr auto expPartial = [](auto, auto r, unsigned) { return r; };
constexpr auto sqrtValue = [](auto x) { return std::sqrt(x[0]); };
constexpr auto sqrtPartial = [](auto, auto r, unsigned) { return 1 / (2 * r); };
constexpr auto logisticValue = [](auto x) { return logistic(x[0]); };
constexpr auto logisticPartial = [](auto, auto r, unsigned) {
  return r * (1 - r);
};
constexpr auto normalCdfValue = [](auto x) { return normalCdf(x[0]); };
constexpr auto normalCdfPartial = [](auto x, auto, unsigned) {
  using T = Real<decltype(x)>;
  return T(kOneOverSqrtTwoPi) * std::exp(-x[0] * x[0] / 2);
};
constexpr auto erfValue = [](auto x) { return std::erf(x[0]); };
constexpr auto erfPartial = [](auto x, auto, unsigned) {
  using T = Real<decltype(x)>;
  return T(kTwoOverSqrtPi) * std::exp(-x[0] * x[0]);
};
constexpr auto tanhValue = [](auto x) { return std::tanh(x[0]); };
constexpr auto tanhPartial = [](auto, auto r, unsigned) { return 1 - r * r; };
constexpr auto maxValue = [](auto x) { return std::max(x[0], x[1]); };
/// The derivative of the larger operand; at a tie either (both count).
constexpr auto maxPartial = [](auto x, auto, unsigned i) {
  using T = Real<decltype(x)>;
  return x[i] >= x[1 - i] ? T(1) : T(0);
};
constexpr auto powValue = [](auto x) { return std::pow(x[0], x[1]); };
constexpr auto powPartial = [](auto x, auto r, unsigned i) {
  return i == 0 ? x[1] * std::pow(x[0], x[1] - 1) : r * std::log(x[0]);
};

/// `value` over n elements: out[k] = value(x[0][k], x[1][k], ...).
template <const auto &Value, typename T>
void valuesOf(ArrayRef<const T *> x, T *out, size_t n) {
  T args[kMaxPrimitiveOperands];
  for (size_t k = 0; k < n; ++k) {
    for (auto [j, operand] : llvm::enumerate(x))
      args[j] = operand[k];
    out[k] = Value(ArrayRef<T>(args, x.size()));
  }
}

/// `partial` by operand i over n elements.
template <const auto &Partial, typename T>
void partialsOf(ArrayRef<const T *> x, const T *r, unsigned i, T *out,
                size_t n) {
  T args[kMaxPrimitiveOperands];
  for (size_t k = 0; k < n; ++k) {
    for (auto [j, operand] : llvm::enumerate(x))
      args[j] = operand[k];
    out[k] = Partial(ArrayRef<T>(args, x.size()), r[k], i);
  }
}

template <const auto &Value, const auto &Partial, typename T>
ScalarMeaning<T> meaning() {
  return {static_cast<T (*)(ArrayRef<T>)>(Value),
          static_cast<T (*)(ArrayRef<T>, T, unsigned)>(Partial),
          &valuesOf<Value, T>, &partialsOf<Partial, T>};
}

/// Both precisions of one primitive's value and partial derivatives.
template <const auto &Value, const auto &Partial>
ScalarMeanings meanings() {
  return {meaning<Value, Partial, long double>(),
          meaning<Value, Partial, double>()};
}

const ScalarMeanings kAdd = meanings<addValue, onePartial>();
const ScalarMeanings kMul = meanings<mulValue, mulPartial>();
const ScalarMeanings kNeg = meanings<negValue, negPartial>();
const ScalarMeanings kRecip = meanings<recipValue, recipPartial>();
const ScalarMeanings kExp = meanings<expValue, expPartial>();
const ScalarMeanings kSqrt = meanings<sqrtValue, sqrtPartial>();
const ScalarMeanings kLogistic = meanings<logisticValue, logisticPartial>();
const ScalarMeanings kNormalCdf = meanings<normalCdfValue, normalCdfPartial>();
const ScalarMeanings kErf = meanings<erfValue, erfPartial>();
const ScalarMeanings kTanh = meanings<tanhValue, tanhPartial>();
const ScalarMeanings kMax = meanings<maxValue, maxPartial>();
const ScalarMeanings kPow = meanings<powValue, powPartial>();
const ScalarMeanings kNone = {};

const PrimitiveRecord kRecords[] = {
    {{Primitive::Operand, "x", 0, 0, false, FC::Polynomial, {}, {}, {}},
     kNone,
     nullptr,
     nullptr,
     nullptr},
    {{Primitive::Scalar, "s", 0, 0, false, FC::Polynomial, {}, {}, {}},
     kNone,
     nullptr,
     nullptr,
     nullptr},
    {{Primitive::Constant, "constant", 0, 0, false, FC::Polynomial, {}, {}, {}},
     kNone,
     nullptr,
     nullptr,
     nullptr},
    {{Primitive::Add, "add", 2, kVariadic, false, FC::Polynomial, {}, 0.0, {}},
     kAdd,
     addFF,
     addDeg,
     addExpr},
    {{Primitive::Mul, "mul", 2, kVariadic, false, FC::Polynomial, {}, {}, {}},
     kMul,
     mulFF,
     mulDeg,
     mulExpr},
    {{Primitive::Neg, "neg", 1, 1, false, FC::Polynomial, {}, {}, {}},
     kNeg,
     negFF,
     keepDeg,
     symbolExpr<Primitive::Neg>},
    {{Primitive::Recip, "recip", 1, 1, false, FC::Division, {}, {}, {}},
     kRecip,
     recipFF,
     recipDeg,
     recipExpr,
     /*poleAtZero=*/true},
    {{Primitive::Exp, "exp", 1, 1, true, FC::Exponential, {}, {}, {}},
     kExp,
     expFF,
     newVariableDeg,
     expExpr},
    {{Primitive::Sqrt, "sqrt", 1, 1, true, FC::SquareRoot, {}, {}, {}},
     kSqrt,
     sqrtFF,
     newVariableDeg,
     sqrtExpr},
    {{Primitive::Logistic,
      "logistic",
      1,
      1,
      true,
      FC::Exponential,
      {},
      {},
      "(recip (add 1 (exp (neg x0))))"},
     kLogistic,
     logisticFF,
     logisticDeg,
     symbolExpr<Primitive::Logistic>},
    {{Primitive::NormalCdf,
      "normal_cdf",
      1,
      1,
      true,
      FC::Outside,
      {},
      {},
      "(mul 0.5 (add 1 (erf (mul 0.70710678118654752 x0))))"},
     kNormalCdf,
     nullptr,
     keepDeg,
     symbolExpr<Primitive::NormalCdf>},
    {{Primitive::Erf, "erf", 1, 1, true, FC::Outside, {}, {}, {}},
     kErf,
     nullptr,
     keepDeg,
     symbolExpr<Primitive::Erf>},
    {{Primitive::Tanh, "tanh", 1, 1, true, FC::Outside, {}, {}, {}},
     kTanh,
     nullptr,
     keepDeg,
     symbolExpr<Primitive::Tanh>},
    {{Primitive::Max,
      "max",
      2,
      2,
      false,
      FC::Outside,
      {},
      -std::numeric_limits<double>::infinity(),
      {}},
     kMax,
     nullptr,
     keepDeg,
     symbolExpr<Primitive::Max>},
    {{Primitive::Pow, "pow", 2, 2, true, FC::Outside, {}, {}, {}},
     kPow,
     nullptr,
     keepDeg,
     symbolExpr<Primitive::Pow>},
    {{Primitive::ReduceAdd,
      "reduce_add",
      1,
      1,
      false,
      FC::Polynomial,
      Primitive::Add,
      {},
      {}},
     kNone,
     nullptr,
     nullptr,
     nullptr},
    {{Primitive::ReduceMax,
      "reduce_max",
      1,
      1,
      false,
      FC::Outside,
      Primitive::Max,
      {},
      {}},
     kNone,
     nullptr,
     nullptr,
     nullptr},
};

} // namespace

const PrimitiveRecord &detail::getPrimitiveRecord(Primitive primitive) {
  const PrimitiveRecord &record = kRecords[static_cast<size_t>(primitive)];
  assert(record.info.primitive == primitive &&
         "primitive table out of enum order");
  return record;
}

const PrimitiveInfo &mirage::getPrimitiveInfo(Primitive primitive) {
  return getPrimitiveRecord(primitive).info;
}
