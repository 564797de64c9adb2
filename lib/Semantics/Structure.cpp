//===- Structure.cpp - Iterators, savers and accumulators -----------------===//
//
// The operators that give block and thread graphs their structure: the tiles
// input iterators read, where output savers write, and how accumulators fold
// the iterations of the loop. imap/omap map grid (or thread) dims to data
// dims; fmap maps the loop dim. See docs/Dialects.md.
//
//===----------------------------------------------------------------------===//

#include "Records.h"

#include <cmath>
#include <limits>

using namespace mirage;
using namespace mirage::detail;

//===----------------------------------------------------------------------===//
// Shapes
//===----------------------------------------------------------------------===//

namespace {

/// The words diagnostics use for the partitioned dims at each level.
struct LevelWords {
  const char *dim;     // "grid dim x"
  const char *space;   // "the grid has 2 dim(s)"
  const char *workers; // "blocks write disjoint parts"
};

LevelWords wordsFor(const TilingParams &tiling) {
  if (tiling.level == TilingParams::Level::Thread)
    return {"thread dim", "thread layout", "threads"};
  return {"grid dim", "grid", "blocks"};
}

/// Validates a grid map: one entry per grid dim, each a data dim of a tensor of
/// `rank` or kReplica (when `allowReplica`), no data dim used twice.
llvm::Error checkGridMap(const TilingParams &tiling, size_t rank,
                         llvm::StringRef mapName, bool allowReplica) {
  LevelWords words = wordsFor(tiling);
  if (tiling.gridMap.size() != tiling.grid.size())
    return makeError(llvm::formatv(
        "{0} has {1} entries but the {2} has {3} dim(s); a map has one entry "
        "per {4}",
        mapName, tiling.gridMap.size(), words.space, tiling.grid.size(),
        words.dim));
  for (auto [g, dim] : llvm::enumerate(tiling.gridMap)) {
    if (dim == kReplica) {
      if (!allowReplica)
        return makeError(llvm::formatv(
            "{0} maps {1} {2} to replica; every {1} must map to a data dim so "
            "that {3} write disjoint parts of the output",
            mapName, words.dim, gridDimName(g), words.workers));
      continue;
    }
    if (dim < 0 || dim >= static_cast<int64_t>(rank))
      return makeError(llvm::formatv(
          "{0} maps {1} {2} to data dim {3}, but the tensor has rank {4}",
          mapName, words.dim, gridDimName(g), dim, rank));
    for (size_t other = 0; other < g; ++other)
      if (tiling.gridMap[other] == dim)
        return makeError(llvm::formatv(
            "{0} maps {1}s {2} and {3} to the same data dim {4}", mapName,
            words.dim, gridDimName(other), gridDimName(g), dim));
  }
  return llvm::Error::success();
}

} // namespace

/// The tile an input iterator loads in one iteration of one worker.
Expected<Shapes> detail::inputIteratorShape(OperandShapes in,
                                            const OpParams &params) {
  const TilingParams &tiling = params.tiling;
  Shape tile(in[0]);
  if (auto err = checkGridMap(tiling, tile.size(), "imap", true))
    return std::move(err);
  for (auto [g, dim] : llvm::enumerate(tiling.gridMap)) {
    if (dim == kReplica)
      continue;
    int64_t parts = tiling.grid[g];
    if (tile[dim] % parts != 0)
      return makeError(llvm::formatv(
          "data dim {0} (size {1}) is not divisible by {2} {3} (size {4}) "
          "that imap partitions it over",
          dim, tile[dim], wordsFor(tiling).dim, gridDimName(g), parts));
    tile[dim] /= parts;
  }
  if (tiling.loopMap != kReplica) {
    if (tiling.loopMap < 0 ||
        tiling.loopMap >= static_cast<int64_t>(tile.size()))
      return makeError(llvm::formatv(
          "fmap maps the loop dim to data dim {0}, but the tensor has rank {1}",
          tiling.loopMap, tile.size()));
    int64_t &size = tile[tiling.loopMap];
    if (size % tiling.forloopRange != 0)
      return makeError(llvm::formatv(
          "data dim {0} (size {1} per {2}) is not divisible by the for-loop "
          "range {3} that fmap partitions it over",
          tiling.loopMap, size,
          tiling.level == TilingParams::Level::Thread ? "thread" : "block",
          tiling.forloopRange));
    size /= tiling.forloopRange;
  }
  return Shapes{tile};
}

