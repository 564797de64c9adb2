//===- BlockGraph.cpp - A block graph as the body of a gpu.func -----------===//
//
// The body of one kernel, following its BlockGraphPlan:
//
//   prologue   accumulators initialized; loop-invariant input tiles and the
//              first (stages - 1) iterations' tiles requested by cp.async
//              (nvgpu.device_async_copy; groups committed and awaited with
//              the nvvm ops, whose printed form parses back)
//   loop       for it in [0, forloop): request iteration it + stages - 1,
//              wait for iteration it's tiles, run the loop-body steps level
//              by level (a barrier after each level)
//
// A GEMM main loop on wgmma (BlockGraphPlan::keepsWgmmaInFlight) leaves each
// step's wgmma group in flight while the next step requests and waits for
// its tiles (wgmma.wait_group 1; 0 after the loop): the copies then run
// stages - 2 iterations ahead instead of stages - 1 (here and in the
// preload below), so the stage a request overwrites is that of the group
// before last, which has completed before the request's iteration began.
//
// With TMA the pipelined tiles come from the bulk tensor copy engine
// instead: thread 0 expects a stage's bytes on that stage's mbarrier and
// issues one nvgpu.tma.async.load per tile; every thread waits on the
// mbarrier with the parity of the stage's use, (it / stages) % 2.
//
// Warp specialized (BlockGraphPlan::isWarpSpecialized), a producer
// warpgroup after the graph's threads issues them instead: its first thread
// refills stage s for use k once the consumers have released use k - 1 on
// the stage's `empty` mbarrier (parity (k - 1) % 2; a fresh mbarrier counts
// the phase before its first, parity 1, as complete, so the first use of
// every stage goes at once). The consumers wait on `full` as above, and
// consumer thread 0 releases the stage after the iteration's last barrier,
// a named barrier over the consumers only. The producers keep
// kProducerRegisters registers and the consumers take the rest
// (setmaxnreg, getConsumerRegisters). A GEMM main loop keeps its wgmma
// group in flight here too: the consumers free the previous iteration's
// stage, whose group has completed, instead of their own.
//   epilogue   register sums stored; post-loop steps level by level; output
//              savers write their tiles to global memory
//
// Every tile lives in one dynamic shared-memory buffer at the offset the
// plan gives it.
//
// A block may copy its read-only inputs early (preload): before a
// mega-kernel task waits on its producers (a separate function issues the
// copies) or before a per-operator kernel's griddepcontrol.wait, the
// cp.async copies of those inputs' loop-invariant tiles and first
// (stages - 1) stages (or the first preloadStages of them) are issued, one
// group per stage; the body then leaves them out of its prologue and
// commits its own (stages - 1) groups as before. The loop's wait (at most
// stages - 1 groups pending) still completes iteration i's copies: the groups
// after them, the body's prologue stages i + 1 to stages - 2 and the loop's
// requests of iterations 0 to i, are stages - 1 of them.
//
//===----------------------------------------------------------------------===//

#include "BlockGraphPlan.h"

#include "mirage/Dialect/Thread/IR/Thread.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <limits>

using namespace mlir;
using namespace mirage;
using namespace mirage::codegen;

namespace {

class BlockGraphEmitter {
public:
  /// `preloaded`: the inputs (graph argument numbers) whose copies a
  /// preload function issues instead of the body's prologue.
  BlockGraphEmitter(const BlockGraphPlan &plan,
                    ArrayRef<unsigned> preloaded = {})
      : plan(plan), preloaded(preloaded.begin(), preloaded.end()) {}

  /// Emits into `entry` (which holds only its terminator). For a task
  /// body, its first arguments are the thread index and the block's grid
  /// coordinates (one per grid dim); otherwise they are gpu.thread_id and
  /// gpu.block_id. The remaining arguments are the graph's inputs, then its
  /// outputs.
  LogicalResult emit(Block &entry, bool taskBody);
  /// Emits into `entry` (a task body's arguments) the preload: the copies
  /// of the preloaded inputs' invariant tiles and first stages.
  void emitPreload(Block &entry);
  /// Those copies, one commit group per prologue stage.
  void emitPreloadCopies();

  /// The prologue stages whose tiles of the preloaded inputs the preload
  /// copies (Options::preloadStages); the body copies the later ones.
  int64_t getPreloadedStages() const {
    unsigned most = plan.getOptions().preloadStages;
    return most ? std::min<int64_t>(most, plan.getStagesAhead())
                : plan.getStagesAhead();
  }
  /// Whether `plan` copies iterator's tile with cp.async in the prologue
  /// (loop-invariant, or one of the first stages of a pipeline).
  static bool isCopiedInPrologue(const BlockGraphPlan &plan,
                                 tb::InputIteratorOp iterator);

private:
  SmemTile getTile(Value value) const {
    assert(tiles.count(value) && "a value without a shared-memory tile");
    return tiles.lookup(value);
  }
  SmemTile createView(Value byteOffset, const TileLayout &layout);
  SmemTile getStageTile(tb::InputIteratorOp iterator, Value iteration);
  SmemTile getRunningMax(Operation *op);
  SmallVector<Value> getInputOffsets(tb::InputIteratorOp iterator,
                                     Value iteration);
  void emitTileLoad(tb::InputIteratorOp iterator, ValueRange offsets,
                    const SmemTile &tile, bool async);
  /// Runs `access` on the buffer of the part of `concat` (`parts`, its
  /// buffers) that holds the element at `index`, a global index of the whole
  /// view, with the index within that part; from `part` on.
  void emitConcatAccess(const ConcatInput &concat, ArrayRef<Value> parts,
                        ArrayRef<Value> index,
                        function_ref<void(Value, ValueRange)> access,
                        size_t part = 0);
  void emitTileStore(const SmemTile &tile, Value global, ValueRange offsets);
  SmallVector<GlobalTile> getSaverOutputs(tb::OutputSaverOp saver);
  TileSinks getSinks(Operation *op);
  /// Whether the preload copies iterator's tiles: its input is preloaded
  /// and the prologue would copy them.
  bool isPreloaded(tb::InputIteratorOp iterator) const {
    return preloaded.contains(
               cast<BlockArgument>(iterator.getInput()).getArgNumber()) &&
           isCopiedInPrologue(plan, iterator);
  }
  /// Binds the entry block's arguments: thread and block indices, the
  /// inputs' and outputs' global memrefs; creates the fixed tile views.
  void bindArguments(OpBuilder &b, Block &entry, bool taskBody);
  /// The cp.async copies of the invariant tiles of inputs that are (or are
  /// not) preloaded. Returns whether there were any.
  bool emitInvariantLoads(bool ofPreloaded);
  /// The tile copies of pipeline iteration `iteration`; `which` selects the
  /// iterators (all when empty).
  void emitPipelinedLoads(
      Value iteration,
      function_ref<bool(tb::InputIteratorOp)> which = nullptr);
  Value getStageOffset(tb::InputIteratorOp iterator, Value iteration);
  void emitTmaInit();
  void emitTmaLoads(Value iteration);
  void emitTmaWait(Value iteration);
  /// Warp specialized: the producer warpgroup's branch, which issues every
  /// iteration's copies; leaves the builder in the consumers' branch.
  void emitProducer();
  /// Warp specialized: consumer thread 0 frees iteration's stage, or, with
  /// wgmma in flight, the previous iteration's (whose group has completed).
  void emitStageRelease(Value iteration, bool previous);
  void emitAccumulatorInit(Operation *op);
  void emitAccumulate(Operation *op, Value iteration);
  ElementExpr buildExpr(Value value);
  ElementExpr buildExpr(Operation *op);
  LogicalResult emitStep(const Step &step, Value iteration,
                         SmallVectorImpl<Value> &registerAcc);
  /// The tile a step reads for `operand`: for a matmul, the source of a
  /// transposed or view operand (BlockGraphPlan::getStoredOperand), a view's
  /// seen with the operand's shape.
  SmemTile getOperandTile(Value operand);
  /// The loop's register state holds the register sums in program order,
  /// then each register chain's row sums. Where the sum of `matmul` starts,
  /// where the chains' row sums start, and where `chain`'s do.
  int64_t getRegisterSumStart(Operation *matmul) const;
  int64_t getRegisterSumsSize() const;
  int64_t getRowSumsStart(const RegisterChain &chain) const;
  /// One row sum of a register chain: two values (rows l / 4 and l / 4 + 8)
  /// per job of the scores' matmul. All of the chain's row sums.
  int64_t getRowSumRegisters(const RegisterChain &chain) const;
  int64_t getRowSumsSize(const RegisterChain &chain) const {
    return chain.rowSums.size() * getRowSumRegisters(chain);
  }
  void emitRegisterChain(const RegisterChain &chain,
                         ArrayRef<SmemTile> operands,
                         SmallVectorImpl<Value> &registerAcc);
  /// Stores the row sums of the register chains to their accumulators'
  /// tiles after the loop.
  void storeRowSums(ArrayRef<Value> registerAcc);
  LogicalResult emitLevels(ArrayRef<SmallVector<Step>> levels, Value iteration,
                           SmallVectorImpl<Value> &registerAcc);

