//===- Results.cpp - Checking, timing numbers and result files ------------===//
//
// Part of the Mirage MLIR project.
//
//===----------------------------------------------------------------------===//

#include "mirage_runtime/Results.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>

using namespace mirage::runtime;

OutputCheck mirage::runtime::compareOutput(const void *data, DType dtype,
                                           uint64_t elements,
                                           const double *reference) {
  OutputCheck check;
  check.elements = elements;
  const uint32_t allOnes = dtype == DType::F32 ? 0xFFFFFFFFu : 0xFFFFu;
  const size_t size = dtypeSize(dtype);
  const auto *bytes = static_cast<const unsigned char *>(data);
  double diffSquares = 0, refSquares = 0;
  for (uint64_t e = 0; e < elements; ++e) {
    uint32_t bits = loadElement(bytes + e * size, dtype);
    // All ones is also a NaN: count it once, as unwritten.
    if (bits == allOnes) {
      ++check.unwritten;
      continue;
    }
    double value = decodeElement(bits, dtype);
    if (!std::isfinite(value)) {
      ++check.nonFinite;
      continue;
    }
    double diff = value - reference[e];
    diffSquares += diff * diff;
    refSquares += reference[e] * reference[e];
    check.maxAbs = std::max(check.maxAbs, std::fabs(diff));
  }
  if (refSquares > 0)
    check.relL2 = std::sqrt(diffSquares) / std::sqrt(refSquares);
  else
    check.relL2 =
        diffSquares > 0 ? std::numeric_limits<double>::infinity() : 0.0;
  return check;
}

unsigned mirage::runtime::rotationSetCount(uint64_t setBytes, uint64_t l2Bytes,
                                           uint64_t freeBytes,
                                           uint64_t totalBytes) {
  constexpr uint64_t minSets = 2, maxSets = 64;
  if (setBytes == 0)
    return minSets;
  uint64_t sets = (2 * l2Bytes + setBytes - 1) / setBytes;
  sets = std::clamp(sets, minSets, maxSets);
  uint64_t reserve = totalBytes / 10;
  uint64_t spare = freeBytes > reserve ? freeBytes - reserve : 0;
  return unsigned(std::min(sets, 1 + spare / setBytes));
}

TimingResult mirage::runtime::summarizeTimes(std::vector<double> perRunUs) {
  TimingResult timing;
  std::sort(perRunUs.begin(), perRunUs.end());
  size_t n = perRunUs.size();
  timing.replays = unsigned(n);
  timing.minUs = perRunUs.front();
  timing.medianUs =
      n % 2 ? perRunUs[n / 2] : (perRunUs[n / 2 - 1] + perRunUs[n / 2]) / 2;
  double sum = 0;
  for (double time : perRunUs)
    sum += time;
  timing.meanUs = sum / double(n);
  return timing;
}

const char *mirage::runtime::timingModeName(TimingMode mode) {
  switch (mode) {
  case TimingMode::Graph:
    return "graph";
  case TimingMode::Plain:
    return "plain";
  case TimingMode::Pdl:
    return "pdl";
  }
  return "?";
}

std::optional<TimingMode>
mirage::runtime::parseTimingMode(std::string_view name) {
  for (TimingMode mode :
       {TimingMode::Graph, TimingMode::Plain, TimingMode::Pdl})
    if (name == timingModeName(mode))
      return mode;
  return std::nullopt;
}

Expected<std::vector<TimingMode>>
mirage::runtime::parseTimingModes(std::string_view list) {
  std::vector<TimingMode> modes;
  size_t start = 0;
  while (true) {
    size_t comma = list.find(',', start);
    std::string_view name = list.substr(
        start, comma == std::string_view::npos ? comma : comma - start);
    std::optional<TimingMode> mode = parseTimingMode(name);
    if (!mode)
      return Status::error("unknown timing mode \"" + std::string(name) +
                           "\" (expected graph, plain or pdl)");
    if (std::find(modes.begin(), modes.end(), *mode) != modes.end())
      return Status::error("timing mode \"" + std::string(name) +
                           "\" is listed twice");
    modes.push_back(*mode);
    if (comma == std::string_view::npos)
      return modes;
    start = comma + 1;
  }
}

