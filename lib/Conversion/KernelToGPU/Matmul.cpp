//===- Matmul.cpp - Tile matmuls on tensor cores --------------------------===//
//
// `mma.sync.m16n8k16` through nvgpu: operand fragments come from shared
// memory by `ldmatrix` (A as four 8x8 matrices; B transposed, four or two
// matrices for jobs of two or one 8-column tiles, or as is when the tile
// holds B's transpose), results accumulate in f32
// registers. Rows past m (when m is not a multiple of 16) read a clamped
// row and are never stored: an output row depends only on its own A row, so
// the duplicates are harmless.
//
// Fragment layouts (PTX ISA, "Matrix fragments for mma.m16n8k16"): lane l
// holds C rows l/4 and l/4 + 8, columns 2 (l % 4) and 2 (l % 4) + 1. For
// the x4 loads lane l gives the address of row (l % 16) at column offset
// 8 (l / 16) of the 16x16 block it loads; for the x2 load (B, one 8-column
// tile) lanes 0..15 give rows 0..15 of the 16x8 block.
//
//===----------------------------------------------------------------------===//

#include "Codegen.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <limits>

using namespace mlir;
using namespace mirage;
using namespace mirage::codegen;

bool codegen::canUseTensorCores(const TileLayout &lhs, const TileLayout &rhs) {
  Type type = lhs.elementType;
  if (type != rhs.elementType || !(type.isF16() || type.isBF16()))
    return false;
  return fitsTensorCoreTiles(lhs.shape, rhs.shape, /*elementBytes=*/2);
}

MmaMatmul::MmaMatmul(const TileLayout &lhs, const TileLayout &rhs,
                     bool rhsTransposed)
    : rhsTransposed(rhsTransposed) {
  ArrayRef<int64_t> a = lhs.shape, w = rhs.shape;
  lhsBatched = a.size() > 2;
  rhsBatched = w.size() > 2;
  batchShape.assign(lhsBatched ? a.drop_back(2) : w.drop_back(2));
  batch = getNumElements(batchShape);
  m = a[a.size() - 2];
  k = a.back();
  n = w.back();
  mTiles = (m + 15) / 16;
  nTilesPerJob = getTensorCoreJobColumns(n) / 8;
  nJobs = n / (8 * nTilesPerJob);
}

int64_t MmaMatmul::getJobsPerWarp(const KernelBuilder &kb) const {
  return (getNumJobs() + kb.getNumWarps() - 1) / kb.getNumWarps();
}

int64_t MmaMatmul::getStatePerJob(bool rescaled) const {
  return nTilesPerJob + (rescaled ? 2 : 0);
}

int64_t MmaMatmul::getStateSize(const KernelBuilder &kb, bool rescaled) const {
  return getJobsPerWarp(kb) * getStatePerJob(rescaled);
}

SmallVector<Value> MmaMatmul::createInitialState(KernelBuilder &kb,
                                                 bool rescaled) const {
  auto type = VectorType::get({2, 2}, kb.b.getF32Type());
  Value zero = arith::ConstantOp::create(
      kb.b, kb.loc, DenseElementsAttr::get(type, kb.b.getF32FloatAttr(0.0)));
  Value minusInfinity = kb.f32(-std::numeric_limits<double>::infinity());
  SmallVector<Value> state;
  for (int64_t j = 0, e = getJobsPerWarp(kb); j < e; ++j) {
    state.append(nTilesPerJob, zero);
    if (rescaled)
      state.append(2, minusInfinity);
  }
  return state;
}

MmaMatmul::Job MmaMatmul::decodeJob(KernelBuilder &kb, Value job) const {
  Job decoded;
  decoded.column = kb.mul(kb.rem(job, nJobs), 8 * nTilesPerJob);
  Value rest = kb.div(job, nJobs);
  decoded.row = kb.mul(kb.rem(rest, mTiles), 16);
  decoded.batch = kb.delinearize(kb.div(rest, mTiles), batchShape);
  return decoded;
}

SmallVector<Value> MmaMatmul::forEachJob(
    KernelBuilder &kb, ValueRange state, int64_t perJob,
    function_ref<SmallVector<Value>(const Job &, ValueRange)> body) const {
  OpBuilder &b = kb.b;
  SmallVector<Value> result(state);
  int64_t warps = kb.getNumWarps();
  for (int64_t j = 0, e = getJobsPerWarp(kb); j < e; ++j) {
    Value job = kb.add(kb.warpId, j * warps);
    MutableArrayRef<Value> mine =
        MutableArrayRef<Value>(result).slice(j * perJob, perJob);
    // Guard only when some warp runs out of jobs at this step.
    if ((j + 1) * warps <= getNumJobs()) {
      SmallVector<Value> updated = body(decodeJob(kb, job), mine);
      llvm::copy(updated, mine.begin());
      continue;
    }
    if (mine.empty()) {
      // No state: the builder adds the terminator.
      auto ifOp = scf::IfOp::create(b, kb.loc, kb.lessThan(job, getNumJobs()));
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(ifOp.thenBlock());
      body(decodeJob(kb, job), mine);
      continue;
    }
    auto ifOp = scf::IfOp::create(b, kb.loc, TypeRange(ValueRange(mine)),
                                  kb.lessThan(job, getNumJobs()),
                                  /*withElseRegion=*/true);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(ifOp.thenBlock());
      scf::YieldOp::create(b, kb.loc, body(decodeJob(kb, job), mine));
      b.setInsertionPointToStart(ifOp.elseBlock());
      scf::YieldOp::create(b, kb.loc, ValueRange(mine));
    }
    llvm::copy(ifOp.getResults(), mine.begin());
  }
  return result;
}

