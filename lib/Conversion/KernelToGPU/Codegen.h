//===- Codegen.h - Building blocks of the block-graph lowering --*- C++ -*-===//
//
// The lowering of a `tb.graph` into the body of a `gpu.func` is split into
// small pieces that share the vocabulary declared here:
//
//   - TileLayout / SmemTile: where a tile's elements sit in shared memory
//     (row-major, optionally with rows split into 16-byte chunks permuted by
//     XOR so that tensor-core fragment loads hit distinct banks);
//   - KernelBuilder: index arithmetic, thread-strided loops, barriers and
//     tile element access inside one kernel;
//   - emitScalarOp: the f32 formula of each elementwise operator;
//   - the emitters of TileOps.cpp, Matmul.cpp and ThreadGraph.cpp, which
//     compute one block-graph op on shared-memory tiles.
//
// All arithmetic on tile elements is done in f32: tiles are stored in their
// declared element type (accumulators in f32) and converted on access.
//
//===----------------------------------------------------------------------===//

#ifndef MIRAGE_LIB_CONVERSION_KERNELTOGPU_CODEGEN_H
#define MIRAGE_LIB_CONVERSION_KERNELTOGPU_CODEGEN_H

#include "mirage/Semantics/OpSemantics.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"

#include <optional>
#include <vector>

namespace mlir::gpu {
class GPUFuncOp;
} // namespace mlir::gpu

namespace mirage::tb {
class GraphOp;
} // namespace mirage::tb

