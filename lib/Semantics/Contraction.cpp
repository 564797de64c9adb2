//===- Contraction.cpp - matmul, reduce_sum, reduce_max -------------------===//
//
// Shape, float64, fingerprint and degree of the contractions. The
// fingerprint matmul accumulates 64 products of residues (each below 2^122)
// in 128 bits before one reduction, and runs in parallel over output rows and
// column blocks.
//
//===----------------------------------------------------------------------===//

#include "Records.h"

#include "mirage/Semantics/Parallel.h"

#include <cmath>
#include <limits>

using namespace mirage;
using namespace mirage::detail;

//===----------------------------------------------------------------------===//
// Shapes
//===----------------------------------------------------------------------===//

Expected<Shapes> detail::matmulShape(OperandShapes in, const OpParams &) {
  ArrayRef<int64_t> lhs = in[0], rhs = in[1];
  if (lhs.size() < 2 || rhs.size() < 2)
    return makeError(llvm::formatv(
        "matmul operands must have rank >= 2, got {0} and {1}",
        formatShape(lhs), formatShape(rhs)));
  int64_t k = lhs.back(), kr = rhs[rhs.size() - 2];
  if (k != kr)
    return makeError(llvm::formatv(
        "contraction dims differ: lhs dim {0} has size {1} but rhs dim {2} "
        "has size {3}",
        lhs.size() - 1, k, rhs.size() - 2, kr));
  auto batch = broadcastShapes(lhs.drop_back(2), rhs.drop_back(2));
  if (!batch)
    return makeError("batch dims do not broadcast: " +
                     llvm::toString(batch.takeError()));
  Shape result = *batch;
  result.push_back(lhs[lhs.size() - 2]);
  result.push_back(rhs.back());
  return Shapes{result};
}

Expected<Shapes> detail::reduceShape(OperandShapes in,
                                     const OpParams &params) {
  if (auto err = checkDim(params.dim, in[0].size(), "reduction dim"))
    return std::move(err);
  Shape result(in[0]);
  if (params.keepDim)
    result[params.dim] = 1;
  else
    result.erase(result.begin() + params.dim);
  return Shapes{result};
}

//===----------------------------------------------------------------------===//
// Shared structure
//===----------------------------------------------------------------------===//

namespace {

/// A batched matmul as (batch offsets of lhs and rhs blocks) x M x K x N.
struct MatmulPlan {
  Shape result;
  int64_t m, k, n;
  std::vector<int64_t> lhsBlock, rhsBlock; // per result batch index
};

MatmulPlan planMatmul(ArrayRef<int64_t> lhs, ArrayRef<int64_t> rhs) {
  MatmulPlan plan;
  plan.result = cantFail(matmulShape({lhs, rhs}, {}))[0];
  plan.m = lhs[lhs.size() - 2];
  plan.k = lhs.back();
  plan.n = rhs.back();
  ArrayRef<int64_t> batch = ArrayRef<int64_t>(plan.result).drop_back(2);
  plan.lhsBlock = broadcastGather(lhs.drop_back(2), batch);
  plan.rhsBlock = broadcastGather(rhs.drop_back(2), batch);
  return plan;
}

/// Columns per parallel work item of a matmul.
constexpr int64_t kColumnBlock = 512;

/// The float64 matmul loop, in parallel over rows and column blocks:
/// `step(lhs, rhs, j0, j1, cRow)` adds the product of lhs element `lhs` and
/// the rhs row starting at offset `rhs` to columns [j0, j1) of `cRow`.
template <typename Step>
void matmulF64(const MatmulPlan &plan, F64Tensor &out, Step step) {
  int64_t batches = plan.lhsBlock.size();
  int64_t columnBlocks = (plan.n + kColumnBlock - 1) / kColumnBlock;
  parallelFor(batches * plan.m * columnBlocks, [&](int64_t item) {
    int64_t block = item % columnBlocks, row = item / columnBlocks;
    int64_t batch = row / plan.m, i = row % plan.m;
    int64_t j0 = block * kColumnBlock, j1 = std::min(plan.n, j0 + kColumnBlock);
    int64_t aRow = (plan.lhsBlock[batch] * plan.m + i) * plan.k;
    int64_t bBlock = plan.rhsBlock[batch] * plan.k * plan.n;
    double *cRow = out.data.data() + (batch * plan.m + i) * plan.n;
    for (int64_t kk = 0; kk < plan.k; ++kk)
      step(aRow + kk, bBlock + kk * plan.n, j0, j1, cRow);
  });
}

/// Reductions over `dim` as outer x size x inner.
struct ReducePlan {
  int64_t outer = 1, size, inner = 1;
};

ReducePlan planReduce(ArrayRef<int64_t> shape, int64_t dim) {
  ReducePlan plan;
  for (int64_t d = 0; d < dim; ++d)
    plan.outer *= shape[d];
  plan.size = shape[dim];
  for (size_t d = dim + 1; d < shape.size(); ++d)
    plan.inner *= shape[d];
  return plan;
}

} // namespace

