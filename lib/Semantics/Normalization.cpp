//===- Normalization.cpp - rms_norm ---------------------------------------===//
//
// rms_norm(x[, w]) over the last dim: y = x / sqrt(mean(x * x) + eps) * w.
//
//===----------------------------------------------------------------------===//

#include "Records.h"

#include <cmath>
#include <limits>

using namespace mirage;
using namespace mirage::detail;

Expected<Shapes> detail::rmsNormShape(OperandShapes in, const OpParams &) {
  ArrayRef<int64_t> x = in[0];
  if (x.empty())
    return makeError("rms_norm input must have rank >= 1");
  if (in.size() == 2 && (in[1].size() != 1 || in[1][0] != x.back()))
    return makeError(llvm::formatv(
        "rms_norm weight must have shape {0} (the normalized last dim), got {1}",
        x.back(), formatShape(in[1])));
  return single(x);
}

Expected<F64Tensors> detail::rmsNormF64(OpKind, F64Operands in,
                                        const OpParams &params) {
  const F64Tensor &x = *in[0];
  const F64Tensor *w = in.size() == 2 ? in[1] : nullptr;
  int64_t width = x.shape.back(), rows = x.size() / width;
  F64Tensor out(x.shape);
  for (int64_t r = 0; r < rows; ++r) {
    const double *row = x.data.data() + r * width;
    double sumOfSquares = 0.0;
    for (int64_t j = 0; j < width; ++j)
      sumOfSquares += row[j] * row[j];
    double scale = 1.0 / std::sqrt(sumOfSquares / width + params.scalar);
    for (int64_t j = 0; j < width; ++j)
      out.data[r * width + j] = row[j] * scale * (w ? w->data[j] : 1.0);
  }
  return F64Tensors{std::move(out)};
}

/// Per row, with m = mean(x^2) and t = m + eps: the sum of squares rounds
/// within gamma_(n+1) and moves by at most sum(2|x|e + e^2) / n; 1/sqrt(t)
/// then moves by a relative dt / (2 (t - dt)) and rounds 3u; each output
/// x * s * w takes two more roundings.
Expected<F64Tensors> detail::rmsNormErrors(OpKind, F64Operands values,
                                           F64Operands errors,
                                           ArrayRef<F64Tensor> results,
                                           const OpParams &params) {
  const F64Tensor &x = *values[0], &ex = *errors[0];
  const F64Tensor *w = values.size() == 2 ? values[1] : nullptr;
  const F64Tensor *ew = values.size() == 2 ? errors[1] : nullptr;
  int64_t width = x.shape.back(), rows = x.size() / width;
  const double u = kUnitRoundoff;
  F64Tensor out(x.shape);
  for (int64_t r = 0; r < rows; ++r) {
    const double *row = x.data.data() + r * width;
    const double *rowError = ex.data.data() + r * width;
    double squares = 0.0, moved = 0.0;
    for (int64_t j = 0; j < width; ++j) {
      squares += row[j] * row[j];
      moved += (2.0 * std::fabs(row[j]) + rowError[j]) * rowError[j];
    }
    double t = squares / width + params.scalar;
    double dt = moved / width + gamma(width + 1) * squares / width + u * t;
    double scale = 1.0 / std::sqrt(t);
    double relative = t - dt > 0.0
                          ? dt / (2.0 * (t - dt)) + 3.0 * u
                          : std::numeric_limits<double>::infinity();
    double scaleError = scale * relative;
    for (int64_t j = 0; j < width; ++j) {
      int64_t i = r * width + j;
      double weight = w ? std::fabs(w->data[j]) : 1.0;
      double weightError = ew ? ew->data[j] : 0.0;
      double propagated =
          rowError[j] * (scale + scaleError) * (weight + weightError) +
          std::fabs(row[j]) * scaleError * (weight + weightError) +
          std::fabs(row[j]) * scale * weightError;
      if (std::isnan(propagated)) // 0 * inf: no bound on the scale.
        propagated = std::numeric_limits<double>::infinity();
      out.data[i] = propagated + 2.0 * u * std::fabs(results[0].data[i]);
    }
  }
  return F64Tensors{std::move(out)};
}