namespace mirage::codegen {

/// Elements per thread step where tiles allow: 16 bytes of f16.
constexpr int64_t kVectorWidth = 8;

/// Input-tile bytes an SM keeps in flight when the stage count is automatic:
/// about what one SM needs to reach its share of HBM bandwidth at a
/// microsecond of latency. They are shared by the blocks resident on the SM
/// (the grid over kNumSMs, at most kMaxResidentBlocks).
constexpr int64_t kAutoPipelineBytes = 64 * 1024;
constexpr int64_t kMaxPipelineStages = 16;
/// The stages a wgmma main loop asks for where they fit (see
/// BlockGraphPlan::keepsWgmmaInFlight).
constexpr int64_t kWgmmaMainLoopStages = 4;
/// H100 and H200 (sm_90a) have 132 SMs.
constexpr int64_t kNumSMs = 132;
constexpr int64_t kMaxResidentBlocks = 8;
/// What the driver reserves of an SM's shared memory per block.
constexpr int64_t kReservedSharedMemoryPerBlock = 1024;

/// An SM's register file.
constexpr int64_t kRegistersPerSM = 65536;
/// The blocks of a grid each SM should hold at once (ptxas's minimum CTAs
/// per SM): one for a grid of at most one block per SM, else as many as
/// shared memory and kMaxResidentBlocks allow; never so many that a thread
/// gets fewer than 64 registers.
int64_t getResidentBlocksPerSM(int64_t blocks, int64_t threads,
                               int64_t sharedBytes);

/// The threads of a warp-specialized kernel's producer warpgroup, and the
/// registers each keeps (setmaxnreg.dec): it only issues copies.
constexpr int64_t kProducerThreads = 128;
constexpr int64_t kProducerRegisters = 40;
/// CUDA's limit on threads per block, which the producers count towards.
constexpr int64_t kMaxThreadsPerBlock = 1024;
/// The registers each consumer thread of a warp-specialized kernel asks for
/// (setmaxnreg.inc): its share of the registers ptxas gives the block when
/// `residentBlocks` blocks of `blockThreads` threads share an SM, once the
/// producers have given theirs up. ptxas allocates every thread that cap
/// (floor8(65536 / (blockThreads * residentBlocks)), at most 248), so the
/// CTA's pool holds this count; asking for more would wait forever.
int64_t getConsumerRegisters(int64_t blockThreads, int64_t residentBlocks);

/// Choices of the lowering (the options of `convert-kn-to-gpu`).
struct Options {
  /// Shared memory per block of the chip compiled for (0: only the graph's
  /// tb.target limits it).
  int64_t chipSharedMemory = 0;
  /// 0: enough stages for kAutoPipelineBytes of input tiles in flight.
  unsigned pipelineStages = 0;
  /// How many blocks of a graph share an SM's bytes in flight when the
  /// stage count is automatic (0: the grid over kNumSMs, at most
  /// kMaxResidentBlocks, as a kernel's blocks spread over the SMs). A
  /// mega-kernel's worker runs its tasks one at a time: 1.
  int64_t residentBlocks = 0;
  bool tensorCores = true;
  bool asyncCopy = true;
  /// Start kernels with griddepcontrol (sm_90 and later), so that they may
  /// be launched with programmatic dependent launch.
  bool dependentLaunch = false;
  /// Copy the tiles of buffers no kernel writes (weights) before waiting
  /// for the kernels this one depends on (with dependentLaunch), or, in a
  /// mega-kernel, before the task's wait on its producers.
  bool preload = true;
  /// With preload, the most pipeline stages copied early (0: all the
  /// prologue's); the body's prologue copies the preloaded inputs' later
  /// stages itself. Fewer bytes are then in flight when a mega-kernel task
  /// polls its events, whose loads return behind its own copies.
  unsigned preloadStages = 0;
  /// Load pipelined input tiles with the bulk tensor copy engine (sm_90),
  /// where every one of a kernel's pipelined tiles allows it.
  bool tma = false;
  /// Run the tensor-core matmuls that fit a warpgroup (canUseWgmma) with
  /// wgmma.mma_async from shared-memory descriptors (sm_90a only).
  bool wgmma = false;
  /// With TMA, give the copies a producer warpgroup of their own and the
  /// graph's threads, the consumers, the registers it gives up (setmaxnreg,
  /// sm_90a only): see BlockGraphPlan::isWarpSpecialized.
  bool warpSpecialize = false;
  /// A mega-kernel task body's byte offset into the dynamic shared memory
  /// (a multiple of 1 KiB): bodies placed apart, so that a task's preloaded
  /// copies can land while another task runs (convert-tg-to-gpu
  /// preload-warp).
  int64_t taskSharedBase = 0;
  /// 0: a task body's barriers synchronize the whole CTA. Else they are
  /// named barrier 1 over the first `taskBarrierThreads` threads, the
  /// body's, while a warp beside them issues preloads.
  int64_t taskBarrierThreads = 0;
};

//===----------------------------------------------------------------------===//
// Tiles in shared memory
//===----------------------------------------------------------------------===//

/// How a tile's elements are laid out in shared memory. Logically row-major;
/// a "row" is the last dim. With `swizzled` (rows of an even number of
/// 16-byte chunks), chunk `c` of row `r` is stored at chunk position
/// `c ^ ((r / rowsPerGroup) % period)`, where `period` is the largest power
/// of two dividing the chunks per row, at most 8, and `rowsPerGroup =
/// 8 / period`: the XOR stays within aligned groups of `period` chunks, and
/// the 8 rows an `ldmatrix` reads at one column fall on 8 distinct 16-byte
/// bank groups (rows of 24 chunks, 384 bytes, all start on one bank: without
/// the swizzle such a read is an 8-way conflict).
///
/// With `blockColumns` (swizzled rows longer than 128 bytes, for the bulk
/// tensor copy, whose swizzled boxes have rows of at most 128 bytes), the
/// last dim is stored as consecutive column blocks of `blockColumns`
/// columns, what one copy per block writes: the layout of a swizzled tile
/// of shape [blocks * rows, blockColumns] whose row b * rows + r holds
/// row r of block b.
struct TileLayout {
  Shape shape;
  mlir::Type elementType;
  bool swizzled = false;
  int64_t blockColumns = 0;

  int64_t getNumElements() const { return mirage::getNumElements(shape); }
  int64_t getElementBytes() const;
  int64_t getBytes() const { return getNumElements() * getElementBytes(); }
  /// Elements per 16-byte chunk.
  int64_t getChunkElements() const { return 16 / getElementBytes(); }
  /// Whether a swizzled layout is possible: rows of an even number of
  /// 16-byte chunks.
  bool canSwizzle() const;
  /// Whether runs of `width` elements along the last dim, starting at
  /// multiples of `width`, are contiguous and 16-byte aligned.
  bool hasContiguousRuns(int64_t width) const;
  /// Columns stored together in a row: a column block's, or the whole row.
  int64_t getStoredRowLength() const {
    return blockColumns ? blockColumns : shape.back();
  }
};

/// The swizzle period of rows of `chunks` 16-byte chunks (see TileLayout).
int64_t getSwizzlePeriod(int64_t chunks);

/// A tile materialized in shared memory: a 1-D workgroup memref holding
/// exactly the tile's elements, and their layout.
struct SmemTile {
  mlir::Value buffer;
  TileLayout layout;
};

/// Emits index arithmetic, loops and tile accesses in one kernel body whose
/// blocks have `numThreads` threads along x.
class KernelBuilder {
public:
  /// `threadId` is the thread's index in the block: gpu.thread_id when not
  /// given.
  KernelBuilder(mlir::OpBuilder &builder, mlir::Location loc,
                int64_t numThreads, mlir::Value threadId = {});