//===----------------------------------------------------------------------===//
// Float64
//===----------------------------------------------------------------------===//

Expected<F64Tensors> detail::contractionF64(OpKind kind, F64Operands in,
                                            const OpParams &params) {
  if (kind == OpKind::Matmul) {
    const F64Tensor &a = *in[0], &b = *in[1];
    MatmulPlan plan = planMatmul(a.shape, b.shape);
    F64Tensor out(plan.result);
    matmulF64(plan, out,
              [&](int64_t lhs, int64_t rhs, int64_t j0, int64_t j1,
                  double *cRow) {
                double scale = a.data[lhs];
                const double *bRow = b.data.data() + rhs;
                for (int64_t j = j0; j < j1; ++j)
                  cRow[j] += scale * bRow[j];
              });
    return F64Tensors{std::move(out)};
  }

  const F64Tensor &x = *in[0];
  ReducePlan plan = planReduce(x.shape, params.dim);
  F64Tensor out(cantFail(reduceShape({x.shape}, params))[0]);
  bool isMax = kind == OpKind::ReduceMax;
  for (int64_t o = 0; o < plan.outer; ++o)
    for (int64_t i = 0; i < plan.inner; ++i) {
      double acc = isMax ? -std::numeric_limits<double>::infinity() : 0.0;
      for (int64_t r = 0; r < plan.size; ++r) {
        double v = x.data[(o * plan.size + r) * plan.inner + i];
        acc = isMax ? std::max(acc, v) : acc + v;
      }
      out.data[o * plan.inner + i] = acc;
    }
  return F64Tensors{std::move(out)};
}

//===----------------------------------------------------------------------===//
// Error bounds
//===----------------------------------------------------------------------===//

namespace {
bool allZero(const F64Tensor &x) {
  return llvm::all_of(x.data, [](double v) { return v == 0.0; });
}
} // namespace

/// A dot product or sum of n terms, in any order, is within gamma_n of the
/// exact sum of |terms| (Higham, Accuracy and Stability, section 3.1); the
/// operands' errors propagate multilinearly. A maximum moves by at most its
/// operands' largest error and rounds nothing.
Expected<F64Tensors> detail::contractionErrors(OpKind kind, F64Operands values,
                                               F64Operands errors,
                                               ArrayRef<F64Tensor>,
                                               const OpParams &params) {
  if (kind == OpKind::ReduceMax)
    return contractionF64(kind, {errors[0]}, params);
  if (kind == OpKind::ReduceSum) {
    const F64Tensor &x = *values[0], &ex = *errors[0];
    double g = gamma(x.shape[params.dim] - 1);
    F64Tensor terms(x.shape);
    for (int64_t i = 0; i < x.size(); ++i)
      terms.data[i] = ex.data[i] + g * std::fabs(x.data[i]);
    return contractionF64(kind, {&terms}, params);
  }
  // |AB - A'B'| <= |A| E_B + E_A |B| + E_A E_B, plus gamma_K |A||B|:
  // bounded by (E_A + gamma_K |A|)(|B| + E_B) + |A| E_B, sums of
  // non-negative products that cancel nothing.
  const F64Tensor &a = *values[0], &b = *values[1];
  const F64Tensor &ea = *errors[0], &eb = *errors[1];
  double g = gamma(a.shape.back());
  MatmulPlan plan = planMatmul(a.shape, b.shape);
  F64Tensor out(plan.result);
  if (allZero(eb)) {
    matmulF64(plan, out,
              [&](int64_t lhs, int64_t rhs, int64_t j0, int64_t j1,
                  double *cRow) {
                double left = ea.data[lhs] + g * std::fabs(a.data[lhs]);
                const double *bRow = b.data.data() + rhs;
                for (int64_t j = j0; j < j1; ++j)
                  cRow[j] += left * std::fabs(bRow[j]);
              });
    return F64Tensors{std::move(out)};
  }
  matmulF64(plan, out,
            [&](int64_t lhs, int64_t rhs, int64_t j0, int64_t j1,
                double *cRow) {
              double magnitude = std::fabs(a.data[lhs]);
              double left = ea.data[lhs] + g * magnitude;
              const double *bRow = b.data.data() + rhs;
              const double *ebRow = eb.data.data() + rhs;
              for (int64_t j = j0; j < j1; ++j)
                cRow[j] += left * (std::fabs(bRow[j]) + ebRow[j]) +
                           magnitude * ebRow[j];
            });
  return F64Tensors{std::move(out)};
}