  const BlockGraphPlan &plan;
  llvm::SmallDenseSet<unsigned> preloaded;
  std::optional<KernelBuilder> kb;
  Value sharedMemory;
  SmallVector<Value> blockIds;
  /// The global memref of each graph input, and the outputs each saver
  /// writes.
  llvm::DenseMap<Value, Value> globals;
  llvm::DenseMap<Value, SmallVector<Value, 1>> outputs;
  /// The buffers of each concatenation view's parts, by graph input.
  llvm::DenseMap<Value, SmallVector<Value>> concatParts;
  llvm::DenseMap<Value, SmemTile> tiles;
  /// With TMA: the tensor map of each pipelined tile (in the plan's
  /// order), one mbarrier per stage (and, warp specialized, one per stage
  /// the consumers free it on), and whether this thread issues copies.
  SmallVector<Value> tensorMaps;
  Value mbarriers, emptyBarriers, isLeader;
};

} // namespace

//===----------------------------------------------------------------------===//
// Tiles, loads and stores
//===----------------------------------------------------------------------===//

SmemTile BlockGraphEmitter::createView(Value byteOffset,
                                        const TileLayout &layout) {
  OpBuilder &b = kb->b;
  auto type = MemRefType::get(
      {layout.getNumElements()}, layout.elementType, MemRefLayoutAttrInterface(),
      gpu::AddressSpaceAttr::get(b.getContext(),
                                 gpu::GPUDialect::getWorkgroupAddressSpace()));
  Value view = memref::ViewOp::create(b, kb->loc, type, sharedMemory,
                                      byteOffset, ValueRange());
  return SmemTile{view, layout};
}

Value BlockGraphEmitter::getStageOffset(tb::InputIteratorOp iterator,
                                        Value iteration) {
  Value value = iterator.getResult();
  Value stage = kb->rem(iteration, plan.getStages());
  return kb->add(kb->mul(stage, plan.getStageStride(value)),
                 plan.getOffset(value));
}

SmemTile BlockGraphEmitter::getStageTile(tb::InputIteratorOp iterator,
                                         Value iteration) {
  return createView(getStageOffset(iterator, iteration),
                    plan.getLayout(iterator.getResult()));
}

SmemTile BlockGraphEmitter::getRunningMax(Operation *op) {
  auto type = cast<tb::TileType>(op->getOperand(1).getType());
  return createView(kb->index(plan.getRunningMaxOffset(op)),
                    TileLayout{Shape(type.getShape()), kb->b.getF32Type()});
}

SmallVector<Value> BlockGraphEmitter::getInputOffsets(
    tb::InputIteratorOp iterator, Value iteration) {
  ArrayRef<int64_t> shape = iterator.getInput().getType().getShape();
  ArrayRef<int64_t> tile = iterator.getType().getShape();
  ArrayRef<int64_t> grid = plan.getGraph().getGrid();
  SmallVector<Value> offsets(shape.size(), kb->index(0));
  for (auto [g, dim] : llvm::enumerate(iterator.getImap().getDims()))
    if (dim != kReplica)
      offsets[dim] = kb->mul(blockIds[g], shape[dim] / grid[g]);
  int64_t loopDim = iterator.getFmap().getDim();
  if (loopDim != kReplica && iteration)
    offsets[loopDim] = kb->add(offsets[loopDim],
                               kb->mul(iteration, tile[loopDim]));
  return offsets;
}

/// Whether a tile of `layout` from a buffer whose rows have
/// `globalShape.back()` elements is copied in 16-byte chunks (by cp.async
/// where asynchronous), rather than element by element.
static bool copiesByChunks(const TileLayout &layout,
                           ArrayRef<int64_t> globalShape) {
  int64_t vector = layout.getChunkElements();
  return layout.shape.back() % vector == 0 && globalShape.back() % vector == 0;
}

