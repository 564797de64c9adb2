//===- Half.h - f16 and bf16 conversions ------------------------*- C++ -*-===//
//
// Part of the Mirage MLIR project.
//
// Bit-exact conversions between IEEE binary16 (f16), bfloat16 (bf16) and
// float/double. Narrowing rounds to nearest, ties to even, directly from the
// double (rounding through float first would round twice); values past the
// largest finite number become infinities and NaNs stay (quiet) NaNs.
// Header-only and standard-library-only: the compiler uses it too.
//
//===----------------------------------------------------------------------===//

#ifndef MIRAGE_RUNTIME_HALF_H
#define MIRAGE_RUNTIME_HALF_H

#include <cmath>
#include <cstdint>
#include <cstring>

namespace mirage::runtime {

namespace detail {

/// Rounds `value` to a binary format with `ExpBits` exponent and `MantBits`
/// stored significand bits (IEEE layout, bias 2^(ExpBits-1) - 1).
template <int ExpBits, int MantBits>
inline uint16_t roundToSmallFloat(double value) {
  constexpr int bias = (1 << (ExpBits - 1)) - 1;
  constexpr uint32_t infBits = ((1u << ExpBits) - 1) << MantBits;
  uint64_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  uint32_t sign = uint32_t(bits >> 63) << (ExpBits + MantBits);
  int exponent = int((bits >> 52) & 0x7ff);
  uint64_t fraction = bits & ((uint64_t(1) << 52) - 1);
  if (exponent == 0x7ff)
    return uint16_t(sign | infBits | (fraction ? 1u << (MantBits - 1) : 0));

  // value = significand * 2^(e - 52).
  uint64_t significand = exponent ? fraction | (uint64_t(1) << 52) : fraction;
  int e = exponent ? exponent - 1023 : -1022;
  // Below the smallest normal exponent the result is subnormal, with the
  // quantum of the smallest normal binade.
  int targetExp = e > 1 - bias ? e : 1 - bias;
  int shift = targetExp - MantBits - e + 52;
  if (shift >= 54) // below half the smallest subnormal (or zero)
    return uint16_t(sign);
  uint64_t quotient = significand >> shift;
  uint64_t remainder = significand & ((uint64_t(1) << shift) - 1);
  uint64_t half = uint64_t(1) << (shift - 1);
  if (remainder > half || (remainder == half && (quotient & 1)))
    ++quotient;
  // The implicit bit of `quotient` carries into the exponent field, which
  // also turns a subnormal rounded up to 2^MantBits into the smallest normal
  // and a significand rounded up to 2^(MantBits+1) into the next binade.
  uint64_t magnitude = (uint64_t(targetExp + bias - 1) << MantBits) + quotient;
  if (magnitude >= infBits)
    return uint16_t(sign | infBits);
  return uint16_t(sign | magnitude);
}

template <int ExpBits, int MantBits>
inline double smallFloatToDouble(uint16_t bits) {
  constexpr int bias = (1 << (ExpBits - 1)) - 1;
  constexpr uint32_t mantMask = (1u << MantBits) - 1;
  constexpr uint32_t expMask = (1u << ExpBits) - 1;
  bool negative = bits >> (ExpBits + MantBits);
  uint32_t exponent = (bits >> MantBits) & expMask;
  uint32_t mantissa = bits & mantMask;
  double magnitude;
  if (exponent == expMask)
    magnitude = mantissa ? std::nan("") : HUGE_VAL;
  else if (exponent == 0)
    magnitude = std::ldexp(double(mantissa), 1 - bias - MantBits);
  else
    magnitude = std::ldexp(double(mantissa | (1u << MantBits)),
                           int(exponent) - bias - MantBits);
  return negative ? -magnitude : magnitude;
}

} // namespace detail

inline uint16_t doubleToF16(double value) {
  return detail::roundToSmallFloat<5, 10>(value);
}
inline uint16_t doubleToBF16(double value) {
  return detail::roundToSmallFloat<8, 7>(value);
}
// float -> double is exact, so these round once.
inline uint16_t floatToF16(float value) { return doubleToF16(value); }
inline uint16_t floatToBF16(float value) { return doubleToBF16(value); }

inline double f16ToDouble(uint16_t bits) {
  return detail::smallFloatToDouble<5, 10>(bits);
}
inline double bf16ToDouble(uint16_t bits) {
  return detail::smallFloatToDouble<8, 7>(bits);
}
// Every f16 and bf16 value is a float, so these are exact.
inline float f16ToFloat(uint16_t bits) { return float(f16ToDouble(bits)); }
inline float bf16ToFloat(uint16_t bits) {
  uint32_t wide = uint32_t(bits) << 16;
  float value;
  std::memcpy(&value, &wide, sizeof(value));
  return value;
}

} // namespace mirage::runtime

#endif // MIRAGE_RUNTIME_HALF_H