/// The full output an output saver assembles from every worker's tile.
Expected<Shapes> detail::outputSaverShape(OperandShapes in,
                                          const OpParams &params) {
  const TilingParams &tiling = params.tiling;
  Shape result(in[0]);
  if (auto err = checkGridMap(tiling, result.size(), "omap", false))
    return std::move(err);
  for (auto [g, dim] : llvm::enumerate(tiling.gridMap))
    if (llvm::MulOverflow(result[dim], tiling.grid[g], result[dim]))
      return makeError(llvm::formatv(
          "the output's dim {0} (tile size times grid dim {1}) overflows a "
          "64-bit size",
          dim, g));
  return Shapes{result};
}

Expected<Shapes> detail::accumConcatShape(OperandShapes in,
                                          const OpParams &params) {
  if (auto err = checkDim(params.dim, in[0].size(), "concat dim"))
    return std::move(err);
  Shape result(in[0]);
  if (llvm::MulOverflow(result[params.dim], params.tiling.forloopRange,
                        result[params.dim]))
    return makeError(llvm::formatv(
        "the concat dim {0} (tile size times loop range) overflows a 64-bit "
        "size",
        params.dim));
  return Shapes{result};
}

/// accum_rescaled_sum(x, m): the scale operand m must broadcast to x.
Expected<Shapes> detail::accumRescaledSumShape(OperandShapes in,
                                               const OpParams &) {
  auto shape = broadcastShapes(in[0], in[1]);
  if (!shape || ArrayRef<int64_t>(*shape) != in[0]) {
    if (!shape)
      llvm::consumeError(shape.takeError());
    return makeError(llvm::formatv(
        "the running-max operand of shape {0} does not broadcast to the "
        "accumulated shape {1}",
        formatShape(in[1]), formatShape(in[0])));
  }
  return single(in[0]);
}

//===----------------------------------------------------------------------===//
// Where tiles are read and written
//===----------------------------------------------------------------------===//

Shape mirage::getInputTileOffsets(const TilingParams &tiling,
                                  ArrayRef<int64_t> worker, int64_t iteration,
                                  ArrayRef<int64_t> shape) {
  Shape offsets(shape.size(), 0), extent(shape);
  for (auto [g, dim] : llvm::enumerate(tiling.gridMap)) {
    if (dim == kReplica)
      continue;
    extent[dim] /= tiling.grid[g];
    offsets[dim] += worker[g] * extent[dim];
  }
  if (tiling.loopMap != kReplica) {
    extent[tiling.loopMap] /= tiling.forloopRange;
    offsets[tiling.loopMap] += iteration * extent[tiling.loopMap];
  }
  return offsets;
}

Shape mirage::getOutputTileOffsets(const TilingParams &tiling,
                                   ArrayRef<int64_t> worker,
                                   ArrayRef<int64_t> tile) {
  Shape offsets(tile.size(), 0);
  for (auto [g, dim] : llvm::enumerate(tiling.gridMap))
    offsets[dim] = worker[g] * tile[dim];
  return offsets;
}

//===----------------------------------------------------------------------===//
// Accumulators
//===----------------------------------------------------------------------===//

