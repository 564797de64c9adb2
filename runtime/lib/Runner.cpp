//===- Runner.cpp - Runs bundles on a GPU ---------------------------------===//
//
// Part of the Mirage MLIR project.
//
// Everything runs on one non-blocking stream with asynchronous copies and
// memsets, so nothing depends on the legacy default stream and the same
// step enqueueing serves the checked run and the graph capture.
//
//===----------------------------------------------------------------------===//

#include "mirage_runtime/Runner.h"

#include "mirage_runtime/Manifest.h"

#include <cuda.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <map>
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
};

std::string describeBuffer(const BufferSpec &buffer) {
  return "buffer " + std::to_string(buffer.id) + " (\"" + buffer.name + "\")";
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
  Status allocate(BufferSet &set);
  Status enqueueSteps(const BufferSet &set, bool checked);
  Status checkedRun();
  Status time();

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
};

} // namespace

Status BundleRun::run() {
  Expected<Manifest> loaded = loadManifest(bundleDir);
  if (!loaded)
    return loaded.status();
  manifest = std::move(*loaded);
  result.name = manifest.name;
  result.kernels = manifest.kernelsJson;

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
    if (step.kind == Step::Kind::Launch)
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
  return Status::success();
}

Status BundleRun::enqueueSteps(const BufferSet &set, bool checked) {
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
    } else {
      where += "kernel \"" + step.kernel + "\"";
      // kernelParams points at one CUdeviceptr per argument.
      std::vector<CUdeviceptr> pointers;
      for (unsigned id : step.args)
        pointers.push_back(set.pointers[id]);
      std::vector<void *> params;
      for (CUdeviceptr &pointer : pointers)
        params.push_back(&pointer);
      if (Status status =
              cuCheck(cuLaunchKernel(functions.at(step.kernel), step.grid[0],
                                     step.grid[1], step.grid[2], step.block[0],
                                     step.block[1], step.block[2],
                                     step.dynamicSharedBytes, stream.get(),
                                     params.data(), nullptr),
                      where + ": cuLaunchKernel");
          !status.ok())
        return status;
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
  size_t freeBytes = 0, totalBytes = 0;
  if (Status status =
          cuCheck(cuMemGetInfo(&freeBytes, &totalBytes), "cuMemGetInfo");
      !status.ok())
    return status;
  unsigned sets =
      rotationSetCount(setBytes, info.l2Bytes, freeBytes, totalBytes);

  // Sets 1.. get set 0's inputs; their other buffers need no contents.
  std::vector<BufferSet> extraSets(sets - 1);
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

  GraphPtr graph;
  if (Status status = cuCheck(
          cuStreamBeginCapture(stream.get(), CU_STREAM_CAPTURE_MODE_GLOBAL),
          "cuStreamBeginCapture");
      !status.ok())
    return status;
  Status captured = enqueueSteps(set0, /*checked=*/false);
  for (const BufferSet &set : extraSets)
    if (captured.ok())
      captured = enqueueSteps(set, /*checked=*/false);
  // Capture must end even after a failure, or the stream stays capturing.
  CUresult ended = cuStreamEndCapture(stream.get(), graph.receive());
  if (!captured.ok())
    return std::move(captured).withContext("capturing the timing graph: ");
  if (Status status = cuCheck(ended, "cuStreamEndCapture"); !status.ok())
    return status;
  GraphExecPtr exec;
  if (Status status =
          cuCheck(cuGraphInstantiate(exec.receive(), graph.get(), 0),
                  "cuGraphInstantiate");
      !status.ok())
    return status;

  std::vector<EventPtr> events(options.replays + 1);
  for (EventPtr &event : events)
    if (Status status = cuCheck(
            cuEventCreate(event.receive(), CU_EVENT_DEFAULT), "cuEventCreate");
        !status.ok())
      return status;
  // Everything is queued before the one wait, so the GPU runs the replays
  // back to back and the events time the GPU, not the launch calls.
  for (unsigned i = 0; i < options.warmup; ++i)
    if (Status status =
            cuCheck(cuGraphLaunch(exec.get(), stream.get()), "cuGraphLaunch");
        !status.ok())
      return status;
  if (Status status = cuCheck(cuEventRecord(events[0].get(), stream.get()),
                              "cuEventRecord");
      !status.ok())
    return status;
  for (unsigned i = 0; i < options.replays; ++i) {
    if (Status status =
            cuCheck(cuGraphLaunch(exec.get(), stream.get()), "cuGraphLaunch");
        !status.ok())
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
    perRunUs.push_back(double(milliseconds) * 1000.0 / sets);
  }
  TimingResult timing = summarizeTimes(std::move(perRunUs));
  timing.rotationSets = sets;
  timing.setBytes = setBytes;
  result.timing = timing;
  return Status::success();
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
