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

double mirage::getTileOpLatencyUs(OpKind kind, const OpParams &params,
                                  ArrayRef<ArrayRef<int64_t>> in,
                                  ArrayRef<int64_t> out, int64_t threads,
                                  unsigned elementBytes,
                                  const DeviceModel &device) {
  auto rounds = [&](int64_t elements) {
    return static_cast<double>((elements + threads - 1) / threads);
  };
  if (getWork(kind, in, out, params).multiplyAdds > 0 && in.size() == 2) {
    if (fitsTensorCoreTiles(in[0], in[1], elementBytes))
      return getFlops(kind, params, in, out, elementBytes).tensor /
             (device.tensorFlopsPerUs / static_cast<double>(device.sms));
    return rounds(getNumElements(out)) * static_cast<double>(in[0].back()) *
           device.simtMacUs;
  }
  int64_t elements = getNumElements(out);
  for (ArrayRef<int64_t> operand : in)
    elements = std::max(elements, getNumElements(operand));
  return rounds(elements) * device.simtElementUs;
}

double mirage::estimateKernelUs(const KernelProfile &kernel,
                                const DeviceModel &device, bool launch) {
  double blocks = static_cast<double>(kernel.blocks);
  double iterations = static_cast<double>(kernel.iterations);
  double sms = static_cast<double>(device.sms);
  double loaded = blocks * (iterations * kernel.loopBytes + kernel.onceBytes +
                            kernel.outputBytes);
  double utilization = std::min(1.0, blocks / sms);
  double memory = std::max(kernel.uniqueBytes / device.dramBytesPerUs,
                           loaded / device.l2BytesPerUs) /
                  utilization;
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
  double smL2BytesPerUs = device.l2BytesPerUs / sms;
  double iterationLatency =
      device.iterationUs +
      std::max(kernel.loopBytes / smL2BytesPerUs, kernel.bodyLatencyUs);
  double blockLatency = kernel.onceBytes / smL2BytesPerUs +
                        iterations * iterationLatency + device.postLoopUs +
                        kernel.postLatencyUs +
                        kernel.outputBytes / smL2BytesPerUs;
  double latency = waves * blockLatency;
  return (launch ? device.launchUs : 0.0) +
         std::max({memory, compute, latency});
}
