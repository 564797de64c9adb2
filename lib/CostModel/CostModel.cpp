//===- CostModel.cpp - Devices and arithmetic as the GPU runs it ----------===//
//
// Part of the Mirage MLIR project. See CostModel.h.
//
//===----------------------------------------------------------------------===//

#include "mirage/CostModel/CostModel.h"

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
