//===- Runner.cpp - Runs bundles on a GPU ---------------------------------===//
//
// Part of the Mirage MLIR project.
//
// Everything runs on one non-blocking stream with asynchronous copies and
// memsets, so nothing depends on the legacy default stream and the same
// step enqueueing serves the checked run, the plain timing launches and the
// graph captures.
//
// Mega-kernel steps: their tables (shared by all buffer sets), counters and
// state are allocated once per bundle; each buffer set has its own address
// table. The counters and state persist across runs (the kernel counts runs
// in the state's epoch word), so they are zeroed only at the start and after
// a hang, when the counters no longer match the epoch.
//
// Tensor maps (version 3) hold a buffer's address, so each buffer set encodes
// its own when it is allocated and uploads them into one allocation; a launch
// passes the device address of its map.
//
//===----------------------------------------------------------------------===//

#include "mirage_runtime/Runner.h"

#include "mirage_runtime/Manifest.h"
#include "mirage_runtime/MegaKernel.h"

#include <cuda.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <map>
#include <tuple>
#include <vector>

using namespace mirage::runtime;
namespace fs = std::filesystem;

namespace {

/// Success, or "<what> failed: CUDA_ERROR_X (description)".
Status cuCheck(CUresult result, const std::string &what) {
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

/// Owns a driver handle; destruction errors are ignored, as there is no one
/// left to report them to (and the first error was reported already).
template <typename Handle, CUresult (*Destroy)(Handle)>
class Owned {
public:
  Owned() = default;
  Owned(const Owned &) = delete;
  Owned &operator=(const Owned &) = delete;
  Owned(Owned &&other) : handle(other.handle) { other.handle = Handle(); }
  Owned &operator=(Owned &&other) {
    if (this != &other) {
      reset();
      handle = other.handle;
      other.handle = Handle();
    }
    return *this;
  }
  ~Owned() { reset(); }

  Handle get() const { return handle; }
  /// Where the driver stores a new handle.
  Handle *receive() {
    reset();
    return &handle;
  }

private:
  void reset() {
    if (handle)
      Destroy(handle);
    handle = Handle();
  }

  Handle handle = Handle();
};

using ModulePtr = Owned<CUmodule, cuModuleUnload>;
using StreamPtr = Owned<CUstream, cuStreamDestroy>;
using EventPtr = Owned<CUevent, cuEventDestroy>;
using GraphPtr = Owned<CUgraph, cuGraphDestroy>;
using GraphExecPtr = Owned<CUgraphExec, cuGraphExecDestroy>;
using DeviceMemory = Owned<CUdeviceptr, cuMemFree>;

/// Device memory for every buffer of a bundle: one allocation per buffer
/// with storage; views point at their base.
struct BufferSet {
  std::vector<DeviceMemory> storage; // by buffer id; empty for views
  std::vector<CUdeviceptr> pointers; // by buffer id
  /// Per mega-kernel step (in step order), its address table: the device
  /// copy and the host values it was uploaded from.
  std::vector<DeviceMemory> addressTables;
  std::vector<std::vector<uint64_t>> hostAddressTables;
  /// Every tensor map argument of every launch step, in step and argument
  /// order: the device copy (CUtensorMaps, 128 bytes each) and the host
  /// values it was uploaded from.
  DeviceMemory tensorMaps;
  std::vector<CUtensorMap> hostTensorMaps;
  /// Per step (empty for other kinds), a launch's kernel parameters: one
  /// device pointer per argument.
  std::vector<std::vector<CUdeviceptr>> launchArgs;
};

/// The device side of a mega-kernel step, shared by all buffer sets.
struct MegaKernelDevice {
  size_t step = 0;
  DeviceMemory tasks, queueStarts, queues, needed, operands;
  DeviceMemory counters, state;
  uint64_t counterBytes = 0;
  uint64_t deadlineMs = 0;
  /// What the Deadline word is uploaded from, and the state read back.
  uint64_t deadlineNs = 0;
  MegaKernelState readBack{};
};

/// Bytes to allocate for `bytes` of table: at least one word, as
/// cuMemAlloc refuses zero bytes.
uint64_t allocationBytes(uint64_t bytes) {
  return std::max<uint64_t>(bytes, sizeof(uint64_t));
}

std::string describeBuffer(const BufferSpec &buffer) {
  return "buffer " + std::to_string(buffer.id) + " (\"" + buffer.name + "\")";
}

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

/// The state of running one bundle; destroying it frees all it allocated.
class BundleRun {
public:
  BundleRun(const std::string &bundleDir, const RunOptions &options,
            const DeviceInfo &info, BundleResult &result)
      : bundleDir(bundleDir), options(options), info(info), result(result) {}

  Status run();

private:
  std::string bundlePath(const std::string &file) const {
    return (fs::path(bundleDir) / file).string();
  }

  Status loadInputs();
  Status loadReference();
  Status loadModule();
  Status checkResidency(const Step &step);
  Status allocate(BufferSet &set);
  Status prepareLaunchArgs(BufferSet &set);
  Status upload(DeviceMemory &memory, const void *data, uint64_t bytes,
                const std::string &what);
  Status setUpMegaKernels();
  Status resetMegaKernel(MegaKernelDevice &mega);
  Status readMegaKernelStates(const std::string &during, bool &hung);
  Status enqueueSteps(const BufferSet &set, bool checked, bool pdl = false,
                      bool firstInSequence = true);
  Status checkedRun();
  Status time();
  Expected<TimingResult> timeMode(TimingMode mode,
                                  const std::vector<const BufferSet *> &sets);

  const std::string &bundleDir;
  const RunOptions &options;
  const DeviceInfo &info;
  BundleResult &result;

  Manifest manifest;
  /// Compare with the reference after the checked run.
  bool compare = false;
  std::vector<std::string> hostInputs; // by input position
  std::vector<double> reference;
  ModulePtr module;
  std::map<std::string, CUfunction> functions;
  StreamPtr stream;
  BufferSet set0;
  uint64_t setBytes = 0;
  /// In step order; megaKernelOf[step] indexes it (-1: not a mega-kernel).
  std::vector<MegaKernelDevice> megaKernels;
  std::vector<int> megaKernelOf;
  /// Set once a mega-kernel hung: later timing is skipped.
  bool megaKernelHung = false;
};

} // namespace

Status BundleRun::run() {
  Expected<Manifest> loaded = loadManifest(bundleDir);
  if (!loaded)
    return loaded.status();
  manifest = std::move(*loaded);
  result.name = manifest.name;
  result.kernels = manifest.kernelsJson;
  if (manifest.reference)
    result.function = manifest.reference->function;
  megaKernelOf.assign(manifest.steps.size(), -1);
  for (size_t i = 0; i < manifest.steps.size(); ++i) {
    const Step &step = manifest.steps[i];
    if (step.kind != Step::Kind::MegaKernel)
      continue;
    megaKernelOf[i] = int(megaKernels.size());
    MegaKernelDevice &device = megaKernels.emplace_back();
    device.step = i;
    device.deadlineMs = options.deadlineMs.value_or(step.mega.deadlineMs);
    MegaKernelResult mega;
    mega.step = unsigned(i);
    mega.kernel = step.kernel;
    mega.workers = step.grid[0];
    mega.threads = step.block[0];
    mega.tasks = step.mega.taskCount();
    mega.events = step.mega.eventCount();
    mega.deadlineMs = device.deadlineMs;
    result.megaKernels.push_back(std::move(mega));
  }

  if (options.check) {
    CheckResult check;
    if (!options.inputsDir.empty())
      check.skipped = "inputs were read from " + options.inputsDir;
    else if (options.seed && *options.seed != manifest.generator.seed)
      check.skipped = "seed " + std::to_string(*options.seed) +
                      " differs from the reference's seed " +
                      std::to_string(manifest.generator.seed);
    else if (!manifest.reference)
      check.skipped = "the bundle has no reference";
    compare = !check.skipped;
    if (!compare)
      result.check = std::move(check);
  }
  if (compare)
    if (Status status = loadReference(); !status.ok())
      return status;
  if (Status status = loadInputs(); !status.ok())
    return status;
  if (Status status = loadModule(); !status.ok())
    return status;
  if (Status status =
          cuCheck(cuStreamCreate(stream.receive(), CU_STREAM_NON_BLOCKING),
                  "cuStreamCreate");
      !status.ok())
    return status;
  for (const BufferSpec &buffer : manifest.buffers)
    if (!buffer.base)
      setBytes += buffer.bytes;
  if (Status status = allocate(set0); !status.ok())
    return status;
  if (Status status = setUpMegaKernels(); !status.ok())
    return status;
  if (Status status = checkedRun(); !status.ok())
    return status;
  if (options.time)
    return time();
  return Status::success();
}

Status BundleRun::loadInputs() {
  UniformGenerator generator = manifest.generator;
  if (options.seed)
    generator.seed = *options.seed;
  for (size_t i = 0; i < manifest.inputs.size(); ++i) {
    const BufferSpec &buffer = manifest.buffers[manifest.inputs[i]];
    if (options.inputsDir.empty()) {
      std::string bytes(buffer.bytes, '\0');
      generator.fill(i, buffer.dtype, buffer.elements, bytes.data());
      hostInputs.push_back(std::move(bytes));
      continue;
    }
    std::string path =
        (fs::path(options.inputsDir) / ("input" + std::to_string(i) + ".bin"))
            .string();
    Expected<std::string> bytes = readFile(path);
    if (!bytes)
      return bytes.status();
    if (bytes->size() != buffer.bytes)
      return Status::error(path + ": has " + std::to_string(bytes->size()) +
                           " bytes, input " + std::to_string(i) + " (" +
                           describeBuffer(buffer) + ") has " +
                           std::to_string(buffer.bytes));
    hostInputs.push_back(std::move(*bytes));
  }
  return Status::success();
}

Status BundleRun::loadReference() {
  std::string path = bundlePath(manifest.reference->file);
  Expected<std::string> bytes = readFile(path);
  if (!bytes)
    return bytes.status();
  uint64_t elements = manifest.referenceElements();
  if (bytes->size() != elements * sizeof(double))
    return Status::error(path + ": has " + std::to_string(bytes->size()) +
                         " bytes, expected " +
                         std::to_string(elements * sizeof(double)) +
                         " (float64 values of all outputs)");
  reference.resize(elements);
  std::memcpy(reference.data(), bytes->data(), bytes->size());
  return Status::success();
}

Status BundleRun::loadModule() {
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
    Status status = cuCheck(cuModuleLoadData(module.receive(), image->data()),
                            path + ": cuModuleLoadData");
    if (!status.ok())
      return Status::error(status.message() + target);
    result.binary = "cubin";
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
    Status status = cuCheck(
        cuModuleLoadDataEx(module.receive(), ptx->c_str(), 2, keys, values),
        path + ": cuModuleLoadDataEx (PTX JIT)");
    if (!status.ok())
      return Status::error(status.message() + target +
                           (errorLog[0] ? std::string(": ") + errorLog : ""));
    result.binary = "ptx";
  }

