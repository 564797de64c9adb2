//===- ResultsTest.cpp - Checking, timing numbers and result files --------===//
//
// Part of the Mirage MLIR project.
//
//===----------------------------------------------------------------------===//

#include "mirage_runtime/Results.h"

#include "gtest/gtest.h"

#include <cmath>
#include <limits>
#include <vector>

using namespace mirage::runtime;

namespace {

constexpr uint64_t MB = 1000 * 1000;

std::vector<uint16_t> toF16(const std::vector<double> &values) {
  std::vector<uint16_t> bits;
  for (double value : values)
    bits.push_back(doubleToF16(value));
  return bits;
}

TEST(ResultsTest, RelativeL2) {
  std::vector<double> reference = {1, 2, 3, 4};
  std::vector<uint16_t> out = toF16({1, 2, 3, 5});
  OutputCheck check =
      compareOutput(out.data(), DType::F16, out.size(), reference.data());
  EXPECT_EQ(check.elements, 4u);
  EXPECT_DOUBLE_EQ(check.relL2, 1 / std::sqrt(30.0));
  EXPECT_EQ(check.maxAbs, 1.0);
  EXPECT_EQ(check.nonFinite, 0u);
  EXPECT_EQ(check.unwritten, 0u);
  EXPECT_FALSE(check.passes(0.1));
  EXPECT_TRUE(check.passes(0.2));
  EXPECT_TRUE(check.passes(check.relL2)); // the bound is inclusive
}

TEST(ResultsTest, ComparesInDoubleAgainstRoundedOutputs) {
  // 0.1 is not an f16: the difference is the rounding error, computed in
  // double rather than lost.
  std::vector<double> reference = {0.1, -0.1};
  std::vector<uint16_t> out = toF16(reference);
  OutputCheck check =
      compareOutput(out.data(), DType::F16, out.size(), reference.data());
  double error = std::fabs(f16ToDouble(out[0]) - 0.1);
  EXPECT_GT(error, 0.0);
  EXPECT_DOUBLE_EQ(check.maxAbs, error);
  EXPECT_DOUBLE_EQ(check.relL2, error / 0.1);
}

TEST(ResultsTest, UnwrittenIsNotNonFinite) {
  std::vector<double> reference = {1, 1, 1, 1, 1};
  // 0xFFFF (the poison, also a NaN) is unwritten; other NaNs and infinities
  // are non-finite.
  std::vector<uint16_t> out = {0x3C00, 0xFFFF, 0x7E00, 0x7C00, 0xFFFF};
  OutputCheck check =
      compareOutput(out.data(), DType::F16, out.size(), reference.data());
  EXPECT_EQ(check.unwritten, 2u);
  EXPECT_EQ(check.nonFinite, 2u);
  EXPECT_EQ(check.relL2, 0.0); // over the one finite written element
  EXPECT_FALSE(check.passes(1.0));

  std::vector<uint16_t> bf16 = {0xFFFF, 0x3F80};
  check = compareOutput(bf16.data(), DType::BF16, 2, reference.data());
  EXPECT_EQ(check.unwritten, 1u);
  EXPECT_EQ(check.nonFinite, 0u);

  std::vector<uint32_t> f32 = {0xFFFFFFFF, 0x7FC00000, 0x3F800000};
  check = compareOutput(f32.data(), DType::F32, 3, reference.data());
  EXPECT_EQ(check.unwritten, 1u);
  EXPECT_EQ(check.nonFinite, 1u);
  EXPECT_EQ(check.relL2, 0.0);
}

TEST(ResultsTest, ZeroReference) {
  std::vector<double> zeros = {0, 0};
  std::vector<float> same = {0, 0}, other = {0, 1};
  EXPECT_EQ(compareOutput(same.data(), DType::F32, 2, zeros.data()).relL2, 0);
  EXPECT_EQ(compareOutput(other.data(), DType::F32, 2, zeros.data()).relL2,
            std::numeric_limits<double>::infinity());
}

TEST(ResultsTest, RotationSetCount) {
  // The smallest R with R * set >= 2 * L2, within [2, 64].
  EXPECT_EQ(rotationSetCount(50 * MB, 50 * MB, 80000 * MB, 80000 * MB), 2u);
  EXPECT_EQ(rotationSetCount(10 * MB, 50 * MB, 80000 * MB, 80000 * MB), 10u);
  EXPECT_EQ(rotationSetCount(11 * MB, 50 * MB, 80000 * MB, 80000 * MB), 10u);
  EXPECT_EQ(rotationSetCount(9 * MB, 50 * MB, 80000 * MB, 80000 * MB), 12u);
  EXPECT_EQ(rotationSetCount(1 * MB, 50 * MB, 80000 * MB, 80000 * MB), 64u);
  EXPECT_EQ(rotationSetCount(500 * MB, 50 * MB, 80000 * MB, 80000 * MB), 2u);
  EXPECT_EQ(rotationSetCount(0, 50 * MB, 80000 * MB, 80000 * MB), 2u);
  // Free memory bounds the extra sets (set 0 exists already), leaving 10% of
  // the total free.
  EXPECT_EQ(rotationSetCount(30 * MB, 50 * MB, 100 * MB, 100 * MB), 4u);
  EXPECT_EQ(rotationSetCount(30 * MB, 50 * MB, 70 * MB, 100 * MB), 3u);
  EXPECT_EQ(rotationSetCount(30 * MB, 50 * MB, 50 * MB, 100 * MB), 2u);
  EXPECT_EQ(rotationSetCount(30 * MB, 50 * MB, 30 * MB, 100 * MB), 1u);
  EXPECT_EQ(rotationSetCount(30 * MB, 50 * MB, 5 * MB, 100 * MB), 1u);
}

TEST(ResultsTest, SummarizeTimes) {
  TimingResult odd = summarizeTimes({5, 1, 3});
  EXPECT_EQ(odd.medianUs, 3);
  EXPECT_EQ(odd.minUs, 1);
  EXPECT_EQ(odd.meanUs, 3);
  EXPECT_EQ(odd.replays, 3u);
  TimingResult even = summarizeTimes({4, 1, 2, 10});
  EXPECT_EQ(even.medianUs, 3);
  EXPECT_EQ(even.meanUs, 4.25);
}

BundleResult passingResult() {
  BundleResult result;
  result.bundleDir = "bundles/f";
  result.name = "f";
  result.binary = "cubin";
  CheckResult check;
  check.pass = true;
  check.tolerance = 0.01;
  OutputCheck output;
  output.buffer = 4;
  output.name = "out0";
  output.elements = 16;
  output.relL2 = 0.00125;
  output.maxAbs = 0.5;
  check.outputs.push_back(output);
  result.check = check;
  TimingResult timing = summarizeTimes({10, 12, 11});
  timing.rotationSets = 8;
  timing.setBytes = 1024;
  result.timing = timing;
  result.kernels = JsonValue::Array{JsonValue("k0")};
  return result;
}

TEST(ResultsTest, BundleJson) {
  EXPECT_EQ(writeJson(toJson(passingResult()), 0),
            R"({"name":"f","bundle":"bundles/f","ok":true,"binary":"cubin",)"
            R"("check":{"pass":true,"tolerance":0.01,"outputs":[{"buffer":4,)"
            R"("name":"out0","elements":16,"rel_l2":0.00125,"max_abs":0.5,)"
            R"("nonfinite":0,"unwritten":0}]},"timing":{"median_us":11,)"
            R"("min_us":10,"mean_us":11,"replays":3,"rotation_sets":8,)"
            R"("set_bytes":1024},"kernels":["k0"]})");

  BundleResult skipped;
  skipped.name = "g";
  skipped.bundleDir = "g";
  skipped.check = CheckResult{std::string("seed 3 differs"), false, 0, {}};
  EXPECT_TRUE(skipped.ok());
  EXPECT_EQ(writeJson(toJson(skipped), 0),
            R"({"name":"g","bundle":"g","ok":true,)"
            R"("check":{"skipped":"seed 3 differs"},"kernels":null})");

  BundleResult failed;
  failed.name = "h";
  failed.bundleDir = "h";
  failed.error = "h/manifest.json: cannot open: No such file or directory";
  EXPECT_FALSE(failed.ok());
  EXPECT_EQ(writeJson(toJson(failed), 0),
            R"({"name":"h","bundle":"h","ok":false,"error":)"
            R"("h/manifest.json: cannot open: No such file or directory",)"
            R"("kernels":null})");
}

TEST(ResultsTest, TimingModes) {
  EXPECT_EQ(parseTimingMode("graph"), TimingMode::Graph);
  EXPECT_EQ(parseTimingMode("plain"), TimingMode::Plain);
  EXPECT_EQ(parseTimingMode("pdl"), TimingMode::Pdl);
  EXPECT_EQ(parseTimingMode("Graph"), std::nullopt);
  EXPECT_STREQ(timingModeName(TimingMode::Pdl), "pdl");

  Expected<std::vector<TimingMode>> all = parseTimingModes("graph,plain,pdl");
  ASSERT_TRUE(all.ok()) << all.message();
  EXPECT_EQ(*all, (std::vector<TimingMode>{TimingMode::Graph, TimingMode::Plain,
                                           TimingMode::Pdl}));
  Expected<std::vector<TimingMode>> one = parseTimingModes("plain");
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(*one, std::vector<TimingMode>{TimingMode::Plain});

  EXPECT_EQ(parseTimingModes("graph,eager").message(),
            "unknown timing mode \"eager\" (expected graph, plain or pdl)");
  EXPECT_EQ(parseTimingModes("").message(),
            "unknown timing mode \"\" (expected graph, plain or pdl)");
  EXPECT_EQ(parseTimingModes("graph,").message(),
            "unknown timing mode \"\" (expected graph, plain or pdl)");
  EXPECT_EQ(parseTimingModes("pdl,graph,pdl").message(),
            "timing mode \"pdl\" is listed twice");
}

/// passingResult timed in three modes, pdl skipped.
BundleResult timedInModes() {
  BundleResult result = passingResult();
  ModeTiming graph{TimingMode::Graph, result.timing, {}, {}};
  TimingResult plainTiming = summarizeTimes({15, 14});
  plainTiming.rotationSets = 8;
  plainTiming.setBytes = 1024;
  ModeTiming plain{TimingMode::Plain, plainTiming, {}, {}};
  ModeTiming pdl{
      TimingMode::Pdl, {}, std::string("kernel \"k0\" is not marked"), {}};
  result.timings = {graph, plain, pdl};
  return result;
}

TEST(ResultsTest, ModeTimingsJson) {
  JsonValue json = toJson(timedInModes());
  // The first mode stays under "timing", as before.
  EXPECT_EQ(writeJson(*json.get("timing"), 0),
            R"({"median_us":11,"min_us":10,"mean_us":11,"replays":3,)"
            R"("rotation_sets":8,"set_bytes":1024})");
  EXPECT_EQ(writeJson(*json.get("timings"), 0),
            R"({"graph":{"median_us":11,"min_us":10,"mean_us":11,"replays":3,)"
            R"("rotation_sets":8,"set_bytes":1024},)"
            R"("plain":{"median_us":14.5,"min_us":14,"mean_us":14.5,)"
            R"("replays":2,"rotation_sets":8,"set_bytes":1024},)"
            R"("pdl":{"skipped":"kernel \"k0\" is not marked"}})");
  EXPECT_EQ(summaryLine(timedInModes()),
            "f: PASS rel_l2 0.00125 (tolerance 0.01) median 11.00 us (graph "
            "11.00, plain 14.50, pdl skipped)");

  BundleResult failedMode = timedInModes();
  failedMode.timings[2].skipped.reset();
  failedMode.timings[2].error = "cuLaunchKernelEx failed";
  EXPECT_EQ(writeJson(*toJson(failedMode).get("timings")->get("pdl"), 0),
            R"({"error":"cuLaunchKernelEx failed"})");
  EXPECT_NE(summaryLine(failedMode).find("pdl failed)"), std::string::npos);

  // One mode: the line reads as before.
  BundleResult single = passingResult();
  single.timings = {ModeTiming{TimingMode::Graph, single.timing, {}, {}}};
  EXPECT_EQ(summaryLine(single),
            "f: PASS rel_l2 0.00125 (tolerance 0.01) median 11.00 us");
}

