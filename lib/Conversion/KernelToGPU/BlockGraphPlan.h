//===- BlockGraphPlan.h - What a block graph's kernel will do ---*- C++ -*-===//
//
// The decisions behind a block graph's kernel, made before any code is
// emitted:
//
//   - fusion: an elementwise op whose only user is an elementwise op of the
//     same shape and phase, or a reduction of its phase, is computed inside
//     that user (no tile of its own), and so is a split or a unit-dim reshape
//     whose users are all such ops (they read its operand's tile in place); a
//     tensor-core matmul whose only (transitive) consumer is such a chain of
//     one-operand ops applies the chain to its accumulators before storing (an
//     epilogue), and one that only feeds an accum_sum keeps its sum in
//     registers across the loop; on wgmma, a loop matmul whose result
//     (through its epilogue) only feeds such a sum as its left operand and
//     row reductions that accumulators sum stays in registers (a register
//     chain: FlashAttention's step); a transpose or reshape of unit dims
//     that matmuls read is a view of its source's tile;
//   - schedule: the remaining ops ("steps") of the loop body and of the
//     post-loop part are grouped in dependency levels; the steps of a level
//     are independent and share one barrier after them;
//   - shared memory: every tile that still needs one gets an offset, from
//     the levels at which it is written and last read, with one slot per
//     pipeline stage for input tiles that change every iteration, and so
//     does the scratch of a reduction split over warps;
//   - loads: pipelined input tiles arrive by cp.async, or by the bulk
//     tensor copy engine (TMA) when asked for and every such tile is a box
//     it can copy into the tile's layout; loop-invariant tiles that only
//     the first level's elementwise expressions read are read by them from
//     global memory, with no tile;
//   - stores: an elementwise op or rms_norm stores what output savers of
//     its result write to global memory as it computes it, and keeps a
//     tile only for its other readers.
//
//===----------------------------------------------------------------------===//

#ifndef MIRAGE_LIB_CONVERSION_KERNELTOGPU_BLOCKGRAPHPLAN_H
#define MIRAGE_LIB_CONVERSION_KERNELTOGPU_BLOCKGRAPHPLAN_H

#include "Codegen.h"

#include "mirage/Dialect/Block/IR/Block.h"
#include "llvm/ADT/DenseSet.h"

#include <map>

namespace mirage::codegen {

/// A matmul whose result only feeds an accumulator, summed in registers
/// across the loop: an accum_sum, or the online-softmax accum_rescaled_sum
/// with a per-row maximum.
struct RegisterSum {
  mlir::Operation *matmul, *accumulator;
  bool isRescaled() const {
    return llvm::isa<tb::AccumRescaledSumOp>(accumulator);
  }
};

/// A loop matmul whose result, through its epilogue, never leaves the
/// registers of the warpgroup that computed it (FlashAttention's step: the
/// scores, their exponentials, the row sums and P V): it is the left operand
/// of one register sum on wgmma, read from the same threads' accumulators
/// (wgmma's A from registers), and what else reads it are reductions along
/// its rows, each summed across the loop in registers by its only user.
struct RegisterChain {
  /// The scores' matmul and the elementwise op whose result it holds (its
  /// epilogue), or null.
  mlir::Operation *matmul, *epilogue;
  /// The register sum that multiplies the held value by a shared tile.
  mlir::Operation *consumer;
  /// Each row reduction of the held value and the accumulator summing it.
  llvm::SmallVector<std::pair<mlir::Operation *, mlir::Operation *>> rowSums;
  /// The value held: the epilogue's result, or the matmul's.
  mlir::Value getValue() const {
    return (epilogue ? epilogue : matmul)->getResult(0);
  }
};

/// One unit of emitted work.
struct Step {
  mlir::Operation *op;
  /// For a matmul: the elementwise op whose result it stores (its
  /// epilogue), or null.
  mlir::Operation *epilogue = nullptr;
  /// Dependency level within its phase, from 1.
  int64_t level = 0;
};

class BlockGraphPlan {
public:
  BlockGraphPlan(tb::GraphOp graph, const Options &options,
                 llvm::ArrayRef<ConcatInput> concats = {});

