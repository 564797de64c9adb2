//===- Driver.cpp - CUDA driver pieces shared by the runner and executables
//===//
//
// Part of the Mirage MLIR project.
//
//===----------------------------------------------------------------------===//

#include "Driver.h"

#include "mirage_runtime/MegaKernel.h"

#include <algorithm>
#include <cstring>
#include <filesystem>

using namespace mirage::runtime;
using namespace mirage::runtime::driver;
namespace fs = std::filesystem;

/// Success, or "<what> failed: CUDA_ERROR_X (description)".
Status driver::cuCheck(CUresult result, const std::string &what) {
  if (result == CUDA_SUCCESS)
    return Status::success();
  const char *name = nullptr, *description = nullptr;
  cuGetErrorName(result, &name);
  cuGetErrorString(result, &description);
  return Status::error(
      what + " failed: " +
      (name ? std::string(name) : "CUDA error " + std::to_string(result)) +
      " (" + (description ? description : "no description") + ")");
}

uint64_t driver::allocationBytes(uint64_t bytes) {
  return std::max<uint64_t>(bytes, sizeof(uint64_t));
}

std::string driver::describeBuffer(const BufferSpec &buffer) {
  return "buffer " + std::to_string(buffer.id) + " (\"" + buffer.name + "\")";
}

namespace {

CUtensorMapDataType tensorMapDataType(DType dtype) {
  switch (dtype) {
  case DType::F16:
    return CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
  case DType::BF16:
    return CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
  case DType::F32:
    return CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
  }
  return CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
}

/// `bytes` is 0, 32, 64 or 128 (the manifest is validated).
CUtensorMapSwizzle tensorMapSwizzle(unsigned bytes) {
  switch (bytes) {
  case 32:
    return CU_TENSOR_MAP_SWIZZLE_32B;
  case 64:
    return CU_TENSOR_MAP_SWIZZLE_64B;
  case 128:
    return CU_TENSOR_MAP_SWIZZLE_128B;
  default:
    return CU_TENSOR_MAP_SWIZZLE_NONE;
  }
}

/// Encodes the tensor map `map` over `buffer`, whose storage is at `address`.
Status encodeTensorMap(const BufferSpec &buffer, const TensorMapSpec &map,
                       CUdeviceptr address, CUtensorMap &out) {
  TensorMapParams params = getTensorMapParams(buffer, map);
  std::vector<cuuint64_t> globalDim(params.globalDim.begin(),
                                    params.globalDim.end());
  std::vector<cuuint64_t> globalStrides(params.globalStrides.begin(),
                                        params.globalStrides.end());
  // A rank-1 map has no strides; the array must still be a valid pointer.
  if (globalStrides.empty())
    globalStrides.push_back(0);
  std::vector<cuuint32_t> boxDim(params.boxDim.begin(), params.boxDim.end());
  std::vector<cuuint32_t> elementStrides(params.elementStrides.begin(),
                                         params.elementStrides.end());
  return cuCheck(cuTensorMapEncodeTiled(
                     &out, tensorMapDataType(params.dtype), params.rank,
                     reinterpret_cast<void *>(uintptr_t(address)),
                     globalDim.data(), globalStrides.data(), boxDim.data(),
                     elementStrides.data(), CU_TENSOR_MAP_INTERLEAVE_NONE,
                     tensorMapSwizzle(params.swizzle),
                     CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
                     CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE),
                 "cuTensorMapEncodeTiled");
}

} // namespace

Expected<DeviceInfo> driver::queryDevice(CUdevice device) {
  DeviceInfo info;
  char name[256] = {};
  size_t memoryBytes = 0;
  int l2Bytes = 0;
  std::pair<CUdevice_attribute, int *> attributes[] = {
      {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, &info.ccMajor},
      {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, &info.ccMinor},
      {CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, &info.smCount},
      {CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, &l2Bytes},
      {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
       &info.sharedOptinBytes}};
  for (auto [attribute, value] : attributes)
    if (Status status = cuCheck(cuDeviceGetAttribute(value, attribute, device),
                                "cuDeviceGetAttribute");
        !status.ok())
      return status;
  for (Status status :
       {cuCheck(cuDeviceGetName(name, sizeof(name) - 1, device),
                "cuDeviceGetName"),
        cuCheck(cuDeviceTotalMem(&memoryBytes, device), "cuDeviceTotalMem"),
        cuCheck(cuDriverGetVersion(&info.driverVersion), "cuDriverGetVersion")})
    if (!status.ok())
      return status;
  info.name = name;
  info.l2Bytes = uint64_t(l2Bytes);
  info.memoryBytes = memoryBytes;
  return info;
}

