//===- Executable.cpp - A bundle on the caller's buffers and stream -------===//
//
// Part of the Mirage MLIR project.
//
//===----------------------------------------------------------------------===//

#include "mirage_runtime/Executable.h"

#include "Driver.h"

using namespace mirage::runtime;
using namespace mirage::runtime::driver;

struct Executable::State {
  Manifest manifest;
  LoadedKernels kernels;
  /// The buffers with storage that are neither inputs nor outputs, by
  /// buffer id: allocated at the first run and kept.
  std::vector<DeviceMemory> intermediates;
  /// Bound to the caller's addresses of the last run (tensor maps hold
  /// addresses, so a run at other addresses binds again).
  BufferSet set;
  std::vector<CUdeviceptr> bound;
  bool hasSet = false;
};

Executable::Executable(std::unique_ptr<State> state)
    : state(std::move(state)) {}
Executable::~Executable() = default;

const Manifest &Executable::getManifest() const { return state->manifest; }

Expected<std::unique_ptr<Executable>>
Executable::load(const std::string &bundleDir) {
  if (Status status = cuCheck(cuInit(0), "cuInit"); !status.ok())
    return status;
  CUcontext context = nullptr;
  if (Status status = cuCheck(cuCtxGetCurrent(&context), "cuCtxGetCurrent");
      !status.ok())
    return status;
  if (!context) {
    // No framework made a context current: device 0's primary context, the
    // one the CUDA runtime (and PyTorch) would use. It stays retained.
    CUdevice first;
    if (Status status = cuCheck(cuDeviceGet(&first, 0), "cuDeviceGet");
        !status.ok())
      return status;
    if (Status status = cuCheck(cuDevicePrimaryCtxRetain(&context, first),
                                "cuDevicePrimaryCtxRetain");
        !status.ok())
      return status;
    if (Status status = cuCheck(cuCtxSetCurrent(context), "cuCtxSetCurrent");
        !status.ok())
      return status;
  }
  CUdevice device;
  if (Status status = cuCheck(cuCtxGetDevice(&device), "cuCtxGetDevice");
      !status.ok())
    return status;
  Expected<DeviceInfo> info = queryDevice(device);
  if (!info)
    return info.status();

  auto state = std::make_unique<State>();
  Expected<Manifest> manifest = loadManifest(bundleDir);
  if (!manifest)
    return manifest.status();
  state->manifest = std::move(*manifest);
  for (const Step &step : state->manifest.steps)
    if (step.kind == Step::Kind::MegaKernel)
      return Status::error(bundleDir + ": mega-kernel \"" + step.kernel +
                           "\": mega-kernel bundles run through mirage-run "
                           "only, not on a caller's buffers");
  if (Status status =
          loadKernels(state->manifest, bundleDir, *info, state->kernels);
      !status.ok())
    return status;
  return std::unique_ptr<Executable>(new Executable(std::move(state)));
}

Status Executable::run(const std::vector<uint64_t> &inputs,
                       const std::vector<uint64_t> &outputs,
                       CUstream_st *stream) {
  const Manifest &manifest = state->manifest;
  if (inputs.size() != manifest.inputs.size() ||
      outputs.size() != manifest.outputs.size())
    return Status::error(
        manifest.name + ": takes " + std::to_string(manifest.inputs.size()) +
        " inputs and " + std::to_string(manifest.outputs.size()) +
        " outputs, got " + std::to_string(inputs.size()) + " and " +
        std::to_string(outputs.size()));
  // The caller's addresses by buffer id (0 for the other buffers).
  std::vector<CUdeviceptr> callers(manifest.buffers.size(), 0);
  auto give = [&](const std::vector<unsigned> &ids,
                  const std::vector<uint64_t> &addresses,
                  const char *what) -> Status {
    for (size_t i = 0; i < ids.size(); ++i) {
      const BufferSpec &buffer = manifest.buffers[ids[i]];
      if (!addresses[i])
        return Status::error(manifest.name + ": " + what + " " +
                             std::to_string(i) + " has a null address");
      if (buffer.base)
        return Status::error(manifest.name + ": " + what + " " +
                             std::to_string(i) + " (" + describeBuffer(buffer) +
                             ") is a view of another buffer");
      callers[buffer.id] = CUdeviceptr(addresses[i]);
    }
    return Status::success();
  };
  if (Status status = give(manifest.inputs, inputs, "input"); !status.ok())
    return status;
  if (Status status = give(manifest.outputs, outputs, "output"); !status.ok())
    return status;

  if (!state->hasSet || callers != state->bound) {
    if (!state->hasSet) {
      BufferSet first;
      if (Status status = bindBuffers(manifest, callers, first); !status.ok())
        return status;
      state->intermediates = std::move(first.storage);
    }
    std::vector<CUdeviceptr> given = callers;
    for (const BufferSpec &buffer : manifest.buffers)
      if (!buffer.base && !given[buffer.id])
        given[buffer.id] = state->intermediates[buffer.id].get();
    BufferSet set;
    if (Status status = bindBuffers(manifest, given, set); !status.ok())
      return status;
    if (Status status = prepareLaunchArgs(manifest, set, stream); !status.ok())
      return status;
    state->set = std::move(set);
    state->bound = std::move(callers);
    state->hasSet = true;
  }
  for (size_t i = 0; i < manifest.steps.size(); ++i)
    if (Status status = enqueueStep(manifest, i, state->kernels, state->set,
                                    stream, /*pdl=*/false,
                                    /*firstInSequence=*/true);
        !status.ok())
      return status;
  return Status::success();
}
