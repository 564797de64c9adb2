//===- Elementwise.cpp - Elementwise operators ----------------------------===//
//
// exp sqrt square silu sigmoid gelu relu neg mul_scalar add_scalar and the
// broadcasting add sub mul div pow: shape, float64, fingerprint, degree.
//
//===----------------------------------------------------------------------===//

#include "Records.h"

#include "mirage/Semantics/Parallel.h"

#include <cmath>

using namespace mirage;
using namespace mirage::detail;

//===----------------------------------------------------------------------===//
// Shapes
//===----------------------------------------------------------------------===//

Expected<Shapes> detail::unaryShape(OperandShapes in, const OpParams &) {
  return single(in[0]);
}

Expected<Shapes> detail::binaryShape(OperandShapes in, const OpParams &) {
  auto shape = broadcastShapes(in[0], in[1]);
  if (!shape)
    return shape.takeError();
  return Shapes{*shape};
}

//===----------------------------------------------------------------------===//
// Float64
//===----------------------------------------------------------------------===//

namespace {

double unaryF64(OpKind kind, double x, double s) {
  switch (kind) {
  case OpKind::Exp:
    return std::exp(x);
  case OpKind::Sqrt:
    return std::sqrt(x);
  case OpKind::Square:
    return x * x;
  case OpKind::Silu:
    return x / (1.0 + std::exp(-x));
  case OpKind::Sigmoid:
    return 1.0 / (1.0 + std::exp(-x));
  case OpKind::Gelu: {
    // x * Phi(x) through erfc, in long double: erfc keeps its relative
    // accuracy in the tail where 1 + erf(x) cancels, and the wider argument
    // keeps erfc's sensitivity to it (2 z^2 ulps) below the result's ulp.
    long double z = -static_cast<long double>(x) * 0.70710678118654752440L;
    return static_cast<double>(0.5L * x * std::erfc(z));
  }
  case OpKind::Relu:
    return x > 0.0 ? x : 0.0;
  case OpKind::Neg:
    return -x;
  case OpKind::MulScalar:
    return x * s;
  case OpKind::AddScalar:
    return x + s;
  default:
    llvm_unreachable("not a unary elementwise operator");
  }
}

double binaryF64(OpKind kind, double a, double b) {
  switch (kind) {
  case OpKind::Add:
    return a + b;
  case OpKind::Sub:
    return a - b;
  case OpKind::Mul:
    return a * b;
  case OpKind::Div:
    return a / b;
  case OpKind::Pow:
    return std::pow(a, b);
  default:
    llvm_unreachable("not a binary elementwise operator");
  }
}

bool isBinary(OpKind kind) { return getOpInfo(kind).minOperands == 2; }

/// |f'(x)| of a unary operator: how much an error in x can move the result.
double unarySlope(OpKind kind, double x, double s) {
  switch (kind) {
  case OpKind::Exp:
    return std::exp(x);
  case OpKind::Sqrt:
    return 0.5 / std::sqrt(x); // NaN below 0: no finite bound.
  case OpKind::Square:
    return 2.0 * std::fabs(x);
  case OpKind::Silu: {
    double sigma = 1.0 / (1.0 + std::exp(-x));
    return std::fabs(sigma * (1.0 + x * (1.0 - sigma)));
  }
  case OpKind::Sigmoid: {
    double sigma = 1.0 / (1.0 + std::exp(-x));
    return sigma * (1.0 - sigma);
  }
  case OpKind::Gelu: {
    // Phi(x) + x phi(x).
    double density = std::exp(-0.5 * x * x) * 0.5 * M_2_SQRTPI * M_SQRT1_2;
    return std::fabs(0.5 * std::erfc(-x * M_SQRT1_2) + x * density);
  }
  case OpKind::Relu:
  case OpKind::Neg:
  case OpKind::AddScalar:
    return 1.0;
  case OpKind::MulScalar:
    return std::fabs(s);
  default:
    llvm_unreachable("not a unary elementwise operator");
  }
}

/// A bound on |f(a', b') - f(a, b)| over |a' - a| <= ea, |b' - b| <= eb.
double binaryPropagated(OpKind kind, double a, double ea, double b,
                        double eb) {
  switch (kind) {
  case OpKind::Add:
  case OpKind::Sub:
    return ea + eb;
  case OpKind::Mul:
    return ea * (std::fabs(b) + eb) + std::fabs(a) * eb;
  case OpKind::Div: {
    double low = std::fabs(b) - eb;
    if (!(low > 0.0))
      return std::numeric_limits<double>::infinity();
    return ea / low + eb * (std::fabs(a) + ea) / (low * low);
  }
  case OpKind::Pow: {
    // The partial derivatives b a^(b-1) and a^b ln a, largest over the box.
    double da = 0.0, db = 0.0;
    for (double x : {a - ea, a, a + ea})
      for (double y : {b - eb, b, b + eb}) {
        da = std::max(da, std::fabs(y * std::pow(x, y - 1.0)));
        db = std::max(db, std::fabs(std::pow(x, y) * std::log(x)));
      }
    return ea * da + eb * db;
  }
  default:
    llvm_unreachable("not a binary elementwise operator");
  }
}

/// NaN (no bound) becomes +inf.
inline double orInfinity(double bound) {
  return std::isnan(bound) ? std::numeric_limits<double>::infinity() : bound;
}

/// The offsets each operand of a broadcasting op reads for every element of
/// `result`; empty when the operand already has the result's shape.
std::vector<int64_t> operandMap(ArrayRef<int64_t> operand,
                                ArrayRef<int64_t> result) {
  if (operand == result)
    return {};
  return broadcastGather(operand, result);
}

inline int64_t at(const std::vector<int64_t> &map, int64_t i) {
  return map.empty() ? i : map[i];
}

} // namespace

