//===- CostModel.cpp - Devices and arithmetic as the GPU runs it ----------===//
//
// Part of the Mirage MLIR project. See CostModel.h.
//
//===----------------------------------------------------------------------===//

#include "mirage/CostModel/CostModel.h"

#include <algorithm>
#include <cmath>

using namespace mirage;
using llvm::ArrayRef;

std::optional<DeviceModel> DeviceModel::get(llvm::StringRef name) {
  DeviceModel model;
  model.name = name.str();
  if (name == "h100")
    return model;
  if (name == "h200") {
    model.dramBytesPerUs = 4.8e6;
    return model;
  }
  return std::nullopt;
}

ArrayRef<llvm::StringRef> DeviceModel::getNames() {
  static const llvm::StringRef kNames[] = {"h100", "h200"};
  return kNames;
}

namespace {
int64_t roundUp(int64_t value, int64_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}
} // namespace

Flops mirage::getFlops(OpKind kind, const OpParams &params,
                       ArrayRef<ArrayRef<int64_t>> in, ArrayRef<int64_t> out,
                       unsigned elementBytes) {
  OpWork work = getWork(kind, in, out, params);
  Flops flops;
  flops.simt = work.elementOps;
  if (work.multiplyAdds == 0)
    return flops;
  if (!fitsTensorCoreTiles(in[0], in[1], elementBytes)) {
    flops.simt += 2 * work.multiplyAdds;
    return flops;
  }
  auto padding = [](int64_t size, int64_t multiple) {
    return static_cast<double>(roundUp(size, multiple)) /
           static_cast<double>(size);
  };
  flops.tensor = 2 * work.multiplyAdds * padding(out[out.size() - 2], 16) *
                 padding(out.back(), 8) * padding(in[0].back(), 16);
  return flops;
}

double mirage::getTileRows(ArrayRef<int64_t> tile, ArrayRef<int64_t> tensor) {
  if (tile.empty())
    return 1;
  int64_t span = tile.back();
  if (tile.size() == tensor.size())
    for (size_t d = tile.size() - 1; d > 0 && tile[d] == tensor[d]; --d)
      span *= tile[d - 1];
  return static_cast<double>(getNumElements(tile)) /
         static_cast<double>(std::max<int64_t>(span, 1));
}

double mirage::getTileOpLatencyUs(OpKind kind, const OpParams &params,
                                  ArrayRef<ArrayRef<int64_t>> in,
                                  ArrayRef<int64_t> out, int64_t threads,
                                  unsigned elementBytes,
                                  const DeviceModel &device) {
  auto rounds = [&](int64_t elements) {
    return static_cast<double>((elements + threads - 1) / threads);
  };
  if (getWork(kind, in, out, params).multiplyAdds > 0 && in.size() == 2) {
    if (fitsTensorCoreTiles(in[0], in[1], elementBytes)) {
      double throughput =
          getFlops(kind, params, in, out, elementBytes).tensor /
          (device.tensorFlopsPerUs / static_cast<double>(device.sms));
      // Jobs as the code generator deals them to warps.
      int64_t m = out[out.size() - 2], n = out.back(), k = in[0].back();
      int64_t jobs = getNumElements(out.drop_back(2)) * ((m + 15) / 16) *
                     (n / getTensorCoreJobColumns(n));
      int64_t warps = std::max<int64_t>(1, threads / 32);
      // A warp's jobs run one after another; within a job the k steps run
      // over getTensorCoreChains independent accumulators.
      double chain = static_cast<double>((jobs + warps - 1) / warps) *
                     static_cast<double>((k + 15) / 16) /
                     static_cast<double>(getTensorCoreChains(k)) *
                     device.mmaStepUs;
      return std::max(throughput, chain);
    }
    return rounds(getNumElements(out)) * static_cast<double>(in[0].back()) *
           device.simtMacUs;
  }
  // A round per `threads` elements, or per `threads` of the record's
  // element operations where it counts several per element (a norm's
  // passes, a transcendental).
  int64_t elements = getNumElements(out);
  for (ArrayRef<int64_t> operand : in)
    elements = std::max(elements, getNumElements(operand));
  elements =
      std::max(elements,
               static_cast<int64_t>(getWork(kind, in, out, params).elementOps));
  return rounds(elements) * device.simtElementUs;
}

llvm::StringRef KernelTimeBreakdown::getBound() const {
  if (latencyUs >= memoryUs && latencyUs >= computeUs)
    return "latency";
  return memoryUs >= computeUs ? "memory" : "compute";
}

double mirage::estimateKernelUs(const KernelProfile &kernel,
                                const DeviceModel &device, bool launch) {
  return estimateKernel(kernel, device, launch).us;
}

KernelTimeBreakdown mirage::estimateKernel(const KernelProfile &kernel,
                                           const DeviceModel &device,
                                           bool launch) {
  double blocks = static_cast<double>(kernel.blocks);
  double iterations = static_cast<double>(kernel.iterations);
  double sms = static_cast<double>(device.sms);
  double loaded = blocks * (iterations * kernel.loopBytes + kernel.onceBytes +
                            kernel.outputBytes);
  double rowOverhead = device.rowOverheadBytes * blocks *
                       (iterations * kernel.loopRows + kernel.onceRows);
  double utilization = std::min(1.0, blocks / sms);
  // Bandwidth needs no full grid: a few blocks per SM stream at the SM's
  // rate, which the latency term below bounds.
  double memory =
      std::max((kernel.uniqueBytes + rowOverhead) / device.dramBytesPerUs,
               loaded / device.l2BytesPerUs);
  double compute = blocks *
                   (iterations * kernel.bodyFlops.time(device) +
                    kernel.postFlops.time(device)) /
                   utilization;
  double occupancy = std::min<double>(
      {static_cast<double>(device.maxBlocksPerSM),
       std::floor(static_cast<double>(device.smemPerSM) /
                  std::max<double>(
                      static_cast<double>(kernel.sharedMemoryBytes), 1.0)),
       std::floor(static_cast<double>(device.maxThreadsPerSM) /
                  static_cast<double>(kernel.threads))});
  occupancy = std::max(occupancy, 1.0);
  double waves = std::ceil(blocks / (sms * occupancy));
  // The blocks resident on an SM share its streaming rate.
  double resident = std::clamp(std::ceil(blocks / sms), 1.0, occupancy);
  double blockBytesPerUs = device.smStreamBytesPerUs / resident;
  double loads =
      (kernel.loopBytes + kernel.loopRows * device.rowOverheadBytes) /
      blockBytesPerUs;
  double iterationLatency =
      device.iterationUs + (kernel.iterations > 1
                                ? std::max(loads, kernel.bodyLatencyUs)
                                : loads + kernel.bodyLatencyUs);
  double blockLatency =
      device.loadLatencyUs +
      (kernel.onceBytes + kernel.onceRows * device.rowOverheadBytes) /
          blockBytesPerUs +
      iterations * iterationLatency + device.postLoopUs + kernel.postLatencyUs +
      kernel.outputBytes / blockBytesPerUs;
  KernelTimeBreakdown estimate;
  estimate.launchUs = launch ? device.launchUs : 0.0;
  estimate.memoryUs = memory;
  estimate.computeUs = compute;
  estimate.latencyUs =
      waves * blockLatency + std::ceil(blocks / sms) * device.blockStartUs;
  estimate.waves = waves;
  estimate.residentPerSM = resident;
  estimate.blockUs = blockLatency;
  estimate.us =
      estimate.launchUs + std::max({memory, compute, estimate.latencyUs});
  return estimate;
}