SmallVector<Value> MmaMatmul::multiplyJob(KernelBuilder &kb,
                                          const SmemTile &lhs,
                                          const SmemTile &rhs, const Job &job,
                                          ValueRange acc) const {
  OpBuilder &b = kb.b;
  Location loc = kb.loc;
  Type elementType = lhs.layout.elementType;
  auto fragmentA = VectorType::get({4, 2}, elementType);
  auto fragmentB = VectorType::get({nTilesPerJob * 2, 2}, elementType);
  Value laneRow = kb.rem(kb.laneId, 16);
  Value laneColumn = kb.mul(kb.div(kb.laneId, 16), 8);
  SmallVector<Value> a = lhsBatched ? job.batch : SmallVector<Value>();
  SmallVector<Value> w = rhsBatched ? job.batch : SmallVector<Value>();
  Value row = kb.add(job.row, laneRow);
  if (m % 16 != 0)
    row = kb.min(row, m - 1);
  auto loop = scf::ForOp::create(b, loc, kb.index(0), kb.index(k),
                                 kb.index(16), acc);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  Value k0 = loop.getInductionVar();
  a.append({row, kb.add(k0, laneColumn)});
  Value fragA = nvgpu::LdMatrixOp::create(
      b, loc, fragmentA, lhs.buffer, kb.getElementOffset(lhs.layout, a),
      b.getBoolAttr(false), b.getI32IntegerAttr(4));
  // With two n-tiles, lanes 16..31 address the second 8 columns.
  Value bColumn =
      nTilesPerJob == 2 ? kb.add(job.column, laneColumn) : job.column;
  if (rhsTransposed) {
    // Stored [n, k]: matrix l / 8 of the load is n-tile l / 16, k half
    // (l % 16) / 8, and lane l gives its row n = l % 8; loaded as is, the
    // rows are B's columns, as mma's column-major B operand wants.
    Value kHalf = kb.mul(kb.div(laneRow, 8), 8);
    w.append({kb.add(bColumn, kb.rem(kb.laneId, 8)), kb.add(k0, kHalf)});
  } else {
    w.append({kb.add(k0, laneRow), bColumn});
  }
  Value fragB = nvgpu::LdMatrixOp::create(
      b, loc, fragmentB, rhs.buffer, kb.getElementOffset(rhs.layout, w),
      b.getBoolAttr(!rhsTransposed), b.getI32IntegerAttr(nTilesPerJob * 2));
  SmallVector<Value> next;
  for (int64_t t = 0; t < nTilesPerJob; ++t) {
    // Rows 2t and 2t + 1 of the x4 load are tile t's fragment (moved row
    // by row: n-D slices do not lower to NVVM directly).
    Value fragBt = fragB;
    if (nTilesPerJob == 2) {
      auto type = VectorType::get({2, 2}, elementType);
      fragBt = arith::ConstantOp::create(
          b, loc, DenseElementsAttr::get(type, b.getZeroAttr(elementType)));
      for (int64_t fragRow = 0; fragRow < 2; ++fragRow)
        fragBt = vector::InsertOp::create(
            b, loc,
            vector::ExtractOp::create(b, loc, fragB,
                                      ArrayRef<int64_t>{2 * t + fragRow}),
            fragBt, ArrayRef<int64_t>{fragRow});
    }
    next.push_back(nvgpu::MmaSyncOp::create(b, loc, fragA, fragBt,
                                            loop.getRegionIterArg(t),
                                            ArrayRef<int64_t>{16, 8, 16}));
  }
  scf::YieldOp::create(b, loc, next);
  return SmallVector<Value>(loop.getResults());
}

SmallVector<Value> MmaMatmul::accumulate(KernelBuilder &kb,
                                         const SmemTile &lhs,
                                         const SmemTile &rhs,
                                         ValueRange state) const {
  return forEachJob(kb, state, nTilesPerJob,
                    [&](const Job &job, ValueRange acc) {
                      return multiplyJob(kb, lhs, rhs, job, acc);
                    });
}