Expected<F64Tensors> detail::elementwiseF64(OpKind kind, F64Operands in,
                                            const OpParams &params) {
  const F64Tensor &x = *in[0];
  if (!isBinary(kind)) {
    F64Tensor out(x.shape);
    for (int64_t i = 0; i < x.size(); ++i)
      out.data[i] = unaryF64(kind, x.data[i], params.scalar);
    return F64Tensors{std::move(out)};
  }
  const F64Tensor &y = *in[1];
  Shape shape = cantFail(broadcastShapes(x.shape, y.shape));
  std::vector<int64_t> xMap = operandMap(x.shape, shape);
  std::vector<int64_t> yMap = operandMap(y.shape, shape);
  F64Tensor out(shape);
  for (int64_t i = 0; i < out.size(); ++i)
    out.data[i] = binaryF64(kind, x.data[at(xMap, i)], y.data[at(yMap, i)]);
  return F64Tensors{std::move(out)};
}

/// Propagated errors by the operator's slope over each operand's error
/// interval, plus its own rounding of `roundingUlps` units of 2^-53.
Expected<F64Tensors> detail::elementwiseErrors(OpKind kind, F64Operands values,
                                               F64Operands errors,
                                               ArrayRef<F64Tensor> results,
                                               const OpParams &params) {
  const F64Tensor &x = *values[0], &ex = *errors[0];
  const F64Tensor &result = results[0];
  double rounding = getOpInfo(kind).roundingUlps * kUnitRoundoff;
  F64Tensor out(result.shape);
  if (!isBinary(kind)) {
    for (int64_t i = 0; i < x.size(); ++i) {
      double e = ex.data[i], propagated = 0.0;
      if (e > 0.0)
        for (double at : {x.data[i] - e, x.data[i], x.data[i] + e})
          propagated =
              std::max(propagated, orInfinity(unarySlope(kind, at, params.scalar)) * e);
      out.data[i] = orInfinity(propagated) + rounding * std::fabs(result.data[i]);
    }
    return F64Tensors{std::move(out)};
  }
  const F64Tensor &y = *values[1], &ey = *errors[1];
  std::vector<int64_t> xMap = operandMap(x.shape, result.shape);
  std::vector<int64_t> yMap = operandMap(y.shape, result.shape);
  for (int64_t i = 0; i < result.size(); ++i) {
    int64_t xi = at(xMap, i), yi = at(yMap, i);
    double ea = ex.data[xi], eb = ey.data[yi];
    double propagated =
        ea > 0.0 || eb > 0.0
            ? orInfinity(binaryPropagated(kind, x.data[xi], ea, y.data[yi], eb))
            : 0.0;
    out.data[i] = propagated + rounding * std::fabs(result.data[i]);
  }
  return F64Tensors{std::move(out)};
}