  for (const KernelSpec &kernel : manifest.kernels) {
    CUfunction function;
    if (Status status = cuCheck(
            cuModuleGetFunction(&function, module.get(), kernel.name.c_str()),
            "kernel \"" + kernel.name + "\": cuModuleGetFunction");
        !status.ok())
      return status;
    functions[kernel.name] = function;
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
        cuFuncSetAttribute(functions[name],
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
  // After the shared memory limits: occupancy depends on them.
  for (const Step &step : manifest.steps)
    if (step.kind == Step::Kind::MegaKernel)
      if (Status status = checkResidency(step); !status.ok())
        return status;
  return Status::success();
}

Status BundleRun::checkResidency(const Step &step) {
  // Workers wait for each other: one that never starts because the others
  // hold every SM would keep them waiting forever.
  CUfunction function = functions.at(step.kernel);
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

Status BundleRun::upload(DeviceMemory &memory, const void *data, uint64_t bytes,
                         const std::string &what) {
  if (Status status =
          cuCheck(cuMemAlloc(memory.receive(), allocationBytes(bytes)),
                  what + ": cuMemAlloc of " + std::to_string(bytes) + " bytes");
      !status.ok())
    return status;
  if (bytes == 0)
    return Status::success();
  // The host data outlives the copy (it belongs to the manifest or a set).
  return cuCheck(cuMemcpyHtoDAsync(memory.get(), data, bytes, stream.get()),
                 what + ": cuMemcpyHtoDAsync");
}

Status BundleRun::setUpMegaKernels() {
  for (MegaKernelDevice &device : megaKernels) {
    const Step &step = manifest.steps[device.step];
    const MegaKernelSpec &mega = step.mega;
    std::string where = "steps[" + std::to_string(device.step) +
                        "]: mega-kernel \"" + step.kernel + "\": ";
    for (auto [table, memory, name] :
         {std::tuple{&mega.tasks, &device.tasks, "tasks"},
          std::tuple{&mega.queueStarts, &device.queueStarts, "queue_starts"},
          std::tuple{&mega.queues, &device.queues, "queues"},
          std::tuple{&mega.needed, &device.needed, "needed"},
          std::tuple{&mega.operands, &device.operands, "operands"}})
      if (Status status =
              upload(*memory, table->data(), table->size() * sizeof(int32_t),
                     where + "the " + name + " table");
          !status.ok())
        return status;
    device.counterBytes = mega.eventCount() * sizeof(uint64_t);
    if (Status status = cuCheck(
            cuMemAlloc(device.counters.receive(),
                       allocationBytes(device.counterBytes)),
            where + "cuMemAlloc of " + std::to_string(device.counterBytes) +
                " bytes of event counters");
        !status.ok())
      return status;
    if (Status status =
            cuCheck(cuMemAlloc(device.state.receive(), sizeof(MegaKernelState)),
                    where + "cuMemAlloc of the state");
        !status.ok())
      return status;
    if (Status status = resetMegaKernel(device); !status.ok())
      return status;
  }
  return Status::success();
}

Status BundleRun::resetMegaKernel(MegaKernelDevice &device) {
  std::string where = "steps[" + std::to_string(device.step) +
                      "]: resetting the mega-kernel's counters and state: ";
  device.deadlineNs = deadlineNanoseconds(device.deadlineMs);
  for (Status status :
       {cuCheck(cuMemsetD8Async(device.counters.get(), 0,
                                allocationBytes(device.counterBytes),
                                stream.get()),
                where + "cuMemsetD8Async"),
        cuCheck(cuMemsetD8Async(device.state.get(), 0, sizeof(MegaKernelState),
                                stream.get()),
                where + "cuMemsetD8Async"),
        cuCheck(cuMemcpyHtoDAsync(
                    device.state.get() + Deadline * sizeof(uint64_t),
                    &device.deadlineNs, sizeof(uint64_t), stream.get()),
                where + "cuMemcpyHtoDAsync"),
        cuCheck(cuStreamSynchronize(stream.get()),
                where + "cuStreamSynchronize")})
    if (!status.ok())
      return status;
  return Status::success();
}

Status BundleRun::readMegaKernelStates(const std::string &during, bool &hung) {
  hung = false;
  for (size_t m = 0; m < megaKernels.size(); ++m) {
    MegaKernelDevice &device = megaKernels[m];
    std::string where = "steps[" + std::to_string(device.step) +
                        "]: reading the mega-kernel's state after " + during;
    if (Status status = cuCheck(
            cuMemcpyDtoHAsync(device.readBack.data(), device.state.get(),
                              sizeof(MegaKernelState), stream.get()),
            where + ": cuMemcpyDtoHAsync");
        !status.ok())
      return status;
    if (Status status = cuCheck(cuStreamSynchronize(stream.get()),
                                where + ": cuStreamSynchronize");
        !status.ok())
      return status;
    if (device.readBack[Failed] == 0)
      continue;
    hung = true;
    megaKernelHung = true;
    MegaKernelResult &mega = result.megaKernels[m];
    // The first hang is the one to explain; later ones may be its echoes.
    if (!mega.hang) {
      mega.hang = describeHang(manifest.steps[device.step], device.readBack,
                               device.deadlineMs);
      mega.hangDuring = during;
      mega.hangState.assign(device.readBack.begin(), device.readBack.end());
    }
    // The counters lag the epoch now: start over so later runs can wait.
    if (Status status = resetMegaKernel(device); !status.ok())
      return status;
  }
  return Status::success();
}

Status BundleRun::allocate(BufferSet &set) {
  size_t count = manifest.buffers.size();
  set.storage.resize(count);
  set.pointers.assign(count, 0);
  for (const BufferSpec &buffer : manifest.buffers) {
    if (buffer.base)
      continue;
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

  set.addressTables.resize(megaKernels.size());
  set.hostAddressTables.resize(megaKernels.size());
  for (size_t m = 0; m < megaKernels.size(); ++m) {
    const Step &step = manifest.steps[megaKernels[m].step];
    std::vector<uint64_t> &table = set.hostAddressTables[m];
    for (unsigned id : step.mega.addressTable)
      table.push_back(uint64_t(set.pointers[id]));
    if (Status status = upload(
            set.addressTables[m], table.data(), table.size() * sizeof(uint64_t),
            "steps[" + std::to_string(megaKernels[m].step) +
                "]: mega-kernel \"" + step.kernel + "\": the address table");
        !status.ok())
      return status;
  }
  return prepareLaunchArgs(set);
}

Status BundleRun::prepareLaunchArgs(BufferSet &set) {
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
    if (Status status = upload(set.tensorMaps, set.hostTensorMaps.data(),
                               mapCount * sizeof(CUtensorMap), "tensor maps");
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

Status BundleRun::enqueueSteps(const BufferSet &set, bool checked, bool pdl,
                               bool firstInSequence) {
  for (size_t i = 0; i < manifest.steps.size(); ++i) {
    const Step &step = manifest.steps[i];
    std::string where = "steps[" + std::to_string(i) + "]: ";
    if (step.kind == Step::Kind::Copy) {
      where += "copy of buffer " + std::to_string(step.src) + " to " +
               std::to_string(step.dst);
      if (Status status = cuCheck(cuMemcpyDtoDAsync(set.pointers[step.dst],
                                                    set.pointers[step.src],
                                                    step.bytes, stream.get()),
                                  where + ": cuMemcpyDtoDAsync");
          !status.ok())
        return status;
    } else if (step.kind == Step::Kind::MegaKernel) {
      where += "mega-kernel \"" + step.kernel + "\"";
      int m = megaKernelOf[i];
      const MegaKernelDevice &device = megaKernels[m];
      CUdeviceptr pointers[megaKernelParams] = {};
      pointers[AddressTableParam] = set.addressTables[m].get();
      pointers[TasksParam] = device.tasks.get();
      pointers[QueueStartsParam] = device.queueStarts.get();
      pointers[QueuesParam] = device.queues.get();
      pointers[NeededParam] = device.needed.get();
      pointers[CountersParam] = device.counters.get();
      pointers[OperandsParam] = device.operands.get();
      pointers[StateParam] = device.state.get();
      void *params[megaKernelParams];
      for (unsigned p = 0; p < megaKernelParams; ++p)
        params[p] = &pointers[p];
      if (Status status = cuCheck(
              cuLaunchKernel(functions.at(step.kernel), step.grid[0], 1, 1,
                             step.block[0], 1, 1, step.dynamicSharedBytes,
                             stream.get(), params, nullptr),
              where + ": cuLaunchKernel");
          !status.ok())
        return status;
    } else {
      where += "kernel \"" + step.kernel + "\"";
      // kernelParams points at one CUdeviceptr per argument: a buffer's
      // address or that of a tensor map.
      std::vector<CUdeviceptr> pointers = set.launchArgs[i];
      std::vector<void *> params;
      for (CUdeviceptr &pointer : pointers)
        params.push_back(&pointer);
      if (pdl && launchesWithPdl(manifest, i, firstInSequence)) {
        // May start before the kernel before it ends; its
        // griddepcontrol.wait holds it until that kernel's writes are
        // visible.
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
        config.hStream = stream.get();
        config.attrs = &attribute;
        config.numAttrs = 1;
        if (Status status =
                cuCheck(cuLaunchKernelEx(&config, functions.at(step.kernel),
                                         params.data(), nullptr),
                        where + ": cuLaunchKernelEx (programmatic stream "
                                "serialization)");
            !status.ok())
          return status;
      } else if (Status status = cuCheck(
                     cuLaunchKernel(functions.at(step.kernel), step.grid[0],
                                    step.grid[1], step.grid[2], step.block[0],
                                    step.block[1], step.block[2],
                                    step.dynamicSharedBytes, stream.get(),
                                    params.data(), nullptr),
                     where + ": cuLaunchKernel");
                 !status.ok()) {
        return status;
      }
    }
    // Waiting after each step pins an asynchronous fault on its step.
    if (checked)
      if (Status status = cuCheck(cuStreamSynchronize(stream.get()),
                                  where + ": running it (cuStreamSynchronize)");
          !status.ok())
        return status;
  }
  return Status::success();
}

Status BundleRun::checkedRun() {
  for (size_t i = 0; i < manifest.inputs.size(); ++i) {
    const BufferSpec &buffer = manifest.buffers[manifest.inputs[i]];
    if (Status status = cuCheck(
            cuMemcpyHtoDAsync(set0.pointers[buffer.id], hostInputs[i].data(),
                              buffer.bytes, stream.get()),
            "input " + std::to_string(i) + " (" + describeBuffer(buffer) +
                "): cuMemcpyHtoDAsync");
        !status.ok())
      return status;
  }
  for (const BufferSpec &buffer : manifest.buffers) {
    if (buffer.role != BufferRole::Output &&
        buffer.role != BufferRole::Intermediate)
      continue;
    if (Status status =
            cuCheck(cuMemsetD8Async(set0.pointers[buffer.id], poisonByte,
                                    buffer.bytes, stream.get()),
                    describeBuffer(buffer) + ": cuMemsetD8Async");
        !status.ok())
      return status;
  }
  if (Status status = enqueueSteps(set0, /*checked=*/true); !status.ok())
    return status;

  std::vector<std::string> outputs;
  for (unsigned id : manifest.outputs) {
    const BufferSpec &buffer = manifest.buffers[id];
    outputs.emplace_back(buffer.bytes, '\0');
    if (Status status =
            cuCheck(cuMemcpyDtoHAsync(outputs.back().data(), set0.pointers[id],
                                      buffer.bytes, stream.get()),
                    describeBuffer(buffer) + ": cuMemcpyDtoHAsync");
        !status.ok())
      return status;
  }
  if (Status status = cuCheck(cuStreamSynchronize(stream.get()),
                              "reading the outputs (cuStreamSynchronize)");
      !status.ok())
    return status;
  bool hung = false;
  if (Status status = readMegaKernelStates("the checked run", hung);
      !status.ok())
    return status;

  if (compare) {
    CheckResult check;
    check.tolerance = manifest.reference->relL2Tolerance;
    check.pass = true;
    const double *expected = reference.data();
    for (size_t k = 0; k < manifest.outputs.size(); ++k) {
      const BufferSpec &buffer = manifest.buffers[manifest.outputs[k]];
      OutputCheck output = compareOutput(outputs[k].data(), buffer.dtype,
                                         buffer.elements, expected);
      output.buffer = buffer.id;
      output.name = buffer.name;
      check.pass &= output.passes(check.tolerance);
      check.outputs.push_back(std::move(output));
      expected += buffer.elements;
    }
    result.check = std::move(check);
  }

  if (options.dumpDir.empty())
    return Status::success();
  fs::path dir = fs::path(options.dumpDir) / manifest.name;
  std::error_code error;
  fs::create_directories(dir, error);
  if (error)
    return Status::error(dir.string() + ": cannot create: " + error.message());
  for (size_t k = 0; k < outputs.size(); ++k) {
    std::string path = (dir / ("output" + std::to_string(k) + ".bin")).string();
    if (Status status = writeFile(path, outputs[k].data(), outputs[k].size());
        !status.ok())
      return status;
  }
  return Status::success();
}

Status BundleRun::time() {
  if (options.replays == 0)
    return Status::error("timing needs at least one replay");
  // A kernel that hung once would most likely hang in every timed run, each
  // costing the deadline.
  if (megaKernelHung) {
    for (TimingMode mode : options.modes) {
      ModeTiming skipped;
      skipped.mode = mode;
      skipped.skipped = "a mega-kernel hung in the checked run";
      result.timings.push_back(std::move(skipped));
    }
    return Status::success();
  }
  size_t freeBytes = 0, totalBytes = 0;
  if (Status status =
          cuCheck(cuMemGetInfo(&freeBytes, &totalBytes), "cuMemGetInfo");
      !status.ok())
    return status;
  unsigned setCount =
      rotationSetCount(setBytes, info.l2Bytes, freeBytes, totalBytes);

  // Sets 1.. get set 0's inputs; their other buffers need no contents.
  std::vector<BufferSet> extraSets(setCount - 1);
  for (BufferSet &set : extraSets) {
    if (Status status = allocate(set); !status.ok())
      return std::move(status).withContext("timing buffer sets: ");
    for (unsigned id : manifest.inputs)
      if (Status status = cuCheck(
              cuMemcpyDtoDAsync(set.pointers[id], set0.pointers[id],
                                manifest.buffers[id].bytes, stream.get()),
              describeBuffer(manifest.buffers[id]) +
                  ": copying the input to a timing set (cuMemcpyDtoDAsync)");
          !status.ok())
        return status;
  }
  std::vector<const BufferSet *> sets = {&set0};
  for (const BufferSet &set : extraSets)
    sets.push_back(&set);

  Status firstError = Status::success();
  for (TimingMode mode : options.modes) {
    ModeTiming entry;
    entry.mode = mode;
    std::string name = timingModeName(mode);
    std::optional<std::string> refusal =
        mode == TimingMode::Pdl ? pdlRefusal(manifest) : std::nullopt;
    if (megaKernelHung) {
      entry.skipped = "a mega-kernel hung in an earlier timing mode";
    } else if (refusal) {
      entry.skipped = refusal;
    } else {
      Expected<TimingResult> timing = timeMode(mode, sets);
      if (timing) {
        timing->rotationSets = setCount;
        timing->setBytes = setBytes;
        entry.timing = *timing;
      } else {
        entry.error = timing.message();
        if (firstError.ok())
          firstError = Status::error(name + " timing: " + timing.message());
        // A fault in a kernel leaves the context unusable for every later
        // mode; other errors (a launch the driver refuses) spoil only this
        // one.
        if (!cuCheck(cuCtxSynchronize(), "cuCtxSynchronize").ok()) {
          result.timings.push_back(std::move(entry));
          return firstError;
        }
      }
      bool hung = false;
      if (Status status = readMegaKernelStates(name + " timing", hung);
          !status.ok()) {
        result.timings.push_back(std::move(entry));
        return status;
      }
      if (hung) {
        entry.timing.reset();
        entry.error = "a mega-kernel hung; the times are discarded";
      }
    }
    if (!result.timing && entry.timing)
      result.timing = entry.timing;
    result.timings.push_back(std::move(entry));
  }
  return firstError;
}

Expected<TimingResult>
BundleRun::timeMode(TimingMode mode,
                    const std::vector<const BufferSet *> &sets) {
  GraphPtr graph;
  GraphExecPtr exec;
  if (mode != TimingMode::Plain) {
    if (Status status = cuCheck(
            cuStreamBeginCapture(stream.get(), CU_STREAM_CAPTURE_MODE_GLOBAL),
            "cuStreamBeginCapture");
        !status.ok())
      return status;
    Status captured = Status::success();
    for (size_t k = 0; k < sets.size() && captured.ok(); ++k)
      captured = enqueueSteps(*sets[k], /*checked=*/false,
                              /*pdl=*/mode == TimingMode::Pdl,
                              /*firstInSequence=*/k == 0);
    // Capture must end even after a failure, or the stream stays capturing.
    CUresult ended = cuStreamEndCapture(stream.get(), graph.receive());
    if (!captured.ok())
      return std::move(captured).withContext("capturing the timing graph: ");
    if (Status status = cuCheck(ended, "cuStreamEndCapture"); !status.ok())
      return status;
    if (Status status =
            cuCheck(cuGraphInstantiate(exec.receive(), graph.get(), 0),
                    "cuGraphInstantiate");
        !status.ok())
      return status;
  }
  // One replay runs the steps once on every set.
  auto replay = [&]() -> Status {
    if (mode != TimingMode::Plain)
      return cuCheck(cuGraphLaunch(exec.get(), stream.get()), "cuGraphLaunch");
    for (const BufferSet *set : sets)
      if (Status status = enqueueSteps(*set, /*checked=*/false); !status.ok())
        return status;
    return Status::success();
  };

  std::vector<EventPtr> events(options.replays + 1);
  for (EventPtr &event : events)
    if (Status status = cuCheck(
            cuEventCreate(event.receive(), CU_EVENT_DEFAULT), "cuEventCreate");
        !status.ok())
      return status;
  // Everything is queued before the one wait, so the GPU runs the replays
  // back to back and the events time the GPU, not the launch calls (except
  // in plain mode, where launching may be slower than running).
  for (unsigned i = 0; i < options.warmup; ++i)
    if (Status status = replay(); !status.ok())
      return status;
  if (Status status = cuCheck(cuEventRecord(events[0].get(), stream.get()),
                              "cuEventRecord");
      !status.ok())
    return status;
  for (unsigned i = 0; i < options.replays; ++i) {
    if (Status status = replay(); !status.ok())
      return status;
    if (Status status = cuCheck(
            cuEventRecord(events[i + 1].get(), stream.get()), "cuEventRecord");
        !status.ok())
      return status;
  }
  if (Status status = cuCheck(cuStreamSynchronize(stream.get()),
                              "the timed replays (cuStreamSynchronize)");
      !status.ok())
    return status;

  std::vector<double> perRunUs;
  for (unsigned i = 0; i < options.replays; ++i) {
    float milliseconds = 0;
    if (Status status =
            cuCheck(cuEventElapsedTime(&milliseconds, events[i].get(),
                                       events[i + 1].get()),
                    "cuEventElapsedTime");
        !status.ok())
      return status;
    perRunUs.push_back(double(milliseconds) * 1000.0 / double(sets.size()));
  }
  return summarizeTimes(std::move(perRunUs));
}

//===----------------------------------------------------------------------===//
// Runner
//===----------------------------------------------------------------------===//

Expected<std::unique_ptr<Runner>> Runner::create(int ordinal) {
  if (Status status = cuCheck(cuInit(0), "cuInit"); !status.ok())
    return status;
  int count = 0;
  if (Status status = cuCheck(cuDeviceGetCount(&count), "cuDeviceGetCount");
      !status.ok())
    return status;
  if (ordinal < 0 || ordinal >= count)
    return Status::error("device " + std::to_string(ordinal) +
                         " does not exist (" + std::to_string(count) +
                         " devices)");
  std::unique_ptr<Runner> runner(new Runner());
  CUdevice device;
  if (Status status = cuCheck(cuDeviceGet(&device, ordinal), "cuDeviceGet");
      !status.ok())
    return status;
  if (Status status =
          cuCheck(cuDevicePrimaryCtxRetain(&runner->context, device),
                  "cuDevicePrimaryCtxRetain");
      !status.ok())
    return status;
  runner->device = device;
  if (Status status =
          cuCheck(cuCtxSetCurrent(runner->context), "cuCtxSetCurrent");
      !status.ok())
    return status;

  DeviceInfo &info = runner->info;
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
  return Expected<std::unique_ptr<Runner>>(std::move(runner));
}

Runner::~Runner() {
  if (context)
    cuDevicePrimaryCtxRelease(device);
}

BundleResult Runner::run(const std::string &bundleDir,
                         const RunOptions &options) {
  if (contextLost())
    return makeBundleResult(bundleDir,
                            "the CUDA context was lost to an earlier "
                            "failure: " +
                                lostContext);
  BundleResult result = makeBundleResult(bundleDir);
  Status status = BundleRun(bundleDir, options, info, result).run();
  if (status.ok())
    return result;
  result.error = status.message();
  // Faults in kernels are sticky: the context (and CUDA in this process)
  // stays unusable, which a synchronization tells.
  if (Status state = cuCheck(cuCtxSynchronize(), "cuCtxSynchronize");
      !state.ok())
    lostContext = state.message();
  return result;
}