  mlir::OpBuilder &b;
  mlir::Location loc;
  int64_t numThreads;
  mlir::Value threadId, warpId, laneId;

  int64_t getNumWarps() const { return (numThreads + 31) / 32; }

  mlir::Value index(int64_t value);
  mlir::Value f32(double value);
  mlir::Value add(mlir::Value lhs, mlir::Value rhs);
  mlir::Value add(mlir::Value lhs, int64_t rhs) { return add(lhs, index(rhs)); }
  mlir::Value mul(mlir::Value lhs, int64_t rhs);
  mlir::Value div(mlir::Value lhs, int64_t rhs);
  mlir::Value rem(mlir::Value lhs, int64_t rhs);
  mlir::Value min(mlir::Value lhs, int64_t rhs);
  mlir::Value lessThan(mlir::Value lhs, int64_t rhs);

  /// Row-major multi-index of `linear` in `shape`.
  llvm::SmallVector<mlir::Value> delinearize(mlir::Value linear,
                                             llvm::ArrayRef<int64_t> shape);
  /// The indices into an operand of `operandShape` that broadcasts
  /// (numpy-style, right-aligned) to the element at `resultIndices` of a
  /// result of `resultShape`.
  llvm::SmallVector<mlir::Value>
  broadcastIndices(mlir::ValueRange resultIndices,
                   llvm::ArrayRef<int64_t> operandShape,
                   llvm::ArrayRef<int64_t> resultShape);
  /// Row-major linear index of `indices` in `shape`.
  mlir::Value linearize(mlir::ValueRange indices,
                        llvm::ArrayRef<int64_t> shape);

  /// The element offset of `indices` in a tile (layout and swizzle applied).
  mlir::Value getElementOffset(const TileLayout &layout,
                               mlir::ValueRange indices);
  /// Loads an element as f32 / stores an f32 value into an element.
  mlir::Value loadF32(const SmemTile &tile, mlir::ValueRange indices);
  void storeF32(const SmemTile &tile, mlir::ValueRange indices,
                mlir::Value value);

  /// Loads `width` consecutive elements along the last dim, starting at
  /// `indices`, as a vector of f32 / stores such a vector. The elements must
  /// be contiguous in the layout (whole 16-byte chunks when swizzled).
  mlir::Value loadVectorF32(const SmemTile &tile, mlir::ValueRange indices,
                            int64_t width);
  void storeVectorF32(const SmemTile &tile, mlir::ValueRange indices,
                      mlir::Value value);

  /// Converts a float value (scalar or vector) between element types.
  mlir::Value convert(mlir::Value value, mlir::Type to);

  /// Runs `body(i)` for i in [0, count), spread over the block's threads
  /// (thread t takes t, t + numThreads, ...).
  void forEachStrided(int64_t count,
                      llvm::function_ref<void(mlir::Value)> body);
  /// Runs `body(i)` for i in [0, count), spread over the warps (warp w takes
  /// w, w + warps, ...); every lane of a warp sees the same i.
  void forEachWarpStrided(int64_t count,
                          llvm::function_ref<void(mlir::Value)> body);
  /// Sums (or maximizes) `value` over aligned groups of `lanes` lanes (a
  /// power of two up to 32); every lane gets its group's result. All 32
  /// lanes of the warp must take part.
  mlir::Value warpReduce(mlir::Value value, OpKind combine,
                         int64_t lanes = 32);