BundleResult mirage::runtime::makeBundleResult(const std::string &bundleDir,
                                               std::string error) {
  BundleResult result;
  result.bundleDir = bundleDir;
  // "a/b/" names b, like "a/b".
  std::filesystem::path dir =
      std::filesystem::path(bundleDir).lexically_normal();
  if (!dir.has_filename())
    dir = dir.parent_path();
  result.name = dir.filename().string();
  if (result.name.empty())
    result.name = bundleDir;
  result.error = std::move(error);
  return result;
}

//===----------------------------------------------------------------------===//
// JSON and summaries
//===----------------------------------------------------------------------===//

JsonValue mirage::runtime::toJson(const DeviceInfo &device) {
  JsonValue object = JsonValue::Object();
  object.set("name", device.name);
  object.set("compute_capability", std::to_string(device.ccMajor) + "." +
                                       std::to_string(device.ccMinor));
  object.set("sm_count", device.smCount);
  object.set("l2_bytes", device.l2Bytes);
  object.set("memory_bytes", device.memoryBytes);
  object.set("driver_version",
             std::to_string(device.driverVersion / 1000) + "." +
                 std::to_string(device.driverVersion % 1000 / 10));
  return object;
}

static JsonValue checkToJson(const CheckResult &check) {
  JsonValue object = JsonValue::Object();
  if (check.skipped) {
    object.set("skipped", *check.skipped);
    return object;
  }
  object.set("pass", check.pass);
  object.set("tolerance", check.tolerance);
  JsonValue::Array outputs;
  for (const OutputCheck &output : check.outputs) {
    JsonValue entry = JsonValue::Object();
    entry.set("buffer", output.buffer);
    entry.set("name", output.name);
    entry.set("elements", output.elements);
    entry.set("rel_l2", output.relL2);
    entry.set("max_abs", output.maxAbs);
    entry.set("nonfinite", output.nonFinite);
    entry.set("unwritten", output.unwritten);
    outputs.push_back(std::move(entry));
  }
  object.set("outputs", std::move(outputs));
  return object;
}

static JsonValue timingToJson(const TimingResult &timing) {
  JsonValue object = JsonValue::Object();
  object.set("median_us", timing.medianUs);
  object.set("min_us", timing.minUs);
  object.set("mean_us", timing.meanUs);
  object.set("replays", timing.replays);
  object.set("rotation_sets", timing.rotationSets);
  object.set("set_bytes", timing.setBytes);
  return object;
}

static JsonValue modeTimingToJson(const ModeTiming &mode) {
  if (mode.timing)
    return timingToJson(*mode.timing);
  JsonValue object = JsonValue::Object();
  if (mode.skipped)
    object.set("skipped", *mode.skipped);
  if (mode.error)
    object.set("error", *mode.error);
  return object;
}

static JsonValue megaKernelToJson(const MegaKernelResult &mega) {
  JsonValue object = JsonValue::Object();
  object.set("step", mega.step);
  object.set("kernel", mega.kernel);
  object.set("workers", mega.workers);
  object.set("threads", mega.threads);
  object.set("tasks", mega.tasks);
  object.set("events", mega.events);
  object.set("deadline_ms", mega.deadlineMs);
  JsonValue::Array trace;
  for (const KernelTrace &entry : mega.trace) {
    JsonValue kernel = JsonValue::Object();
    kernel.set("kernel", entry.kernel);
    kernel.set("tasks", entry.tasks);
    kernel.set("first_body_us", entry.firstBodyUs);
    kernel.set("last_end_us", entry.lastEndUs);
    kernel.set("wait_us", entry.waitUs);
    kernel.set("body_us", entry.bodyUs);
    kernel.set("first_wait_end_us", entry.firstWaitEndUs);
    kernel.set("last_signal_us", entry.lastSignalUs);
    kernel.set("signal_us", entry.signalUs);
    if (entry.bytes)
      kernel.set("bytes", entry.bytes);
    trace.push_back(std::move(kernel));
  }
  if (!trace.empty())
    object.set("trace", std::move(trace));
  if (mega.hang) {
    object.set("hang", *mega.hang);
    object.set("hang_during", mega.hangDuring);
    JsonValue::Array state;
    for (uint64_t word : mega.hangState)
      state.push_back(JsonValue(word));
    object.set("hang_state", std::move(state));
  }
  return object;
}

