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
// With wgmma (sm_90a), a warpgroup multiplies 64 rows at once
// (`wgmma.mma_async.m64nNk16`), both operands read by the tensor cores from
// shared memory through matrix descriptors. Warp w of the group holds rows
// 16 w to 16 w + 15 of the result in the layout above, one 2x2 fragment
// per 8 columns (PTX ISA, "Register fragments: wgmma .m64nNk16"), so sums,
// epilogues and stores are shared with mma.sync. The tiles' swizzled layout
// (TileLayout) is the descriptors' 32, 64 or 128-byte swizzle on tiles that
// start at multiples of 1024 bytes.
//
//===----------------------------------------------------------------------===//

#include "Codegen.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/Support/FormatVariadic.h"

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

/// Rows of 32, 64 or 128 bytes, or 128-byte column blocks: the swizzled
/// rows a matrix descriptor describes.
static bool hasWgmmaRows(int64_t elements, int64_t elementBytes) {
  int64_t rowBytes = elements * elementBytes;
  return rowBytes == 32 || rowBytes == 64 || rowBytes % 128 == 0;
}

/// Columns of one wgmma job: all of them up to 128 (64 accumulator registers
/// per thread; wgmma takes up to 256), else 128 or 64-column slices, so
/// that an N-major job starts on a column block. 0 when none fits.
static int64_t getWgmmaJobColumns(int64_t n) {
  if (n <= 128)
    return n % 8 == 0 ? n : 0;
  for (int64_t columns : {128, 64})
    if (n % columns == 0)
      return columns;
  return 0;
}

bool codegen::canUseWgmma(const TileLayout &lhs, const TileLayout &rhs,
                          bool rhsTransposed, int64_t threads) {
  if (threads % 128 != 0 || !canUseTensorCores(lhs, rhs))
    return false;
  ArrayRef<int64_t> a = lhs.shape;
  int64_t m = a[a.size() - 2], k = a.back(), n = rhs.shape.back();
  int64_t bytes = lhs.getElementBytes();
  return m % 64 == 0 && hasWgmmaRows(k, bytes) &&
         (rhsTransposed || hasWgmmaRows(n, bytes)) &&
         getWgmmaJobColumns(n) != 0;
}

TileLayout codegen::getWgmmaLayout(TileLayout layout) {
  layout.swizzled = true;
  int64_t rowBytes = layout.shape.back() * layout.getElementBytes();
  if (rowBytes > 128)
    layout.blockColumns = 128 / layout.getElementBytes();
  return layout;
}

bool MmaMatmul::feedsInRegisters(const MmaMatmul &consumer,
                                 int64_t warps) const {
  int64_t units = warps / 4;
  // (The consumer's k, wgmma's, is a multiple of 16.)
  return warpgroup && consumer.warpgroup && nJobs == 1 && consumer.nJobs == 1 &&
         mTiles == consumer.mTiles && batchShape == consumer.batchShape &&
         n == consumer.k && units > 0 && getNumJobs() % units == 0;
}

MmaMatmul::MmaMatmul(const TileLayout &lhs, const TileLayout &rhs,
                     bool rhsTransposed, bool warpgroup)
    : rhsTransposed(rhsTransposed), warpgroup(warpgroup) {
  ArrayRef<int64_t> a = lhs.shape, w = rhs.shape;
  lhsBatched = a.size() > 2;
  rhsBatched = w.size() > 2;
  batchShape.assign(lhsBatched ? a.drop_back(2) : w.drop_back(2));
  batch = getNumElements(batchShape);
  m = a[a.size() - 2];
  k = a.back();
  n = w.back();
  mTiles = warpgroup ? m / 64 : (m + 15) / 16;
  nTilesPerJob =
      (warpgroup ? getWgmmaJobColumns(n) : getTensorCoreJobColumns(n)) / 8;
  nJobs = n / (8 * nTilesPerJob);
}

int64_t MmaMatmul::getNumJobUnits(const KernelBuilder &kb) const {
  return warpgroup ? kb.getNumWarps() / 4 : kb.getNumWarps();
}

Value MmaMatmul::getJobUnit(KernelBuilder &kb) const {
  return warpgroup ? kb.div(kb.warpId, 4) : kb.warpId;
}

int64_t MmaMatmul::getJobsPerWarp(const KernelBuilder &kb) const {
  return llvm::divideCeil(getNumJobs(), getNumJobUnits(kb));
}