MegaKernelResult megaKernel() {
  MegaKernelResult mega;
  mega.step = 0;
  mega.kernel = "g_megakernel";
  mega.workers = 132;
  mega.threads = 128;
  mega.tasks = 812;
  mega.events = 97;
  mega.deadlineMs = 2000;
  return mega;
}

TEST(ResultsTest, MegaKernelJson) {
  BundleResult result = passingResult();
  result.function = "g";
  result.megaKernels = {megaKernel()};
  EXPECT_TRUE(result.ok());
  EXPECT_EQ(result.hang(), nullptr);
  JsonValue json = toJson(result);
  EXPECT_EQ(json.get("function")->getString(), "g");
  EXPECT_EQ(writeJson(*json.get("megakernels"), 0),
            R"([{"step":0,"kernel":"g_megakernel","workers":132,)"
            R"("threads":128,"tasks":812,"events":97,"deadline_ms":2000}])");
  EXPECT_EQ(summaryLine(result),
            "f: PASS rel_l2 0.00125 (tolerance 0.01) median 11.00 us");

  // The traced run, per task-graph kernel: its phase and its hand-offs.
  KernelTrace phase;
  phase.kernel = "k5_matmul";
  phase.tasks = 128;
  phase.firstWaitEndUs = 31.25;
  phase.firstBodyUs = 31.5;
  phase.lastEndUs = 39.5;
  phase.lastSignalUs = 40.5;
  phase.waitUs = 320;
  phase.bodyUs = 930;
  phase.signalUs = 96;
  phase.bytes = 33579008;
  result.megaKernels[0].trace = {phase};
  JsonValue withTrace = toJson(result);
  const JsonValue &traced = withTrace.get("megakernels")
                                ->getArray()[0]
                                .get("trace")
                                ->getArray()[0];
  EXPECT_EQ(traced.get("kernel")->getString(), "k5_matmul");
  EXPECT_EQ(traced.get("tasks")->getInteger(), 128);
  for (auto [key, value] :
       {std::pair{"first_wait_end_us", 31.25}, std::pair{"first_body_us", 31.5},
        std::pair{"last_end_us", 39.5}, std::pair{"last_signal_us", 40.5},
        std::pair{"wait_us", 320.0}, std::pair{"body_us", 930.0},
        std::pair{"signal_us", 96.0}})
    EXPECT_EQ(traced.get(key)->getNumber(), value) << key;
  EXPECT_EQ(traced.get("bytes")->getInteger(), 33579008);
  result.megaKernels[0].trace.clear();

  // A hang fails the bundle even when its outputs happen to pass.
  MegaKernelResult &mega = result.megaKernels[0];
  mega.hang = "mega-kernel hang: task 812 (k5_matmul, block [3, 0, 0]) on "
              "worker 17 waited more than 2000 ms on event 97: 3 of 4 "
              "triggers this run";
  mega.hangDuring = "graph timing";
  mega.hangState = {5, 0, 1, 812, 97, 23, 24, 17, 2000000000};
  EXPECT_FALSE(result.ok());
  EXPECT_EQ(result.hang(), &result.megaKernels[0]);
  json = toJson(result);
  EXPECT_FALSE(json.get("ok")->getBool());
  const JsonValue &entry = json.get("megakernels")->getArray()[0];
  EXPECT_EQ(entry.get("hang")->getString(), *mega.hang);
  EXPECT_EQ(entry.get("hang_during")->getString(), "graph timing");
  EXPECT_EQ(writeJson(*entry.get("hang_state"), 0),
            "[5,0,1,812,97,23,24,17,2000000000]");
  EXPECT_EQ(summaryLine(result),
            "f: HANG rel_l2 0.00125 (tolerance 0.01) median 11.00 us: "
            "mega-kernel hang: task 812 (k5_matmul, block [3, 0, 0]) on "
            "worker 17 waited more than 2000 ms on event 97: 3 of 4 triggers "
            "this run (during graph timing)");

  result.check.reset();
  result.timing.reset();
  EXPECT_EQ(summaryLine(result).substr(0, 17), "f: HANG: mega-ker");
}