//===----------------------------------------------------------------------===//
// Fingerprints
//===----------------------------------------------------------------------===//

namespace {

/// Terms summed in 128 bits before a reduction: 64 * (2^61)^2 < 2^128.
constexpr int64_t kLazyTerms = 64;

/// C += A x B for one component (residues mod `field`).
void matmulComponent(const PrimeField &field, const MatmulPlan &plan,
                     const std::vector<uint64_t> &a,
                     const std::vector<uint64_t> &b, std::vector<uint64_t> &c) {
  int64_t batches = plan.lhsBlock.size();
  int64_t columnBlocks = (plan.n + kColumnBlock - 1) / kColumnBlock;
  parallelFor(batches * plan.m * columnBlocks, [&](int64_t item) {
    int64_t block = item % columnBlocks, row = item / columnBlocks;
    int64_t batch = row / plan.m, i = row % plan.m;
    int64_t j0 = block * kColumnBlock, j1 = std::min(plan.n, j0 + kColumnBlock);
    const uint64_t *aRow = a.data() + (plan.lhsBlock[batch] * plan.m + i) * plan.k;
    const uint64_t *bBlock = b.data() + plan.rhsBlock[batch] * plan.k * plan.n;
    uint64_t *cRow = c.data() + (batch * plan.m + i) * plan.n;
    std::vector<unsigned __int128> acc(j1 - j0, 0);
    for (int64_t k0 = 0; k0 < plan.k; k0 += kLazyTerms) {
      int64_t k1 = std::min(plan.k, k0 + kLazyTerms);
      for (int64_t kk = k0; kk < k1; ++kk) {
        unsigned __int128 scale = aRow[kk];
        const uint64_t *bRow = bBlock + kk * plan.n;
        for (int64_t j = j0; j < j1; ++j)
          acc[j - j0] += scale * bRow[j];
      }
      for (int64_t j = j0; j < j1; ++j) {
        cRow[j] = field.add(cRow[j], field.reduce(acc[j - j0]));
        acc[j - j0] = 0;
      }
    }
  });
}

/// Sums `x` over a dim for one component.
void reduceSumComponent(const PrimeField &field, const ReducePlan &plan,
                        const std::vector<uint64_t> &x,
                        std::vector<uint64_t> &out) {
  for (int64_t o = 0; o < plan.outer; ++o)
    for (int64_t i = 0; i < plan.inner; ++i) {
      uint64_t total = 0;
      for (int64_t r0 = 0; r0 < plan.size; r0 += kLazyTerms) {
        unsigned __int128 acc = 0;
        for (int64_t r = r0; r < std::min(plan.size, r0 + kLazyTerms); ++r)
          acc += x[(o * plan.size + r) * plan.inner + i];
        total = field.add(total, field.reduce(acc));
      }
      out[o * plan.inner + i] = total;
    }
}

} // namespace

Expected<FFTensors> detail::contractionFF(OpKind kind, FFOperands in,
                                          const OpParams &params,
                                          const Fingerprinter &fp) {
  if (kind == OpKind::Matmul) {
    const FFTensor &a = *in[0], &b = *in[1];
    MatmulPlan plan = planMatmul(a.shape, b.shape);
    bool withQ = a.hasQ() && b.hasQ();
    FFTensor out(plan.result, withQ);
    matmulComponent(fp.fieldP(), plan, a.p, b.p, out.p);
    if (withQ)
      matmulComponent(fp.fieldQ(), plan, a.q, b.q, out.q);
    return FFTensors{std::move(out)};
  }
  if (kind != OpKind::ReduceSum)
    return makeError(getOpInfo(kind).name +
                     " has no finite-field semantics (outside the Lax "
                     "fragment)");
  const FFTensor &x = *in[0];
  ReducePlan plan = planReduce(x.shape, params.dim);
  FFTensor out(cantFail(reduceShape({x.shape}, params))[0], x.hasQ());
  reduceSumComponent(fp.fieldP(), plan, x.p, out.p);
  if (x.hasQ())
    reduceSumComponent(fp.fieldQ(), plan, x.q, out.q);
  return FFTensors{std::move(out)};
}