int64_t MmaMatmul::getAccumulatorRegisters(int64_t warps, bool rescaled,
                                           bool allJobs) const {
  int64_t units = warpgroup ? warps / 4 : warps;
  int64_t held = allJobs ? llvm::divideCeil(getNumJobs(), units) : 1;
  return held * 4 * (nTilesPerJob + (rescaled ? 2 : 0));
}

int64_t MmaMatmul::getStatePerJob(bool rescaled) const {
  return nTilesPerJob + (rescaled ? 2 : 0);
}

int64_t MmaMatmul::getStateSize(const KernelBuilder &kb, bool rescaled) const {
  return getJobsPerWarp(kb) * getStatePerJob(rescaled);
}

/// A vector<2x2xf32> accumulator fragment of zeros.
static Value createZeroFragment(KernelBuilder &kb) {
  auto type = VectorType::get({2, 2}, kb.b.getF32Type());
  return arith::ConstantOp::create(
      kb.b, kb.loc, DenseElementsAttr::get(type, kb.b.getF32FloatAttr(0.0)));
}

SmallVector<Value> MmaMatmul::createInitialState(KernelBuilder &kb,
                                                 bool rescaled) const {
  Value zero = createZeroFragment(kb);
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
  if (warpgroup) {
    decoded.groupRow = kb.mul(kb.rem(rest, mTiles), 64);
    decoded.row = kb.add(decoded.groupRow, kb.mul(kb.rem(kb.warpId, 4), 16));
  } else {
    decoded.row = kb.mul(kb.rem(rest, mTiles), 16);
  }
  decoded.batch = kb.delinearize(kb.div(rest, mTiles), batchShape);
  return decoded;
}