namespace {

/// Sum over the iterations (the paper's Accum with map phi).
class F64Sum : public Accumulator<F64Tensor> {
public:
  explicit F64Sum(ArrayRef<int64_t> shape) : total(shape) {}
  llvm::Error fold(ArrayRef<const F64Tensor *> in, int64_t) override {
    for (int64_t i = 0; i < total.size(); ++i)
      total.data[i] += in[0]->data[i];
    return llvm::Error::success();
  }
  F64Tensor result() override { return total; }

private:
  F64Tensor total;
};

class F64Max : public Accumulator<F64Tensor> {
public:
  explicit F64Max(ArrayRef<int64_t> shape)
      : best(shape, -std::numeric_limits<double>::infinity()) {}
  llvm::Error fold(ArrayRef<const F64Tensor *> in, int64_t) override {
    for (int64_t i = 0; i < best.size(); ++i)
      best.data[i] = std::max(best.data[i], in[0]->data[i]);
    return llvm::Error::success();
  }
  F64Tensor result() override { return best; }

private:
  F64Tensor best;
};

/// Iteration `it` fills slice `it` along `dim` (the paper's Accum with map m).
template <typename TensorT>
class Concat : public Accumulator<TensorT> {
public:
  Concat(TensorT initial, int64_t dim) : all(std::move(initial)), dim(dim) {}
  llvm::Error fold(ArrayRef<const TensorT *> in, int64_t iteration) override {
    Shape offsets(all.shape.size(), 0);
    offsets[dim] = iteration * in[0]->shape[dim];
    if constexpr (std::is_same_v<TensorT, FFTensor>)
      if (!in[0]->hasQ())
        all.q.clear();
    scatterTile(all, offsets, *in[0]);
    return llvm::Error::success();
  }
  TensorT result() override { return all; }

private:
  TensorT all;
  int64_t dim;
};

/// sum_it x_it * exp(m_it - M), M = max_it m_it, by the running rescaling of
/// online softmax: when the maximum grows, the sum so far is scaled down.
class F64RescaledSum : public Accumulator<F64Tensor> {
public:
  explicit F64RescaledSum(ArrayRef<int64_t> shape) : sum(shape) {}
  llvm::Error fold(ArrayRef<const F64Tensor *> in, int64_t) override {
    const F64Tensor &x = *in[0], &m = *in[1];
    if (runningMax.data.empty())
      runningMax = F64Tensor(m.shape, -std::numeric_limits<double>::infinity());
    std::vector<int64_t> maxOf = broadcastGather(m.shape, sum.shape);
    F64Tensor updated = runningMax;
    for (int64_t i = 0; i < m.size(); ++i)
      updated.data[i] = std::max(runningMax.data[i], m.data[i]);
    for (int64_t i = 0; i < sum.size(); ++i) {
      int64_t j = maxOf[i];
      double previous = runningMax.data[j], now = updated.data[j];
      double kept = std::isinf(previous) ? 0.0 : sum.data[i] * std::exp(previous - now);
      sum.data[i] = kept + x.data[i] * std::exp(m.data[j] - now);
    }
    runningMax = std::move(updated);
    return llvm::Error::success();
  }
  F64Tensor result() override { return sum; }

private:
  F64Tensor sum;
  F64Tensor runningMax;
};

/// Bounded accumulators: the float64 one's values and bounds on their
/// errors.

/// Each iteration adds its operand's error and one rounding of the sum.
class BoundedSum : public Accumulator<BoundedTensor> {
public:
  explicit BoundedSum(ArrayRef<int64_t> shape) : total(shape) {}
  llvm::Error fold(ArrayRef<const BoundedTensor *> in, int64_t) override {
    for (int64_t i = 0; i < total.size(); ++i) {
      total.value.data[i] += in[0]->value.data[i];
      total.error.data[i] += in[0]->error.data[i] +
                             kUnitRoundoff * std::fabs(total.value.data[i]);
    }
    return llvm::Error::success();
  }
  BoundedTensor result() override { return total; }

private:
  BoundedTensor total;
};

/// A maximum moves by at most the largest error among its candidates.
class BoundedMax : public Accumulator<BoundedTensor> {
public:
  explicit BoundedMax(ArrayRef<int64_t> shape) : best(shape), error(shape) {}
  llvm::Error fold(ArrayRef<const BoundedTensor *> in, int64_t it) override {
    for (int64_t i = 0; i < error.size(); ++i)
      error.data[i] = std::max(error.data[i], in[0]->error.data[i]);
    return best.fold({&in[0]->value}, it);
  }
  BoundedTensor result() override { return {best.result(), error}; }

private:
  F64Max best;
  F64Tensor error;
};

/// Errors land where their values do.
class BoundedConcat : public Accumulator<BoundedTensor> {
public:
  BoundedConcat(ArrayRef<int64_t> shape, int64_t dim)
      : values(F64Tensor(shape), dim), errors(F64Tensor(shape), dim) {}
  llvm::Error fold(ArrayRef<const BoundedTensor *> in, int64_t it) override {
    if (auto err = values.fold({&in[0]->value}, it))
      return err;
    return errors.fold({&in[0]->error}, it);
  }
  BoundedTensor result() override {
    return {values.result(), errors.result()};
  }

private:
  Concat<F64Tensor> values, errors;
};

/// sum_it x_it w_it with w_it = exp(m_it - M). With E = the largest error of
/// any m, each weight moves by a factor within exp(+-2E) (its own m and the
/// maximum M both move), so the result moves by at most
/// exp(2E) sum e_x w + expm1(2E) sum |x| w. Rounding: each term's weight
/// is exp of a rounded difference ((|m - M| + 3) u), each rescaling of the
/// sum so far likewise, each addition u. The sums of e_x w and |x| w are
/// kept with the same running rescaling as the value.
class BoundedRescaledSum : public Accumulator<BoundedTensor> {
public:
  explicit BoundedRescaledSum(ArrayRef<int64_t> shape)
      : sum(shape), errorSum(shape), magnitude(shape), rounding(shape) {}
  llvm::Error fold(ArrayRef<const BoundedTensor *> in, int64_t) override {
    const F64Tensor &x = in[0]->value, &ex = in[0]->error;
    const F64Tensor &m = in[1]->value, &em = in[1]->error;
    if (runningMax.data.empty()) {
      runningMax = F64Tensor(m.shape, -std::numeric_limits<double>::infinity());
      maxError = F64Tensor(m.shape);
    }
    std::vector<int64_t> maxOf = broadcastGather(m.shape, sum.shape);
    F64Tensor updated = runningMax;
    for (int64_t i = 0; i < m.size(); ++i) {
      updated.data[i] = std::max(runningMax.data[i], m.data[i]);
      maxError.data[i] = std::max(maxError.data[i], em.data[i]);
    }
    const double u = kUnitRoundoff;
    for (int64_t i = 0; i < sum.size(); ++i) {
      int64_t j = maxOf[i];
      double previous = runningMax.data[j], now = updated.data[j];
      // Nothing kept before the first finite maximum; a weight of 0 (an m
      // of -inf) rounds nothing.
      double keep = 0.0, keptRounding = 0.0;
      if (!std::isinf(previous)) {
        keep = std::exp(previous - now);
        keptRounding = (std::fabs(previous - now) + 3.0) * u *
                       magnitude.data[i] * keep;
      }
      double weight = std::exp(m.data[j] - now);
      double term = std::fabs(x.data[i]) * weight;
      double termRounding =
          term > 0.0 ? (std::fabs(m.data[j] - now) + 3.0) * u * term : 0.0;
      rounding.data[i] =
          rounding.data[i] * keep + keptRounding + termRounding;
      sum.data[i] = sum.data[i] * keep + x.data[i] * weight;
      rounding.data[i] += u * std::fabs(sum.data[i]);
      magnitude.data[i] = magnitude.data[i] * keep + term;
      errorSum.data[i] = errorSum.data[i] * keep + ex.data[i] * weight;
    }
    runningMax = std::move(updated);
    return llvm::Error::success();
  }
  BoundedTensor result() override {
    BoundedTensor out(sum.shape);
    out.value = sum;
    std::vector<int64_t> maxOf = broadcastGather(maxError.shape, sum.shape);
    for (int64_t i = 0; i < sum.size(); ++i) {
      double spread = 2.0 * maxError.data[maxOf[i]];
      out.error.data[i] = std::exp(spread) * errorSum.data[i] +
                          std::expm1(spread) * magnitude.data[i] +
                          rounding.data[i];
    }
    return out;
  }

private:
  F64Tensor sum, errorSum, magnitude, rounding;
  F64Tensor runningMax, maxError;
};

class FFSum : public Accumulator<FFTensor> {
public:
  FFSum(ArrayRef<int64_t> shape, const Fingerprinter &fp)
      : total(shape), fp(fp) {}
  llvm::Error fold(ArrayRef<const FFTensor *> in, int64_t) override {
    const FFTensor &x = *in[0];
    for (int64_t i = 0; i < total.size(); ++i)
      total.p[i] = fp.fieldP().add(total.p[i], x.p[i]);
    if (!x.hasQ())
      total.q.clear();
    if (total.hasQ())
      for (int64_t i = 0; i < total.size(); ++i)
        total.q[i] = fp.fieldQ().add(total.q[i], x.q[i]);
    return llvm::Error::success();
  }
  FFTensor result() override { return total; }

private:
  FFTensor total;
  const Fingerprinter &fp;
};

llvm::Error noSemantics(OpKind kind, llvm::StringRef system) {
  return makeError(getOpInfo(kind).name + " has no " + system +
                   " semantics (outside the Lax fragment)");
}

} // namespace

