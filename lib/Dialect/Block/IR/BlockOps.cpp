//===- BlockOps.cpp - tb dialect ops --------------------------------------===//
//
// Part of the Mirage MLIR project.
//
//===----------------------------------------------------------------------===//

#include "mirage/Dialect/Block/IR/Block.h"

#include "mirage/IR/GraphUtils.h"
#include "mirage/IR/IsolatedRegion.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace mirage;
using namespace mirage::tb;

//===----------------------------------------------------------------------===//
// GraphOp
//===----------------------------------------------------------------------===//

TilingParams GraphOp::getTiling(ArrayRef<int64_t> gridMap, int64_t loopMap) {
  return TilingParams::get(TilingParams::Level::Block, getGrid(), gridMap,
                           static_cast<int64_t>(getForloopRange()), loopMap);
}

PeakMemory GraphOp::getLiveTileMemory() {
  return computePeakMemory(
      getBodyBlock(), [](Value value) -> std::optional<int64_t> {
        auto tile = dyn_cast<TileType>(value.getType());
        if (!tile)
          return std::nullopt;
        Operation *def = value.getDefiningOp();
        if (def && def->hasTrait<mirage::OpTrait::IsAccumulator>())
          return tile.getNumElements() * 4;
        return getByteSize(tile);
      });
}

BlockGraphMemory tb::getBlockGraphMemory(GraphOp graph) {
  if (auto *planner =
          graph->getDialect()->getRegisteredInterface<MemoryPlannerInterface>())
    if (std::optional<BlockGraphMemory> memory = planner->plan(graph))
      return *memory;
  PeakMemory live = graph.getLiveTileMemory();
  BlockGraphMemory memory;
  memory.sharedBytes = live.bytes;
  memory.largest.assign(live.liveAtPeak.begin(),
                        live.liveAtPeak.begin() +
                            std::min<size_t>(live.liveAtPeak.size(), 3));
  return memory;
}

int64_t GraphOp::getDeviceBytesPerBlock() {
  int64_t bytes = 0;
  int64_t iterations = static_cast<int64_t>(getForloopRange());
  for (Operation &op : getBodyBlock()) {
    if (auto iterator = dyn_cast<InputIteratorOp>(op)) {
      int64_t tile =
          getByteSize(cast<ShapedType>(iterator.getResult().getType()));
      bytes +=
          iterator.getFmap().getDim() == kReplica ? tile : tile * iterations;
    } else if (auto saver = dyn_cast<OutputSaverOp>(op)) {
      bytes += getByteSize(cast<ShapedType>(saver.getInput().getType()));
    }
  }
  return bytes;
}

LogicalResult GraphOp::verify() {
  ArrayRef<int64_t> grid = getGrid();
  if (grid.empty() || grid.size() > 3)
    return emitOpError() << "grid must have 1 to 3 dims, got " << grid.size();
  for (auto [index, size] : llvm::enumerate(grid))
    if (size <= 0)
      return emitOpError() << "grid dim " << gridDimName(index)
                           << " must be positive, got " << size;
  TargetAttr target = TargetAttr::lookup(*this);
  int64_t threads = static_cast<int64_t>(getThreads());
  if (threads <= 0 || threads > target.getMaxThreadsPerBlock())
    return emitOpError() << "threads per block must be in [1, "
                         << target.getMaxThreadsPerBlock() << "] on "
                         << target.getChip() << ", got " << threads;
  if (static_cast<int64_t>(getForloopRange()) <= 0)
    return emitOpError() << "forloop range must be positive, got "
                         << static_cast<int64_t>(getForloopRange());
  Block &body = getBodyBlock();
  for (auto [index, arg] : llvm::enumerate(body.getArguments())) {
    auto type = dyn_cast<RankedTensorType>(arg.getType());
    if (!type || !type.hasStaticShape() ||
        !isSupportedElementType(type.getElementType()))
      return emitOpError() << "input #" << index
                           << " must be a statically shaped f16, bf16 or f32 "
                              "tensor, got "
                           << arg.getType();
  }
  if (body.empty() || !isa<YieldOp>(body.back()))
    return emitOpError() << "body must end with 'tb.yield'";
  return success();
}

LogicalResult GraphOp::verifyRegions() {
  Block &body = getBodyBlock();
  Dialect *blockDialect = getOperation()->getDialect();
  for (Operation &op : body)
    if (op.getDialect() != blockDialect &&
        !isa<BlockGraphNodeOpInterface>(op))
      return op.emitOpError()
             << "is not allowed in a block graph: only tb ops and thread "
                "graphs (th.graph) may appear";

  if (failed(verifyLoopStructure(body, isLooped())))
    return failure();

  TargetAttr target = TargetAttr::lookup(*this);
  BlockGraphMemory memory = getBlockGraphMemory(*this);
  if (memory.sharedBytes > target.getSmemPerBlock()) {
    InFlightDiagnostic diag =
        emitOpError() << "needs " << memory.sharedBytes
                      << " bytes of shared memory for "
                      << (memory.planned
                              ? "its tiles as the lowering places them with "
                                "one pipeline stage"
                              : "the tiles live at its peak")
                      << ", more than the " << target.getSmemPerBlock()
                      << " bytes per block of " << target.getChip();
    // Point at the largest tiles, the first candidates to shrink.
    for (Operation *op : memory.largest)
      diag.attachNote(op->getLoc())
          << (memory.planned ? "one of the largest tiles is defined here"
                             : "a tile live at the peak is defined here");
    return diag;
  }
  if (memory.accumulatorRegisters > target.getRegsPerThread())
    return emitOpError() << "needs " << memory.accumulatorRegisters
                         << " registers per thread for its tensor-core "
                            "accumulators, more than the "
                         << target.getRegsPerThread() << " of "
                         << target.getChip();
  return success();
}

//===----------------------------------------------------------------------===//
// Ops whose result types are written: checked against their shape rule.
//===----------------------------------------------------------------------===//

LogicalResult InputIteratorOp::verify() { return verifyResultShapes(*this); }
LogicalResult OutputSaverOp::verify() { return verifyResultShapes(*this); }
LogicalResult AccumConcatOp::verify() { return verifyResultShapes(*this); }
LogicalResult ReshapeOp::verify() { return verifyResultShapes(*this); }

#define GET_OP_CLASSES
#include "mirage/Dialect/Block/IR/BlockOps.cpp.inc"