  /// Makes every decision; fails with a diagnostic on the graph unless
  /// `report` is false (for queries, which may run inside a verifier that
  /// other threads share the context with: they read isOutOfSharedMemory).
  llvm::LogicalResult build(bool report = true);
  bool isBuilt() const { return built; }
  /// Whether build failed because the tiles do not fit even with one stage
  /// (getSharedMemoryBytes is then what one stage needs).
  bool isOutOfSharedMemory() const { return outOfSharedMemory; }

  tb::GraphOp getGraph() const { return graph; }
  const Options &getOptions() const { return options; }
  int64_t getIterations() const { return iterations; }
  int64_t getStages() const { return stages; }
  int64_t getSharedMemoryBytes() const { return sharedBytes; }
  /// The ops defining the `count` largest shared-memory buffers, largest
  /// first (ties in program order).
  llvm::SmallVector<mlir::Operation *> getLargestBuffers(size_t count) const;

  /// Input iterators whose tile changes every iteration (loaded through the
  /// pipeline) and the others (loaded once, before the loop).
  llvm::ArrayRef<tb::InputIteratorOp> getPipelined() const {
    return pipelined;
  }
  llvm::ArrayRef<tb::InputIteratorOp> getInvariant() const {
    return invariant;
  }
  bool isPipelined(mlir::Operation *op) const;
  /// Loop-invariant input tiles with no shared-memory tile: only read by
  /// elementwise expressions (elementwise ops, reductions, output savers)
  /// of the first level, which read them from global memory themselves.
  /// Nothing runs before that level whose time a prefetch could hide.
  bool isReadFromGlobal(tb::InputIteratorOp iterator) const {
    return readFromGlobal.contains(iterator);
  }
  /// The concatenation view `iterator` reads, or null.
  const ConcatInput *getConcat(tb::InputIteratorOp iterator) const;
  llvm::ArrayRef<ConcatInput> getConcats() const { return concats; }
  /// Whether the pipelined tiles arrive by the bulk tensor copy engine (one
  /// mbarrier per stage) rather than by cp.async.
  bool usesTma() const { return !tmaSwizzles.empty(); }
  /// Whether a producer warpgroup of its own issues the copies (TMA, with
  /// options.warpSpecialize, and the graph's threads whole warpgroups, as
  /// setmaxnreg reallocates a warpgroup's registers): the graph's threads
  /// consume, synchronize on a named barrier of their own, and free each
  /// stage on an `empty` mbarrier that the producer waits on before it
  /// refills the stage; the producers give up their registers to them.
  bool isWarpSpecialized() const;
  /// Threads per block: the graph's, plus kProducerThreads when warp
  /// specialized (the producers are the last warpgroup).
  int64_t getBlockThreads() const;
  /// The blocks each SM should hold at once (getResidentBlocksPerSM): the
  /// kernel's `.minnctapersm`, which a warp-specialized kernel's register
  /// counts are taken at.
  int64_t getResidentBlocks() const;
  /// Whether some matmul runs on wgmma, which reads its operand tiles
  /// through the async proxy.
  bool usesWgmma() const;
  /// Whether each loop step may leave its wgmma group in flight while the
  /// next one waits for its tiles (a GEMM main loop): cp.async stages (or
  /// TMA, warp specialized, whose consumers then free a stage one iteration
  /// late), at least 3 of them, and every wgmma matmul of the loop summed in
  /// registers from two pipelined tiles, which nothing in the loop writes.
  /// The copies then run one stage less ahead, so that the stage a copy
  /// overwrites belongs to the group before last, which has completed.
  bool keepsWgmmaInFlight() const;
  /// keepsWgmmaInFlight but for the stage count: what asks for more stages.
  bool isWgmmaMainLoop() const;
  /// How many iterations ahead of the one computing the cp.async copies
  /// run: stages - 1, or stages - 2 with wgmma in flight.
  int64_t getStagesAhead() const {
    return keepsWgmmaInFlight() ? stages - 2 : stages - 1;
  }
  /// The tensor map a pipelined tile is copied through (usesTma only).
  mlir::nvgpu::TensorMapDescriptorType
  getTensorMapType(tb::InputIteratorOp iterator) const;