Expected<std::unique_ptr<Accumulator<F64Tensor>>>
mirage::makeAccumulator(OpKind kind, const OpParams &params,
                        ArrayRef<int64_t> resultShape) {
  switch (getOpInfo(kind).accumulation) {
  case Accumulation::Sum:
    return std::make_unique<F64Sum>(resultShape);
  case Accumulation::Max:
    return std::make_unique<F64Max>(resultShape);
  case Accumulation::Concat:
    return std::make_unique<Concat<F64Tensor>>(F64Tensor(resultShape),
                                               params.dim);
  case Accumulation::RescaledSum:
    return std::make_unique<F64RescaledSum>(resultShape);
  case Accumulation::None:
    return makeError(getOpInfo(kind).name + " is not an accumulator");
  }
  llvm_unreachable("every accumulation is handled");
}

Expected<std::unique_ptr<Accumulator<FFTensor>>>
mirage::makeAccumulator(OpKind kind, const OpParams &params,
                        ArrayRef<int64_t> resultShape,
                        const Fingerprinter &fp) {
  switch (getOpInfo(kind).accumulation) {
  case Accumulation::Sum:
    return std::make_unique<FFSum>(resultShape, fp);
  case Accumulation::Concat:
    return std::make_unique<Concat<FFTensor>>(FFTensor(resultShape),
                                              params.dim);
  case Accumulation::Max:
  case Accumulation::RescaledSum:
    return noSemantics(kind, "finite-field");
  case Accumulation::None:
    return makeError(getOpInfo(kind).name + " is not an accumulator");
  }
  llvm_unreachable("every accumulation is handled");
}