  /// A block barrier. With `asyncProxyReadsShared` (wgmma reads tiles that
  /// ordinary stores and cp.async wrote), each thread first makes its
  /// shared-memory writes visible to the async proxy
  /// (fence.proxy.async.shared::cta), as the tensor cores read through it.
  void barrier();
  bool asyncProxyReadsShared = false;
  /// 0: barrier() synchronizes the whole block (bar.sync 0). Else it is
  /// named barrier 1 over the first `barrierThreads` threads: the consumers
  /// of a warp-specialized kernel, whose producer warps do not take part,
  /// or a mega-kernel task body's threads beside its preload warp.
  int64_t barrierThreads = 0;
  /// The wgmma groups a warpgroup's matmul leaves in flight when it returns
  /// (wgmma.wait_group's count): 1 in a loop that keeps one in flight
  /// (BlockGraphPlan::keepsWgmmaInFlight), whose results are then read
  /// only after `waitForWgmma`.
  int64_t wgmmaGroupsInFlight = 0;
};

//===----------------------------------------------------------------------===//
// Operator formulas
//===----------------------------------------------------------------------===//

/// The f32 result of elementwise operator `kind` on f32 operands (scalars or
/// vectors of f32).
mlir::Value emitScalarOp(mlir::OpBuilder &b, mlir::Location loc, OpKind kind,
                         const OpParams &params, mlir::ValueRange operands);

/// lhs / rhs in f32 (scalars or vectors) as the GPU divides: with the
/// approximate-function flag, which NVPTX lowers to `div.approx.f32` (2 ulp
/// for divisors of magnitude 2^-126 to 2^126) instead of the IEEE `div.rn`
/// sequence with its slow path: results are rounded to f16 or bf16, or
/// checked at 1e-2, and norms and softmax divide every element.
mlir::Value emitDivide(mlir::OpBuilder &b, mlir::Location loc, mlir::Value lhs,
                       mlir::Value rhs);
/// e^x in f32 with the approximate-function flag, which the NVVM lowering
/// takes to libdevice's `__nv_fast_expf` (a multiply by log2(e) and
/// `ex2.approx.f32`: 2 + 1.17 |x| ulp at most, as CUDA documents `__expf`)
/// instead of `__nv_expf`'s range reduction: 3 instructions instead of 11
/// per element, on every softmax, SiLU and GELU; results are rounded to f16
/// or bf16 or checked at 1e-2.
mlir::Value emitExp(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x);

/// Combines an accumulated value with a new one: a sum for ReduceSum and
/// AccumSum, a maximum for ReduceMax and AccumMax.
mlir::Value emitCombine(mlir::OpBuilder &b, mlir::Location loc, OpKind kind,
                        mlir::Value accumulated, mlir::Value value);

/// The identity of that combination: 0 or -infinity.
double getCombineIdentity(OpKind kind);

/// The factor that keeps an online-softmax sum taken relative to maximum
/// `from` when the maximum becomes `to` (f32 scalars): e^(from - to), or 0
/// while `from` is still -infinity (nothing summed yet), as the float64
/// semantics define it.
mlir::Value emitKeepFactor(mlir::OpBuilder &b, mlir::Location loc,
                           mlir::Value from, mlir::Value to);

//===----------------------------------------------------------------------===//
// Tile operators (SIMT)
//===----------------------------------------------------------------------===//

/// An elementwise computation over the elements of a result tile: an
/// operator applied to sub-expressions, or (a leaf) a tile read with
/// broadcasting, from shared memory or from global memory. A chain of
/// single-use elementwise ops is one expression, so its intermediates never
/// reach shared memory. Inner nodes have the result's shape. How an expression
/// indexes a leaf tile that a split or a reshape made without copying: tile dim
/// i takes expression-side index `fromDim[i]` plus `offset[i]` (fromDim -1: no
/// expression dim, index `offset[i]`), where the expression sees the tile with
/// `shape`.
struct TileView {
  Shape shape;
  llvm::SmallVector<int64_t> fromDim, offset;

  /// The view of a whole tile of `shape` as itself.
  static TileView identity(llvm::ArrayRef<int64_t> shape);
  /// This view seen through an op that maps indices of `result` to
  /// indices of this view's shape by `fromDim` and `offset`.
  TileView compose(llvm::ArrayRef<int64_t> result,
                   llvm::ArrayRef<int64_t> fromDim,
                   llvm::ArrayRef<int64_t> offset) const;
};

/// A tile read straight from global memory: the part of `memref` of
/// `shape` starting at `offsets`.
struct GlobalTile {
  mlir::Value memref;
  llvm::SmallVector<mlir::Value> offsets;
  Shape shape;

  /// Whether runs of `width` elements along the last dim, starting at
  /// multiples of `width`, are 16-byte aligned vectors in memory.
  bool hasRuns(int64_t width) const;
  /// The memref indices of the element at tile `indices`.
  llvm::SmallVector<mlir::Value> at(KernelBuilder &kb,
                                    mlir::ValueRange indices) const;
};

/// Where a computed tile goes: its shared-memory tile, the parts of global
/// outputs that output savers of it write (stored as it is computed
/// instead of copied out later), or both.
struct TileSinks {
  std::optional<SmemTile> tile;
  llvm::SmallVector<GlobalTile> outputs;

