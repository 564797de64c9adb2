//===- InputGeneratorTest.cpp - The bundle input generator ----------------===//
//
// Part of the Mirage MLIR project.
//
//===----------------------------------------------------------------------===//

#include "mirage_runtime/InputGenerator.h"

#include "gtest/gtest.h"

#include <cmath>
#include <vector>

using namespace mirage::runtime;

namespace {

TEST(InputGeneratorTest, SplitMix64) {
  // The first output of the reference SplitMix64 seeded with 0.
  EXPECT_EQ(splitMix64(0), 0xE220A8397B1DCDAFull);
}

/// The vectors of docs/Bundle.md's generator, shared with the compiler and
/// runtime/python/mirage_baselines.py.
TEST(InputGeneratorTest, Vectors) {
  struct Vector {
    uint64_t seed, input, element;
    double value;
    uint16_t f16;
  };
  const Vector vectors[] = {
      {1, 0, 0, -0.3167373786664165, 0xb511},
      {1, 0, 1, -0.12043012127215436, 0xafb5},
      {1, 2, 12345, -0.5811760310424727, 0xb8a6},
      {7, 1, 0, 0.3294288528855087, 0x3545},
  };
  for (const Vector &vector : vectors) {
    UniformGenerator generator{vector.seed, -1.0, 1.0, {}};
    double value = generator.value(vector.input, vector.element);
    EXPECT_EQ(value, vector.value)
        << "seed " << vector.seed << " input " << vector.input << " element "
        << vector.element;
    EXPECT_EQ(doubleToF16(value), vector.f16);
  }
}

/// A scaled input (a weight of fan-in 12288): scale(i) * x(i, e), rounded
/// once; the same vector is in runtime/python/tests/test_generator.py.
TEST(InputGeneratorTest, ScaledVector) {
  UniformGenerator generator{7, -1.0, 1.0, {1.0, 1.0 / std::sqrt(12288.0)}};
  EXPECT_EQ(generator.scale(1), 0.009021097956087904);
  EXPECT_EQ(generator.scale(2), 1.0);
  double value = generator.value(1, 0);
  EXPECT_EQ(value, 0.0029718099514418456);
  EXPECT_EQ(doubleToF16(value), 0x1a16);
  EXPECT_EQ(generator.values(1, DType::F16, 1)[0],
            decodeElement(0x1a16, DType::F16));
  EXPECT_EQ(generator.value(0, 0),
            (UniformGenerator{7, -1.0, 1.0, {}}.value(0, 0)));
}

TEST(InputGeneratorTest, FillMatchesValues) {
  UniformGenerator generator{1, -1.0, 1.0, {}};
  const size_t count = 12346;
  for (DType dtype : {DType::F16, DType::BF16, DType::F32}) {
    std::vector<unsigned char> bytes(count * dtypeSize(dtype));
    generator.fill(2, dtype, count, bytes.data());
    std::vector<double> values = generator.values(2, dtype, count);
    ASSERT_EQ(values.size(), count);
    for (size_t e = 0; e < count; ++e) {
      uint32_t bits = loadElement(bytes.data() + e * dtypeSize(dtype), dtype);
      ASSERT_EQ(decodeElement(bits, dtype), values[e]) << dtypeName(dtype);
      ASSERT_EQ(bits, encodeElement(generator.value(2, e), dtype));
    }
  }
  std::vector<unsigned char> f16(2 * (12345 + 1));
  generator.fill(2, DType::F16, 12346, f16.data());
  EXPECT_EQ(loadElement(f16.data() + 2 * 12345, DType::F16), 0xb8a6u);
}

TEST(InputGeneratorTest, RangeAndInputsDiffer) {
  UniformGenerator generator{42, 2.0, 3.0, {}};
  for (uint64_t e = 0; e < 1000; ++e) {
    double value = generator.value(0, e);
    EXPECT_GE(value, 2.0);
    EXPECT_LT(value, 3.0);
  }
  EXPECT_NE(generator.value(0, 0), generator.value(1, 0));
  EXPECT_NE(generator.key(0), generator.key(1));
}

} // namespace