namespace {
/// One component: y = x * w / root, with the roots of (mean + eps) given per
/// row (`inverseRoots`, already inverted).
void normalizeComponent(const PrimeField &field, const std::vector<uint64_t> &x,
                        const std::vector<uint64_t> *w,
                        const std::vector<uint64_t> &inverseRoots,
                        int64_t width, std::vector<uint64_t> &out) {
  for (size_t r = 0; r < inverseRoots.size(); ++r)
    for (int64_t j = 0; j < width; ++j) {
      uint64_t value = field.mul(x[r * width + j], inverseRoots[r]);
      out[r * width + j] = w ? field.mul(value, (*w)[j]) : value;
    }
}

/// mean(x * x) + eps per row, for one component.
std::vector<uint64_t> shiftedMeans(const PrimeField &field,
                                   const std::vector<uint64_t> &x,
                                   int64_t width, double eps) {
  uint64_t inverseWidth = *field.inverse(field.fromInt(width));
  uint64_t shift = field.fromDouble(eps);
  std::vector<uint64_t> means(x.size() / width);
  for (size_t r = 0; r < means.size(); ++r) {
    uint64_t sum = 0;
    for (int64_t j = 0; j < width; ++j)
      sum = field.add(sum, field.mul(x[r * width + j], x[r * width + j]));
    means[r] = field.add(field.mul(sum, inverseWidth), shift);
  }
  return means;
}
} // namespace

Expected<FFTensors> detail::rmsNormFF(OpKind, FFOperands in,
                                      const OpParams &params,
                                      const Fingerprinter &fp) {
  const FFTensor &x = *in[0];
  const FFTensor *w = in.size() == 2 ? in[1] : nullptr;
  bool withQ = x.hasQ() && (!w || w->hasQ());
  int64_t width = x.shape.back();
  std::vector<uint64_t> meansP = shiftedMeans(fp.fieldP(), x.p, width, params.scalar);
  std::vector<uint64_t> meansQ =
      withQ ? shiftedMeans(fp.fieldQ(), x.q, width, params.scalar)
            : std::vector<uint64_t>(meansP.size(), 0);
  std::vector<uint64_t> rootsP(meansP.size()), rootsQ(meansP.size());
  for (size_t r = 0; r < meansP.size(); ++r) {
    auto root = fp.sqrt(meansP[r], meansQ[r], withQ);
    if (!root)
      return llvm::make_error<ResampleError>(
          "rms_norm takes the square root of a quadratic non-residue");
    rootsP[r] = root->first;
    rootsQ[r] = root->second;
  }
  if (!fp.fieldP().inverseAll(rootsP) ||
      (withQ && !fp.fieldQ().inverseAll(rootsQ)))
    return llvm::make_error<ResampleError>(
        "rms_norm divides by a root that is 0");
  FFTensor out(x.shape, withQ);
  normalizeComponent(fp.fieldP(), x.p, w ? &w->p : nullptr, rootsP, width,
                     out.p);
  if (withQ)
    normalizeComponent(fp.fieldQ(), x.q, w ? &w->q : nullptr, rootsQ, width,
                       out.q);
  return FFTensors{std::move(out)};
}

Degree detail::rmsNormDegree(OpKind, ArrayRef<Degree> in, OperandShapes,
                             const OpParams &) {
  // x * w / s, where the root s is a new variable.
  Degree scaled = in.size() == 2 ? mulDegree(in[0], in[1]) : in[0];
  return divDegree(scaled, Degree{1, 0});
}

//===----------------------------------------------------------------------===//
// Abstract expressions
//===----------------------------------------------------------------------===//

/// x / sqrt(mean(x * x) + eps) * w, with the mean a product with the
/// constant 1/n, as a decomposed program writes it.
ExprId detail::rmsNormExpr(OpKind, ArrayRef<ExprId> in, OperandShapes shapes,
                           const OpParams &params, ExprContext &context) {
  int64_t n = shapes[0].back();
  ExprId mean =
      context.mul(context.sum(n, context.mul(in[0], in[0])),
                  context.constant(1.0 / static_cast<double>(n)));
  ExprId rms = context.sqrt(context.add(mean, context.constant(params.scalar)));
  ExprId normalized = context.div(in[0], rms);
  return in.size() > 1 ? context.mul(normalized, in[1]) : normalized;
}

OpWork detail::rmsNormWork(OpKind, OperandShapes in, ArrayRef<int64_t>,
                           const OpParams &) {
  OpWork work;
  work.elementOps = 4.0 * static_cast<double>(getNumElements(in[0]));
  return work;
}

std::optional<DimMap> detail::rmsNormMap(OpKind, OperandShapes in,
                                         ArrayRef<int64_t>, const OpParams &) {
  // Rows are independent; each is normalized by its own sum of squares,
  // so it needs its whole last dim, which the weight runs along.
  DimMap map;
  ArrayRef<int64_t> shape = in[0];
  int64_t rank = shape.size();
  if (rank == 0)
    return std::nullopt;
  map.space = Shape(shape);
  map.kinds.assign(rank, SpaceDimKind::Parallel);
  map.kinds[rank - 1] = SpaceDimKind::Normalized;
  llvm::SmallVector<int64_t, 4> dims;
  for (int64_t d = 0; d < rank; ++d)
    dims.push_back(d);
  map.operands.push_back(dims);
  if (in.size() > 1)
    map.operands.push_back({rank - 1});
  map.results.push_back(dims);
  return map;
}