//===----------------------------------------------------------------------===//
// Fingerprints
//===----------------------------------------------------------------------===//

namespace {

/// Applies `f(field, value)` to both components of every element; the q
/// component only when `x` has one.
template <typename Fn>
FFTensor mapFF(const FFTensor &x, const Fingerprinter &fp, Fn f) {
  FFTensor out(x.shape, x.hasQ());
  for (int64_t i = 0; i < x.size(); ++i)
    out.p[i] = f(fp.fieldP(), x.p[i]);
  if (x.hasQ())
    for (int64_t i = 0; i < x.size(); ++i)
      out.q[i] = f(fp.fieldQ(), x.q[i]);
  return out;
}

/// out = f(x, y) componentwise with broadcasting.
template <typename Fn>
FFTensor zipFF(const FFTensor &x, const FFTensor &y, const Fingerprinter &fp,
               Fn f) {
  Shape shape = cantFail(broadcastShapes(x.shape, y.shape));
  std::vector<int64_t> xMap = operandMap(x.shape, shape);
  std::vector<int64_t> yMap = operandMap(y.shape, shape);
  bool withQ = x.hasQ() && y.hasQ();
  FFTensor out(shape, withQ);
  for (int64_t i = 0; i < out.size(); ++i)
    out.p[i] = f(fp.fieldP(), x.p[at(xMap, i)], y.p[at(yMap, i)]);
  if (withQ)
    for (int64_t i = 0; i < out.size(); ++i)
      out.q[i] = f(fp.fieldQ(), x.q[at(xMap, i)], y.q[at(yMap, i)]);
  return out;
}

/// Inverts every element of both components; a zero means the sampled
/// inputs hit a zero divisor.
Expected<FFTensor> invertFF(const FFTensor &x, const Fingerprinter &fp,
                            llvm::StringRef what) {
  FFTensor inverse = x;
  if (!fp.fieldP().inverseAll(inverse.p))
    return llvm::make_error<ResampleError>(
        (what + " divides by a value that is 0 mod p").str());
  if (inverse.hasQ() && !fp.fieldQ().inverseAll(inverse.q))
    return llvm::make_error<ResampleError>(
        (what + " divides by a value that is 0 mod q").str());
  return inverse;
}

llvm::Error needsExponentField(const FFTensor &x, llvm::StringRef what) {
  if (x.hasQ())
    return llvm::Error::success();
  return makeError(what + " of a value that already passed an exponential "
                          "(outside the Lax fragment)");
}

} // namespace