SmallVector<Value> MmaMatmul::accumulateRescaled(KernelBuilder &kb,
                                                 const SmemTile &lhs,
                                                 const SmemTile &rhs,
                                                 const SmemTile &localMax,
                                                 ValueRange state) const {
  OpBuilder &b = kb.b;
  Location loc = kb.loc;
  auto pairType = VectorType::get({2}, b.getF32Type());
  Value groupRow = kb.div(kb.laneId, 4);
  Shape resultShape(batchShape);
  resultShape.append({m, n});
  return forEachJob(kb, state, getStatePerJob(true),
                    [&](const Job &job, ValueRange jobState) {
    auto type = VectorType::get({2, 2}, b.getF32Type());
    Value zero = arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(type, b.getF32FloatAttr(0.0)));
    SmallVector<Value> product = multiplyJob(
        kb, lhs, rhs, job, SmallVector<Value>(nTilesPerJob, zero));
    SmallVector<Value> next(jobState);
    for (int64_t half = 0; half < 2; ++half) {
      // This lane's row of the half; rows past m read row m - 1 and are
      // never stored.
      Value row = kb.add(kb.add(job.row, groupRow), half * 8);
      if (m % 16 != 0)
        row = kb.min(row, m - 1);
      SmallVector<Value> at(job.batch);
      at.append({row, kb.index(0)});
      Value local = kb.loadF32(
          localMax, kb.broadcastIndices(at, localMax.layout.shape, resultShape));
      Value running = jobState[nTilesPerJob + half];
      Value updated = arith::MaximumFOp::create(b, loc, running, local);
      Value keep = vector::BroadcastOp::create(
          b, loc, pairType, emitKeepFactor(b, loc, running, updated));
      Value add = vector::BroadcastOp::create(
          b, loc, pairType,
          math::ExpOp::create(b, loc,
                              arith::SubFOp::create(b, loc, local, updated)));
      for (int64_t t = 0; t < nTilesPerJob; ++t) {
        Value old = vector::ExtractOp::create(b, loc, next[t],
                                              ArrayRef<int64_t>{half});
        Value fresh = vector::ExtractOp::create(b, loc, product[t],
                                                ArrayRef<int64_t>{half});
        Value sum = arith::AddFOp::create(
            b, loc, arith::MulFOp::create(b, loc, old, keep),
            arith::MulFOp::create(b, loc, fresh, add));
        next[t] = vector::InsertOp::create(b, loc, sum, next[t],
                                           ArrayRef<int64_t>{half});
      }
      next[nTilesPerJob + half] = updated;
    }
    return next;
  });
}

void MmaMatmul::storeJob(KernelBuilder &kb, const Job &job,
                         ValueRange jobState, const SmemTile &out,
                         function_ref<Value(Value)> epilogue) const {
  OpBuilder &b = kb.b;
  Location loc = kb.loc;
  Value groupRow = kb.div(kb.laneId, 4);
  Value pairColumn = kb.mul(kb.rem(kb.laneId, 4), 2);
  for (int64_t t = 0; t < nTilesPerJob; ++t) {
    for (int64_t half = 0; half < 2; ++half) {
      Value row = kb.add(kb.add(job.row, groupRow), half * 8);
      // Rows past m exist only when m is not a multiple of 16.
      std::optional<OpBuilder::InsertionGuard> guard;
      if (m % 16 != 0) {
        guard.emplace(b);
        auto ifOp = scf::IfOp::create(b, loc, kb.lessThan(row, m));
        b.setInsertionPointToStart(ifOp.thenBlock());
      }
      for (int64_t c = 0; c < 2; ++c) {
        SmallVector<Value> indices(job.batch);
        indices.push_back(row);
        indices.push_back(kb.add(kb.add(job.column, pairColumn), t * 8 + c));
        Value value = vector::ExtractOp::create(b, loc, jobState[t],
                                                ArrayRef<int64_t>{half, c});
        kb.storeF32(out, indices, epilogue ? epilogue(value) : value);
      }
    }
  }
}

void MmaMatmul::store(KernelBuilder &kb, ValueRange state, bool rescaled,
                      const SmemTile &out,
                      function_ref<Value(Value)> epilogue) const {
  forEachJob(kb, state, getStatePerJob(rescaled),
             [&](const Job &job, ValueRange jobState) {
               storeJob(kb, job, jobState, out, epilogue);
               return SmallVector<Value>(jobState);
             });
}

void MmaMatmul::multiplyAndStore(KernelBuilder &kb, const SmemTile &lhs,
                                 const SmemTile &rhs, const SmemTile &out,
                                 function_ref<Value(Value)> epilogue) const {
  auto type = VectorType::get({2, 2}, kb.b.getF32Type());
  forEachJob(kb, ValueRange(), /*perJob=*/0,
             [&](const Job &job, ValueRange) {
               Value zero = arith::ConstantOp::create(
                   kb.b, kb.loc,
                   DenseElementsAttr::get(type, kb.b.getF32FloatAttr(0.0)));
               SmallVector<Value> acc(nTilesPerJob, zero);
               storeJob(kb, job, multiplyJob(kb, lhs, rhs, job, acc), out,
                        epilogue);
               return SmallVector<Value>();
             });
}