  /// Whether runs of `width` elements along the last dim go to every sink
  /// as 16-byte vectors.
  bool allowRuns(int64_t width) const;
  /// Stores `value` (f32: a scalar, or a vector of such a run) at `indices`.
  void store(KernelBuilder &kb, mlir::ValueRange indices,
             mlir::Value value) const;
};

struct ElementExpr {
  OpKind kind = OpKind::Exp;
  /// For a concat read in place (kind Concat): params.dim, and in
  /// params.ints the sizes of its parts along it; `shape` is its result's.
  OpParams params;
  Shape shape;
  std::vector<ElementExpr> operands;
  /// A leaf has one of the two.
  std::optional<SmemTile> tile;
  std::optional<GlobalTile> global;
  /// For a leaf read through split pieces and unit-dim reshapes.
  std::optional<TileView> view;

  bool isLeaf() const { return tile.has_value() || global.has_value(); }
};

/// Whether every leaf of `expr` that varies along the last dim holds runs
/// of `width` contiguous elements (the others are broadcast along it).
bool leavesHaveRuns(const ElementExpr &expr, int64_t width);

/// The value of `expr` at the run of `width` elements (1: a scalar)
/// starting at `indices` of a result of `shape`.
mlir::Value evaluateAt(KernelBuilder &kb, const ElementExpr &expr,
                       mlir::ValueRange indices, llvm::ArrayRef<int64_t> shape,
                       int64_t width);

/// Computes `expr`, of shape `shape`, for every element into `sinks`, 8
/// elements per thread step where every tile's layout allows.
void emitElementwise(KernelBuilder &kb, const ElementExpr &expr,
                     llvm::ArrayRef<int64_t> shape, const TileSinks &sinks);

/// Evaluates an expression with a single leaf on `leafValue` (an f32
/// scalar): the epilogue a matmul applies before storing.
mlir::Value evaluateOnValue(KernelBuilder &kb, const ElementExpr &expr,
                            mlir::Value leafValue);

/// How many warps fold each of `outputs` reductions over `extent` elements
/// in a block of `warps` warps: 1 while every warp has a result of its own;
/// more where results are fewer than warps, as long as each lane still
/// folds a vector's worth of elements or more. The warps of a result fold
/// slices of it and combine their partials through shared scratch
/// (getReductionScratchBytes) after a barrier, instead of all folding the
/// whole extent.
int64_t getWarpsPerReduction(int64_t outputs, int64_t extent, int64_t warps);
/// The scratch that needs: one f32 partial per folding warp (0 for none).
int64_t getReductionScratchBytes(int64_t outputs, int64_t extent,
                                 int64_t warps);

/// Folds `input` (an expression of shape `inputShape`: the reduced tile,
/// or the elementwise chain computed inside the reduction) along
/// `params.dim` into `result`, for ReduceSum and ReduceMax. `scratch` is the
/// shared memory a reduction split over warps combines its partials in
/// (getReductionScratchBytes; a 1-D f32 tile), absent where it is not
/// split.
void emitReduce(KernelBuilder &kb, OpKind kind, const OpParams &params,
                const ElementExpr &input, llvm::ArrayRef<int64_t> inputShape,
                const SmemTile &result, const std::optional<SmemTile> &scratch);

/// y = x / sqrt(mean(x * x) + eps) * w over the last dim of `operands`
/// (x, and w if given), into `result`. A warp sums a row's squares and
/// writes the row. With fewer rows than warps and `scratch` (as for
/// emitReduce), several warps share a row (getWarpsPerReduction): each sums
/// the squares of a slice of the columns, and after a barrier combines the
/// row's partials and writes its slice.
void emitRmsNorm(KernelBuilder &kb, const OpParams &params,
                 llvm::ArrayRef<SmemTile> operands, const TileSinks &result,
                 const std::optional<SmemTile> &scratch);

/// Computes one other non-elementwise block-level operator whose operands
/// and results are shared-memory tiles: data movement and (SIMT) matmul.
/// Fails for kinds it does not compute.
llvm::LogicalResult emitTileOp(KernelBuilder &kb, mlir::Operation *op,
                               OpKind kind, const OpParams &params,
                               llvm::ArrayRef<SmemTile> operands,
                               llvm::ArrayRef<SmemTile> results);

/// Whether a matmul of these operand layouts can run on tensor cores:
/// f16/bf16 operands of one type, k a multiple of 16, n of 8, equal batch
/// dims (or none on one side), 16-byte aligned rows.
bool canUseTensorCores(const TileLayout &lhs, const TileLayout &rhs);

/// Whether such a matmul can run on wgmma in a block of `threads` threads:
/// whole warpgroups, m a multiple of 64 (a warpgroup's 64 rows; decode-sized
/// m is not padded, see docs/Codegen.md), and both operands in a layout a
/// shared-memory descriptor describes: swizzled rows of 32, 64 or 128 bytes
/// (longer rows as 128-byte column blocks). The left operand is K-major
/// ([m, k]: k of 16, 32, 64, or a multiple of 64); the right one K-major when
/// stored transposed ([n, k]) and N-major otherwise ([k, n]: n of 16, 32, 64
/// or a multiple of 64).
bool canUseWgmma(const TileLayout &lhs, const TileLayout &rhs,
                 bool rhsTransposed, int64_t threads);

/// The layout wgmma reads an operand tile in: swizzled, with rows longer than
/// 128 bytes stored as 128-byte column blocks.
TileLayout getWgmmaLayout(TileLayout layout);

/// A matmul on tensor cores. The output [batch..., m, n] is cut into jobs
/// (a 16-row tile by one or, when n is a multiple of 16, two 8-column mma
/// tiles) that the warps take in turn. Results live in registers as a
/// warp's "state": per job, one vector<2x2xf32> per mma tile and, for an
/// online-softmax sum, the running maximum of each of the job's two rows
/// the lane holds.
class MmaMatmul {
public:
  /// `rhs` is the logical [..., k, n] operand. With `rhsTransposed`, the
  /// tile passed as rhs is stored [..., n, k] (a weight in nn.Linear's
  /// layout): its rows are the tensor cores' column-major B operand, loaded
  /// by ldmatrix without .trans, so no transposed copy is made.
  MmaMatmul(const TileLayout &lhs, const TileLayout &rhs,
            bool rhsTransposed = false, bool warpgroup = false);

