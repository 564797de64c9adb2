//===- ThreadOps.cpp - th dialect ops -------------------------------------===//
//
// Part of the Mirage MLIR project.
//
//===----------------------------------------------------------------------===//

#include "mirage/Dialect/Thread/IR/Thread.h"

#include "mirage/IR/GraphUtils.h"
#include "mirage/IR/IsolatedRegion.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mirage;
using namespace mirage::th;

TilingParams GraphOp::getTiling(ArrayRef<int64_t> gridMap, int64_t loopMap) {
  return TilingParams::get(TilingParams::Level::Thread, getThreads(), gridMap,
                           static_cast<int64_t>(getForloopRange()), loopMap);
}

PeakMemory GraphOp::getRegisterUse() {
  return computePeakMemory(
      getBodyBlock(), [](Value value) -> std::optional<int64_t> {
        if (auto frag = dyn_cast<FragType>(value.getType()))
          return frag.getNumElements() * 4;
        return std::nullopt;
      });
}

int64_t GraphOp::getRegisterBytesPerThread() { return getRegisterUse().bytes; }

LogicalResult GraphOp::verify() {
  ArrayRef<int64_t> threads = getThreads();
  if (threads.empty() || threads.size() > 3)
    return emitOpError() << "thread layout must have 1 to 3 dims, got "
                         << threads.size();
  int64_t total = 1;
  for (auto [index, size] : llvm::enumerate(threads)) {
    if (size <= 0)
      return emitOpError() << "thread dim " << gridDimName(index)
                           << " must be positive, got " << size;
    if (llvm::MulOverflow(total, size, total))
      return emitOpError() << "thread layout has more than 2^63 - 1 threads";
  }
  auto block = cast<tb::GraphOp>(getOperation()->getParentOp());
  int64_t available = static_cast<int64_t>(block.getThreads());
  if (total > available)
    return emitOpError() << "thread layout uses " << total
                         << " threads but the block graph has " << available;
  if (static_cast<int64_t>(getForloopRange()) <= 0)
    return emitOpError() << "forloop range must be positive, got "
                         << static_cast<int64_t>(getForloopRange());
  Block &body = getBodyBlock();
  if (body.getArgumentTypes() != getInputs().getTypes())
    return emitOpError()
           << "entry block arguments must have the types of the operands";
  if (body.empty() || !isa<YieldOp>(body.back()))
    return emitOpError() << "body must end with 'th.yield'";
  if (body.back().getOperandTypes() != getResultTypes())
    return emitOpError() << "th.yield operand types must match the results";
  return success();
}

LogicalResult GraphOp::verifyRegions() {
  Dialect *threadDialect = getOperation()->getDialect();
  for (Operation &op : getBodyBlock())
    if (op.getDialect() != threadDialect)
      return op.emitOpError() << "is not allowed in a thread graph: only th "
                                 "ops may appear";
  if (failed(verifyLoopStructure(getBodyBlock(), isLooped())))
    return failure();
  tb::TargetAttr target = tb::TargetAttr::lookup(*this);
  int64_t bytes = getRegisterUse().bytes;
  int64_t limit = target.getRegsPerThread() * 4;
  if (bytes > limit)
    return emitOpError() << "needs " << bytes
                         << " bytes of registers per thread for the "
                            "fragments live at its peak, more than the "
                         << limit << " bytes (" << target.getRegsPerThread()
                         << " 32-bit registers) of " << target.getChip();
  return success();
}

LogicalResult InputIteratorOp::verify() { return verifyResultShapes(*this); }
LogicalResult OutputSaverOp::verify() { return verifyResultShapes(*this); }
LogicalResult AccumConcatOp::verify() { return verifyResultShapes(*this); }

#define GET_OP_CLASSES
#include "mirage/Dialect/Thread/IR/ThreadOps.cpp.inc"