Expected<FFTensors> detail::elementwiseFF(OpKind kind, FFOperands in,
                                          const OpParams &params,
                                          const Fingerprinter &fp) {
  const FFTensor &x = *in[0];
  auto mul = [](const PrimeField &f, uint64_t a, uint64_t b) {
    return f.mul(a, b);
  };
  switch (kind) {
  case OpKind::Neg:
    return FFTensors{mapFF(x, fp, [](const PrimeField &f, uint64_t a) {
      return f.neg(a);
    })};
  case OpKind::Square:
    return FFTensors{mapFF(x, fp, [](const PrimeField &f, uint64_t a) {
      return f.mul(a, a);
    })};
  case OpKind::MulScalar:
  case OpKind::AddScalar: {
    uint64_t cp = fp.fieldP().fromDouble(params.scalar);
    uint64_t cq = fp.fieldQ().fromDouble(params.scalar);
    bool multiply = kind == OpKind::MulScalar;
    return FFTensors{mapFF(x, fp, [&](const PrimeField &f, uint64_t a) {
      uint64_t c = &f == &fp.fieldP() ? cp : cq;
      return multiply ? f.mul(a, c) : f.add(a, c);
    })};
  }
  case OpKind::Exp: {
    if (auto err = needsExponentField(x, "exp"))
      return std::move(err);
    FFTensor out(x.shape, /*withQ=*/false);
    parallelChunks(x.size(), [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i)
        out.p[i] = fp.exp(x.p[i], x.q[i]);
    });
    return FFTensors{std::move(out)};
  }
  case OpKind::Silu:
  case OpKind::Sigmoid: {
    // silu(x) = x / (1 + exp(-x)) and sigmoid(x) = 1 / (1 + exp(-x)), where
    // exp(-x) is w^(-x_q); with w of odd order, 1 + w^y is never 0.
    llvm::StringRef name = getOpInfo(kind).name;
    if (auto err = needsExponentField(x, name))
      return std::move(err);
    const PrimeField &p = fp.fieldP(), &q = fp.fieldQ();
    FFTensor denominator(x.shape, /*withQ=*/false);
    parallelChunks(x.size(), [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i)
        denominator.p[i] = p.add(1, fp.exp(p.neg(x.p[i]), q.neg(x.q[i])));
    });
    auto inverse = invertFF(denominator, fp, name);
    if (!inverse)
      return inverse.takeError();
    if (kind == OpKind::Sigmoid) {
      inverse->shape = x.shape;
      return FFTensors{std::move(*inverse)};
    }
    FFTensor out(x.shape, /*withQ=*/false);
    for (int64_t i = 0; i < x.size(); ++i)
      out.p[i] = p.mul(x.p[i], inverse->p[i]);
    return FFTensors{std::move(out)};
  }
  case OpKind::Sqrt: {
    FFTensor out(x.shape, x.hasQ());
    for (int64_t i = 0; i < x.size(); ++i) {
      auto root = fp.sqrt(x.p[i], x.hasQ() ? x.q[i] : 0, x.hasQ());
      if (!root)
        return llvm::make_error<ResampleError>(
            "sqrt of a quadratic non-residue");
      out.p[i] = root->first;
      if (x.hasQ())
        out.q[i] = root->second;
    }
    return FFTensors{std::move(out)};
  }
  case OpKind::Add:
    return FFTensors{zipFF(x, *in[1], fp,
                           [](const PrimeField &f, uint64_t a, uint64_t b) {
                             return f.add(a, b);
                           })};
  case OpKind::Sub:
    return FFTensors{zipFF(x, *in[1], fp,
                           [](const PrimeField &f, uint64_t a, uint64_t b) {
                             return f.sub(a, b);
                           })};
  case OpKind::Mul:
    return FFTensors{zipFF(x, *in[1], fp, mul)};
  case OpKind::Div: {
    // Invert the divisor before broadcasting: each element once.
    auto inverse = invertFF(*in[1], fp, "div");
    if (!inverse)
      return inverse.takeError();
    return FFTensors{zipFF(x, *inverse, fp, mul)};
  }
  default:
    return makeError(getOpInfo(kind).name +
                     " has no finite-field semantics (outside the Lax "
                     "fragment)");
  }
}

//===----------------------------------------------------------------------===//
// Degrees: exp and sqrt results count as new variables of degree 1.
//===----------------------------------------------------------------------===//

