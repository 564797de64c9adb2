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