void BlockGraphEmitter::emitConcatAccess(
    const ConcatInput &concat, ArrayRef<Value> parts, ArrayRef<Value> index,
    function_ref<void(Value, ValueRange)> access, size_t part) {
  OpBuilder &b = kb->b;
  auto accessPart = [&] {
    SmallVector<Value> local(index);
    if (concat.starts[part] != 0)
      local[concat.dim] = arith::SubIOp::create(b, kb->loc, index[concat.dim],
                                                kb->index(concat.starts[part]));
    access(parts[part], local);
  };
  if (part + 1 == parts.size())
    return accessPart();
  Value inPart = arith::CmpIOp::create(b, kb->loc, arith::CmpIPredicate::ult,
                                       index[concat.dim],
                                       kb->index(concat.starts[part + 1]));
  auto branch = scf::IfOp::create(b, kb->loc, inPart, /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(branch.thenBlock());
  accessPart();
  b.setInsertionPointToStart(branch.elseBlock());
  emitConcatAccess(concat, parts, index, access, part + 1);
}

void BlockGraphEmitter::emitTileLoad(tb::InputIteratorOp iterator,
                                     ValueRange offsets, const SmemTile &tile,
                                     bool async) {
  OpBuilder &b = kb->b;
  Location loc = kb->loc;
  const TileLayout &layout = tile.layout;
  ArrayRef<int64_t> shape = layout.shape;
  Value global = globals.lookup(iterator.getInput());
  const ConcatInput *concat = plan.getConcat(iterator);
  auto globalShape = cast<MemRefType>(global.getType()).getShape();
  int64_t vector = layout.getChunkElements();
  auto at = [&](ValueRange indices) {
    SmallVector<Value> result;
    for (auto [offset, index] : llvm::zip(offsets, indices))
      result.push_back(kb->add(offset, index));
    return result;
  };
  // A view's element comes from the part holding it (the parts share every
  // dim but the concatenated one, which is not the innermost).
  auto read = [&](ValueRange index,
                  function_ref<void(Value, ValueRange)> access) {
    if (!concat)
      return access(global, index);
    emitConcatAccess(*concat, concatParts.lookup(iterator.getInput()),
                     SmallVector<Value>(index), access);
  };
  if (copiesByChunks(layout, globalShape)) {
    // 16-byte chunks: whole chunks stay whole in a swizzled layout.
    Shape chunkShape(shape);
    chunkShape.back() /= vector;
    kb->forEachStrided(getNumElements(chunkShape), [&](Value chunk) {
      SmallVector<Value> indices = kb->delinearize(chunk, chunkShape);
      indices.back() = kb->mul(indices.back(), vector);
      Value offset = kb->getElementOffset(layout, indices);
      read(at(indices), [&](Value source, ValueRange index) {
        if (async) {
          nvgpu::DeviceAsyncCopyOp::create(b, loc, tile.buffer, offset, source,
                                           index, b.getIndexAttr(vector),
                                           Value(), b.getUnitAttr());
          return;
        }
        auto type = VectorType::get({vector}, layout.elementType);
        Value data = vector::LoadOp::create(b, loc, type, source, index, false,
                                            llvm::Align(16));
        vector::StoreOp::create(b, loc, data, tile.buffer, offset, false,
                                llvm::Align(16));
      });
    });
    return;
  }
  kb->forEachStrided(layout.getNumElements(), [&](Value linear) {
    SmallVector<Value> indices = kb->delinearize(linear, shape);
    Value offset = kb->getElementOffset(layout, indices);
    read(at(indices), [&](Value source, ValueRange index) {
      Value data = memref::LoadOp::create(b, loc, source, index);
      memref::StoreOp::create(b, loc, data, tile.buffer, offset);
    });
  });
}

void BlockGraphEmitter::emitTileStore(const SmemTile &tile, Value global,
                                       ValueRange offsets) {
  OpBuilder &b = kb->b;
  Location loc = kb->loc;
  const TileLayout &layout = tile.layout;
  ArrayRef<int64_t> shape = layout.shape;
  auto globalType = cast<MemRefType>(global.getType());
  Type globalElement = globalType.getElementType();
  int64_t vector = 16 / (globalElement.getIntOrFloatBitWidth() / 8);
  auto at = [&](ValueRange indices) {
    SmallVector<Value> result;
    for (auto [offset, index] : llvm::zip(offsets, indices))
      result.push_back(kb->add(offset, index));
    return result;
  };
  // Chunks of the tile are contiguous unless swizzling split them finer.
  bool contiguous = !layout.swizzled || layout.getChunkElements() == vector;
  if (contiguous && shape.back() % vector == 0 &&
      globalType.getShape().back() % vector == 0) {
    Shape chunkShape(shape);
    chunkShape.back() /= vector;
    kb->forEachStrided(getNumElements(chunkShape), [&](Value chunk) {
      SmallVector<Value> indices = kb->delinearize(chunk, chunkShape);
      indices.back() = kb->mul(indices.back(), vector);
      auto type = VectorType::get({vector}, layout.elementType);
      Value data = vector::LoadOp::create(
          b, loc, type, tile.buffer, kb->getElementOffset(layout, indices),
          false, llvm::Align(std::min<int64_t>(16, vector * layout.getElementBytes())));
      vector::StoreOp::create(b, loc, kb->convert(data, globalElement), global,
                              at(indices), false, llvm::Align(16));
    });
    return;
  }
  kb->forEachStrided(layout.getNumElements(), [&](Value linear) {
    SmallVector<Value> indices = kb->delinearize(linear, shape);
    Value data = kb->convert(kb->loadF32(tile, indices), globalElement);
    memref::StoreOp::create(b, loc, data, global, at(indices));
  });
}

/// The parts of global outputs that `saver` writes.
SmallVector<GlobalTile>
BlockGraphEmitter::getSaverOutputs(tb::OutputSaverOp saver) {
  ArrayRef<int64_t> tile = saver.getInput().getType().getShape();
  SmallVector<Value> offsets(tile.size(), kb->index(0));
  for (auto [g, dim] : llvm::enumerate(saver.getOmap().getDims()))
    offsets[dim] = kb->mul(blockIds[g], tile[dim]);
  SmallVector<GlobalTile> parts;
  for (Value global : outputs.lookup(saver.getResult()))
    parts.push_back(GlobalTile{global, offsets, Shape(tile)});
  return parts;
}

/// Where `op` puts its result: its tile, if it has one, and what the
/// output savers it stores for write.
TileSinks BlockGraphEmitter::getSinks(Operation *op) {
  TileSinks sinks;
  Value result = op->getResult(0);
  if (plan.hasTile(result))
    sinks.tile = getTile(result);
  for (tb::OutputSaverOp saver : plan.getSaversStoredBy(op))
    llvm::append_range(sinks.outputs, getSaverOutputs(saver));
  return sinks;
}

void BlockGraphEmitter::emitPipelinedLoads(
    Value iteration, function_ref<bool(tb::InputIteratorOp)> which) {
  for (tb::InputIteratorOp iterator : plan.getPipelined())
    if (!which || which(iterator))
      emitTileLoad(iterator, getInputOffsets(iterator, iteration),
                   getStageTile(iterator, iteration),
                   plan.getOptions().asyncCopy);
}

void BlockGraphEmitter::emitTmaInit() {
  OpBuilder &b = kb->b;
  Location loc = kb->loc;
  bool warpSpecialized = plan.isWarpSpecialized();
  isLeader = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::eq, kb->threadId,
      kb->index(warpSpecialized ? plan.getGraph().getThreads() : 0));
  {
    // The runtime writes the maps with a host copy: the tensor-map proxy
    // must acquire them before the copy engine reads them.
    auto ifOp = scf::IfOp::create(b, loc, isLeader);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    for (Value map : tensorMaps) {
      nvgpu::TmaFenceOp::create(b, loc, map);
      nvgpu::TmaPrefetchOp::create(b, loc, map, Value());
    }
  }
  auto type = nvgpu::MBarrierGroupType::get(
      b.getContext(),
      gpu::AddressSpaceAttr::get(b.getContext(),
                                 gpu::GPUDialect::getWorkgroupAddressSpace()),
      plan.getStages());
  mbarriers = nvgpu::MBarrierCreateOp::create(b, loc, type);
  if (warpSpecialized)
    emptyBarriers = nvgpu::MBarrierCreateOp::create(b, loc, type);
  // One arrival per phase: the leader's arrive.expect_tx (consumer thread
  // 0's arrive on an empty mbarrier).
  for (int64_t stage = 0; stage < plan.getStages(); ++stage) {
    nvgpu::MBarrierInitOp::create(b, loc, mbarriers, kb->index(1),
                                  kb->index(stage), isLeader);
    if (warpSpecialized)
      nvgpu::MBarrierInitOp::create(b, loc, emptyBarriers, kb->index(1),
                                    kb->index(stage), isLeader);
  }
  // Makes the initialized mbarriers visible to the copy engine; the
  // prologue's barrier (warp specialized: the one before the roles split)
  // makes them visible to the other threads.
  NVVM::FenceMbarrierInitOp::create(b, loc);
}