JsonValue mirage::runtime::toJson(const BundleResult &result) {
  JsonValue object = JsonValue::Object();
  object.set("name", result.name);
  object.set("bundle", result.bundleDir);
  object.set("ok", result.ok());
  if (!result.error.empty())
    object.set("error", result.error);
  if (!result.binary.empty())
    object.set("binary", result.binary);
  if (!result.function.empty())
    object.set("function", result.function);
  if (result.check)
    object.set("check", checkToJson(*result.check));
  if (result.timing)
    object.set("timing", timingToJson(*result.timing));
  if (!result.timings.empty()) {
    JsonValue timings = JsonValue::Object();
    for (const ModeTiming &mode : result.timings)
      timings.set(timingModeName(mode.mode), modeTimingToJson(mode));
    object.set("timings", std::move(timings));
  }
  if (!result.megaKernels.empty()) {
    JsonValue::Array megaKernels;
    for (const MegaKernelResult &mega : result.megaKernels)
      megaKernels.push_back(megaKernelToJson(mega));
    object.set("megakernels", std::move(megaKernels));
  }
  object.set("kernels", result.kernels);
  return object;
}

std::string mirage::runtime::summaryLine(const BundleResult &result) {
  std::string line = result.name + ": ";
  char buffer[128];
  const MegaKernelResult *hang = result.hang();
  if (!result.error.empty()) {
    line += "ERROR";
  } else if (!result.check) {
    line += hang ? "HANG" : "RAN";
  } else if (result.check->skipped) {
    line += std::string(hang ? "HANG" : "RAN") +
            " (check skipped: " + *result.check->skipped + ")";
  } else {
    const CheckResult &check = *result.check;
    line += hang ? "HANG" : check.pass ? "PASS" : "FAIL";
    double worst = 0;
    uint64_t nonFinite = 0, unwritten = 0;
    for (const OutputCheck &output : check.outputs) {
      // NaN compares false: take it explicitly.
      if (!(output.relL2 <= worst))
        worst = output.relL2;
      nonFinite += output.nonFinite;
      unwritten += output.unwritten;
    }
    std::snprintf(buffer, sizeof(buffer), " rel_l2 %.3g (tolerance %.3g)",
                  worst, check.tolerance);
    line += buffer;
    if (nonFinite)
      line += ", " + std::to_string(nonFinite) + " nonfinite";
    if (unwritten)
      line += ", " + std::to_string(unwritten) + " unwritten";
  }
  if (result.timing) {
    std::snprintf(buffer, sizeof(buffer), " median %.2f us",
                  result.timing->medianUs);
    line += buffer;
  }
  // With several modes, each one's median (or why it has none).
  if (result.timings.size() > 1) {
    std::string modes;
    for (const ModeTiming &mode : result.timings) {
      modes += modes.empty() ? " (" : ", ";
      modes += timingModeName(mode.mode);
      if (mode.timing) {
        std::snprintf(buffer, sizeof(buffer), " %.2f", mode.timing->medianUs);
        modes += buffer;
      } else {
        modes += mode.error ? " failed" : " skipped";
      }
    }
    line += modes + ")";
  }
  if (!result.error.empty())
    line += ": " + result.error;
  if (hang)
    line += ": " + *hang->hang + " (during " + hang->hangDuring + ")";
  return line;
}