  /// The steps of the loop body and of the post-loop part, by level.
  llvm::ArrayRef<llvm::SmallVector<Step>> getLoopLevels() const {
    return loopLevels;
  }
  llvm::ArrayRef<llvm::SmallVector<Step>> getPostLoopLevels() const {
    return postLoopLevels;
  }
  /// Accumulators, in program order (their state is set up before the loop).
  llvm::ArrayRef<mlir::Operation *> getAccumulators() const {
    return accumulators;
  }

  /// The output savers whose tile `producer` (an elementwise op or an
  /// rms_norm of their phase) stores to global memory as it computes it;
  /// such savers are no step of their own.
  llvm::ArrayRef<tb::OutputSaverOp>
  getSaversStoredBy(mlir::Operation *producer) const;

  /// Whether `op` is computed inside the elementwise op using it.
  bool isInlined(mlir::Operation *op) const { return inlined.contains(op); }
  /// For a split or reshape that its elementwise users read in place (it is
  /// inlined too): how each result's indices map to its operand's, with
  /// fromDim/offset as in TileView.
  bool isView(mlir::Operation *op) const { return views.contains(op); }
  static void getViewMap(mlir::Operation *op, unsigned result,
                         llvm::SmallVectorImpl<int64_t> &fromDim,
                         llvm::SmallVectorImpl<int64_t> &offset);
  /// The tensor-core matmul of `op`, or null.
  const MmaMatmul *getMma(mlir::Operation *op) const;
  /// The tile a matmul reads for `operand`: the source of a transposed
  /// right operand read in place (MmaMatmul's rhsTransposed) or of a view
  /// (isReadAsView), else itself.
  mlir::Value getStoredOperand(mlir::Value operand) const;
  /// Whether `operand` is a transpose or reshape of unit dims that its
  /// matmuls read in place: its source's tile, seen with the operand's shape
  /// (the element order and rows are the same).
  bool isReadAsView(mlir::Value operand) const {
    mlir::Operation *def = operand.getDefiningOp();
    return def && matmulViews.contains(def);
  }
  /// Matmuls summed in registers, in program order.
  llvm::ArrayRef<RegisterSum> getRegisterSums() const { return registerSums; }
  /// The register sum of a matmul, or null.
  const RegisterSum *getRegisterSum(mlir::Operation *matmul) const;
  bool isRegisterMatmul(mlir::Operation *op) const {
    return getRegisterSum(op) != nullptr;
  }
  /// Register chains, in program order.
  llvm::ArrayRef<RegisterChain> getRegisterChains() const {
    return registerChains;
  }
  /// The register chain whose scores `matmul` computes, or null.
  const RegisterChain *getRegisterChain(mlir::Operation *matmul) const;
  /// Whether accumulator `op` sums in registers (a register sum's or a
  /// register chain's row sum), stored to its tile after the loop.
  bool isSummedInRegisters(mlir::Operation *op) const;

  /// Layout and offset of a tile value that lives in shared memory. Results
  /// computed inside their user, matmul results summed in registers or
  /// stored through an epilogue have none; sums kept in registers get theirs
  /// for after the loop. Pipelined input tiles start at `getOffset` with one
  /// stage every `getStageStride` bytes.
  bool hasTile(mlir::Value value) const { return slots.count(value); }
  const TileLayout &getLayout(mlir::Value value) const;
  int64_t getOffset(mlir::Value value) const;
  int64_t getStageStride(mlir::Value value) const;
  /// The running-maximum buffer of an accum_rescaled_sum.
  int64_t getRunningMaxOffset(mlir::Operation *op) const;
  /// The scratch a reduction or rms_norm split over warps combines in
  /// (getReductionScratchBytes): its offset and size, or std::nullopt for
  /// one that is not split.
  std::optional<std::pair<int64_t, int64_t>>
  getReductionScratch(mlir::Operation *op) const;

private:
  void decideFusion();
  bool isTransposedRhs(mlir::Value rhs) const;
  bool isMatmulView(mlir::Value operand) const;
  void decideMatmuls();
  void decideRegisterChains();
  std::optional<RegisterChain> findRegisterChain(mlir::Operation *matmul);
  void decideTma();
  void schedule();
  void decideGlobalReads();
  void decideProducerStores();
  /// Places the tiles with as many stages as fit, down to one.
  llvm::LogicalResult planSharedMemory();
  int64_t getSharedMemoryLimit() const;