void BlockGraphEmitter::emitTmaLoads(Value iteration) {
  OpBuilder &b = kb->b;
  Location loc = kb->loc;
  Value stage = kb->rem(iteration, plan.getStages());
  int64_t bytes = 0;
  for (tb::InputIteratorOp iterator : plan.getPipelined())
    bytes += plan.getLayout(iterator.getResult()).getBytes();
  // The producer's loop runs in its leader alone.
  Value predicate = plan.isWarpSpecialized() ? Value() : isLeader;
  nvgpu::MBarrierArriveExpectTxOp::create(b, loc, mbarriers, kb->index(bytes),
                                          stage, predicate);
  for (auto [index, map] : llvm::enumerate(tensorMaps)) {
    tb::InputIteratorOp iterator = plan.getPipelined()[index];
    // One copy per column block and per box of rows (column blocks are
    // consecutive, and so are the row boxes inside one), each into a view
    // of the box's own shape, which the copy fills row-major.
    const TileLayout &layout = plan.getLayout(iterator.getResult());
    auto boxType =
        cast<nvgpu::TensorMapDescriptorType>(map.getType()).getTensor();
    ArrayRef<int64_t> boxShape = boxType.getShape();
    int64_t rank = boxShape.size();
    int64_t columnBlocks = layout.shape.back() / boxShape.back();
    int64_t rowBoxes =
        rank >= 2 ? layout.shape[rank - 2] / boxShape[rank - 2] : 1;
    int64_t elementBytes = layout.getElementBytes();
    int64_t blockBytes = layout.getBytes() / columnBlocks;
    int64_t boxBytes = boxType.getNumElements() * elementBytes;
    Value tileOffset = getStageOffset(iterator, iteration);
    // Tensor-map coordinates go innermost dim first.
    SmallVector<Value> first =
        llvm::to_vector(llvm::reverse(getInputOffsets(iterator, iteration)));
    for (int64_t block = 0; block < columnBlocks; ++block) {
      for (int64_t rows = 0; rows < rowBoxes; ++rows) {
        Value box = memref::ViewOp::create(
            b, loc, boxType, sharedMemory,
            kb->add(tileOffset, block * blockBytes + rows * boxBytes),
            ValueRange());
        SmallVector<Value> coordinates(first);
        coordinates[0] = kb->add(first[0], block * boxShape.back());
        if (rank >= 2)
          coordinates[1] = kb->add(first[1], rows * boxShape[rank - 2]);
        nvgpu::TmaAsyncLoadOp::create(b, loc, box, mbarriers, map, coordinates,
                                      stage,
                                      /*multicastMask=*/Value(), predicate);
      }
    }
  }
}

void BlockGraphEmitter::emitTmaWait(Value iteration) {
  OpBuilder &b = kb->b;
  Location loc = kb->loc;
  int64_t stages = plan.getStages();
  Value use = kb->div(iteration, stages);
  Value parity = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne,
                                       kb->rem(use, 2), kb->index(0));
  // The suspend-time hint CUTLASS uses; the wait loops until the phase
  // completes.
  nvgpu::MBarrierTryWaitParityOp::create(b, loc, mbarriers, parity,
                                         kb->index(10000000),
                                         kb->rem(iteration, stages));
}

void BlockGraphEmitter::emitProducer() {
  OpBuilder &b = kb->b;
  Location loc = kb->loc;
  int64_t threads = plan.getGraph().getThreads();
  Value isProducer = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge,
                                           kb->threadId, kb->index(threads));
  auto roles = scf::IfOp::create(b, loc, isProducer, /*withElseRegion=*/true);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(roles.thenBlock());
    NVVM::SetMaxRegisterOp::create(b, loc, kProducerRegisters,
                                   NVVM::SetMaxRegisterAction::decrease);
    auto leader = scf::IfOp::create(b, loc, isLeader);
    b.setInsertionPointToStart(leader.thenBlock());
    auto loop = scf::ForOp::create(
        b, loc, kb->index(0), kb->index(plan.getIterations()), kb->index(1));
    b.setInsertionPointToStart(loop.getBody());
    Value iteration = loop.getInductionVar();
    // Use k of a stage waits for release k - 1: parity (k + 1) % 2.
    Value use = kb->div(iteration, plan.getStages());
    Value parity = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                         kb->rem(use, 2), kb->index(0));
    nvgpu::MBarrierTryWaitParityOp::create(
        b, loc, emptyBarriers, parity, kb->index(10000000),
        kb->rem(iteration, plan.getStages()));
    emitTmaLoads(iteration);
  }
  b.setInsertionPointToStart(roles.elseBlock());
  NVVM::SetMaxRegisterOp::create(
      b, loc,
      getConsumerRegisters(plan.getBlockThreads(), plan.getResidentBlocks()),
      NVVM::SetMaxRegisterAction::increase);
  kb->barrierThreads = threads;
}

void BlockGraphEmitter::emitStageRelease(Value iteration, bool previous) {
  // An arrive expecting no bytes: LLVM 22 lowers nvgpu.mbarrier.arrive to
  // an nvvm op without its result type, which crashes the verifier.
  OpBuilder &b = kb->b;
  Location loc = kb->loc;
  int64_t stages = plan.getStages();
  Value releases = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                         kb->threadId, kb->index(0));
  Value stage = kb->rem(iteration, stages);
  if (previous) {
    releases = arith::AndIOp::create(
        b, loc, releases,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, iteration,
                              kb->index(1)));
    stage = kb->rem(kb->add(iteration, stages - 1), stages);
  }
  nvgpu::MBarrierArriveExpectTxOp::create(b, loc, emptyBarriers, kb->index(0),
                                          stage, releases);
}

void BlockGraphEmitter::emitAccumulatorInit(Operation *op) {
  if (isa<tb::AccumConcatOp>(op) || plan.isSummedInRegisters(op))
    return;
  OpKind kind = cast<SemanticsOpInterface>(op).getOpKind();
  SmemTile acc = getTile(op->getResult(0));
  double identity = getCombineIdentity(kind);
  kb->forEachStrided(acc.layout.getNumElements(), [&](Value linear) {
    kb->storeF32(acc, kb->delinearize(linear, acc.layout.shape),
                 kb->f32(identity));
  });
  if (isa<tb::AccumRescaledSumOp>(op)) {
    SmemTile runningMax = getRunningMax(op);
    ArrayRef<int64_t> shape = runningMax.layout.shape;
    kb->forEachStrided(runningMax.layout.getNumElements(), [&](Value linear) {
      kb->storeF32(runningMax, kb->delinearize(linear, shape),
                   kb->f32(-std::numeric_limits<double>::infinity()));
    });
  }
}

