//===- CostModel.cpp - Analytical cost of a µGraph ------------------------===//
//
// A first-order model, enough to rank candidates before anything is
// compiled (docs/Search.md gives the formulas and how they compare with
// measured times):
//
//   kernel = launch + max(memory, compute, latency)
//   memory  = max(unique bytes / DRAM rate, bytes loaded by all blocks / L2
//             rate) / utilization
//   compute = tensor-core flops / tensor rate + other flops / SIMT rate,
//             over the utilization
//   latency = waves * one block's critical path
//
// where utilization = min(1, blocks / SMs) (a grid smaller than the chip
// cannot use all of its bandwidth) and waves counts how many rounds of
// resident blocks the grid needs (occupancy from shared memory and
// threads). A block's critical path follows the generated code: per loop
// iteration a fixed cost plus the larger of its tile loads and its
// operators run one after another (tensor-core matmuls at the SM's share of
// the chip's rate; SIMT matmuls, a thread per result element looping over
// k; other operators a round per `threads` elements), then the post-loop
// operators. Its constants were fitted to measured kernels on an H200
// (docs/Search.md). Predefined operators are costed as one kernel at full
// utilization without the latency term.
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
  return device.launchUs +
         std::max(bytes / device.dramBytesPerUs,
                  getFlops(op.kind, op.params, in, out, elementBytes)
                      .time(device));
}

/// Microseconds one block spends on a tile operator, as generated: tensor
/// cores at the SM's share of the chip's rate; a SIMT matmul with a thread
/// per result element looping over k; other operators a round of threads
/// per `threads` elements.
double getTileOpLatency(OpKind kind, const OpParams &params,
                        ArrayRef<ArrayRef<int64_t>> in, ArrayRef<int64_t> out,
                        int64_t threads, unsigned elementBytes,
                        const DeviceModel &device) {
  auto rounds = [&](int64_t elements) {
    return static_cast<double>((elements + threads - 1) / threads);
  };
  if (kind == OpKind::Matmul) {
    if (fitsTensorCoreTiles(in[0], in[1], elementBytes))
      return getFlops(kind, params, in, out, elementBytes).tensor /
             (device.tensorFlopsPerUs / device.sms);
    return rounds(getNumElements(out)) * in[0].back() * device.simtMacUs;
  }
  int64_t elements = getNumElements(out);
  for (ArrayRef<int64_t> operand : in)
    elements = std::max(elements, getNumElements(operand));
  return rounds(elements) * device.simtElementUs;
}

double customCost(const MuGraph &graph, const KernelOp &op,
                  unsigned elementBytes, const DeviceModel &device) {
  const BlockSkeleton &skeleton = *op.skeleton;
  const Schedule &s = op.schedule;
  double blocks = static_cast<double>(s.getNumBlocks());
  double iterations = static_cast<double>(s.forloopRange);

  double loopBytes = 0, onceBytes = 0, outputBytes = 0;
  double bodyLatency = 0, postLatency = 0;
  Flops body, post;
  for (auto [index, node] : llvm::enumerate(skeleton.nodes)) {
    double bytes = getBytes(s.tiles[index], elementBytes);
    if (node.phase == Phase::Input) {
      (s.fmaps[index] == kReplica && s.forloopRange > 1 ? onceBytes
                                                         : loopBytes) += bytes;
      continue;
    }
    if (node.phase == Phase::Accum)
      continue;
    llvm::SmallVector<ArrayRef<int64_t>, 3> in;
    for (unsigned operand : node.operands)
      in.push_back(s.tiles[operand]);
    Flops flops =
        getFlops(node.kind, node.params, in, s.tiles[index], elementBytes);
    Flops &phase = node.phase == Phase::Body ? body : post;
    phase.tensor += flops.tensor;
    phase.simt += flops.simt;
    (node.phase == Phase::Body ? bodyLatency : postLatency) +=
        getTileOpLatency(node.kind, node.params, in, s.tiles[index],
                         s.threads, elementBytes, device);
  }
  for (unsigned output : skeleton.outputs)
    outputBytes += getBytes(s.tiles[output], elementBytes);

  double unique = getOperandAndResultBytes(graph, op, elementBytes);
  double loaded = blocks * (iterations * loopBytes + onceBytes + outputBytes);

  double utilization = std::min(1.0, blocks / device.sms);
  double memory = std::max(unique / device.dramBytesPerUs,
                           loaded / device.l2BytesPerUs) /
                  utilization;
  double compute =
      blocks * (iterations * body.time(device) + post.time(device)) /
      utilization;

  double occupancy = std::min<double>(
      {static_cast<double>(device.maxBlocksPerSM),
       std::floor(device.smemPerSM /
                  std::max<double>(getSharedMemoryBytes(skeleton, s,
                                                        elementBytes),
                                   1.0)),
       std::floor(static_cast<double>(device.maxThreadsPerSM) / s.threads)});
  occupancy = std::max(occupancy, 1.0);
  double waves = std::ceil(blocks / (device.sms * occupancy));
  // One block's critical path: each iteration waits for its tiles (the
  // SM's share of L2 bandwidth, overlapped with the previous iteration's
  // work by the pipeline) and runs its operators one after another.
  double smL2BytesPerUs = device.l2BytesPerUs / device.sms;
  double iterationLatency =
      device.iterationUs +
      std::max(loopBytes / smL2BytesPerUs, bodyLatency);
  double blockLatency = onceBytes / smL2BytesPerUs +
                        iterations * iterationLatency + device.postLoopUs +
                        postLatency;
  double latency = waves * blockLatency;
  return device.launchUs + std::max({memory, compute, latency});
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
    total += op.isCustom()
                 ? device.launchUs +
                       getOperandAndResultBytes(graph, op, elementBytes) /
                           device.dramBytesPerUs
                 : predefinedCost(graph, op, elementBytes, device);
  return total;
}