SmallVector<Value> MmaMatmul::forEachJob(
    KernelBuilder &kb, ValueRange state, int64_t perJob,
    function_ref<SmallVector<Value>(const Job &, ValueRange)> body) const {
  OpBuilder &b = kb.b;
  SmallVector<Value> result(state);
  // A warpgroup's warps take the same jobs: wgmma runs on all four.
  int64_t units = getNumJobUnits(kb);
  Value unit = getJobUnit(kb);
  for (int64_t j = 0, e = getJobsPerWarp(kb); j < e; ++j) {
    Value job = kb.add(unit, j * units);
    MutableArrayRef<Value> mine =
        MutableArrayRef<Value>(result).slice(j * perJob, perJob);
    // Guard only when some unit runs out of jobs at this step.
    if ((j + 1) * units <= getNumJobs()) {
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
  if (warpgroup)
    return multiplyWarpgroupJobs(kb, lhs, rhs, job, acc);
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
  // Independent accumulators over consecutive k steps, summed after the
  // loop: one chain of dependent mma.sync stalls on each one's latency,
  // while decode-shaped tiles give a warp few jobs and a long k.
  int64_t chains = getTensorCoreChains(k);
  SmallVector<Value> initial(acc);
  for (int64_t c = 1; c < chains; ++c)
    initial.append(nTilesPerJob, createZeroFragment(kb));
  auto loop = scf::ForOp::create(b, loc, kb.index(0), kb.index(k),
                                 kb.index(16 * chains), initial);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    // Rows 2t and 2t + 1 of the x4 load are tile t's fragment (moved row
    // by row: n-D slices do not lower to NVVM directly).
    auto getTileFragment = [&](Value fragB, int64_t t) -> Value {
      if (nTilesPerJob == 1)
        return fragB;
      auto type = VectorType::get({2, 2}, elementType);
      Value fragBt = arith::ConstantOp::create(
          b, loc, DenseElementsAttr::get(type, b.getZeroAttr(elementType)));
      for (int64_t fragRow = 0; fragRow < 2; ++fragRow)
        fragBt = vector::InsertOp::create(
            b, loc,
            vector::ExtractOp::create(b, loc, fragB,
                                      ArrayRef<int64_t>{2 * t + fragRow}),
            fragBt, ArrayRef<int64_t>{fragRow});
      return fragBt;
    };
    // With two n-tiles, lanes 16..31 address the second 8 columns.
    Value bColumn =
        nTilesPerJob == 2 ? kb.add(job.column, laneColumn) : job.column;
    SmallVector<Value> next;
    for (int64_t c = 0; c < chains; ++c) {
      Value k0 = kb.add(loop.getInductionVar(), 16 * c);
      SmallVector<Value> aIndices(a), wIndices(w);
      aIndices.append({row, kb.add(k0, laneColumn)});
      Value fragA = nvgpu::LdMatrixOp::create(
          b, loc, fragmentA, lhs.buffer,
          kb.getElementOffset(lhs.layout, aIndices), b.getBoolAttr(false),
          b.getI32IntegerAttr(4));
      if (rhsTransposed) {
        // Stored [n, k]: matrix l / 8 of the load is n-tile l / 16, k half
        // (l % 16) / 8, and lane l gives its row n = l % 8; loaded as is,
        // the rows are B's columns, as mma's column-major B operand wants.
        Value kHalf = kb.mul(kb.div(laneRow, 8), 8);
        wIndices.append(
            {kb.add(bColumn, kb.rem(kb.laneId, 8)), kb.add(k0, kHalf)});
      } else {
        wIndices.append({kb.add(k0, laneRow), bColumn});
      }
      Value fragB = nvgpu::LdMatrixOp::create(
          b, loc, fragmentB, rhs.buffer,
          kb.getElementOffset(rhs.layout, wIndices),
          b.getBoolAttr(!rhsTransposed), b.getI32IntegerAttr(nTilesPerJob * 2));
      for (int64_t t = 0; t < nTilesPerJob; ++t)
        next.push_back(nvgpu::MmaSyncOp::create(
            b, loc, fragA, getTileFragment(fragB, t),
            loop.getRegionIterArg(c * nTilesPerJob + t),
            ArrayRef<int64_t>{16, 8, 16}));
    }
    scf::YieldOp::create(b, loc, next);
  }
  SmallVector<Value> sums(loop.getResults().take_front(nTilesPerJob));
  for (int64_t c = 1; c < chains; ++c)
    for (int64_t t = 0; t < nTilesPerJob; ++t)
      sums[t] = arith::AddFOp::create(b, loc, sums[t],
                                      loop.getResult(c * nTilesPerJob + t));
  return sums;
}

/// The matrix descriptor (PTX ISA, "Matrix Descriptor Format") of the
/// operand of `tile` that starts at element `indices` (a row that is a
/// multiple of 8, so its swizzle pattern is the identity): start address,
/// leading and stride byte offsets (in 16-byte units) and swizzle mode. The
/// stride offset goes to the next 8 stored rows (of m or n when K-major, of k
/// when N-major); an N-major operand's leading offset goes to the next
/// 128-byte column block (a K-major one's is unused: 1).
static Value createDescriptor(KernelBuilder &kb, const SmemTile &tile,
                              ValueRange indices, bool kMajor) {
  OpBuilder &b = kb.b;
  Location loc = kb.loc;
  const TileLayout &layout = tile.layout;
  int64_t elementBytes = layout.getElementBytes();
  int64_t rowBytes = layout.getStoredRowLength() * elementBytes;
  int64_t rows = layout.getNumElements() / layout.shape.back();
  uint64_t leading = kMajor ? 1 : rows * rowBytes / 16;
  uint64_t stride = 8 * rowBytes / 16;
  uint64_t swizzle = rowBytes == 128 ? 1 : rowBytes == 64 ? 2 : 3;
  uint64_t fields = (leading << 16) | (stride << 32) | (swizzle << 62);
  Value base =
      memref::ExtractAlignedPointerAsIndexOp::create(b, loc, tile.buffer);
  Value address =
      kb.add(base, kb.mul(kb.getElementOffset(layout, indices), elementBytes));
  Type i64 = b.getI64Type();
  auto constant = [&](uint64_t value) {
    return arith::ConstantOp::create(
        b, loc, b.getIntegerAttr(i64, static_cast<int64_t>(value)));
  };
  Value start = arith::ShRUIOp::create(
      b, loc,
      arith::AndIOp::create(b, loc,
                            arith::IndexCastUIOp::create(b, loc, i64, address),
                            constant(0x3ffff)),
      constant(4));
  return arith::OrIOp::create(b, loc, start, constant(fields));
}

Value MmaMatmul::createRhsDescriptor(KernelBuilder &kb, const SmemTile &rhs,
                                     const Job &job, int64_t k0) const {
  SmallVector<Value> at = rhsBatched ? job.batch : SmallVector<Value>();
  if (rhsTransposed)
    at.append({job.column, kb.index(k0)});
  else
    at.append({kb.index(k0), job.column});
  // B as stored [n, k] is wgmma's K-major ("col") B; [k, n] is N-major.
  return createDescriptor(kb, rhs, at, /*kMajor=*/rhsTransposed);
}

/// Passes f32 or i32 `values` through the PTX statement `instruction` (inline
/// asm whose outputs are its inputs), so that everything that reads them comes
/// after it and everything that writes them before: the accumulators of
/// wgmma are written by the fence's predecessors and read after the wait.
static SmallVector<Value> passThrough(KernelBuilder &kb, StringRef instruction,
                                      ArrayRef<Value> values) {
  OpBuilder &b = kb.b;
  std::string constraints;
  SmallVector<Type> types;
  for (Value value : values) {
    types.push_back(value.getType());
    constraints += value.getType().isF32() ? "=f," : "=r,";
  }
  for (size_t i = 0; i < values.size(); ++i)
    constraints += (i ? "," : "") + std::to_string(i);
  auto type = LLVM::LLVMStructType::getLiteral(b.getContext(), types);
  Value result = LLVM::InlineAsmOp::create(
                     b, kb.loc, type, values, instruction, constraints,
                     /*has_side_effects=*/true,
                     /*is_align_stack=*/false, LLVM::TailCallKind::None,
                     LLVM::AsmDialectAttr(), ArrayAttr())
                     .getResult(0);
  SmallVector<Value> passed;
  for (size_t i = 0; i < values.size(); ++i)
    passed.push_back(LLVM::ExtractValueOp::create(
        b, kb.loc, result, ArrayRef<int64_t>{static_cast<int64_t>(i)}));
  return passed;
}

/// The f32 registers of vector<2x2xf32> accumulator fragments, four each.
static SmallVector<Value> unpackFragments(KernelBuilder &kb,
                                          ValueRange fragments) {
  SmallVector<Value> registers;
  for (Value fragment : fragments)
    for (int64_t half = 0; half < 2; ++half)
      for (int64_t c = 0; c < 2; ++c)
        registers.push_back(vector::ExtractOp::create(
            kb.b, kb.loc, fragment, ArrayRef<int64_t>{half, c}));
  return registers;
}

/// The inverse of unpackFragments.
static SmallVector<Value> packFragments(KernelBuilder &kb,
                                        ArrayRef<Value> registers) {
  Value zero = createZeroFragment(kb);
  SmallVector<Value> fragments;
  for (size_t t = 0; t < registers.size() / 4; ++t) {
    Value fragment = zero;
    for (int64_t half = 0; half < 2; ++half)
      for (int64_t c = 0; c < 2; ++c)
        fragment = vector::InsertOp::create(kb.b, kb.loc,
                                            registers[4 * t + 2 * half + c],
                                            fragment,
                                            ArrayRef<int64_t>{half, c});
    fragments.push_back(fragment);
  }
  return fragments;
}

SmallVector<Value> MmaMatmul::multiplyWarpgroupJobs(KernelBuilder &kb,
                                                    const SmemTile &lhs,
                                                    const SmemTile &rhs,
                                                    ArrayRef<Job> jobs,
                                                    ValueRange acc) const {
  OpBuilder &b = kb.b;
  Location loc = kb.loc;
  MLIRContext *context = b.getContext();
  // Accumulator register j of a job: fragment j / 4, entry j % 4.
  int64_t perJob = 4 * nTilesPerJob;
  SmallVector<Value> registers = unpackFragments(kb, acc);
  registers = passThrough(kb, "wgmma.fence.sync.aligned;", registers);
  auto structType = LLVM::LLVMStructType::getLiteral(
      context, SmallVector<Type>(perJob, b.getF32Type()));
  NVVM::WGMMATypes type = lhs.layout.elementType.isF16()
                              ? NVVM::WGMMATypes::f16
                              : NVVM::WGMMATypes::bf16;
  auto shape = NVVM::MMAShapeAttr::get(context, 64, 8 * nTilesPerJob, /*k=*/16);
  SmallVector<Value> sums;
  for (auto [index, job] : llvm::enumerate(jobs)) {
    MutableArrayRef<Value> mine =
        MutableArrayRef<Value>(registers).slice(index * perJob, perJob);
    Value d = LLVM::PoisonOp::create(b, loc, structType);
    for (auto [j, value] : llvm::enumerate(mine))
      d = LLVM::InsertValueOp::create(
          b, loc, d, value, ArrayRef<int64_t>{static_cast<int64_t>(j)});
    for (int64_t k0 = 0; k0 < k; k0 += 16) {
      SmallVector<Value> a = lhsBatched ? job.batch : SmallVector<Value>();
      a.append({job.groupRow, kb.index(k0)});
      d = NVVM::WgmmaMmaAsyncOp::create(
          b, loc, structType, d, createDescriptor(kb, lhs, a, /*kMajor=*/true),
          createRhsDescriptor(kb, rhs, job, k0), shape, type, type,
          NVVM::WGMMATypes::f32, NVVM::WGMMAScaleOut::one,
          NVVM::WGMMAScaleIn::one, NVVM::WGMMAScaleIn::one,
          NVVM::MMALayout::row,
          rhsTransposed ? NVVM::MMALayout::col : NVVM::MMALayout::row,
          /*satfinite=*/nullptr);
    }
    sums.push_back(d);
  }
  NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
  for (auto [index, d] : llvm::enumerate(sums))
    for (int64_t j = 0; j < perJob; ++j)
      registers[index * perJob + j] =
          LLVM::ExtractValueOp::create(b, loc, d, ArrayRef<int64_t>{j});
  // A loop that keeps a group in flight reads these registers only in the
  // next step's wgmma (which chains on them) and after waitForWgmma.
  registers = passThrough(kb,
                          llvm::formatv("wgmma.wait_group.sync.aligned {0};",
                                        kb.wgmmaGroupsInFlight)
                              .str(),
                          registers);
  return packFragments(kb, registers);
}

void MmaMatmul::forEachHeldRow(
    KernelBuilder &kb,
    function_ref<void(int64_t, int64_t, ValueRange, Value)> body) const {
  int64_t units = getNumJobUnits(kb);
  Value unit = getJobUnit(kb);
  Value groupRow = kb.div(kb.laneId, 4);
  for (int64_t j = 0, e = getJobsPerWarp(kb); j < e; ++j) {
    Job job = decodeJob(kb, kb.add(unit, j * units));
    for (int64_t half = 0; half < 2; ++half)
      body(j, half, job.batch, kb.add(kb.add(job.row, groupRow), half * 8));
  }
}

/// `fragment` rounded to `type` (f16 or bf16), entries of one row paired:
/// the two 32-bit registers (rows l / 4 and l / 4 + 8) an mma A fragment
/// takes from 8 of its columns.
static std::pair<Value, Value> packRows(KernelBuilder &kb, Value fragment,
                                        Type type) {
  OpBuilder &b = kb.b;
  Location loc = kb.loc;
  auto pair = VectorType::get({2}, type);
  auto packRow = [&](int64_t half) -> Value {
    Value row =
        vector::ExtractOp::create(b, loc, fragment, ArrayRef<int64_t>{half});
    Value rounded = arith::TruncFOp::create(b, loc, pair, row);
    return LLVM::BitcastOp::create(b, loc, b.getI32Type(), rounded);
  };
  return {packRow(0), packRow(1)};
}

SmallVector<Value> MmaMatmul::accumulateFromRegisters(KernelBuilder &kb,
                                                      ValueRange lhs,
                                                      Type lhsType,
                                                      const SmemTile &rhs,
                                                      ValueRange state) const {
  OpBuilder &b = kb.b;
  Location loc = kb.loc;
  int64_t perJob = 4 * nTilesPerJob, lhsTiles = k / 8;
  int64_t jobs = getJobsPerWarp(kb), units = getNumJobUnits(kb);
  assert(static_cast<int64_t>(lhs.size()) == jobs * lhsTiles &&
         "one fragment per 8 of k per job");
  // A fragment of k16 step s: rows l / 4 and l / 4 + 8 of the lhs's 8-column
  // tiles 2s and 2s + 1 (PTX ISA, "Register fragment for matrix A" of
  // wgmma .m64nNk16: mma.m16n8k16's, per warp).
  SmallVector<Value> aRegisters;
  for (Value fragment : lhs) {
    auto [top, bottom] = packRows(kb, fragment, lhsType);
    aRegisters.append({top, bottom});
  }
  SmallVector<Value> registers = unpackFragments(kb, state);
  llvm::append_range(registers, aRegisters);
  registers = passThrough(kb, "wgmma.fence.sync.aligned;", registers);
  std::string type = lhsType.isF16() ? "f16" : "bf16";
  std::string instruction =
      llvm::formatv("{{ .reg .pred p; setp.ne.b32 p, 1, 0; "
                    "wgmma.mma_async.sync.aligned.m64n{0}k16.f32.{1}.{1} ",
                    8 * nTilesPerJob, type);
  // d (outputs, then the same registers as tied inputs), a, the B
  // descriptor; scale-d p, A and B not negated.
  std::string operands = "{";
  for (int64_t r = 0; r < perJob; ++r)
    operands += llvm::formatv("{0}${1}", r ? ", " : "", r);
  int64_t firstA = 2 * perJob;
  operands += llvm::formatv(
      "}, {{${0}, ${1}, ${2}, ${3}}, ${4}, p, 1, 1, {5}; }", firstA, firstA + 1,
      firstA + 2, firstA + 3, firstA + 4, rhsTransposed ? 0 : 1);
  std::string constraints;
  for (int64_t r = 0; r < perJob; ++r)
    constraints += "=f,";
  for (int64_t r = 0; r < perJob; ++r)
    constraints += std::to_string(r) + ",";
  constraints += "r,r,r,r,l";
  auto structType = LLVM::LLVMStructType::getLiteral(
      b.getContext(), SmallVector<Type>(perJob, b.getF32Type()));
  Value unit = getJobUnit(kb);
  for (int64_t j = 0; j < jobs; ++j) {
    Job job = decodeJob(kb, kb.add(unit, j * units));
    MutableArrayRef<Value> acc =
        MutableArrayRef<Value>(registers).slice(j * perJob, perJob);
    ArrayRef<Value> a = ArrayRef<Value>(registers).slice(
        jobs * perJob + j * 2 * lhsTiles, 2 * lhsTiles);
    for (int64_t step = 0; step < k / 16; ++step) {
      SmallVector<Value> inputs(acc);
      llvm::append_range(inputs, a.slice(4 * step, 4));
      inputs.push_back(createRhsDescriptor(kb, rhs, job, 16 * step));
      Value d = LLVM::InlineAsmOp::create(
                    b, loc, structType, inputs, instruction + operands,
                    constraints, /*has_side_effects=*/true,
                    /*is_align_stack=*/false, LLVM::TailCallKind::None,
                    LLVM::AsmDialectAttr(), ArrayAttr())
                    .getResult(0);
      for (int64_t r = 0; r < perJob; ++r)
        acc[r] = LLVM::ExtractValueOp::create(b, loc, d, ArrayRef<int64_t>{r});
    }
  }
  NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
  // The A registers too: nothing may write them before the wait.
  registers = passThrough(kb, "wgmma.wait_group.sync.aligned 0;", registers);
  registers.resize(jobs * perJob);
  return packFragments(kb, registers);
}

SmallVector<Value> MmaMatmul::waitForWgmma(KernelBuilder &kb,
                                           ValueRange state) {
  SmallVector<Value> registers = unpackFragments(kb, state);
  registers =
      passThrough(kb, "wgmma.wait_group.sync.aligned 0;", registers);
  return packFragments(kb, registers);
}

SmallVector<Value> MmaMatmul::accumulate(KernelBuilder &kb,
                                         const SmemTile &lhs,
                                         const SmemTile &rhs,
                                         ValueRange state) const {
  int64_t units = getNumJobUnits(kb);
  if (warpgroup && getNumJobs() % units == 0) {
    // Every warpgroup has the same number of jobs: all in one group.
    SmallVector<Job> jobs;
    Value unit = getJobUnit(kb);
    for (int64_t j = 0, e = getJobsPerWarp(kb); j < e; ++j)
      jobs.push_back(decodeJob(kb, kb.add(unit, j * units)));
    return multiplyWarpgroupJobs(kb, lhs, rhs, jobs, state);
  }
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
    SmallVector<Value> product =
        multiplyJob(kb, lhs, rhs, job,
                    SmallVector<Value>(nTilesPerJob, createZeroFragment(kb)));
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
          emitExp(b, loc, arith::SubFOp::create(b, loc, local, updated)));
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
  forEachJob(kb, ValueRange(), /*perJob=*/0, [&](const Job &job, ValueRange) {
    SmallVector<Value> acc(nTilesPerJob, createZeroFragment(kb));
    storeJob(kb, job, multiplyJob(kb, lhs, rhs, job, acc), out, epilogue);
    return SmallVector<Value>();
  });
}
