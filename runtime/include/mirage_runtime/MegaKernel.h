//===- MegaKernel.h - Running mega-kernels, the device-free part -*- C++
//-*-===//
//
// Part of the Mirage MLIR project.
//
// A mega-kernel step (manifest version 2, docs/Bundle.md) launches one
// persistent kernel whose CTAs ("workers") each run a static queue of tasks,
// waiting on event counters in device memory. This header holds what the
// runner needs about it that involves no GPU, so that tests cover it: the
// layout of the kernel's state words, the words as messages (a wait that ran
// past its deadline; a grid that cannot be resident), the deadline in the
// kernel's units, and which steps programmatic dependent launch may apply
// to.
//
//===----------------------------------------------------------------------===//

#ifndef MIRAGE_RUNTIME_MEGAKERNEL_H
#define MIRAGE_RUNTIME_MEGAKERNEL_H

#include "mirage_runtime/Manifest.h"
#include "mirage_runtime/Results.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mirage::runtime {

/// The kernel's parameters, in order; each is one device pointer.
enum MegaKernelParam : unsigned {
  /// u64 per address_table entry: its buffer's device address.
  AddressTableParam,
  TasksParam,
  QueueStartsParam,
  QueuesParam,
  NeededParam,
  /// u64 per event: triggers so far, over all runs (never reset).
  CountersParam,
  /// u64[megaKernelStateWords] (StateWord order).
  StateParam,
  /// u64[tracePoints] per task (TracePoint order), or null: the
  /// %globaltimer nanoseconds of the task in the last run.
  TraceParam,
  /// i32 per entry of event_lists.
  EventListsParam,
  megaKernelParams
};

/// The words of the kernel's state buffer. It persists across runs like the
/// counters: a wait of run `Epoch` needs counter >= (Epoch + 1) * needed.
enum StateWord : unsigned {
  /// Runs completed.
  Epoch,
  /// Workers done with the current run.
  Finished,
  /// Nonzero once a wait ran past the deadline; the next five describe the
  /// first such wait.
  Failed,
  FailedTask,
  FailedEvent,
  /// The raw counter value the wait saw, and the value it waited for.
  FailedCount,
  FailedTarget,
  FailedWorker,
  /// Nanoseconds a wait may take (0: no limit), written by the runtime.
  Deadline,
  /// Tasks claimed over all runs (kernels compiled with dynamic dispatch).
  NextTask,
  megaKernelStateWords
};

using MegaKernelState = std::array<uint64_t, megaKernelStateWords>;

/// The Deadline word for a deadline in milliseconds.
inline uint64_t deadlineNanoseconds(uint64_t milliseconds) {
  return milliseconds * 1000000;
}

/// What the kernel records per task when given a trace buffer: when thread
/// 0 began to wait for the task's events, when it saw them complete (or gave
/// up), when
/// the body began, when its writes were done and when its signals were
/// issued.
enum TracePoint : unsigned {
  WaitBegan,
  WaitEnded,
  BodyBegan,
  BodyEnded,
  Signalled,
  tracePoints
};

/// The trace of mega-kernel step `step` of `manifest` (tracePoints words
/// per task), per task-graph kernel in the order their first bodies began.
std::vector<KernelTrace> summarizeTrace(const Manifest &manifest,
                                        const Step &step,
                                        const std::vector<uint64_t> &trace);

/// The hang that `state` records for mega-kernel `step`: "mega-kernel hang:
/// task 812 (k5_matmul, block [3, 0, 0]) on worker 17 waited more than
/// 2000 ms on event 97: 3 of 4 triggers this run". Words out of range (the
/// state of another kernel) are shown raw rather than trusted.
std::string describeHang(const Step &step, const MegaKernelState &state,
                         uint64_t deadlineMs);

/// Why a mega-kernel of `workers` CTAs cannot run when only `perSM` fit on
/// each of `smCount` SMs: all workers must be resident at once.
std::string describeResidencyRefusal(const std::string &kernel,
                                     uint64_t workers, int perSM,
                                     uint32_t threads, uint64_t sharedBytes,
                                     int registers, int smCount);

/// Why `manifest`'s steps cannot be timed with programmatic dependent launch
/// (a launch step whose kernel is not marked "pdl", no launch step at all,
/// or none that follows another launch step), or nothing when they can.
std::optional<std::string> pdlRefusal(const Manifest &manifest);

/// Whether step `index` is launched with programmatic stream serialization
/// where launches may be (`mirage-run`'s `pdl` timing, the Executable on a
/// created stream): a launch step that directly follows another launch step
/// of the bundle. The first step never is: a kernel copies the bundle's
/// inputs before its griddepcontrol.wait, and whatever ran before the bundle
/// may have written them. Mega-kernel steps, and launches after copies or
/// mega-kernels, are launched normally.
bool launchesWithPdl(const Manifest &manifest, size_t index);

} // namespace mirage::runtime

#endif // MIRAGE_RUNTIME_MEGAKERNEL_H
