//===- TaskGraphIO.h - tg IR to and from the compact task graph -*- C++ -*-===//
//
// The passes work on taskgraph::TaskGraph (mirage/TaskGraph/TaskGraph.h);
// these functions read a `tg.graph` into one and write one back, and give
// each kernel's per-task estimate from the speed model.
//
//===----------------------------------------------------------------------===//

#ifndef MIRAGE_DIALECT_TASK_TRANSFORMS_TASKGRAPHIO_H
#define MIRAGE_DIALECT_TASK_TRANSFORMS_TASKGRAPHIO_H

#include "mirage/CostModel/CostModel.h"
#include "mirage/Dialect/Task/IR/Task.h"
#include "mirage/TaskGraph/TaskGraph.h"

namespace mirage::tb {
class GraphOp;
} // namespace mirage::tb

namespace mirage::tg {

/// A task graph read from IR, with the IR entities its indices stand for.
struct ImportedGraph {
  taskgraph::TaskGraph graph;
  /// Per buffer, its value (a tg.buffer or tg.view result).
  llvm::SmallVector<mlir::Value> buffers;
  /// Per kernel, its op.
  llvm::SmallVector<KernelOp> kernels;
};

/// Reads `op`. Kernel estimates come from `device` (see estimateTask).
ImportedGraph importGraph(GraphOp op, const DeviceModel &device);

/// Replaces the events, tasks and queues of `op` by those of `graph`
/// (whose buffers and kernels are `op`'s), marks it linearized when the
/// graph has event ranges and sets its worker count when it has queues.
void exportGraph(GraphOp op, const taskgraph::TaskGraph &graph);

/// The speed model's time for one block of `graph` as a task of a
/// persistent kernel: a task's fixed cost plus the larger of the block's
/// critical path (estimateKernel's, one block per worker, no launch) and
/// its round's share of the kernel's memory and arithmetic time; with the
/// features and the breakdown (of the whole kernel on the persistent
/// workers) it comes from.
struct TaskEstimate {
  double micros = 0;
  /// `micros` less the fixed cost: the body alone.
  double bodyMicros = 0;
  KernelProfile profile;
  KernelTimeBreakdown time;
};
TaskEstimate estimateTask(tb::GraphOp graph, const DeviceModel &device);

/// What an empty task costs: reading its description, waiting on and
/// signalling its events.
constexpr double kEmptyTaskMicros = 0.2;

/// The device model named `name`, with the SM count of the target in
/// effect at `op`; none for an unknown name.
std::optional<DeviceModel> findDeviceModel(mlir::Operation *op,
                                           llvm::StringRef name);

/// The device model named by a pass option, with the SM count of the
/// target in effect at `op`; an error naming the valid devices otherwise.
mlir::FailureOr<DeviceModel> getDeviceModel(mlir::Operation *op,
                                            llvm::StringRef name);

} // namespace mirage::tg

#endif // MIRAGE_DIALECT_TASK_TRANSFORMS_TASKGRAPHIO_H