//===----------------------------------------------------------------------===//
// Degrees
//===----------------------------------------------------------------------===//

Degree detail::contractionDegree(OpKind kind, ArrayRef<Degree> in,
                                 OperandShapes shapes, const OpParams &params) {
  if (kind == OpKind::Matmul)
    return sumDegree(mulDegree(in[0], in[1]), shapes[0].back());
  if (kind == OpKind::ReduceSum)
    return sumDegree(in[0], shapes[0][params.dim]);
  return in[0]; // reduce_max has no fingerprint
}

//===----------------------------------------------------------------------===//
// Abstract expressions
//===----------------------------------------------------------------------===//

ExprId detail::matmulExpr(OpKind, ArrayRef<ExprId> in, OperandShapes shapes,
                          const OpParams &, ExprContext &context) {
  // A sum over k of products, k the lhs's last dim.
  return context.sum(shapes[0].back(), context.mul(in[0], in[1]));
}

ExprId detail::reduceSumExpr(OpKind, ArrayRef<ExprId> in, OperandShapes shapes,
                             const OpParams &params, ExprContext &context) {
  return context.sum(shapes[0][params.dim], in[0]);
}

ExprId detail::reduceMaxExpr(OpKind, ArrayRef<ExprId> in, OperandShapes shapes,
                             const OpParams &params, ExprContext &context) {
  // The maximum is uninterpreted; its extent is part of the symbol.
  return context.opaque(llvm::formatv("max[{0}]", shapes[0][params.dim]).str(),
                        in);
}

OpWork detail::contractionWork(OpKind kind, OperandShapes in,
                               ArrayRef<int64_t> out, const OpParams &) {
  OpWork work;
  if (kind == OpKind::Matmul)
    work.multiplyAdds = static_cast<double>(getNumElements(out)) *
                        static_cast<double>(in[0].back());
  else
    work.elementOps = static_cast<double>(getNumElements(in[0]));
  return work;
}

std::optional<DimMap> detail::contractionMap(OpKind kind, OperandShapes in,
                                             ArrayRef<int64_t> out,
                                             const OpParams &params) {
  DimMap map;
  if (kind == OpKind::Matmul) {
    // Space [batch..., m, n, k]: batch dims align like an elementwise
    // operator's, rows come from the left operand, columns from the right,
    // and k is contracted and folded by a sum.
    int64_t rank = out.size();
    if (in.size() != 2 || rank < 2 || in[0].size() < 2 || in[1].size() < 2 ||
        static_cast<int64_t>(std::max(in[0].size(), in[1].size())) > rank)
      return std::nullopt;
    map.space = Shape(out);
    map.space.push_back(in[0].back());
    map.kinds.assign(rank + 1, SpaceDimKind::Parallel);
    map.kinds[rank] = SpaceDimKind::Reduced;
    map.accumulator = OpKind::AccumSum;
    int64_t m = rank - 2, n = rank - 1, k = rank;
    for (auto [index, shape] : llvm::enumerate(in)) {
      auto &dims = map.operands.emplace_back();
      int64_t opRank = shape.size();
      int64_t skip = (rank - 2) - (opRank - 2);
      for (int64_t d = 0; d + 2 < opRank; ++d)
        dims.push_back(shape[d] == 1 && out[d + skip] != 1 ? kBroadcastDim
                                                           : d + skip);
      if (index == 0)
        dims.append({m, k});
      else
        dims.append({k, n});
    }
    auto &dims = map.results.emplace_back();
    for (int64_t d = 0; d < rank; ++d)
      dims.push_back(d);
    return map;
  }
  // Reductions: the space is the operand; the reduced dim is folded by the
  // reduction's own combination, and a kept reduced dim indexes nothing.
  ArrayRef<int64_t> shape = in[0];
  int64_t rank = shape.size();
  if (params.dim < 0 || params.dim >= rank)
    return std::nullopt;
  map.space = Shape(shape);
  map.kinds.assign(rank, SpaceDimKind::Parallel);
  map.kinds[params.dim] = SpaceDimKind::Reduced;
  map.accumulator =
      kind == OpKind::ReduceMax ? OpKind::AccumMax : OpKind::AccumSum;
  auto &dims = map.operands.emplace_back();
  for (int64_t d = 0; d < rank; ++d)
    dims.push_back(d);
  auto &outDims = map.results.emplace_back();
  for (int64_t d = 0; d < rank; ++d) {
    if (d != params.dim)
      outDims.push_back(d);
    else if (params.keepDim)
      outDims.push_back(kWholeDim);
  }
  return map;
}
