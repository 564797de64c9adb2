//===- Runner.h - Runs bundles on a GPU -------------------------*- C++ -*-===//
//
// Part of the Mirage MLIR project.
//
// Loads bundles (docs/Bundle.md) and runs them through the CUDA driver API:
// one checked run compared with the float64 reference, then the project's
// timing method (a CUDA graph replayed over rotating buffer sets so that
// every run starts with its data out of L2; optionally also plain stream
// launches and a graph with programmatic dependent launch). Mega-kernel
// steps get their tables, counters and state once per bundle, are refused
// when their workers cannot all be resident, and have their state read
// after the checked run and after each timing mode: a wait past the
// deadline fails the bundle with a description of the wait. A failing
// bundle is reported in
// its BundleResult and the runner goes on, except after a failure that loses
// the CUDA context (a fault in a kernel): CUDA cannot recover from that
// within the process, so mirage-run then carries on in a new process.
//
//===----------------------------------------------------------------------===//

#ifndef MIRAGE_RUNTIME_RUNNER_H
#define MIRAGE_RUNTIME_RUNNER_H

#include "mirage_runtime/Results.h"
#include "mirage_runtime/Status.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

// cuda.h's handle type, declared here so that users need not include cuda.h.
struct CUctx_st;

namespace mirage::runtime {

struct RunOptions {
  /// Overrides the manifest's generator seed; the reference check is then
  /// skipped unless the seeds agree.
  std::optional<uint64_t> seed;
  /// Read input i from `inputsDir`/input<i>.bin (raw elements) instead of
  /// generating it; the reference check is then skipped.
  std::string inputsDir;
  bool check = true;
  bool time = true;
  unsigned warmup = 3;
  unsigned replays = 20;
  /// Write output k to `dumpDir`/<bundle name>/output<k>.bin.
  std::string dumpDir;
  /// How to launch the timed runs, each timed in turn; the first one that
  /// produces times gives BundleResult::timing.
  std::vector<TimingMode> modes = {TimingMode::Graph};
  /// Mega-kernels: abandon a run when a wait takes longer than this many
  /// milliseconds (0: never), instead of the manifest's deadline_ms.
  std::optional<uint64_t> deadlineMs;
};

class Runner {
public:
  /// Initializes the driver and makes `device`'s primary context current.
  static Expected<std::unique_ptr<Runner>> create(int device);
  ~Runner();
  Runner(const Runner &) = delete;
  Runner &operator=(const Runner &) = delete;

  const DeviceInfo &deviceInfo() const { return info; }

  /// Loads, runs, checks and times the bundle in `bundleDir`.
  BundleResult run(const std::string &bundleDir, const RunOptions &options);

  /// Whether a failure left the CUDA context unusable; every later run()
  /// then fails at once.
  bool contextLost() const { return !lostContext.empty(); }

private:
  Runner() = default;

  int device = 0;
  CUctx_st *context = nullptr;
  DeviceInfo info;
  /// Why the context is unusable, once it is.
  std::string lostContext;
};

} // namespace mirage::runtime

#endif // MIRAGE_RUNTIME_RUNNER_H