void BlockGraphEmitter::emitAccumulate(Operation *op, Value iteration) {
  OpBuilder &b = kb->b;
  Location loc = kb->loc;
  OpKind kind = cast<SemanticsOpInterface>(op).getOpKind();
  SmemTile acc = getTile(op->getResult(0));
  SmemTile input = getTile(op->getOperand(0));
  ArrayRef<int64_t> shape = input.layout.shape;
  switch (getOpInfo(kind).accumulation) {
  case Accumulation::Sum:
  case Accumulation::Max:
    if (acc.layout.hasContiguousRuns(kVectorWidth) &&
        input.layout.hasContiguousRuns(kVectorWidth)) {
      Shape runs(shape);
      runs.back() /= kVectorWidth;
      kb->forEachStrided(getNumElements(runs), [&](Value run) {
        SmallVector<Value> indices = kb->delinearize(run, runs);
        indices.back() = kb->mul(indices.back(), kVectorWidth);
        kb->storeVectorF32(
            acc, indices,
            emitCombine(b, loc, kind,
                        kb->loadVectorF32(acc, indices, kVectorWidth),
                        kb->loadVectorF32(input, indices, kVectorWidth)));
      });
      return;
    }
    kb->forEachStrided(input.layout.getNumElements(), [&](Value linear) {
      SmallVector<Value> indices = kb->delinearize(linear, shape);
      kb->storeF32(acc, indices,
                   emitCombine(b, loc, kind, kb->loadF32(acc, indices),
                               kb->loadF32(input, indices)));
    });
    return;
  case Accumulation::Concat: {
    int64_t dim = cast<tb::AccumConcatOp>(op).getDim();
    kb->forEachStrided(input.layout.getNumElements(), [&](Value linear) {
      SmallVector<Value> indices = kb->delinearize(linear, shape);
      SmallVector<Value> target(indices);
      target[dim] = kb->add(target[dim], kb->mul(iteration, shape[dim]));
      kb->storeF32(acc, target, kb->loadF32(input, indices));
    });
    return;
  }
  case Accumulation::RescaledSum: {
    // acc = acc * e^(M - M') + x * e^(m - M') with M' = max(M, m), then
    // M = M'. The running maximum M changes only after every element used it.
    SmemTile localMax = getTile(op->getOperand(1));
    SmemTile runningMax = getRunningMax(op);
    ArrayRef<int64_t> maxShape = runningMax.layout.shape;
    // With the maximum constant along the last dim, a run of elements shares
    // its two scale factors.
    int64_t width = maxShape.back() == 1 &&
                            acc.layout.hasContiguousRuns(kVectorWidth) &&
                            input.layout.hasContiguousRuns(kVectorWidth)
                        ? kVectorWidth
                        : 1;
    Shape runs(shape);
    runs.back() /= width;
    kb->forEachStrided(getNumElements(runs), [&](Value run) {
      SmallVector<Value> indices = kb->delinearize(run, runs);
      indices.back() = kb->mul(indices.back(), width);
      SmallVector<Value> maxIndices;
      size_t skip = shape.size() - maxShape.size();
      for (auto [d, size] : llvm::enumerate(maxShape))
        maxIndices.push_back(size == 1 ? kb->index(0) : indices[d + skip]);
      Value m = kb->loadF32(localMax, maxIndices);
      Value running = kb->loadF32(runningMax, maxIndices);
      Value next = arith::MaximumFOp::create(b, loc, running, m);
      auto splat = [&](Value factor) -> Value {
        if (width == 1)
          return factor;
        return vector::BroadcastOp::create(
            b, loc, VectorType::get({width}, b.getF32Type()), factor);
      };
      auto load = [&](const SmemTile &tile) {
        return width > 1 ? kb->loadVectorF32(tile, indices, width)
                         : kb->loadF32(tile, indices);
      };
      Value keep = splat(emitKeepFactor(b, loc, running, next));
      Value scale =
          splat(emitExp(b, loc, arith::SubFOp::create(b, loc, m, next)));
      Value kept = arith::MulFOp::create(b, loc, load(acc), keep);
      Value added = arith::MulFOp::create(b, loc, load(input), scale);
      Value sum = arith::AddFOp::create(b, loc, kept, added);
      if (width > 1)
        kb->storeVectorF32(acc, indices, sum);
      else
        kb->storeF32(acc, indices, sum);
    });
    kb->barrier();
    kb->forEachStrided(getNumElements(maxShape), [&](Value linear) {
      SmallVector<Value> indices = kb->delinearize(linear, maxShape);
      kb->storeF32(runningMax, indices,
                   arith::MaximumFOp::create(b, loc,
                                             kb->loadF32(runningMax, indices),
                                             kb->loadF32(localMax, indices)));
    });
    return;
  }
  case Accumulation::None:
    llvm_unreachable("the plan sends only accumulators here");
  }
}

//===----------------------------------------------------------------------===//
// Steps
//===----------------------------------------------------------------------===//

ElementExpr BlockGraphEmitter::buildExpr(Value value) {
  Operation *def = value.getDefiningOp();
  if (auto concat = dyn_cast_or_null<tb::ConcatOp>(def);
      concat && plan.isView(concat)) {
    // Each element from the part that holds it (evaluateAt).
    ElementExpr node;
    node.kind = OpKind::Concat;
    node.params.dim = static_cast<int64_t>(concat.getDim());
    node.shape.assign(concat.getType().getShape());
    for (Value operand : concat->getOperands()) {
      node.operands.push_back(buildExpr(operand));
      node.params.ints.push_back(
          cast<tb::TileType>(operand.getType()).getShape()[node.params.dim]);
    }
    return node;
  }
  if (def && plan.isView(def)) {
    // The operand's leaf, indexed through this split piece or reshape.
    ElementExpr leaf = buildExpr(def->getOperand(0));
    SmallVector<int64_t> fromDim, offset;
    BlockGraphPlan::getViewMap(def, cast<OpResult>(value).getResultNumber(),
                               fromDim, offset);
    TileView inner =
        leaf.view ? *leaf.view
                  : TileView::identity(leaf.tile ? leaf.tile->layout.shape
                                                 : leaf.global->shape);
    leaf.view = inner.compose(cast<tb::TileType>(value.getType()).getShape(),
                              fromDim, offset);
    return leaf;
  }
  if (def && plan.isInlined(def))
    return buildExpr(def);
  ElementExpr leaf;
  if (auto iterator = dyn_cast_or_null<tb::InputIteratorOp>(def);
      iterator && plan.isReadFromGlobal(iterator)) {
    leaf.global = GlobalTile{globals.lookup(iterator.getInput()),
                             getInputOffsets(iterator, Value()),
                             Shape(iterator.getType().getShape())};
    return leaf;
  }
  // A matmul result stored through an epilogue has no tile; that leaf is
  // only evaluated on the accumulator's value (evaluateOnValue).
  leaf.tile = plan.hasTile(value) ? getTile(value) : SmemTile();
  return leaf;
}

ElementExpr BlockGraphEmitter::buildExpr(Operation *op) {
  auto semantics = cast<SemanticsOpInterface>(op);
  ElementExpr node;
  node.kind = semantics.getOpKind();
  node.params = semantics.getOpParams();
  for (Value operand : op->getOperands())
    node.operands.push_back(buildExpr(operand));
  return node;
}

LogicalResult BlockGraphEmitter::emitStep(const Step &step, Value iteration,
                                          SmallVectorImpl<Value> &registerAcc) {
  Operation *op = step.op;
  if (op->hasTrait<mirage::OpTrait::IsAccumulator>()) {
    emitAccumulate(op, iteration);
    return success();
  }
  if (auto saver = dyn_cast<tb::OutputSaverOp>(op)) {
    Value input = saver.getInput();
    SmallVector<GlobalTile> parts = getSaverOutputs(saver);
    if (!plan.hasTile(input)) {
      // The elementwise expression it saves is computed here.
      emitElementwise(*kb, buildExpr(input),
                      saver.getInput().getType().getShape(),
                      TileSinks{std::nullopt, parts});
      return success();
    }
    for (const GlobalTile &part : parts)
      emitTileStore(getTile(input), part.memref, part.offsets);
    return success();
  }
  std::optional<SmemTile> scratch;
  if (auto slot = plan.getReductionScratch(op))
    scratch =
        createView(kb->index(slot->first),
                   TileLayout{Shape{slot->second / 4}, kb->b.getF32Type()});
  if (isa<tb::ReduceSumOp, tb::ReduceMaxOp>(op)) {
    // Its operand may be an elementwise chain computed inside it.
    auto semantics = cast<SemanticsOpInterface>(op);
    Value input = op->getOperand(0);
    emitReduce(*kb, semantics.getOpKind(), semantics.getOpParams(),
               buildExpr(input), cast<tb::TileType>(input.getType()).getShape(),
               getTile(op->getResult(0)), scratch);
    return success();
  }
  auto semantics = dyn_cast<SemanticsOpInterface>(op);
  if (semantics && getOpInfo(semantics.getOpKind()).elementwise) {
    // Its operands may be computed inside it or read from global memory.
    emitElementwise(*kb, buildExpr(op),
                    cast<tb::TileType>(op->getResult(0).getType()).getShape(),
                    getSinks(op));
    return success();
  }
  SmallVector<SmemTile> operands, results;
  for (Value operand : op->getOperands())
    operands.push_back(getOperandTile(operand));
  if (isa<tb::RmsNormOp>(op)) {
    emitRmsNorm(*kb, semantics.getOpParams(), operands, getSinks(op), scratch);
    return success();
  }
  if (const RegisterChain *chain = plan.getRegisterChain(op)) {
    emitRegisterChain(*chain, operands, registerAcc);
    return success();
  }
  if (const MmaMatmul *mma = plan.getMma(op)) {
    if (const RegisterSum *sum = plan.getRegisterSum(op)) {
      int64_t first = getRegisterSumStart(op);
      ArrayRef<Value> state = ArrayRef<Value>(registerAcc).slice(
          first, mma->getStateSize(*kb, sum->isRescaled()));
      SmallVector<Value> updated =
          sum->isRescaled()
              ? mma->accumulateRescaled(
                    *kb, operands[0], operands[1],
                    getTile(sum->accumulator->getOperand(1)), state)
              : mma->accumulate(*kb, operands[0], operands[1], state);
      llvm::copy(updated, registerAcc.begin() + first);
      return success();
    }
    if (!step.epilogue) {
      mma->multiplyAndStore(*kb, operands[0], operands[1],
                            getTile(op->getResult(0)));
      return success();
    }
    ElementExpr epilogue = buildExpr(step.epilogue);
    mma->multiplyAndStore(
        *kb, operands[0], operands[1], getTile(step.epilogue->getResult(0)),
        [&](Value value) { return evaluateOnValue(*kb, epilogue, value); });
    return success();
  }
  for (Value result : op->getResults())
    results.push_back(getTile(result));
  if (isa<th::GraphOp>(op))
    return emitThreadGraph(*kb, op, operands, results);
  if (!semantics)
    return op->emitOpError() << "has no code generation";
  return emitTileOp(*kb, op, semantics.getOpKind(), semantics.getOpParams(),
                    operands, results);
}

