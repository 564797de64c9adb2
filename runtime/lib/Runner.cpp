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

#include "Driver.h"
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
using namespace mirage::runtime::driver;
namespace fs = std::filesystem;

namespace {

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
  Status upload(DeviceMemory &memory, const void *data, uint64_t bytes,
                const std::string &what) {
    return driver::upload(memory, data, bytes, what, stream.get());
  }
  Status setUpMegaKernels();
  Status readMegaKernelStates(const std::string &during, bool &hung);
  /// Keeps each mega-kernel's trace of the last run, per kernel.
  Status readMegaKernelTraces();
  /// Runs the steps once on `set` with the mega-kernels tracing, and keeps
  /// their traces (timed runs record none).
  Status runTraced(const BufferSet &set);
  bool traceMegaKernels = false;
  Status enqueueSteps(const BufferSet &set, bool checked, bool pdl = false);
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
  LoadedKernels kernels;
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
  if (Status status = loadKernels(manifest, bundleDir, info, kernels);
      !status.ok())
    return status;
  result.binary = kernels.binary;
  // After the shared memory limits: occupancy depends on them.
  for (const Step &step : manifest.steps)
    if (step.kind == Step::Kind::MegaKernel)
      if (Status status = checkResidency(step, kernels, info); !status.ok())
        return status;
  return Status::success();
}

Status BundleRun::setUpMegaKernels() {
  for (MegaKernelDevice &device : megaKernels)
    if (Status status = setUpMegaKernel(manifest, device, stream.get());
        !status.ok())
      return status;
  return Status::success();
}

Status BundleRun::readMegaKernelStates(const std::string &during, bool &hung) {
  hung = false;
  for (size_t m = 0; m < megaKernels.size(); ++m) {
    MegaKernelDevice &device = megaKernels[m];
    bool deviceHung = false;
    if (Status status = readMegaKernelState(device, stream.get(), deviceHung);
        !status.ok())
      return Status::error("after " + during + ": " + status.message());
    if (!deviceHung)
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
  }
  return Status::success();
}

Status BundleRun::readMegaKernelTraces() {
  for (size_t m = 0; m < megaKernels.size(); ++m) {
    std::vector<uint64_t> trace;
    if (Status status =
            readMegaKernelTrace(manifest, megaKernels[m], stream.get(), trace);
        !status.ok())
      return status;
    result.megaKernels[m].trace =
        summarizeTrace(manifest, manifest.steps[megaKernels[m].step], trace);
  }
  return Status::success();
}

Status BundleRun::allocate(BufferSet &set) {
  if (Status status = bindBuffers(manifest, {}, set); !status.ok())
    return status;
  if (Status status =
          uploadAddressTables(manifest, megaKernels, set, stream.get());
      !status.ok())
    return status;
  return prepareLaunchArgs(manifest, set, stream.get());
}

Status BundleRun::enqueueSteps(const BufferSet &set, bool checked, bool pdl) {
  for (size_t i = 0; i < manifest.steps.size(); ++i) {
    const Step &step = manifest.steps[i];
    std::string where = "steps[" + std::to_string(i) + "]: ";
    if (step.kind == Step::Kind::MegaKernel) {
      where += "mega-kernel \"" + step.kernel + "\"";
      if (Status status =
              launchMegaKernel(manifest, megaKernels[megaKernelOf[i]],
                               set.addressTables[megaKernelOf[i]].get(),
                               kernels, stream.get(), traceMegaKernels);
          !status.ok())
        return status;
    } else {
      where += step.kind == Step::Kind::Copy
                   ? "copy of buffer " + std::to_string(step.src) + " to " +
                         std::to_string(step.dst)
                   : "kernel \"" + step.kernel + "\"";
      if (Status status =
              enqueueStep(manifest, i, kernels, set, stream.get(), pdl);
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
  // One more run, untimed, with the mega-kernels recording their trace.
  if (!megaKernels.empty() && !megaKernelHung && firstError.ok())
    if (Status status = runTraced(set0); !status.ok())
      return status;
  return firstError;
}

Status BundleRun::runTraced(const BufferSet &set) {
  traceMegaKernels = true;
  Status status = enqueueSteps(set, /*checked=*/false);
  traceMegaKernels = false;
  if (!status.ok())
    return std::move(status).withContext("the traced run: ");
  bool hung = false;
  if (Status state = readMegaKernelStates("the traced run", hung); !state.ok())
    return state;
  return hung ? Status::success() : readMegaKernelTraces();
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
    // Each set is one call of the bundle: its first kernel waits for the
    // set before it, as a call waits for what ran before it.
    for (size_t k = 0; k < sets.size() && captured.ok(); ++k)
      captured = enqueueSteps(*sets[k], /*checked=*/false,
                              /*pdl=*/mode == TimingMode::Pdl);
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

  Expected<DeviceInfo> info = queryDevice(device);
  if (!info)
    return info.status();
  runner->info = std::move(*info);
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