  /// Whether this matmul runs on wgmma: a job is then 64 rows of one
  /// warpgroup, each of its warps holding the fragments of 16 of them in
  /// mma.sync's accumulator layout (which wgmma's is, per warp).
  bool isWarpgroup() const { return warpgroup; }
  /// Whether `consumer` can take this matmul's result as its left operand
  /// from the registers of the threads that computed it (wgmma's A from
  /// registers): both on wgmma with one job per 64 rows (n of at most 128),
  /// the same rows dealt alike and evenly over the `warps` / 4 warpgroups,
  /// and this result's columns whole k16 steps of the consumer.
  bool feedsInRegisters(const MmaMatmul &consumer, int64_t warps) const;

  int64_t getStateSize(const KernelBuilder &kb, bool rescaled) const;
  /// The f32 registers per thread its accumulator fragments take in a block
  /// of `warps` warps: a vector<2x2xf32> per 8 columns of a job, and (an
  /// estimate kept from before wgmma) two more per job for a rescaled sum's
  /// running maxima. A sum kept across the loop holds all of a warp's jobs
  /// at once; a product stored as it is computed (multiplyAndStore) holds
  /// one job.
  int64_t getAccumulatorRegisters(int64_t warps, bool rescaled,
                                  bool allJobs) const;
  /// Zero sums and, with `rescaled`, -infinity maxima.
  llvm::SmallVector<mlir::Value> createInitialState(KernelBuilder &kb,
                                                    bool rescaled) const;
  /// state + lhs @ rhs.
  llvm::SmallVector<mlir::Value> accumulate(KernelBuilder &kb,
                                            const SmemTile &lhs,
                                            const SmemTile &rhs,
                                            mlir::ValueRange state) const;
  /// The online-softmax sum (tb.accum_rescaled_sum) of lhs @ rhs, whose
  /// rows are relative to the per-row maxima of `localMax` ([..., m, 1]):
  /// S = S e^(M - M') + (lhs @ rhs) e^(m - M'), M' = max(M, m).
  llvm::SmallVector<mlir::Value>
  accumulateRescaled(KernelBuilder &kb, const SmemTile &lhs,
                     const SmemTile &rhs, const SmemTile &localMax,
                     mlir::ValueRange state) const;
  /// Stores the sums of `state` (the result rows below m) in `out`, through
  /// `epilogue` (an f32 -> f32 function) when given.
  void store(KernelBuilder &kb, mlir::ValueRange state, bool rescaled,
             const SmemTile &out,
             llvm::function_ref<mlir::Value(mlir::Value)> epilogue = {}) const;
  /// out = lhs @ rhs, job by job: each job's sums are stored as soon as they
  /// are computed, so only one job's fragments live in registers (a
  /// 256x128 result tile would need 256 registers per thread at once).
  void multiplyAndStore(
      KernelBuilder &kb, const SmemTile &lhs, const SmemTile &rhs,
      const SmemTile &out,
      llvm::function_ref<mlir::Value(mlir::Value)> epilogue = {}) const;
  /// state + lhs @ rhs on wgmma with lhs in registers: `lhs` holds, per job
  /// of this thread, the vector<2x2xf32> fragments of a result that
  /// feedsInRegisters this matmul (rounded to the operand type here).
  llvm::SmallVector<mlir::Value>
  accumulateFromRegisters(KernelBuilder &kb, mlir::ValueRange lhs,
                          mlir::Type lhsType, const SmemTile &rhs,
                          mlir::ValueRange state) const;
  /// The number of vector<2x2xf32> fragments per job of a result (its
  /// 8-column tiles).
  int64_t getTilesPerJob() const { return nTilesPerJob; }
  /// For a matmul whose jobs are dealt evenly (feedsInRegisters): calls
  /// `body` for each result row this thread holds fragments of, with the
  /// job's position among this thread's jobs, the row's half (0 or 1: rows
  /// l / 4 and l / 4 + 8 of the warp's 16), its batch indices and its row.
  void forEachHeldRow(
      KernelBuilder &kb,
      llvm::function_ref<void(int64_t, int64_t, mlir::ValueRange, mlir::Value)>
          body) const;
  /// `state` (a sum's accumulator fragments) once every wgmma group of the
  /// thread has completed (wgmma.wait_group 0), for a loop that left one in
  /// flight.
  static llvm::SmallVector<mlir::Value> waitForWgmma(KernelBuilder &kb,
                                                     mlir::ValueRange state);

private:
  /// Where a job's output starts: the warp's first row (for wgmma, also
  /// its warpgroup's, `groupRow`) and first column.
  struct Job {
    llvm::SmallVector<mlir::Value> batch;
    mlir::Value row, column, groupRow;
  };
  /// Warps, or warpgroups with wgmma: the units jobs are dealt to, and
  /// this thread's.
  int64_t getNumJobUnits(const KernelBuilder &kb) const;
  mlir::Value getJobUnit(KernelBuilder &kb) const;
  int64_t getNumJobs() const { return batch * mTiles * nJobs; }
  int64_t getJobsPerWarp(const KernelBuilder &kb) const;
  int64_t getStatePerJob(bool rescaled) const;
  Job decodeJob(KernelBuilder &kb, mlir::Value job) const;
  /// Runs `body` on each job of this warp with that job's `perJob` state
  /// values (guarded where some warps have no job left); returns the whole
  /// state with each job's replaced by what `body` returned.
  llvm::SmallVector<mlir::Value> forEachJob(
      KernelBuilder &kb, mlir::ValueRange state, int64_t perJob,
      llvm::function_ref<llvm::SmallVector<mlir::Value>(const Job &,
                                                        mlir::ValueRange)>
          body) const;
  /// Stores one job's sums (see store).
  void storeJob(KernelBuilder &kb, const Job &job, mlir::ValueRange jobState,
                const SmemTile &out,
                llvm::function_ref<mlir::Value(mlir::Value)> epilogue) const;
  /// acc + lhs @ rhs for one job (the k loop of ldmatrix + mma.sync, or
  /// the wgmma sequence).
  llvm::SmallVector<mlir::Value> multiplyJob(KernelBuilder &kb,
                                             const SmemTile &lhs,
                                             const SmemTile &rhs,
                                             const Job &job,
                                             mlir::ValueRange acc) const;
  /// The descriptor of the right operand's 16 rows of k from `k0` for
  /// `job`'s columns (wgmma).
  mlir::Value createRhsDescriptor(KernelBuilder &kb, const SmemTile &rhs,
                                  const Job &job, int64_t k0) const;
  /// acc + lhs @ rhs for the wgmma jobs `jobs` of this warpgroup, `acc`
  /// holding their sums one after the other: one fence, commit and wait
  /// for all of them, so that the tensor cores run the jobs back to back.
  llvm::SmallVector<mlir::Value>
  multiplyWarpgroupJobs(KernelBuilder &kb, const SmemTile &lhs,
                        const SmemTile &rhs, llvm::ArrayRef<Job> jobs,
                        mlir::ValueRange acc) const;

