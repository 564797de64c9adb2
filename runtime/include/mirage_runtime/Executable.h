//===- Executable.h - A bundle on the caller's buffers and stream -*- C++ -*-//
//
// Part of the Mirage MLIR project.
//
// What a framework needs to run a compiled program on its own tensors: the
// bundle's kernels loaded into the current CUDA context (the caller's, e.g.
// PyTorch's primary context), then each run enqueues the bundle's steps on
// the caller's stream with the inputs and outputs at the caller's device
// addresses: no copies, no synchronization. Intermediates live in memory the
// executable allocates at its first run and keeps, so one executable serves
// one stream at a time. A mega-kernel step runs like a launch; its event
// counters persist across runs (epoch-based), and `check` tells whether a
// wait ran past the bundle's deadline.
//
//===----------------------------------------------------------------------===//

#ifndef MIRAGE_RUNTIME_EXECUTABLE_H
#define MIRAGE_RUNTIME_EXECUTABLE_H

#include "mirage_runtime/Manifest.h"
#include "mirage_runtime/Status.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

struct CUstream_st;

namespace mirage::runtime {

class Executable {
public:
  /// Loads the bundle in `bundleDir` into the current context (made current
  /// from the primary context of device 0 when there is none).
  static Expected<std::unique_ptr<Executable>>
  load(const std::string &bundleDir);
  ~Executable();
  Executable(const Executable &) = delete;
  Executable &operator=(const Executable &) = delete;

  const Manifest &getManifest() const;

  /// Enqueues the steps on `stream` (null: the legacy default stream) with
  /// the manifest's inputs and outputs at these device addresses, in the
  /// manifest's order; outputs may not overlap inputs or each other
  /// (findArgumentOverlap). The caller keeps them alive and unchanged until
  /// the stream has run the steps. On a created stream, launch steps after
  /// the first use programmatic dependent launch where the manifest allows
  /// (launchesWithPdl).
  Status run(const std::vector<uint64_t> &inputs,
             const std::vector<uint64_t> &outputs, CUstream_st *stream);

  /// Waits for `stream` and fails with the first hang a mega-kernel step
  /// recorded since the last check ("mega-kernel hang: task 812 (...) on
  /// worker 17 waited more than 2000 ms on event 97: ..."); its counters are
  /// then reset, so later runs work again. Success, without waiting, for
  /// bundles without mega-kernels.
  Status check(CUstream_st *stream);

  /// Whether the bundle has a mega-kernel step.
  bool hasMegaKernel() const;

private:
  struct State;
  explicit Executable(std::unique_ptr<State> state);
  std::unique_ptr<State> state;
};

} // namespace mirage::runtime

#endif // MIRAGE_RUNTIME_EXECUTABLE_H
