//===- MegaKernel.cpp - Running mega-kernels, the device-free part --------===//
//
// Part of the Mirage MLIR project.
//
//===----------------------------------------------------------------------===//

#include "mirage_runtime/MegaKernel.h"

#include <algorithm>
#include <limits>
#include <map>
#include <tuple>

using namespace mirage::runtime;

std::vector<KernelTrace>
mirage::runtime::summarizeTrace(const Manifest &manifest, const Step &step,
                                const std::vector<uint64_t> &trace) {
  const MegaKernelSpec &mega = step.mega;
  // Per task-graph kernel, the bytes of its buffers (its address-table
  // entries, the kernels' in order).
  std::vector<uint64_t> kernelBytes;
  size_t entry = 0;
  for (int32_t buffers : mega.taskKernelBuffers) {
    uint64_t bytes = 0;
    for (int32_t b = 0; b < buffers && entry < mega.addressTable.size(); ++b)
      bytes += manifest.buffers[mega.addressTable[entry++]].bytes;
    kernelBytes.push_back(bytes);
  }
  size_t tasks = std::min(mega.taskCount(), trace.size() / tracePoints);
  uint64_t origin = std::numeric_limits<uint64_t>::max();
  for (size_t task = 0; task < tasks; ++task)
    origin = std::min(origin, trace[task * tracePoints + WaitBegan]);
  auto micros = [&](uint64_t ns) { return double(ns - origin) / 1000.0; };
  std::map<int32_t, KernelTrace> byKernel;
  for (size_t task = 0; task < tasks; ++task) {
    const uint64_t *times = &trace[task * tracePoints];
    int32_t kernel = mega.field(task, TaskField::Kernel);
    auto [it, inserted] = byKernel.try_emplace(kernel);
    KernelTrace &entry = it->second;
    if (inserted) {
      entry.kernel = kernel >= 0 && size_t(kernel) < mega.taskKernels.size()
                         ? mega.taskKernels[size_t(kernel)]
                     : kernel < 0 ? "(empty)"
                                  : "kernel " + std::to_string(kernel);
      entry.firstBodyUs = micros(times[BodyBegan]);
      entry.firstWaitEndUs = micros(times[WaitEnded]);
      if (kernel >= 0 && size_t(kernel) < kernelBytes.size())
        entry.bytes = kernelBytes[size_t(kernel)];
    }
    ++entry.tasks;
    entry.firstBodyUs = std::min(entry.firstBodyUs, micros(times[BodyBegan]));
    entry.lastEndUs = std::max(entry.lastEndUs, micros(times[BodyEnded]));
    entry.firstWaitEndUs =
        std::min(entry.firstWaitEndUs, micros(times[WaitEnded]));
    entry.lastSignalUs = std::max(entry.lastSignalUs, micros(times[Signalled]));
    entry.waitUs += double(times[BodyBegan] - times[WaitBegan]) / 1000.0;
    entry.bodyUs += double(times[BodyEnded] - times[BodyBegan]) / 1000.0;
    entry.signalUs += double(times[Signalled] - times[BodyEnded]) / 1000.0;
  }
  std::vector<KernelTrace> result;
  for (auto &[kernel, entry] : byKernel)
    result.push_back(entry);
  std::sort(result.begin(), result.end(),
            [](const KernelTrace &a, const KernelTrace &b) {
              return std::tie(a.firstBodyUs, a.kernel) <
                     std::tie(b.firstBodyUs, b.kernel);
            });
  return result;
}

std::string mirage::runtime::describeHang(const Step &step,
                                          const MegaKernelState &state,
                                          uint64_t deadlineMs) {
  const MegaKernelSpec &mega = step.mega;
  // The kernel stores int32 fields sign-extended.
  auto word = [&](StateWord which) { return int64_t(state[which]); };
  int64_t task = word(FailedTask), event = word(FailedEvent);
  int64_t count = word(FailedCount), target = word(FailedTarget);

  std::string text = "mega-kernel hang: task " + std::to_string(task);
  if (task >= 0 && uint64_t(task) < mega.taskCount()) {
    int32_t kernel = mega.field(size_t(task), TaskField::Kernel);
    if (kernel < 0) {
      text += " (no kernel)";
    } else {
      std::string name = uint64_t(kernel) < mega.taskKernels.size()
                             ? mega.taskKernels[size_t(kernel)]
                             : "kernel " + std::to_string(kernel);
      text +=
          " (" + name + ", block [" +
          std::to_string(mega.field(size_t(task), TaskField::BlockX)) + ", " +
          std::to_string(mega.field(size_t(task), TaskField::BlockY)) + ", " +
          std::to_string(mega.field(size_t(task), TaskField::BlockZ)) + "])";
    }
  }
  text += " on worker " + std::to_string(word(FailedWorker)) +
          " waited more than " + std::to_string(deadlineMs) + " ms on event " +
          std::to_string(event) + ": ";
  if (event >= 0 && uint64_t(event) < mega.eventCount()) {
    // The wait's target is (epoch + 1) * needed: the run's triggers are
    // those above epoch * needed.
    int64_t needed = mega.needed[size_t(event)];
    text += std::to_string(count - (target - needed)) + " of " +
            std::to_string(needed) + " triggers this run";
  } else {
    text += "counter " + std::to_string(count) + ", waiting for " +
            std::to_string(target);
  }
  return text;
}

std::string mirage::runtime::describeResidencyRefusal(
    const std::string &kernel, uint64_t workers, int perSM, uint32_t threads,
    uint64_t sharedBytes, int registers, int smCount) {
  return "mega-kernel \"" + kernel + "\": " + std::to_string(workers) +
         " workers cannot all be resident: " + std::to_string(perSM) +
         (perSM == 1 ? " CTA" : " CTAs") + " of " + std::to_string(threads) +
         " threads with " + std::to_string(sharedBytes) +
         " B of shared memory and " + std::to_string(registers) +
         " registers per thread " + (perSM == 1 ? "fits" : "fit") +
         " per SM, " + std::to_string(smCount) +
         " SMs (the workers wait on each other, so all of them must run at "
         "once: a waiting worker would keep one not yet started off its SM "
         "forever)";
}

std::optional<std::string>
mirage::runtime::pdlRefusal(const Manifest &manifest) {
  bool anyLaunch = false;
  for (size_t i = 0; i < manifest.steps.size(); ++i) {
    const Step &step = manifest.steps[i];
    if (step.kind != Step::Kind::Launch)
      continue;
    anyLaunch = true;
    if (!manifest.kernel(step.kernel).pdl)
      return "kernel \"" + step.kernel + "\" (steps[" + std::to_string(i) +
             "]) is not marked \"pdl\": it may read its inputs before the "
             "kernel before it has written them";
  }
  if (!anyLaunch)
    return std::string("the bundle has no launch steps (mega-kernel steps "
                       "launch normally in every mode)");
  for (size_t i = 0; i < manifest.steps.size(); ++i)
    if (launchesWithPdl(manifest, i))
      return std::nullopt;
  return std::string("no launch step follows another launch step, so "
                     "programmatic dependent launch would change nothing");
}

bool mirage::runtime::launchesWithPdl(const Manifest &manifest, size_t index) {
  const std::vector<Step> &steps = manifest.steps;
  if (index == 0 || steps[index].kind != Step::Kind::Launch ||
      !manifest.kernel(steps[index].kernel).pdl)
    return false;
  return steps[index - 1].kind == Step::Kind::Launch;
}