  Shape batchShape;
  int64_t batch, m, n, k;
  int64_t mTiles, nTilesPerJob, nJobs;
  bool lhsBatched, rhsBatched;
  bool rhsTransposed;
  bool warpgroup;
};

/// Computes a `th.graph` node of a block graph (ThreadGraph.cpp).
llvm::LogicalResult emitThreadGraph(KernelBuilder &kb, mlir::Operation *graph,
                                    llvm::ArrayRef<SmemTile> inputs,
                                    llvm::ArrayRef<SmemTile> results);

//===----------------------------------------------------------------------===//
// Shared-memory planning
//===----------------------------------------------------------------------===//

/// A buffer live over [start, end] (inclusive positions in execution order).
struct LiveInterval {
  int64_t start, end, bytes;
  int64_t offset = -1;
  /// A stricter alignment than the plan's, or 0.
  int64_t alignment = 0;
};

/// Assigns offsets (multiples of `alignment`, or of an interval's own when
/// larger) so that buffers live at the same time do not overlap; returns the
/// total size.
int64_t planSharedMemory(llvm::MutableArrayRef<LiveInterval> intervals,
                         int64_t alignment);

/// A tensor map a kernel reads a block-graph input through: the host
/// creates it over that input's buffer and passes it as a kernel argument.
struct TensorMapUse {
  /// The block graph's input (its position among the graph's arguments).
  unsigned input;
  /// The tile (the box the copy engine moves) and its swizzle.
  mlir::nvgpu::TensorMapDescriptorType type;
};

/// What the host needs to launch a lowered kernel.
struct LoweredKernel {
  /// Dynamic shared memory, in bytes.
  int64_t sharedBytes = 0;
  /// The kernel's trailing arguments, after the graph's inputs and outputs.
  llvm::SmallVector<TensorMapUse> tensorMaps;
  /// Threads per block: the graph's, plus a producer warpgroup when warp
  /// specialized; and the blocks each SM should hold
  /// (BlockGraphPlan::getResidentBlocks).
  int64_t blockThreads = 0, residentBlocks = 1;
};

/// A graph input that a concatenation view (`kn.view`) stands for: its
/// elements along `dim` from `starts[i]` on (up to the next start) are part
/// i's, at index - starts[i]. Part 0 is the kernel argument of the input
/// itself; the other parts' buffers follow the graph's outputs, input by
/// input. Its tiles go through shared memory by cp.async (neither the copy
/// engine nor reads from global memory in expressions).
struct ConcatInput {
  unsigned input = 0;
  int64_t dim = 0;
  llvm::SmallVector<int64_t> starts;

