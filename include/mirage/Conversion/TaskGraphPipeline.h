//===- TaskGraphPipeline.h - mirage-to-task-graph ---------------*- C++ -*-===//
//
// The task-graph compiler in one mirage-opt call: partitions for a
// persistent kernel, tasks and events, fusion, normalization,
// linearization, launch labels, a static schedule and its check.
//
//===----------------------------------------------------------------------===//

#ifndef MIRAGE_CONVERSION_TASKGRAPHPIPELINE_H
#define MIRAGE_CONVERSION_TASKGRAPHPIPELINE_H

#include "mlir/Pass/PassOptions.h"

namespace mlir {
class OpPassManager;
} // namespace mlir

namespace mirage {

struct MirageToTaskGraphOptions
    : public mlir::PassPipelineOptions<MirageToTaskGraphOptions> {
  Option<int64_t> workers{
      *this, "workers",
      llvm::cl::desc("Worker SMs of the persistent kernel (0: the SMs of the "
                     "target chip, tb.target; 132 on sm_90a)"),
      llvm::cl::init(0)};
  Option<std::string> device{
      *this, "device",
      llvm::cl::desc("Device whose rates the estimates use (h100, h200)"),
      llvm::cl::init("h100")};
  Option<bool> foldNorms{
      *this, "fold-norms",
      llvm::cl::desc("Fold RMSNorms over at most 128 columns read only by "
                     "matmuls into the products' kernels (kn-fuse "
                     "fold-norms; the sum of squares is then held in the "
                     "element type)"),
      llvm::cl::init(true)};
  Option<bool> pairwiseEvents{
      *this, "pairwise-events",
      llvm::cl::desc("Start from one event per producer/consumer pair"),
      llvm::cl::init(false)};
};

/// Adds the passes of mirage-to-task-graph to `pm` (a ModuleOp pass
/// manager).
void buildMirageToTaskGraphPipeline(mlir::OpPassManager &pm,
                                    const MirageToTaskGraphOptions &options);

/// Registers `mirage-to-task-graph` with the pass registry.
void registerMirageToTaskGraphPipeline();

} // namespace mirage

#endif // MIRAGE_CONVERSION_TASKGRAPHPIPELINE_H