SmemTile BlockGraphEmitter::getOperandTile(Value operand) {
  SmemTile tile = getTile(plan.getStoredOperand(operand));
  if (plan.isReadAsView(operand))
    tile.layout.shape.assign(cast<tb::TileType>(operand.getType()).getShape());
  return tile;
}

int64_t BlockGraphEmitter::getRegisterSumStart(Operation *matmul) const {
  int64_t first = 0;
  for (const RegisterSum &sum : plan.getRegisterSums()) {
    if (sum.matmul == matmul)
      break;
    first += plan.getMma(sum.matmul)->getStateSize(*kb, sum.isRescaled());
  }
  return first;
}

int64_t BlockGraphEmitter::getRegisterSumsSize() const {
  return getRegisterSumStart(/*matmul=*/nullptr);
}

int64_t
BlockGraphEmitter::getRowSumRegisters(const RegisterChain &chain) const {
  const MmaMatmul &scores = *plan.getMma(chain.matmul);
  return 2 * scores.getStateSize(*kb, false) / scores.getTilesPerJob();
}

int64_t BlockGraphEmitter::getRowSumsStart(const RegisterChain &chain) const {
  int64_t first = getRegisterSumsSize();
  for (const RegisterChain &other : plan.getRegisterChains()) {
    if (&other == &chain)
      break;
    first += getRowSumsSize(other);
  }
  return first;
}

void BlockGraphEmitter::emitRegisterChain(const RegisterChain &chain,
                                          ArrayRef<SmemTile> operands,
                                          SmallVectorImpl<Value> &registerAcc) {
  OpBuilder &b = kb->b;
  Location loc = kb->loc;
  const MmaMatmul &scores = *plan.getMma(chain.matmul);
  // The scores, through the epilogue, rounded to the held value's type as
  // its tile would store them.
  SmallVector<Value> held = scores.accumulate(
      *kb, operands[0], operands[1], scores.createInitialState(*kb, false));
  Type type = cast<tb::TileType>(chain.getValue().getType()).getElementType();
  std::optional<ElementExpr> epilogue;
  if (chain.epilogue)
    epilogue = buildExpr(chain.epilogue);
  for (Value &fragment : held) {
    for (int64_t half = 0; half < 2; ++half) {
      for (int64_t c = 0; c < 2; ++c) {
        Value value = vector::ExtractOp::create(b, loc, fragment,
                                                ArrayRef<int64_t>{half, c});
        if (epilogue)
          value = evaluateOnValue(*kb, *epilogue, value);
        value = kb->convert(kb->convert(value, type), b.getF32Type());
        fragment = vector::InsertOp::create(b, loc, value, fragment,
                                            ArrayRef<int64_t>{half, c});
      }
    }
  }
  // Each row reduction over this thread's values of a row, then over the
  // four lanes that hold the row's other columns; rounded to its result's
  // type and added to its register row sum.
  int64_t tiles = scores.getTilesPerJob();
  MutableArrayRef<Value> state =
      MutableArrayRef<Value>(registerAcc)
          .slice(getRowSumsStart(chain), getRowSumsSize(chain));
  int64_t perRowSum = getRowSumRegisters(chain);
  for (size_t index = 0; index < chain.rowSums.size(); ++index) {
    Operation *reduction = chain.rowSums[index].first;
    OpKind reduceKind = cast<SemanticsOpInterface>(reduction).getOpKind();
    OpKind accumulateKind =
        cast<SemanticsOpInterface>(chain.rowSums[index].second).getOpKind();
    Type resultType =
        cast<tb::TileType>(reduction->getResult(0).getType()).getElementType();
    scores.forEachHeldRow(*kb, [&](int64_t job, int64_t half, ValueRange,
                                   Value) {
      Value partial;
      for (int64_t t = 0; t < tiles; ++t) {
        for (int64_t c = 0; c < 2; ++c) {
          Value value = vector::ExtractOp::create(b, loc, held[job * tiles + t],
                                                  ArrayRef<int64_t>{half, c});
          partial =
              partial ? emitCombine(b, loc, reduceKind, partial, value) : value;
        }
      }
      Value total = kb->warpReduce(partial, reduceKind, /*lanes=*/4);
      total = kb->convert(kb->convert(total, resultType), b.getF32Type());
      Value &sum = state[index * perRowSum + 2 * job + half];
      sum = emitCombine(b, loc, accumulateKind, sum, total);
    });
  }
  // The consumer reads the held value as its left operand.
  Operation *consumer = chain.consumer;
  const MmaMatmul &products = *plan.getMma(consumer);
  int64_t first = getRegisterSumStart(consumer);
  MutableArrayRef<Value> sums =
      MutableArrayRef<Value>(registerAcc)
          .slice(first, products.getStateSize(*kb, false));
  SmallVector<Value> updated = products.accumulateFromRegisters(
      *kb, held, type, getOperandTile(consumer->getOperand(1)), sums);
  llvm::copy(updated, sums.begin());
}

void BlockGraphEmitter::storeRowSums(ArrayRef<Value> registerAcc) {
  OpBuilder &b = kb->b;
  for (const RegisterChain &chain : plan.getRegisterChains()) {
    if (chain.rowSums.empty())
      continue;
    ArrayRef<Value> state =
        registerAcc.slice(getRowSumsStart(chain), getRowSumsSize(chain));
    int64_t perRowSum = getRowSumRegisters(chain);
    // The first lane of the four that hold a row stores it.
    Value first =
        b.createOrFold<arith::CmpIOp>(kb->loc, arith::CmpIPredicate::eq,
                                      kb->rem(kb->laneId, 4), kb->index(0));
    for (size_t index = 0; index < chain.rowSums.size(); ++index) {
      SmemTile tile = getTile(chain.rowSums[index].second->getResult(0));
      plan.getMma(chain.matmul)
          ->forEachHeldRow(
              *kb, [&](int64_t job, int64_t half, ValueRange batch, Value row) {
                auto ifOp = scf::IfOp::create(b, kb->loc, first);
                OpBuilder::InsertionGuard guard(b);
                b.setInsertionPointToStart(ifOp.thenBlock());
                SmallVector<Value> indices(batch);
                indices.append({row, kb->index(0)});
                kb->storeF32(tile, indices,
                             state[index * perRowSum + 2 * job + half]);
              });
    }
  }
}

LogicalResult BlockGraphEmitter::emitLevels(ArrayRef<SmallVector<Step>> levels,
                                            Value iteration,
                                            SmallVectorImpl<Value> &registerAcc) {
  for (ArrayRef<Step> level : levels) {
    for (const Step &step : level)
      if (failed(emitStep(step, iteration, registerAcc)))
        return failure();
    // The next level reads what this one wrote, or reuses the shared memory
    // it read.
    kb->barrier();
  }
  return success();
}

