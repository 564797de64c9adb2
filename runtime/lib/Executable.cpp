//===- Executable.cpp - A bundle on the caller's buffers and stream -------===//
//
// Part of the Mirage MLIR project.
//
//===----------------------------------------------------------------------===//

#include "mirage_runtime/Executable.h"

#include "Driver.h"

#include <map>

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
  /// The mega-kernel steps, in step order, and by step the index of each
  /// among them (-1: another kind).
  std::vector<MegaKernelDevice> megaKernels;
  std::vector<int> megaKernelOf;
  /// The mega-kernels' address tables: one slot per distinct binding of the
  /// caller's addresses, holding every mega-kernel step's table side by
  /// side (tableOffsets, in words). A slot is written once, when its
  /// binding first runs, by a copy on the executable's own stream that the
  /// host waits for, and is never given to other addresses: a run, or a
  /// CUDA graph captured from one, reads its slot with no copy of its own
  /// (a copy in the caller's stream would be captured and replayed every
  /// time, and memsets per word cost about a microsecond each in a graph).
  /// Pools of slots are added outside captures and never freed before the
  /// executable.
  std::vector<DeviceMemory> slotPools;
  std::vector<size_t> tableOffsets;
  size_t slotWords = 0, slotsUsed = 0;
  std::map<std::vector<CUdeviceptr>, CUdeviceptr> slotOf;
  CUdeviceptr slot = 0;
  StreamPtr uploadStream;

  Expected<CUdeviceptr> writeSlot(CUstream stream);
};

/// Slots per pool: distinct bindings are few when a framework's allocator
/// reuses its blocks.
static constexpr size_t slotsPerPool = 64;

Expected<CUdeviceptr> Executable::State::writeSlot(CUstream stream) {
  if (slotsUsed == slotPools.size() * slotsPerPool) {
    CUstreamCaptureStatus capturing = CU_STREAM_CAPTURE_STATUS_NONE;
    if (Status status = cuCheck(cuStreamIsCapturing(stream, &capturing),
                                "cuStreamIsCapturing");
        !status.ok())
      return status;
    if (capturing != CU_STREAM_CAPTURE_STATUS_NONE)
      return Status::error(
          manifest.name + ": " + std::to_string(slotsUsed) +
          " distinct sets of buffer addresses used its mega-kernel; a new "
          "one needs memory for its address table, which cannot be "
          "allocated while a CUDA graph is captured (run once at these "
          "addresses before capturing)");
    DeviceMemory &pool = slotPools.emplace_back();
    if (Status status = cuCheck(
            cuMemAlloc(pool.receive(),
                       allocationBytes(slotsPerPool * slotWords * 8)),
            manifest.name + ": cuMemAlloc of mega-kernel address tables");
        !status.ok())
      return status;
  }
  CUdeviceptr address = slotPools[slotsUsed / slotsPerPool].get() +
                        (slotsUsed % slotsPerPool) * slotWords * 8;
  ++slotsUsed;
  std::vector<uint64_t> words(slotWords);
  for (size_t m = 0; m < megaKernels.size(); ++m) {
    const std::vector<unsigned> &ids =
        manifest.steps[megaKernels[m].step].mega.addressTable;
    for (size_t j = 0; j < ids.size(); ++j)
      words[tableOffsets[m] + j] = uint64_t(set.pointers[ids[j]]);
  }
  if (!uploadStream.get())
    if (Status status = cuCheck(
            cuStreamCreate(uploadStream.receive(), CU_STREAM_NON_BLOCKING),
            manifest.name + ": cuStreamCreate");
        !status.ok())
      return status;
  // While the caller's stream is captured (global mode forbids waiting
  // on a stream), this thread relaxes its capture mode for the copy: the
  // upload stream is not captured, so the copy runs now, not in the graph.
  CUstreamCaptureMode mode = CU_STREAM_CAPTURE_MODE_RELAXED;
  if (Status status = cuCheck(cuThreadExchangeStreamCaptureMode(&mode),
                              "cuThreadExchangeStreamCaptureMode");
      !status.ok())
    return status;
  Status copied =
      cuCheck(cuMemcpyHtoDAsync(address, words.data(), words.size() * 8,
                                uploadStream.get()),
              manifest.name + ": writing an address table (cuMemcpyHtoDAsync)");
  if (copied.ok())
    copied = cuCheck(cuStreamSynchronize(uploadStream.get()),
                     manifest.name + ": writing an address table "
                                     "(cuStreamSynchronize)");
  cuThreadExchangeStreamCaptureMode(&mode);
  if (!copied.ok())
    return copied;
  return address;
}

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
  if (Status status =
          loadKernels(state->manifest, bundleDir, *info, state->kernels);
      !status.ok())
    return status;
  // A mega-kernel's tables, counters and state are set up once; its
  // counters are epoch-based, so runs need no reset.
  const std::vector<Step> &steps = state->manifest.steps;
  state->megaKernelOf.assign(steps.size(), -1);
  for (size_t i = 0; i < steps.size(); ++i) {
    if (steps[i].kind != Step::Kind::MegaKernel)
      continue;
    if (Status status = checkResidency(steps[i], state->kernels, *info);
        !status.ok())
      return status;
    state->megaKernelOf[i] = int(state->megaKernels.size());
    MegaKernelDevice &device = state->megaKernels.emplace_back();
    device.step = i;
    device.deadlineMs = steps[i].mega.deadlineMs;
    if (Status status =
            setUpMegaKernel(state->manifest, device, /*stream=*/nullptr);
        !status.ok())
      return status;
    state->tableOffsets.push_back(state->slotWords);
    state->slotWords += steps[i].mega.addressTable.size();
  }
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
  if (std::optional<std::string> overlap =
          findArgumentOverlap(manifest, inputs, outputs))
    return Status::error(*overlap);

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
    state->bound = callers;
    state->hasSet = true;
    if (!state->megaKernels.empty()) {
      CUdeviceptr &slot = state->slotOf[callers];
      if (!slot) {
        Expected<CUdeviceptr> written = state->writeSlot(stream);
        if (!written)
          return written.status();
        slot = *written;
      }
      state->slot = slot;
    }
  }
  for (size_t i = 0; i < manifest.steps.size(); ++i) {
    int mega = state->megaKernelOf[i];
    Status status =
        mega >= 0 ? launchMegaKernel(manifest, state->megaKernels[size_t(mega)],
                                     state->slot +
                                         state->tableOffsets[size_t(mega)] * 8,
                                     state->kernels, stream)
                  // Programmatic dependent launch where launchesWithPdl
                  // allows it, on a created stream only: the legacy default
                  // stream (null) gets plain launches.
                  : enqueueStep(manifest, i, state->kernels, state->set, stream,
                                /*pdl=*/stream != nullptr);
    if (!status.ok())
      return status;
  }
  return Status::success();
}

Status Executable::check(CUstream_st *stream) {
  for (MegaKernelDevice &device : state->megaKernels) {
    bool hung = false;
    if (Status status = readMegaKernelState(device, stream, hung); !status.ok())
      return status;
    if (hung)
      return Status::error(
          state->manifest.name + ": " +
          describeHang(state->manifest.steps[device.step], device.readBack,
                       device.deadlineMs) +
          " (the outputs of the runs since the last check are not valid)");
  }
  return Status::success();
}

bool Executable::hasMegaKernel() const { return !state->megaKernels.empty(); }