  /// Graph input `input`, the parts of types `parts` joined along `dim`.
  static ConcatInput get(unsigned input, int64_t dim, mlir::TypeRange parts) {
    ConcatInput concat{input, dim, {}};
    int64_t start = 0;
    for (mlir::Type part : parts) {
      concat.starts.push_back(start);
      start += mlir::cast<mlir::ShapedType>(part).getDimSize(dim);
    }
    return concat;
  }
};

/// Emits the body of `func` (the block graph's inputs, then its outputs, as
/// global memrefs, then the extra parts of `concats`; the entry block holds
/// only the terminator) computing `graph` (BlockGraph.cpp). Tiles loaded by
/// the copy engine add one tensor-map argument each to `func`. With
/// `options.dependentLaunch`, the kernel starts with griddepcontrol; the
/// cp.async copies its prologue would issue for the inputs `readOnly` lists
/// (graph argument numbers of buffers no kernel writes) come before the
/// wait.
mlir::FailureOr<LoweredKernel>
lowerBlockGraph(tb::GraphOp graph, mlir::gpu::GPUFuncOp func,
                const Options &options, llvm::ArrayRef<unsigned> readOnly = {},
                llvm::ArrayRef<ConcatInput> concats = {});

/// A task body as lowerBlockGraphBody emits it.
struct LoweredBody {
  int64_t sharedBytes = 0;
  /// Whether the preload block received copies (otherwise it is empty).
  bool preloads = false;
};

/// The same for one block of `graph` in a device function (a mega-kernel's
/// task body): the entry block's arguments are the thread's index in the
/// block, the block's grid coordinates (an index per grid dim), then the
/// graph's inputs and outputs as global memrefs, then the extra parts of
/// `concats`. The thread index is an
/// argument so that a caller running many bodies in a loop can keep what
/// derives from it from being hoisted out of the loop (and held in
/// registers across every other body).
///
/// With `preload` (a block with the same arguments), the cp.async copies
/// that the body's prologue would issue for the inputs `readOnly` lists
/// (graph argument numbers of inputs no task writes) go there instead, to
/// be issued before the task waits on its producers; the body then expects
/// them pending (BlockGraph.cpp).
mlir::FailureOr<LoweredBody>
lowerBlockGraphBody(tb::GraphOp graph, mlir::Block &entry,
                    const Options &options, mlir::Block *preload = nullptr,
                    llvm::ArrayRef<unsigned> readOnly = {},
                    llvm::ArrayRef<ConcatInput> concats = {});

} // namespace mirage::codegen

#endif // MIRAGE_LIB_CONVERSION_KERNELTOGPU_CODEGEN_H