//===----------------------------------------------------------------------===//
// The kernel body
//===----------------------------------------------------------------------===//

bool BlockGraphEmitter::isCopiedInPrologue(const BlockGraphPlan &plan,
                                           tb::InputIteratorOp iterator) {
  if (!plan.getOptions().asyncCopy || plan.usesTma() ||
      !plan.hasTile(iterator.getResult()) ||
      !copiesByChunks(plan.getLayout(iterator.getResult()),
                      iterator.getInput().getType().getShape()))
    return false;
  if (plan.isPipelined(iterator))
    return plan.getStages() > 1;
  return !plan.isReadFromGlobal(iterator);
}

void BlockGraphEmitter::bindArguments(OpBuilder &b, Block &entry,
                                      bool taskBody) {
  tb::GraphOp graph = plan.getGraph();
  Location loc = graph.getLoc();
  kb.emplace(b, loc, static_cast<int64_t>(graph.getThreads()),
             taskBody ? Value(entry.getArgument(0)) : Value());
  kb->asyncProxyReadsShared = plan.usesWgmma();
  auto workgroup = gpu::AddressSpaceAttr::get(
      b.getContext(), gpu::GPUDialect::getWorkgroupAddressSpace());
  auto bytesType = MemRefType::get({ShapedType::kDynamic}, b.getI8Type(),
                                   MemRefLayoutAttrInterface(), workgroup);
  sharedMemory = gpu::DynamicSharedMemoryOp::create(b, loc, bytesType);
  const Options &options = plan.getOptions();
  if (taskBody && options.taskSharedBase)
    sharedMemory = memref::ViewOp::create(
        b, loc, bytesType, sharedMemory, kb->index(options.taskSharedBase),
        ValueRange{kb->index(plan.getSharedMemoryBytes())});
  if (taskBody && options.taskBarrierThreads)
    kb->barrierThreads = options.taskBarrierThreads;
  static constexpr gpu::Dimension dims[] = {
      gpu::Dimension::x, gpu::Dimension::y, gpu::Dimension::z};
  size_t gridRank = graph.getGrid().size();
  for (size_t g = 0; g < gridRank; ++g)
    blockIds.push_back(taskBody ? Value(entry.getArgument(1 + g))
                                : gpu::BlockIdOp::create(b, loc, dims[g]));
  auto buffers = entry.getArguments().drop_front(taskBody ? 1 + gridRank : 0);
  if (plan.usesTma())
    llvm::append_range(
        tensorMaps, entry.getArguments().take_back(plan.getPipelined().size()));

  Block &body = graph.getBodyBlock();
  for (auto [arg, global] : llvm::zip(body.getArguments(), buffers))
    globals[arg] = global;
  // A saver yielded at several positions writes each of those outputs.
  auto yield = cast<tb::YieldOp>(body.getTerminator());
  for (auto [value, global] : llvm::zip(
           yield.getOperands(), buffers.drop_front(body.getNumArguments())))
    outputs[value].push_back(global);
  // The other parts of concatenation views follow the outputs.
  auto parts =
      buffers.drop_front(body.getNumArguments() + yield.getNumOperands());
  for (const ConcatInput &concat : plan.getConcats()) {
    Value arg = body.getArgument(concat.input);
    SmallVector<Value> &list = concatParts[arg];
    list.push_back(globals.lookup(arg));
    for (size_t part = 1; part < concat.starts.size(); ++part) {
      list.push_back(parts.front());
      parts = parts.drop_front();
    }
  }

  // Views of every tile at a fixed offset; pipelined ones get per-stage
  // views in the loop.
  for (Operation &op : body.without_terminator())
    for (Value result : op.getResults())
      if (plan.hasTile(result) && !plan.isPipelined(&op))
        tiles[result] = createView(kb->index(plan.getOffset(result)),
                                   plan.getLayout(result));
}

bool BlockGraphEmitter::emitInvariantLoads(bool ofPreloaded) {
  bool any = false;
  for (tb::InputIteratorOp iterator : plan.getInvariant()) {
    if (plan.isReadFromGlobal(iterator) || isPreloaded(iterator) != ofPreloaded)
      continue;
    emitTileLoad(iterator, getInputOffsets(iterator, Value()),
                 getTile(iterator.getResult()), plan.getOptions().asyncCopy);
    any = true;
  }
  return any;
}

void BlockGraphEmitter::emitPreloadCopies() {
  OpBuilder &b = kb->b;
  Location loc = kb->loc;
  // Group 0 also holds the invariant tiles, awaited with it (or, without
  // prologue stages, by the body's first wait for all groups).
  emitInvariantLoads(/*ofPreloaded=*/true);
  if (plan.getPipelined().empty() || plan.getStages() == 1) {
    NVVM::CpAsyncCommitGroupOp::create(b, loc);
    return;
  }
  // Every group precedes the body's prologue groups, so the loop's waits
  // still complete each stage's copies (file comment).
  for (int64_t s = 0; s < getPreloadedStages(); ++s) {
    emitPipelinedLoads(kb->index(s), [&](tb::InputIteratorOp iterator) {
      return isPreloaded(iterator);
    });
    NVVM::CpAsyncCommitGroupOp::create(b, loc);
  }
}

void BlockGraphEmitter::emitPreload(Block &entry) {
  OpBuilder b = OpBuilder::atBlockBegin(&entry);
  bindArguments(b, entry, /*taskBody=*/true);
  emitPreloadCopies();
}