Degree detail::elementwiseDegree(OpKind kind, ArrayRef<Degree> in,
                                 OperandShapes, const OpParams &) {
  switch (kind) {
  case OpKind::Exp:
  case OpKind::Sqrt:
    return {1, 0};
  case OpKind::Silu:
    // x / (1 + exp(-x)).
    return divDegree(in[0], Degree{1, 0});
  case OpKind::Sigmoid:
    // 1 / (1 + exp(-x)).
    return divDegree(Degree{0, 0}, Degree{1, 0});
  case OpKind::Square:
    return mulDegree(in[0], in[0]);
  case OpKind::AddScalar:
    return addDegree(in[0], Degree{0, 0});
  case OpKind::Add:
  case OpKind::Sub:
    return addDegree(in[0], in[1]);
  case OpKind::Mul:
    return mulDegree(in[0], in[1]);
  case OpKind::Div:
    return divDegree(in[0], in[1]);
  default:
    // neg, mul_scalar keep the degree; the others have no fingerprint.
    return in[0];
  }
}

//===----------------------------------------------------------------------===//
// Abstract expressions
//===----------------------------------------------------------------------===//

ExprId detail::elementwiseExpr(OpKind kind, ArrayRef<ExprId> in,
                               OperandShapes, const OpParams &params,
                               ExprContext &context) {
  switch (kind) {
  case OpKind::Exp:
    return context.exp(in[0]);
  case OpKind::Sqrt:
    return context.sqrt(in[0]);
  case OpKind::Square:
    return context.mul(in[0], in[0]);
  case OpKind::Silu:
    return context.silu(in[0]);
  case OpKind::Add:
    return context.add(in[0], in[1]);
  case OpKind::Sub:
    return context.add(in[0], context.opaque("neg", in[1]));
  case OpKind::Mul:
    return context.mul(in[0], in[1]);
  case OpKind::Div:
    return context.div(in[0], in[1]);
  case OpKind::MulScalar:
    return context.mul(in[0], context.constant(params.scalar));
  case OpKind::AddScalar:
    return context.add(in[0], context.constant(params.scalar));
  default:
    // sigmoid, gelu, relu, neg, pow: uninterpreted.
    return context.opaque(getOpInfo(kind).name, in);
  }
}

OpWork detail::elementwiseWork(OpKind kind, OperandShapes, ArrayRef<int64_t> out,
                               const OpParams &) {
  bool transcendental = kind == OpKind::Exp || kind == OpKind::Sqrt ||
                        kind == OpKind::Silu || kind == OpKind::Sigmoid ||
                        kind == OpKind::Gelu;
  OpWork work;
  work.elementOps =
      (transcendental ? 4.0 : 1.0) * static_cast<double>(getNumElements(out));
  return work;
}

std::optional<TileDims> detail::elementwiseTiles(OpKind kind,
                                                 OperandShapes in,
                                                 const OpParams &params) {
  // The space is the (broadcast) result; operands align on the right, and
  // a size-1 dim against a larger one broadcasts.
  auto result = inferShapes(kind, in, params);
  if (!result) {
    llvm::consumeError(result.takeError());
    return std::nullopt;
  }
  TileDims tiles;
  tiles.space = (*result)[0];
  int64_t rank = tiles.space.size();
  tiles.reduced.assign(rank, false);
  for (ArrayRef<int64_t> shape : in) {
    auto &dims = tiles.operands.emplace_back();
    int64_t skip = rank - static_cast<int64_t>(shape.size());
    for (auto [d, size] : llvm::enumerate(shape)) {
      int64_t s = static_cast<int64_t>(d) + skip;
      dims.push_back(size == 1 && tiles.space[s] != 1 ? kBroadcastDim : s);
    }
  }
  auto &out = tiles.results.emplace_back();
  for (int64_t d = 0; d < rank; ++d)
    out.push_back(d);
  return tiles;
}