TEST(ResultsTest, DeviceJson) {
  DeviceInfo device;
  device.name = "NVIDIA H100 80GB HBM3";
  device.ccMajor = 9;
  device.smCount = 132;
  device.l2Bytes = 52428800;
  device.memoryBytes = 85520809984;
  device.driverVersion = 13000;
  EXPECT_EQ(writeJson(toJson(device), 0),
            R"({"name":"NVIDIA H100 80GB HBM3","compute_capability":"9.0",)"
            R"("sm_count":132,"l2_bytes":52428800,"memory_bytes":85520809984,)"
            R"("driver_version":"13.0"})");
  device.driverVersion = 12080;
  EXPECT_EQ(toJson(device).get("driver_version")->getString(), "12.8");
}

TEST(ResultsTest, NamesFromDirectories) {
  EXPECT_EQ(makeBundleResult("out/bundles/f").name, "f");
  EXPECT_EQ(makeBundleResult("out/bundles/f/").name, "f");
  EXPECT_EQ(makeBundleResult("f/.").name, "f");
  BundleResult result = makeBundleResult("b/", "no GPU");
  EXPECT_EQ(result.bundleDir, "b/");
  EXPECT_EQ(result.error, "no GPU");
  EXPECT_FALSE(result.ok());
  EXPECT_TRUE(makeBundleResult("b").ok());
}

TEST(ResultsTest, SummaryLines) {
  BundleResult result = passingResult();
  EXPECT_EQ(summaryLine(result),
            "f: PASS rel_l2 0.00125 (tolerance 0.01) median 11.00 us");
  result.check->pass = false;
  result.check->outputs[0].relL2 = 0.5;
  result.check->outputs[0].unwritten = 3;
  EXPECT_FALSE(result.ok());
  EXPECT_EQ(summaryLine(result), "f: FAIL rel_l2 0.5 (tolerance 0.01), 3 "
                                 "unwritten median 11.00 us");
  result.check =
      CheckResult{std::string("the bundle has no reference"), false, 0, {}};
  EXPECT_EQ(summaryLine(result), "f: RAN (check skipped: the bundle has no "
                                 "reference) median 11.00 us");
  result.timing.reset();
  result.error = "steps[0]: kernel \"k0\": cuLaunchKernel failed";
  EXPECT_EQ(summaryLine(result),
            "f: ERROR: steps[0]: kernel \"k0\": cuLaunchKernel failed");
}

} // namespace
