//===- FiniteField.cpp - Prime-field arithmetic for fingerprints ----------===//
//
// Part of the Mirage MLIR project.
//
//===----------------------------------------------------------------------===//

#include "mirage/Semantics/FiniteField.h"

#include <cassert>
#include <cmath>

using namespace mirage;

uint64_t PrimeField::reduce(unsigned __int128 x) const {
  uint64_t hi = static_cast<uint64_t>(x >> 64);
  uint64_t lo = static_cast<uint64_t>(x);
#if defined(__x86_64__)
  // divq needs the high word below the divisor.
  if (hi >= m)
    hi %= m;
  uint64_t quotient, remainder;
  asm("divq %4" : "=a"(quotient), "=d"(remainder) : "a"(lo), "d"(hi), "rm"(m));
  (void)quotient;
  return remainder;
#else
  return static_cast<uint64_t>((static_cast<unsigned __int128>(hi % m) << 64 | lo) % m);
#endif
}

uint64_t PrimeField::pow(uint64_t base, uint64_t exponent) const {
  uint64_t result = 1 % m;
  base %= m;
  while (exponent) {
    if (exponent & 1)
      result = mul(result, base);
    base = mul(base, base);
    exponent >>= 1;
  }
  return result;
}

std::optional<uint64_t> PrimeField::inverse(uint64_t a) const {
  if (a % m == 0)
    return std::nullopt;
  return pow(a, m - 2);
}

bool PrimeField::inverseAll(std::vector<uint64_t> &values) const {
  if (values.empty())
    return true;
  std::vector<uint64_t> prefix(values.size());
  uint64_t running = 1;
  for (size_t i = 0; i < values.size(); ++i) {
    if (values[i] == 0)
      return false;
    prefix[i] = running;
    running = mul(running, values[i]);
  }
  uint64_t inverseOfAll = *inverse(running);
  for (size_t i = values.size(); i-- > 0;) {
    uint64_t value = values[i];
    values[i] = mul(inverseOfAll, prefix[i]);
    inverseOfAll = mul(inverseOfAll, value);
  }
  return true;
}

bool PrimeField::isQuadraticResidue(uint64_t a) const {
  a %= m;
  return a == 0 || pow(a, (m - 1) / 2) == 1;
}

std::optional<uint64_t> PrimeField::sqrt(uint64_t a) const {
  a %= m;
  if (a == 0)
    return 0;
  if (!isQuadraticResidue(a))
    return std::nullopt;
  // Tonelli-Shanks: m - 1 = odd * 2^s.
  uint64_t odd = m - 1;
  unsigned s = 0;
  while ((odd & 1) == 0) {
    odd >>= 1;
    ++s;
  }
  uint64_t z = 2;
  while (isQuadraticResidue(z))
    ++z;
  uint64_t c = pow(z, odd), t = pow(a, odd), r = pow(a, (odd + 1) / 2);
  unsigned level = s;
  while (t != 1) {
    unsigned i = 0;
    for (uint64_t t2 = t; t2 != 1; t2 = mul(t2, t2))
      ++i;
    uint64_t b = c;
    for (unsigned j = 0; j + i + 1 < level; ++j)
      b = mul(b, b);
    r = mul(r, b);
    c = mul(b, b);
    t = mul(t, c);
    level = i;
  }
  return r <= m - r ? r : m - r;
}

uint64_t PrimeField::fromInt(int64_t value) const {
  if (value >= 0)
    return static_cast<uint64_t>(value) % m;
  // |value| without overflowing at INT64_MIN.
  uint64_t magnitude = static_cast<uint64_t>(-(value + 1)) + 1;
  return neg(magnitude % m);
}

uint64_t PrimeField::fromDouble(double value) const {
  assert(std::isfinite(value) && "only finite constants have a residue");
  if (value == 0.0)
    return 0;
  int exponent;
  double fraction = std::frexp(value, &exponent); // value = fraction * 2^exp
  // 53 significant bits: value = mantissa * 2^(exponent - 53), exactly.
  auto mantissa = static_cast<int64_t>(std::ldexp(fraction, 53));
  exponent -= 53;
  uint64_t result = fromInt(mantissa);
  uint64_t two = 2 % m;
  if (exponent >= 0)
    return mul(result, pow(two, static_cast<uint64_t>(exponent)));
  return mul(result, *inverse(pow(two, static_cast<uint64_t>(-exponent))));
}

FixedBasePower::FixedBasePower(const PrimeField &field, uint64_t base)
    : field(&field), table(8 * 256) {
  uint64_t windowBase = base;
  for (unsigned w = 0; w < 8; ++w) {
    uint64_t power = 1;
    for (unsigned d = 0; d < 256; ++d) {
      table[w * 256 + d] = power;
      power = field.mul(power, windowBase);
    }
    windowBase = power; // base^(256^(w+1))
  }
}

uint64_t FixedBasePower::pow(uint64_t exponent) const {
  uint64_t result = table[exponent & 255];
  for (unsigned w = 1; w < 8 && (exponent >>= 8); ++w)
    result = field->mul(result, table[w * 256 + (exponent & 255)]);
  return result;
}

uint64_t mirage::splitMix64(uint64_t &state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

uint64_t mirage::sampleRootOfUnity(uint64_t &state) {
  PrimeField field(kFingerprintP);
  // g^((p-1)/q) has order dividing q, a prime: it is 1 or has order q.
  for (;;) {
    uint64_t g = 2 + splitMix64(state) % (kFingerprintP - 3);
    uint64_t root = field.pow(g, (kFingerprintP - 1) / kFingerprintQ);
    if (root != 1)
      return root;
  }
}