Expected<std::unique_ptr<Accumulator<BoundedTensor>>>
mirage::makeBoundedAccumulator(OpKind kind, const OpParams &params,
                               ArrayRef<int64_t> resultShape) {
  switch (getOpInfo(kind).accumulation) {
  case Accumulation::Sum:
    return std::make_unique<BoundedSum>(resultShape);
  case Accumulation::Max:
    return std::make_unique<BoundedMax>(resultShape);
  case Accumulation::Concat:
    return std::make_unique<BoundedConcat>(resultShape, params.dim);
  case Accumulation::RescaledSum:
    return std::make_unique<BoundedRescaledSum>(resultShape);
  case Accumulation::None:
    return makeError(getOpInfo(kind).name + " is not an accumulator");
  }
  llvm_unreachable("every accumulation is handled");
}

Degree mirage::getAccumulatorDegree(OpKind kind, Degree operand,
                                    const OpParams &params) {
  if (getOpInfo(kind).accumulation == Accumulation::Sum)
    return detail::sumDegree(operand, params.tiling.forloopRange);
  return operand;
}

//===----------------------------------------------------------------------===//
// Abstract expressions
//===----------------------------------------------------------------------===//

/// Iterators, savers and concatenating accumulators move elements; a sum
/// over the loop adds one term per iteration (Mirage v3 Table 1's Accum);
/// maxima and online-softmax sums are uninterpreted.
ExprId detail::structureExpr(OpKind kind, ArrayRef<ExprId> in, OperandShapes,
                             const OpParams &params, ExprContext &context) {
  switch (getOpInfo(kind).accumulation) {
  case Accumulation::Sum:
    return context.sum(params.tiling.forloopRange, in[0]);
  case Accumulation::Max:
    return context.opaque(
        llvm::formatv("max[{0}]", params.tiling.forloopRange).str(), in);
  case Accumulation::RescaledSum:
    return context.opaque("rescaled_sum", in);
  case Accumulation::Concat:
  case Accumulation::None:
    return in[0];
  }
  llvm_unreachable("every accumulation is handled");
}
