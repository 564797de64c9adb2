//===- Results.h - Checking, timing numbers and result files ----*- C++ -*-===//
//
// Part of the Mirage MLIR project.
//
// The parts of running a bundle that need no GPU: comparing outputs with the
// float64 reference, sizing the timing rotation, summarizing replay times,
// and the result records with their JSON. Kept apart from the Runner so that
// tests run them on hosts without a GPU or driver.
//
//===----------------------------------------------------------------------===//

#ifndef MIRAGE_RUNTIME_RESULTS_H
#define MIRAGE_RUNTIME_RESULTS_H

#include "mirage_runtime/DType.h"
#include "mirage_runtime/Json.h"
#include "mirage_runtime/Status.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mirage::runtime {

/// Runners fill outputs and intermediates with this byte before running, so
/// an element whose bits are all ones was never written.
constexpr uint8_t poisonByte = 0xFF;

/// One output compared with its reference. relL2 and maxAbs cover the
/// elements that were written and are finite; the others are counted.
struct OutputCheck {
  unsigned buffer = 0;
  std::string name;
  uint64_t elements = 0;
  double relL2 = 0;
  double maxAbs = 0;
  uint64_t nonFinite = 0;
  uint64_t unwritten = 0;

  bool passes(double tolerance) const {
    return relL2 <= tolerance && nonFinite == 0 && unwritten == 0;
  }
};

/// Compares `elements` elements of `dtype` at `data` with `reference`, in
/// double. ‖ref‖ = 0 gives relL2 0 when the output is zero too, else inf.
OutputCheck compareOutput(const void *data, DType dtype, uint64_t elements,
                          const double *reference);

/// The number R of buffer sets the timing rotates through: the smallest with
/// R * setBytes >= 2 * l2Bytes, at least 2 and at most 64, and no more than
/// fit beside the set already allocated while leaving 10% of `totalBytes`
/// free (1 when not even a second set fits).
unsigned rotationSetCount(uint64_t setBytes, uint64_t l2Bytes,
                          uint64_t freeBytes, uint64_t totalBytes);

struct TimingResult {
  double medianUs = 0;
  double minUs = 0;
  double meanUs = 0;
  unsigned replays = 0;
  unsigned rotationSets = 0;
  uint64_t setBytes = 0;
};

/// Median, min and mean of per-run times (microseconds); `perRunUs` must
/// not be empty. The median of an even count is the mean of the middle two.
TimingResult summarizeTimes(std::vector<double> perRunUs);

/// How the timed runs are launched (runtime/README.md, "Timing").
enum class TimingMode {
  /// A CUDA graph of the steps for every buffer set, replayed.
  Graph,
  /// The steps enqueued on the stream again for every replay.
  Plain,
  /// Like Graph, captured from launches that allow programmatic dependent
  /// launch (kernels marked "pdl" only).
  Pdl
};

const char *timingModeName(TimingMode mode);
std::optional<TimingMode> parseTimingMode(std::string_view name);
/// A comma-separated list of mode names ("graph,plain,pdl"): at least one,
/// none twice.
Expected<std::vector<TimingMode>> parseTimingModes(std::string_view list);

/// One timing mode's outcome: its times, or why it was not timed, or what
/// went wrong.
struct ModeTiming {
  TimingMode mode = TimingMode::Graph;
  std::optional<TimingResult> timing;
  std::optional<std::string> skipped;
  std::optional<std::string> error;
};

/// One task-graph kernel's tasks in a traced run (times in microseconds
/// from the first task's wait): when the first body began and the last
/// ended, and the waits and bodies summed over its tasks. Empty tasks are
/// one group, kernel "(empty)". `bytes`: what the kernel's buffers hold, the
/// least its tasks move (0 where the manifest does not say).
struct KernelTrace {
  std::string kernel;
  uint64_t tasks = 0;
  double firstBodyUs = 0, lastEndUs = 0, waitUs = 0, bodyUs = 0;
  /// When the first of its tasks saw its events complete, and when the
  /// last had issued its signals (µs from the first wait); the time its
  /// tasks spent signalling, summed.
  double firstWaitEndUs = 0, lastSignalUs = 0, signalUs = 0;
  uint64_t bytes = 0;
};

/// A mega-kernel step of a bundle, and the first wait that ran past its
/// deadline, if one did.
struct MegaKernelResult {
  unsigned step = 0;
  std::string kernel;
  uint64_t workers = 0;
  uint64_t threads = 0;
  uint64_t tasks = 0;
  uint64_t events = 0;
  /// The deadline in effect (0: none).
  uint64_t deadlineMs = 0;
  /// "mega-kernel hang: task 812 (k5_matmul, block [3, 0, 0]) on worker 17
  /// waited more than 2000 ms on event 97: 3 of 4 triggers this run".
  std::optional<std::string> hang;
  /// When: "the checked run", "graph timing", ...
  std::string hangDuring;
  /// The raw state words read back after the hang (MegaKernelState order).
  std::vector<uint64_t> hangState;
  /// The traced run after timing, per task-graph kernel (summarizeTrace).
  std::vector<KernelTrace> trace;
};

struct CheckResult {
  /// Why no comparison was made, when none was.
  std::optional<std::string> skipped;
  bool pass = false;
  double tolerance = 0;
  std::vector<OutputCheck> outputs;
};

struct DeviceInfo {
  std::string name;
  int ccMajor = 0;
  int ccMinor = 0;
  int smCount = 0;
  uint64_t l2Bytes = 0;
  uint64_t memoryBytes = 0;
  int driverVersion = 0; // as cuDriverGetVersion: 1000 * major + 10 * minor
  /// The opt-in limit of shared memory per block, for messages.
  int sharedOptinBytes = 0;
};

struct BundleResult {
  std::string bundleDir;
  /// The manifest's name, or the directory's until the manifest is read.
  std::string name;
  /// Why the bundle could not be loaded or run; empty when it ran.
  std::string error;
  /// "cubin" or "ptx": what was loaded.
  std::string binary;
  std::optional<CheckResult> check;
  /// The first timing mode that produced times (graph unless the modes
  /// say otherwise).
  std::optional<TimingResult> timing;
  /// Every requested timing mode, in the order requested; empty when
  /// timing was off.
  std::vector<ModeTiming> timings;
  /// The mega-kernel steps, in step order (version 2 bundles).
  std::vector<MegaKernelResult> megaKernels;
  /// The reference's `function`: bundles of one program share it.
  std::string function;
  /// The manifest's "kernels", copied.
  JsonValue kernels;

  /// The description of the first mega-kernel hang, or null.
  const MegaKernelResult *hang() const {
    for (const MegaKernelResult &mega : megaKernels)
      if (mega.hang)
        return &mega;
    return nullptr;
  }

  bool ok() const {
    return error.empty() && !hang() &&
           (!check || check->skipped || check->pass);
  }
};

/// A result for the bundle in `bundleDir`, named after the directory,
/// failed with `error` unless it is empty.
BundleResult makeBundleResult(const std::string &bundleDir,
                              std::string error = "");

JsonValue toJson(const DeviceInfo &device);
JsonValue toJson(const BundleResult &result);

/// One line for people: name, PASS/FAIL/HANG/ERROR, worst rel_l2, median
/// time (and the other modes' medians).
std::string summaryLine(const BundleResult &result);

} // namespace mirage::runtime

#endif // MIRAGE_RUNTIME_RESULTS_H
