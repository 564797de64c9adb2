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

#include <cstdint>
#include <optional>
#include <string>
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
  std::optional<TimingResult> timing;
  /// The manifest's "kernels", copied.
  JsonValue kernels;

  bool ok() const {
    return error.empty() && (!check || check->skipped || check->pass);
  }
};

/// A result for the bundle in `bundleDir`, named after the directory,
/// failed with `error` unless it is empty.
BundleResult makeBundleResult(const std::string &bundleDir,
                              std::string error = "");

JsonValue toJson(const DeviceInfo &device);
JsonValue toJson(const BundleResult &result);

/// One line for people: name, PASS/FAIL/ERROR, worst rel_l2, median time.
std::string summaryLine(const BundleResult &result);

} // namespace mirage::runtime

#endif // MIRAGE_RUNTIME_RESULTS_H