Status driver::loadKernels(const Manifest &manifest,
                           const std::string &bundleDir, const DeviceInfo &info,
                           LoadedKernels &kernels) {
  auto bundlePath = [&](const std::string &file) {
    return (fs::path(bundleDir) / file).string();
  };
  std::string target =
      " (bundle for " + manifest.chip + ", device of compute capability " +
      std::to_string(info.ccMajor) + "." + std::to_string(info.ccMinor) + ")";
  std::error_code ignored;
  if (manifest.cubinFile &&
      fs::exists(bundlePath(*manifest.cubinFile), ignored)) {
    std::string path = bundlePath(*manifest.cubinFile);
    Expected<std::string> image = readFile(path);
    if (!image)
      return image.status();
    Status status =
        cuCheck(cuModuleLoadData(kernels.module.receive(), image->data()),
                path + ": cuModuleLoadData");
    if (!status.ok())
      return Status::error(status.message() + target);
    kernels.binary = "cubin";
  } else {
    std::string path = bundlePath(manifest.ptxFile);
    Expected<std::string> ptx = readFile(path);
    if (!ptx)
      return ptx.status();
    // The JIT's own log says which line of the PTX it rejected.
    char errorLog[16384] = {};
    CUjit_option keys[] = {CU_JIT_ERROR_LOG_BUFFER,
                           CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *values[] = {errorLog,
                      reinterpret_cast<void *>(uintptr_t(sizeof(errorLog)))};
    Status status = cuCheck(cuModuleLoadDataEx(kernels.module.receive(),
                                               ptx->c_str(), 2, keys, values),
                            path + ": cuModuleLoadDataEx (PTX JIT)");
    if (!status.ok())
      return Status::error(status.message() + target +
                           (errorLog[0] ? std::string(": ") + errorLog : ""));
    kernels.binary = "ptx";
  }

  for (const KernelSpec &kernel : manifest.kernels) {
    CUfunction function;
    if (Status status =
            cuCheck(cuModuleGetFunction(&function, kernels.module.get(),
                                        kernel.name.c_str()),
                    "kernel \"" + kernel.name + "\": cuModuleGetFunction");
        !status.ok())
      return status;
    kernels.functions[kernel.name] = function;
  }

  // Kernels may use up to 48 KiB of dynamic shared memory without asking.
  constexpr uint32_t defaultSharedLimit = 48 * 1024;
  std::map<std::string, uint32_t> sharedBytes;
  for (const Step &step : manifest.steps)
    if (step.kind != Step::Kind::Copy)
      sharedBytes[step.kernel] =
          std::max(sharedBytes[step.kernel], step.dynamicSharedBytes);
  for (const auto &[name, bytes] : sharedBytes) {
    if (bytes <= defaultSharedLimit)
      continue;
    Status status = cuCheck(
        cuFuncSetAttribute(kernels.functions[name],
                           CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                           int(bytes)),
        "kernel \"" + name +
            "\": cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES, " +
            std::to_string(bytes) + ")");
    if (!status.ok())
      return Status::error(status.message() + "; the device allows " +
                           std::to_string(info.sharedOptinBytes) +
                           " bytes of shared memory per block");
  }
  return Status::success();
}

Status driver::upload(DeviceMemory &memory, const void *data, uint64_t bytes,
                      const std::string &what, CUstream stream) {
  if (Status status =
          cuCheck(cuMemAlloc(memory.receive(), allocationBytes(bytes)),
                  what + ": cuMemAlloc of " + std::to_string(bytes) + " bytes");
      !status.ok())
    return status;
  if (bytes == 0)
    return Status::success();
  // The host data outlives the copy (it belongs to the manifest or a set).
  return cuCheck(cuMemcpyHtoDAsync(memory.get(), data, bytes, stream),
                 what + ": cuMemcpyHtoDAsync");
}

Status driver::bindBuffers(const Manifest &manifest,
                           const std::vector<CUdeviceptr> &given,
                           BufferSet &set) {
  size_t count = manifest.buffers.size();
  set.storage.resize(count);
  set.pointers.assign(count, 0);
  for (const BufferSpec &buffer : manifest.buffers) {
    if (buffer.base)
      continue;
    if (buffer.id < given.size() && given[buffer.id]) {
      set.pointers[buffer.id] = given[buffer.id];
      continue;
    }
    if (Status status =
            cuCheck(cuMemAlloc(set.storage[buffer.id].receive(), buffer.bytes),
                    describeBuffer(buffer) + ": cuMemAlloc of " +
                        std::to_string(buffer.bytes) + " bytes");
        !status.ok())
      return status;
    set.pointers[buffer.id] = set.storage[buffer.id].get();
  }
  for (const BufferSpec &buffer : manifest.buffers)
    if (buffer.base)
      set.pointers[buffer.id] = set.pointers[manifest.storageOf(buffer.id)];
  return Status::success();
}

Status driver::prepareLaunchArgs(const Manifest &manifest, BufferSet &set,
                                 CUstream stream) {
  // Encoded in step and argument order; sized first, as the upload reads
  // the host maps asynchronously.
  size_t mapCount = 0;
  for (const Step &step : manifest.steps)
    for (const LaunchArg &arg : step.args)
      mapCount += arg.tensorMap.has_value();
  set.hostTensorMaps.resize(mapCount);
  size_t map = 0;
  for (size_t i = 0; i < manifest.steps.size(); ++i) {
    const Step &step = manifest.steps[i];
    for (size_t a = 0; a < step.args.size(); ++a) {
      const LaunchArg &arg = step.args[a];
      if (!arg.tensorMap)
        continue;
      const BufferSpec &buffer = manifest.buffers[arg.buffer];
      if (Status status =
              encodeTensorMap(buffer, *arg.tensorMap, set.pointers[arg.buffer],
                              set.hostTensorMaps[map++]);
          !status.ok())
        return std::move(status).withContext(
            "steps[" + std::to_string(i) + "].args[" + std::to_string(a) +
            "]: tensor map over " + describeBuffer(buffer) + ": ");
    }
  }
  // cuMemAlloc aligns to far more than the 64 bytes a map needs.
  if (mapCount > 0)
    if (Status status =
            upload(set.tensorMaps, set.hostTensorMaps.data(),
                   mapCount * sizeof(CUtensorMap), "tensor maps", stream);
        !status.ok())
      return status;

  set.launchArgs.assign(manifest.steps.size(), {});
  map = 0;
  for (size_t i = 0; i < manifest.steps.size(); ++i)
    for (const LaunchArg &arg : manifest.steps[i].args)
      set.launchArgs[i].push_back(
          arg.tensorMap ? set.tensorMaps.get() + map++ * sizeof(CUtensorMap)
                        : set.pointers[arg.buffer]);
  return Status::success();
}

Status driver::enqueueStep(const Manifest &manifest, size_t index,
                           const LoadedKernels &kernels, const BufferSet &set,
                           CUstream stream, bool pdl) {
  const Step &step = manifest.steps[index];
  std::string where = "steps[" + std::to_string(index) + "]: ";
  if (step.kind == Step::Kind::Copy) {
    where += "copy of buffer " + std::to_string(step.src) + " to " +
             std::to_string(step.dst);
    return cuCheck(cuMemcpyDtoDAsync(set.pointers[step.dst],
                                     set.pointers[step.src], step.bytes,
                                     stream),
                   where + ": cuMemcpyDtoDAsync");
  }
  where += "kernel \"" + step.kernel + "\"";
  // kernelParams points at one CUdeviceptr per argument: a buffer's address
  // or that of a tensor map.
  std::vector<CUdeviceptr> pointers = set.launchArgs[index];
  std::vector<void *> params;
  for (CUdeviceptr &pointer : pointers)
    params.push_back(&pointer);
  CUfunction function = kernels.functions.at(step.kernel);
  if (pdl && launchesWithPdl(manifest, index)) {
    // May start before the kernel before it ends; its griddepcontrol.wait
    // holds it until that kernel's writes are visible.
    CUlaunchAttribute attribute;
    std::memset(&attribute, 0, sizeof(attribute));
    attribute.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
    attribute.value.programmaticStreamSerializationAllowed = 1;
    CUlaunchConfig config;
    std::memset(&config, 0, sizeof(config));
    config.gridDimX = step.grid[0];
    config.gridDimY = step.grid[1];
    config.gridDimZ = step.grid[2];
    config.blockDimX = step.block[0];
    config.blockDimY = step.block[1];
    config.blockDimZ = step.block[2];
    config.sharedMemBytes = step.dynamicSharedBytes;
    config.hStream = stream;
    config.attrs = &attribute;
    config.numAttrs = 1;
    return cuCheck(cuLaunchKernelEx(&config, function, params.data(), nullptr),
                   where + ": cuLaunchKernelEx (programmatic stream "
                           "serialization)");
  }
  return cuCheck(cuLaunchKernel(function, step.grid[0], step.grid[1],
                                step.grid[2], step.block[0], step.block[1],
                                step.block[2], step.dynamicSharedBytes, stream,
                                params.data(), nullptr),
                 where + ": cuLaunchKernel");
}

Status driver::checkResidency(const Step &step, const LoadedKernels &kernels,
                              const DeviceInfo &info) {
  CUfunction function = kernels.functions.at(step.kernel);
  std::string where = "mega-kernel \"" + step.kernel + "\": ";
  int perSM = 0;
  if (Status status = cuCheck(
          cuOccupancyMaxActiveBlocksPerMultiprocessor(
              &perSM, function, int(step.block[0]), step.dynamicSharedBytes),
          where + "cuOccupancyMaxActiveBlocksPerMultiprocessor");
      !status.ok())
    return status;
  if (uint64_t(perSM) * uint64_t(info.smCount) >= step.grid[0])
    return Status::success();
  int registers = 0, staticShared = 0;
  if (Status status = cuCheck(
          cuFuncGetAttribute(&registers, CU_FUNC_ATTRIBUTE_NUM_REGS, function),
          where + "cuFuncGetAttribute(NUM_REGS)");
      !status.ok())
    return status;
  if (Status status = cuCheck(
          cuFuncGetAttribute(&staticShared, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES,
                             function),
          where + "cuFuncGetAttribute(SHARED_SIZE_BYTES)");
      !status.ok())
    return status;
  return Status::error(describeResidencyRefusal(
      step.kernel, step.grid[0], perSM, step.block[0],
      uint64_t(step.dynamicSharedBytes) + uint64_t(staticShared), registers,
      info.smCount));
}

Status driver::setUpMegaKernel(const Manifest &manifest,
                               MegaKernelDevice &device, CUstream stream) {
  const Step &step = manifest.steps[device.step];
  const MegaKernelSpec &mega = step.mega;
  std::string where = "steps[" + std::to_string(device.step) +
                      "]: mega-kernel \"" + step.kernel + "\": ";
  for (auto [table, memory, name] :
       {std::tuple{&mega.tasks, &device.tasks, "tasks"},
        std::tuple{&mega.queueStarts, &device.queueStarts, "queue_starts"},
        std::tuple{&mega.queues, &device.queues, "queues"},
        std::tuple{&mega.needed, &device.needed, "needed"},
        std::tuple{&mega.eventLists, &device.eventLists, "event_lists"}})
    if (Status status =
            upload(*memory, table->data(), table->size() * sizeof(int32_t),
                   where + "the " + name + " table", stream);
        !status.ok())
      return status;
  device.counterBytes = mega.eventCount() * sizeof(uint64_t);
  if (Status status = cuCheck(cuMemAlloc(device.counters.receive(),
                                         allocationBytes(device.counterBytes)),
                              where + "cuMemAlloc of " +
                                  std::to_string(device.counterBytes) +
                                  " bytes of event counters");
      !status.ok())
    return status;
  if (Status status =
          cuCheck(cuMemAlloc(device.state.receive(), sizeof(MegaKernelState)),
                  where + "cuMemAlloc of the state");
      !status.ok())
    return status;
  device.traceBytes = mega.taskCount() * tracePoints * sizeof(uint64_t);
  if (Status status = cuCheck(cuMemAlloc(device.trace.receive(),
                                         allocationBytes(device.traceBytes)),
                              where + "cuMemAlloc of the trace");
      !status.ok())
    return status;
  return resetMegaKernel(device, stream);
}

Status driver::resetMegaKernel(MegaKernelDevice &device, CUstream stream) {
  std::string where = "steps[" + std::to_string(device.step) +
                      "]: resetting the mega-kernel's counters and state: ";
  device.deadlineNs = deadlineNanoseconds(device.deadlineMs);
  for (Status status :
       {cuCheck(cuMemsetD8Async(device.counters.get(), 0,
                                allocationBytes(device.counterBytes), stream),
                where + "cuMemsetD8Async"),
        cuCheck(cuMemsetD8Async(device.state.get(), 0, sizeof(MegaKernelState),
                                stream),
                where + "cuMemsetD8Async"),
        cuCheck(cuMemsetD8Async(device.trace.get(), 0,
                                allocationBytes(device.traceBytes), stream),
                where + "cuMemsetD8Async"),
        cuCheck(
            cuMemcpyHtoDAsync(device.state.get() + Deadline * sizeof(uint64_t),
                              &device.deadlineNs, sizeof(uint64_t), stream),
            where + "cuMemcpyHtoDAsync"),
        cuCheck(cuStreamSynchronize(stream), where + "cuStreamSynchronize")})
    if (!status.ok())
      return status;
  return Status::success();
}

Status driver::uploadAddressTables(const Manifest &manifest,
                                   const std::vector<MegaKernelDevice> &devices,
                                   BufferSet &set, CUstream stream) {
  set.addressTables.resize(devices.size());
  set.hostAddressTables.assign(devices.size(), {});
  for (size_t m = 0; m < devices.size(); ++m) {
    const Step &step = manifest.steps[devices[m].step];
    std::vector<uint64_t> &table = set.hostAddressTables[m];
    for (unsigned id : step.mega.addressTable)
      table.push_back(uint64_t(set.pointers[id]));
    if (Status status = upload(
            set.addressTables[m], table.data(), table.size() * sizeof(uint64_t),
            "steps[" + std::to_string(devices[m].step) + "]: mega-kernel \"" +
                step.kernel + "\": the address table",
            stream);
        !status.ok())
      return status;
  }
  return Status::success();
}

Status driver::launchMegaKernel(const Manifest &manifest,
                                const MegaKernelDevice &device,
                                CUdeviceptr addressTable,
                                const LoadedKernels &kernels, CUstream stream,
                                bool traced) {
  const Step &step = manifest.steps[device.step];
  CUdeviceptr pointers[megaKernelParams] = {};
  pointers[AddressTableParam] = addressTable;
  pointers[TasksParam] = device.tasks.get();
  pointers[QueueStartsParam] = device.queueStarts.get();
  pointers[QueuesParam] = device.queues.get();
  pointers[NeededParam] = device.needed.get();
  pointers[CountersParam] = device.counters.get();
  pointers[StateParam] = device.state.get();
  if (traced)
    pointers[TraceParam] = device.trace.get();
  pointers[EventListsParam] = device.eventLists.get();
  void *params[megaKernelParams];
  for (unsigned p = 0; p < megaKernelParams; ++p)
    params[p] = &pointers[p];
  return cuCheck(cuLaunchKernel(kernels.functions.at(step.kernel), step.grid[0],
                                1, 1, step.block[0], 1, 1,
                                step.dynamicSharedBytes, stream, params,
                                nullptr),
                 "steps[" + std::to_string(device.step) + "]: mega-kernel \"" +
                     step.kernel + "\": cuLaunchKernel");
}

Status driver::readMegaKernelTrace(const Manifest &manifest,
                                   const MegaKernelDevice &device,
                                   CUstream stream,
                                   std::vector<uint64_t> &trace) {
  std::string where = "steps[" + std::to_string(device.step) +
                      "]: reading the mega-kernel's trace: ";
  trace.assign(manifest.steps[device.step].mega.taskCount() * tracePoints, 0);
  if (Status status =
          cuCheck(cuMemcpyDtoHAsync(trace.data(), device.trace.get(),
                                    trace.size() * sizeof(uint64_t), stream),
                  where + "cuMemcpyDtoHAsync");
      !status.ok())
    return status;
  return cuCheck(cuStreamSynchronize(stream), where + "cuStreamSynchronize");
}

Status driver::readMegaKernelState(MegaKernelDevice &device, CUstream stream,
                                   bool &hung) {
  std::string where = "steps[" + std::to_string(device.step) +
                      "]: reading the mega-kernel's state: ";
  if (Status status =
          cuCheck(cuMemcpyDtoHAsync(device.readBack.data(), device.state.get(),
                                    sizeof(MegaKernelState), stream),
                  where + "cuMemcpyDtoHAsync");
      !status.ok())
    return status;
  if (Status status =
          cuCheck(cuStreamSynchronize(stream), where + "cuStreamSynchronize");
      !status.ok())
    return status;
  hung = device.readBack[Failed] != 0;
  // The counters lag the epoch after a hang: start over so later runs can
  // wait.
  return hung ? resetMegaKernel(device, stream) : Status::success();
}