LogicalResult BlockGraphEmitter::emit(Block &entry, bool taskBody) {
  OpBuilder b = OpBuilder::atBlockBegin(&entry);
  bindArguments(b, entry, taskBody);
  Location loc = kb->loc;
  if (!taskBody && plan.getOptions().dependentLaunch) {
    // Programmatic dependent launch: what no kernel writes is copied while
    // the kernels this one depends on finish; then wait for them before
    // reading anything else, and let the next kernel launch (its blocks
    // wait the same way). Launching it at the start instead made the decode
    // layer slower on an H200 (133 against 118 us): its blocks took the
    // SMs and shared memory this kernel's blocks still needed.
    if (!preloaded.empty())
      emitPreloadCopies();
    NVVM::GriddepcontrolOp::create(b, loc, NVVM::GridDepActionKind::wait);
    NVVM::GriddepcontrolOp::create(b, loc,
                                   NVVM::GridDepActionKind::launch_dependents);
  }

  bool tma = plan.usesTma();
  bool warpSpecialized = plan.isWarpSpecialized();
  if (warpSpecialized) {
    emitTmaInit();
    // Every thread sees the initialized mbarriers before the roles split.
    gpu::BarrierOp::create(b, loc);
    emitProducer();
  }

  // Prologue.
  bool async = plan.getOptions().asyncCopy;
  int64_t stages = plan.getStages(), iterations = plan.getIterations();
  for (Operation *op : plan.getAccumulators())
    emitAccumulatorInit(op);
  // The preloaded tiles' copies are pending like the prologue's own.
  bool tileLoads =
      emitInvariantLoads(/*ofPreloaded=*/false) ||
      llvm::any_of(plan.getInvariant(), [&](tb::InputIteratorOp iterator) {
        return isPreloaded(iterator);
      });
  bool asyncPipeline = async && !plan.getPipelined().empty() && !tma;
  // Each step's wgmma group may stay in flight into the next step; the
  // copies then run one stage less ahead (keepsWgmmaInFlight).
  bool wgmmaInFlight = plan.keepsWgmmaInFlight();
  int64_t ahead = plan.getStagesAhead();
  if (tma && !warpSpecialized)
    emitTmaInit();
  if (asyncPipeline) {
    int64_t preloadedStages = getPreloadedStages();
    for (int64_t s = 0; s < ahead; ++s) {
      emitPipelinedLoads(kb->index(s), [&](tb::InputIteratorOp iterator) {
        return !isPreloaded(iterator) || s >= preloadedStages;
      });
      NVVM::CpAsyncCommitGroupOp::create(b, loc);
    }
  } else if (async && tileLoads) {
    NVVM::CpAsyncCommitGroupOp::create(b, loc);
    NVVM::CpAsyncWaitGroupOp::create(b, loc, b.getI32IntegerAttr(0));
  }
  // Before the first level reads what the prologue wrote.
  if (tileLoads || (tma && !warpSpecialized) || asyncPipeline ||
      !plan.getAccumulators().empty())
    kb->barrier();
  if (tma && !warpSpecialized)
    for (int64_t s = 0; s + 1 < stages; ++s)
      emitTmaLoads(kb->index(s));

  SmallVector<Value> registerAcc;
  for (const RegisterSum &sum : plan.getRegisterSums())
    llvm::append_range(registerAcc, plan.getMma(sum.matmul)->createInitialState(
                                        *kb, sum.isRescaled()));
  for (const RegisterChain &chain : plan.getRegisterChains()) {
    for (Operation *accumulator : llvm::make_second_range(chain.rowSums)) {
      OpKind kind = cast<SemanticsOpInterface>(accumulator).getOpKind();
      registerAcc.append(getRowSumRegisters(chain),
                         kb->f32(getCombineIdentity(kind)));
    }
  }

  // The loop.
  auto loop = scf::ForOp::create(b, loc, kb->index(0), kb->index(iterations),
                                 kb->index(1), registerAcc);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value iteration = loop.getInductionVar();
    registerAcc.assign(loop.getRegionIterArgs().begin(),
                       loop.getRegionIterArgs().end());
    if (tma) {
      // The copy engine writes what the mbarrier wait makes visible: no
      // block barrier is needed before the tiles are read.
      if (!warpSpecialized) {
        Value request = kb->add(iteration, stages - 1);
        auto ifOp =
            scf::IfOp::create(b, loc, kb->lessThan(request, iterations));
        OpBuilder::InsertionGuard inner(b);
        b.setInsertionPointToStart(ifOp.thenBlock());
        emitTmaLoads(request);
      }
      emitTmaWait(iteration);
    } else if (asyncPipeline) {
      // Request the tiles of iteration + ahead, then wait until at most
      // `ahead` groups are pending: this iteration's group is complete.
      Value request = kb->add(iteration, ahead);
      auto ifOp =
          scf::IfOp::create(b, loc, kb->lessThan(request, iterations));
      {
        OpBuilder::InsertionGuard inner(b);
        b.setInsertionPointToStart(ifOp.thenBlock());
        emitPipelinedLoads(request);
      }
      NVVM::CpAsyncCommitGroupOp::create(b, loc);
      NVVM::CpAsyncWaitGroupOp::create(b, loc, b.getI32IntegerAttr(ahead));
      kb->barrier();
    } else if (!plan.getPipelined().empty()) {
      emitPipelinedLoads(iteration);
      kb->barrier();
    }
    for (tb::InputIteratorOp iterator : plan.getPipelined())
      tiles[iterator.getResult()] = getStageTile(iterator, iteration);
    // The last level's barrier also frees this iteration's stage for the
    // next request (with wgmma in flight, the previous iteration's: its
    // group completed before this iteration's wait returned).
    kb->wgmmaGroupsInFlight = wgmmaInFlight ? 1 : 0;
    if (failed(emitLevels(plan.getLoopLevels(), iteration, registerAcc)))
      return failure();
    kb->wgmmaGroupsInFlight = 0;
    if (plan.getLoopLevels().empty() && !plan.getPipelined().empty())
      kb->barrier();
    if (warpSpecialized)
      emitStageRelease(iteration, /*previous=*/wgmmaInFlight);
    // Without iteration arguments the builder added the terminator.
    if (!registerAcc.empty())
      scf::YieldOp::create(b, loc, registerAcc);
  }

  // Epilogue.
  SmallVector<Value> sums(loop.getResults());
  if (wgmmaInFlight)
    sums = MmaMatmul::waitForWgmma(*kb, sums);
  int64_t first = 0;
  for (const RegisterSum &sum : plan.getRegisterSums()) {
    const MmaMatmul *mma = plan.getMma(sum.matmul);
    int64_t count = mma->getStateSize(*kb, sum.isRescaled());
    mma->store(*kb, ArrayRef<Value>(sums).slice(first, count),
               sum.isRescaled(), getTile(sum.accumulator->getResult(0)));
    first += count;
  }
  storeRowSums(sums);
  if (!plan.getRegisterSums().empty())
    kb->barrier();
  SmallVector<Value> noRegisters;
  return emitLevels(plan.getPostLoopLevels(), Value(), noRegisters);
}

/// The inputs of `readOnly` (graph argument numbers) that `plan` copies
/// with cp.async in its prologue: those a preload can copy early.
static SmallVector<unsigned> getPreloaded(const BlockGraphPlan &plan,
                                          ArrayRef<unsigned> readOnly) {
  SmallVector<unsigned> preloaded;
  for (unsigned input : readOnly)
    if (llvm::any_of(
            plan.getGraph().getBodyBlock().getArgument(input).getUsers(),
            [&](Operation *user) {
              auto iterator = dyn_cast<tb::InputIteratorOp>(user);
              return iterator &&
                     BlockGraphEmitter::isCopiedInPrologue(plan, iterator);
            }))
      preloaded.push_back(input);
  return preloaded;
}

FailureOr<LoweredKernel>
codegen::lowerBlockGraph(tb::GraphOp graph, gpu::GPUFuncOp func,
                         const Options &options, ArrayRef<unsigned> readOnly,
                         ArrayRef<ConcatInput> concats) {
  BlockGraphPlan plan(graph, options, concats);
  if (failed(plan.build()))
    return failure();
  LoweredKernel lowered;
  lowered.sharedBytes = plan.getSharedMemoryBytes();
  lowered.blockThreads = plan.getBlockThreads();
  lowered.residentBlocks = plan.getResidentBlocks();
  if (plan.usesTma()) {
    for (tb::InputIteratorOp iterator : plan.getPipelined()) {
      TensorMapUse use{cast<BlockArgument>(iterator.getInput()).getArgNumber(),
                       plan.getTensorMapType(iterator)};
      if (failed(func.insertArgument(func.getNumArguments(), use.type, {},
                                     iterator.getLoc())))
        return failure();
      lowered.tensorMaps.push_back(use);
    }
  }
  SmallVector<unsigned> preloaded;
  if (options.dependentLaunch && options.preload)
    preloaded = getPreloaded(plan, readOnly);
  if (failed(BlockGraphEmitter(plan, preloaded)
                 .emit(func.getBody().front(), /*taskBody=*/false)))
    return failure();
  return lowered;
}

FailureOr<LoweredBody> codegen::lowerBlockGraphBody(
    tb::GraphOp graph, Block &entry, const Options &options, Block *preload,
    ArrayRef<unsigned> readOnly, ArrayRef<ConcatInput> concats) {
  // A task body has no kernel arguments of its own to take tensor maps.
  Options bodyOptions = options;
  bodyOptions.tma = false;
  BlockGraphPlan plan(graph, bodyOptions, concats);
  if (failed(plan.build()))
    return failure();
  SmallVector<unsigned> preloaded;
  if (preload)
    preloaded = getPreloaded(plan, readOnly);
  if (failed(BlockGraphEmitter(plan, preloaded).emit(entry, /*taskBody=*/true)))
    return failure();
  if (!preloaded.empty())
    BlockGraphEmitter(plan, preloaded).emitPreload(*preload);
  return LoweredBody{plan.getSharedMemoryBytes(), !preloaded.empty()};
}
