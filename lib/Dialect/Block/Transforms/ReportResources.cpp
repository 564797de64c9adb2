//===- ReportResources.cpp - Report what block graphs ask of the GPU ------===//
//
// Part of the Mirage MLIR project.
//
//===----------------------------------------------------------------------===//

#include "mirage/Dialect/Block/Transforms/Passes.h"

#include "mirage/Dialect/Block/IR/Block.h"
#include "mirage/IR/GraphUtils.h"
#include "llvm/Support/FormatVariadic.h"

namespace mirage::tb {
#define GEN_PASS_DEF_TBREPORTRESOURCES
#include "mirage/Dialect/Block/Transforms/Passes.h.inc"
} // namespace mirage::tb

using namespace mlir;
using namespace mirage;
using namespace mirage::tb;

namespace {

/// Counts the ops of a graph body by their role in the loop structure.
struct LoopCounts {
  int iterators = 0, loopBody = 0, accumulators = 0, postLoop = 0, savers = 0;
};

LoopCounts countLoopRoles(Block &body) {
  llvm::DenseSet<Operation *> postLoop = getPostLoopOps(body);
  LoopCounts counts;
  for (Operation &op : body) {
    if (op.hasTrait<mlir::OpTrait::IsTerminator>())
      continue;
    if (op.hasTrait<mirage::OpTrait::IsInputIterator>())
      ++counts.iterators;
    else if (op.hasTrait<mirage::OpTrait::IsAccumulator>())
      ++counts.accumulators;
    else if (op.hasTrait<mirage::OpTrait::IsOutputSaver>())
      ++counts.savers;
    else if (postLoop.contains(&op))
      ++counts.postLoop;
    else
      ++counts.loopBody;
  }
  return counts;
}

std::string plural(int count, StringRef noun) {
  return llvm::formatv("{0} {1}{2}", count, noun, count == 1 ? "" : "s");
}

struct ReportResources
    : public tb::impl::TbReportResourcesBase<ReportResources> {
  void runOnOperation() override {
    getOperation()->walk([](GraphOp graph) {
      TargetAttr target = TargetAttr::lookup(graph);
      int64_t blocks = getNumElements(graph.getGrid());
      BlockGraphMemory memory = getBlockGraphMemory(graph);
      int64_t smem = memory.sharedBytes;
      LoopCounts counts = countLoopRoles(graph.getBodyBlock());

      // Thread graphs: how many, and the largest register footprint.
      int threadGraphs = 0;
      int64_t registerBytes = 0;
      for (Operation &op : graph.getBodyBlock()) {
        if (auto node = dyn_cast<BlockGraphNodeOpInterface>(op)) {
          ++threadGraphs;
          registerBytes =
              std::max(registerBytes, node.getRegisterBytesPerThread());
        }
      }

      std::string grid;
      llvm::raw_string_ostream os(grid);
      os << '[';
      llvm::interleaveComma(graph.getGrid(), os);
      os << ']';
      InFlightDiagnostic remark = graph.emitRemark();
      remark << llvm::formatv(
          "block graph: grid {0} = {1} x {2} threads, forloop {3}; shared "
          "memory {4} / {5} bytes ({6:F1}%) on {7}",
          grid, plural(blocks, "block"), graph.getThreads(),
          graph.getForloopRange(), smem, target.getSmemPerBlock(),
          100.0 * smem / target.getSmemPerBlock(), target.getChip());
      if (memory.planned && graph.isLooped())
        remark << " with " << plural(memory.stages, "pipeline stage");
      if (memory.accumulatorRegisters)
        remark << "; " << memory.accumulatorRegisters
               << " registers per thread for tensor-core accumulators";
      remark << llvm::formatv("; {0}, {1}, {2}, {3}, {4}",
                              plural(counts.iterators, "input iterator"),
                              plural(counts.loopBody, "loop-body op"),
                              plural(counts.accumulators, "accumulator"),
                              plural(counts.postLoop, "post-loop op"),
                              plural(counts.savers, "output saver"));
      if (threadGraphs)
        remark << llvm::formatv("; {0}, peak {1} register bytes per thread",
                                plural(threadGraphs, "thread graph"),
                                registerBytes);
    });
    markAllAnalysesPreserved();
  }
};

} // namespace
