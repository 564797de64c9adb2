//===- HalfTest.cpp - f16 and bf16 conversions ----------------------------===//
//
// Part of the Mirage MLIR project.
//
//===----------------------------------------------------------------------===//

#include "mirage_runtime/Half.h"
#include "mirage_runtime/DType.h"

#include "gtest/gtest.h"

#include <cmath>
#include <limits>

using namespace mirage::runtime;

namespace {

const double inf = std::numeric_limits<double>::infinity();

TEST(HalfTest, F16ExactValues) {
  EXPECT_EQ(doubleToF16(0.0), 0x0000);
  EXPECT_EQ(doubleToF16(-0.0), 0x8000);
  EXPECT_EQ(doubleToF16(1.0), 0x3C00);
  EXPECT_EQ(doubleToF16(-2.0), 0xC000);
  EXPECT_EQ(doubleToF16(0.5), 0x3800);
  EXPECT_EQ(doubleToF16(65504.0), 0x7BFF);
  EXPECT_EQ(f16ToDouble(0x3C00), 1.0);
  EXPECT_EQ(f16ToDouble(0x7BFF), 65504.0);
  EXPECT_EQ(f16ToDouble(0xC000), -2.0);
  EXPECT_TRUE(std::signbit(f16ToDouble(0x8000)));
}

TEST(HalfTest, F16HalfwayCasesRoundToEven) {
  // 1 + 2^-11 lies halfway between 1 (even) and 1 + 2^-10 (odd).
  EXPECT_EQ(doubleToF16(1.0 + 0x1p-11), 0x3C00);
  // 1 + 3 * 2^-11 lies halfway between 0x3C01 (odd) and 0x3C02 (even).
  EXPECT_EQ(doubleToF16(1.0 + 3 * 0x1p-11), 0x3C02);
  EXPECT_EQ(doubleToF16(-(1.0 + 3 * 0x1p-11)), 0xBC02);
  // Just past or before halfway goes to the nearer neighbour.
  EXPECT_EQ(doubleToF16(1.0 + 0x1p-11 + 0x1p-40), 0x3C01);
  EXPECT_EQ(doubleToF16(1.0 + 3 * 0x1p-11 - 0x1p-40), 0x3C01);
}

TEST(HalfTest, F16RoundsOnceFromDouble) {
  // Through float this would become 1 + 2^-11 (a tie) and then 0x3C00.
  double value = 1.0 + 0x1p-11 + 0x1p-40;
  EXPECT_EQ(doubleToF16(value), 0x3C01);
  EXPECT_EQ(floatToF16(float(value)), 0x3C00);
}

TEST(HalfTest, F16Overflow) {
  // 65520 is halfway between 65504 (odd) and 65536, which is past the range.
  EXPECT_EQ(doubleToF16(65519.99), 0x7BFF);
  EXPECT_EQ(doubleToF16(65520.0), 0x7C00);
  EXPECT_EQ(doubleToF16(-65520.0), 0xFC00);
  EXPECT_EQ(doubleToF16(1e6), 0x7C00);
  EXPECT_EQ(doubleToF16(1e300), 0x7C00);
  EXPECT_EQ(doubleToF16(inf), 0x7C00);
  EXPECT_EQ(doubleToF16(-inf), 0xFC00);
  EXPECT_EQ(f16ToDouble(0x7C00), inf);
  EXPECT_EQ(f16ToDouble(0xFC00), -inf);
}

TEST(HalfTest, F16NaN) {
  uint16_t bits = doubleToF16(std::nan(""));
  EXPECT_EQ(bits & 0x7C00, 0x7C00);
  EXPECT_NE(bits & 0x03FF, 0);
  EXPECT_TRUE(std::isnan(f16ToDouble(0x7E00)));
  EXPECT_TRUE(std::isnan(f16ToDouble(0xFFFF)));
}

TEST(HalfTest, F16Subnormals) {
  EXPECT_EQ(doubleToF16(0x1p-24), 0x0001); // smallest subnormal
  EXPECT_EQ(doubleToF16(-0x1p-24), 0x8001);
  EXPECT_EQ(doubleToF16(0x1p-25), 0x0000); // tie with 0, which is even
  EXPECT_EQ(doubleToF16(0x1p-25 + 0x1p-50), 0x0001);
  EXPECT_EQ(doubleToF16(3 * 0x1p-25), 0x0002);    // tie between 1 and 2
  EXPECT_EQ(doubleToF16(1023 * 0x1p-24), 0x03FF); // largest subnormal
  // Halfway between the largest subnormal and the smallest normal.
  EXPECT_EQ(doubleToF16(1023.5 * 0x1p-24), 0x0400);
  EXPECT_EQ(doubleToF16(0x1p-14), 0x0400);
  EXPECT_EQ(doubleToF16(1e-300), 0x0000);
  EXPECT_EQ(doubleToF16(-1e-300), 0x8000);
  EXPECT_EQ(doubleToF16(std::numeric_limits<double>::denorm_min()), 0x0000);
  EXPECT_EQ(f16ToDouble(0x0001), 0x1p-24);
  EXPECT_EQ(f16ToDouble(0x03FF), 1023 * 0x1p-24);
  EXPECT_EQ(f16ToFloat(0x0001), 0x1p-24f);
}

TEST(HalfTest, BF16Values) {
  EXPECT_EQ(doubleToBF16(1.0), 0x3F80);
  EXPECT_EQ(doubleToBF16(-2.0), 0xC000);
  EXPECT_EQ(doubleToBF16(1.0 + 0x1p-8), 0x3F80);     // tie to even
  EXPECT_EQ(doubleToBF16(1.0 + 3 * 0x1p-8), 0x3F82); // tie to even
  EXPECT_EQ(doubleToBF16(1.0 + 0x1p-8 + 0x1p-30), 0x3F81);
  EXPECT_EQ(bf16ToDouble(0x3F80), 1.0);
  EXPECT_EQ(bf16ToFloat(0x4049), 3.140625f);
  EXPECT_EQ(doubleToBF16(3.14159265358979), 0x4049);
}

TEST(HalfTest, BF16OverflowAndSubnormals) {
  double largest = (2 - 0x1p-7) * 0x1p127;
  EXPECT_EQ(doubleToBF16(largest), 0x7F7F);
  EXPECT_EQ(bf16ToDouble(0x7F7F), largest);
  // Halfway to 2^128 rounds to even, past the range.
  EXPECT_EQ(doubleToBF16((2 - 0x1p-8) * 0x1p127), 0x7F80);
  EXPECT_EQ(doubleToBF16(double(std::numeric_limits<float>::max())), 0x7F80);
  EXPECT_EQ(doubleToBF16(-1e300), 0xFF80);
  EXPECT_EQ(doubleToBF16(0x1p-133), 0x0001);
  EXPECT_EQ(doubleToBF16(0x1p-134), 0x0000);
  EXPECT_EQ(doubleToBF16(3 * 0x1p-134), 0x0002);
  EXPECT_EQ(bf16ToDouble(0x0001), 0x1p-133);
  EXPECT_TRUE(std::isnan(bf16ToDouble(0x7FC0)));
  EXPECT_EQ(doubleToBF16(std::nan("")) & 0x7F80, 0x7F80);
}

TEST(HalfTest, EveryPatternRoundTrips) {
  for (uint32_t bits = 0; bits <= 0xFFFF; ++bits) {
    double f16 = f16ToDouble(uint16_t(bits));
    double bf16 = bf16ToDouble(uint16_t(bits));
    if (!std::isnan(f16)) {
      EXPECT_EQ(doubleToF16(f16), bits);
      EXPECT_EQ(double(f16ToFloat(uint16_t(bits))), f16);
    }
    if (!std::isnan(bf16)) {
      EXPECT_EQ(doubleToBF16(bf16), bits);
      EXPECT_EQ(double(bf16ToFloat(uint16_t(bits))), bf16);
    }
  }
}

TEST(HalfTest, DTypeElements) {
  EXPECT_EQ(parseDType("bf16"), DType::BF16);
  EXPECT_EQ(parseDType("f64"), std::nullopt);
  EXPECT_EQ(dtypeSize(DType::F32), 4u);
  EXPECT_EQ(dtypeSize(DType::F16), 2u);
  EXPECT_EQ(encodeElement(1.0, DType::F32), 0x3F800000u);
  EXPECT_EQ(roundToDType(1.0 + 0x1p-30, DType::F32), 1.0);
  EXPECT_EQ(roundToDType(0.1, DType::BF16), bf16ToDouble(doubleToBF16(0.1)));
  unsigned char bytes[4];
  storeElement(0x3C01, DType::F16, bytes);
  EXPECT_EQ(bytes[0], 0x01); // little-endian
  EXPECT_EQ(loadElement(bytes, DType::F16), 0x3C01u);
}

} // namespace
