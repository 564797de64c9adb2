//===- CostModel.cpp - Analytical cost of a µGraph ------------------------===//
//
// Predefined operators are costed as one kernel at full utilization:
// launch + max(load latency + bytes over DRAM, flops); graph-defined kernels by
// the speed model of mirage/CostModel (estimateKernelUs) on their block
// skeleton and schedule, the same model kn-fuse and the task graph rank with
// (docs/Search.md gives the formulas and how they compare with measured
// times).
//
//===----------------------------------------------------------------------===//

#include "mirage/Search/Search.h"

#include <cmath>

using namespace mirage;
using namespace mirage::search;
using llvm::ArrayRef;

namespace {

double getBytes(ArrayRef<int64_t> shape, unsigned elementBytes) {
  return static_cast<double>(getNumElements(shape)) * elementBytes;
}

/// What an operator must read and write at least once.
double getOperandAndResultBytes(const MuGraph &graph, const KernelOp &op,
                                unsigned elementBytes) {
  double bytes = 0;
  for (unsigned operand : op.operands)
    bytes += getBytes(graph.tensors[operand].shape, elementBytes);
  for (unsigned result : op.results)
    bytes += getBytes(graph.tensors[result].shape, elementBytes);
  return bytes;
}

double predefinedCost(const MuGraph &graph, const KernelOp &op,
                      unsigned elementBytes, const DeviceModel &device) {
  llvm::SmallVector<ArrayRef<int64_t>, 3> in;
  for (unsigned operand : op.operands)
    in.push_back(graph.tensors[operand].shape);
  const Shape &out = graph.tensors[op.results.front()].shape;
  double bytes = getOperandAndResultBytes(graph, op, elementBytes);
  // Every kernel waits at least for its first loads to arrive.
  return device.launchUs +
         std::max(
             device.loadLatencyUs + bytes / device.dramBytesPerUs,
             getFlops(op.kind, op.params, in, out, elementBytes).time(device));
}

/// A graph-defined kernel as the speed model sees it (mirage/CostModel).
double customCost(const MuGraph &graph, const KernelOp &op,
                  unsigned elementBytes, const DeviceModel &device) {
  const BlockSkeleton &skeleton = *op.skeleton;
  const Schedule &s = op.schedule;
  KernelProfile kernel;
  kernel.blocks = s.getNumBlocks();
  kernel.threads = s.threads;
  kernel.iterations = s.forloopRange;
  for (auto [index, node] : llvm::enumerate(skeleton.nodes)) {
    double bytes = getBytes(s.tiles[index], elementBytes);
    if (node.phase == Phase::Input) {
      bool once = s.fmaps[index] == kReplica || s.forloopRange == 1;
      (once ? kernel.onceBytes : kernel.loopBytes) += bytes;
      (once ? kernel.onceRows : kernel.loopRows) +=
          getTileRows(s.tiles[index], graph.tensors[op.operands[index]].shape);
      continue;
    }
    if (node.phase == Phase::Accum)
      continue;
    llvm::SmallVector<ArrayRef<int64_t>, 3> in;
    for (unsigned operand : node.operands)
      in.push_back(s.tiles[operand]);
    bool body = node.phase == Phase::Body;
    Flops flops =
        getFlops(node.kind, node.params, in, s.tiles[index], elementBytes);
    Flops &phase = body ? kernel.bodyFlops : kernel.postFlops;
    phase.tensor += flops.tensor;
    phase.simt += flops.simt;
    (body ? kernel.bodyLatencyUs : kernel.postLatencyUs) +=
        getTileOpLatencyUs(node.kind, node.params, in, s.tiles[index],
                           s.threads, elementBytes, device);
  }
  for (unsigned output : skeleton.outputs)
    kernel.outputBytes += getBytes(s.tiles[output], elementBytes);
  kernel.uniqueBytes = getOperandAndResultBytes(graph, op, elementBytes);
  kernel.sharedMemoryBytes = getSharedMemoryBytes(skeleton, s, elementBytes);
  return estimateKernelUs(kernel, device);
}

} // namespace

double search::estimateCost(const MuGraph &graph, unsigned elementBytes,
                            const DeviceModel &device) {
  double total = 0;
  for (const KernelOp &op : graph.ops)
    total += op.isCustom() ? customCost(graph, op, elementBytes, device)
                           : predefinedCost(graph, op, elementBytes, device);
  return total;
}

double search::estimateLowerBound(const MuGraph &graph, unsigned elementBytes,
                                  const DeviceModel &device) {
  // A graph-defined kernel costs at least a launch and one pass over its
  // operands and results, whatever its schedule.
  double total = 0;
  for (const KernelOp &op : graph.ops)
    total +=
        op.isCustom()
            ? device.launchUs +
                  std::max(device.loadLatencyUs,
                           getOperandAndResultBytes(graph, op, elementBytes) /
                               device.dramBytesPerUs)
            : predefinedCost(graph, op, elementBytes, device);
  return total;
}