  /// Values a step reads from shared memory (inlined chains included).
  llvm::SmallVector<mlir::Value> getReads(const Step &step) const;
  /// The value a step writes (results of an epilogue's op for a matmul).
  llvm::SmallVector<mlir::Value> getWrites(const Step &step) const;
  void collectLeaves(mlir::Value value,
                     llvm::SmallVectorImpl<mlir::Value> &leaves) const;

  tb::GraphOp graph;
  Options options;
  int64_t iterations;
  int64_t stages = 1;

  llvm::SmallVector<mlir::Operation *> loopOps, postLoopOps;
  llvm::SmallVector<tb::InputIteratorOp> pipelined, invariant;
  llvm::SmallVector<mlir::Operation *> accumulators;
  llvm::SmallVector<mlir::Value> tileValues;
  llvm::DenseMap<mlir::Value, TileLayout> layouts;

  llvm::DenseSet<mlir::Operation *> inlined, views;
  /// Transposes whose matmuls read their source as is (a subset of
  /// `inlined`).
  llvm::DenseSet<mlir::Operation *> transposedRhs;
  /// Unit-dim transposes and reshapes whose matmuls read their source as a
  /// tile of their shape (a subset of `inlined`).
  llvm::DenseSet<mlir::Operation *> matmulViews;
  std::map<mlir::Operation *, MmaMatmul> mmaMatmuls;
  /// Tiles wgmma reads: in its layout, on the swizzle's 1024-byte period.
  llvm::DenseSet<mlir::Value> wgmmaOperands;
  llvm::SmallVector<RegisterSum> registerSums;
  llvm::SmallVector<RegisterChain> registerChains;
  /// The ops a register chain's step computes besides its matmul and its
  /// epilogue (absorbed as every epilogue is): the consumer, the row
  /// reductions and their accumulators.
  llvm::DenseSet<mlir::Operation *> chained;
  /// Matmul -> the elementwise op it stores; and back.
  llvm::DenseMap<mlir::Operation *, mlir::Operation *> epilogues, absorbedBy;

  llvm::SmallVector<llvm::SmallVector<Step>> loopLevels, postLoopLevels;
  /// Position (in loop-then-post-loop level order) at which each value is
  /// written; the loop ends at `loopEnd`.
  llvm::DenseMap<mlir::Value, int64_t> written, lastRead;
  int64_t loopEnd = 0;

  /// Per pipelined tile, in `pipelined` order; empty without TMA.
  llvm::SmallVector<mlir::nvgpu::TensorMapSwizzleKind> tmaSwizzles;

  llvm::DenseMap<mlir::Value, size_t> slots;
  llvm::DenseMap<mlir::Operation *, size_t> runningMaxSlots;
  llvm::DenseMap<mlir::Operation *, size_t> scratchSlots;
  llvm::DenseSet<mlir::Operation *> readFromGlobal;
  llvm::SmallVector<ConcatInput> concats;
  llvm::DenseMap<mlir::Operation *, llvm::SmallVector<tb::OutputSaverOp>>
      storedBy;
  llvm::DenseSet<mlir::Operation *> storedSavers;
  /// Producers whose result only their stored savers read: no tile.
  llvm::DenseSet<mlir::Operation *> storedOnly;
  llvm::SmallVector<LiveInterval> intervals;
  int64_t sharedBytes = 0;
  bool built = false, outOfSharedMemory = false;
};

} // namespace mirage::codegen

#endif // MIRAGE_LIB_CONVERSION_KERNELTOGPU_BLOCKGRAPHPLAN_H
