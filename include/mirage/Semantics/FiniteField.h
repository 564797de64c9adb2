//===- FiniteField.h - Prime-field arithmetic for fingerprints --*- C++ -*-===//
//
// Arithmetic in Z_p for the two fingerprint primes: p for values and q for
// exponents, with q dividing p - 1 so that Z_p has q-th roots of unity
// (Mirage v3, section 5). Both are near 2^61 so that one trial's false-accept
// probability is about (degree / 2^61).
//
//===----------------------------------------------------------------------===//

#ifndef MIRAGE_SEMANTICS_FINITEFIELD_H
#define MIRAGE_SEMANTICS_FINITEFIELD_H

#include <cstdint>
#include <optional>
#include <vector>

namespace mirage {

/// The value prime: 2^61 - 2595. Below 2^61, so 64 products of residues sum
/// below 2^128 and matmuls reduce once per 64 terms.
constexpr uint64_t kFingerprintP = 2305843009213691357ULL;
/// The exponent prime: (p - 1) / 4, about 2^59.
constexpr uint64_t kFingerprintQ = 576460752303422839ULL;

/// Arithmetic modulo a prime below 2^63. Residues are in [0, modulus).
class PrimeField {
public:
  explicit constexpr PrimeField(uint64_t modulus) : m(modulus) {}

  uint64_t modulus() const { return m; }

  uint64_t add(uint64_t a, uint64_t b) const {
    uint64_t sum = a + b;
    return sum >= m ? sum - m : sum;
  }
  uint64_t sub(uint64_t a, uint64_t b) const { return a >= b ? a - b : a + m - b; }
  uint64_t neg(uint64_t a) const { return a == 0 ? 0 : m - a; }
  uint64_t mul(uint64_t a, uint64_t b) const {
    return reduce(static_cast<unsigned __int128>(a) * b);
  }
  /// Any 128-bit value modulo the prime.
  uint64_t reduce(unsigned __int128 x) const;
  uint64_t pow(uint64_t base, uint64_t exponent) const;
  /// The multiplicative inverse; nullopt for 0.
  std::optional<uint64_t> inverse(uint64_t a) const;
  /// Inverts every element in place with one exponentiation (Montgomery's
  /// trick); false, leaving `values` unspecified, if any element is 0.
  bool inverseAll(std::vector<uint64_t> &values) const;
  bool isQuadraticResidue(uint64_t a) const;
  /// The square root r with r <= modulus - r (the canonical one of +-r);
  /// nullopt for non-residues.
  std::optional<uint64_t> sqrt(uint64_t a) const;
  /// The residue of a signed integer.
  uint64_t fromInt(int64_t value) const;
  /// The residue of the exact rational value of a finite double
  /// (mantissa * 2^exponent).
  uint64_t fromDouble(double value) const;

private:
  uint64_t m;
};

/// x^e for a fixed base x, by 8-bit windows: 8 multiplications per power.
class FixedBasePower {
public:
  FixedBasePower(const PrimeField &field, uint64_t base);
  uint64_t pow(uint64_t exponent) const;

private:
  const PrimeField *field;
  std::vector<uint64_t> table; // table[w * 256 + d] = base^(d * 256^w)
};

/// A splitmix64 step: the seeded generator behind inputs, roots of unity and
/// the random oracles of the fingerprints.
uint64_t splitMix64(uint64_t &state);

/// A q-th root of unity of Z_p other than 1, drawn with `state`.
uint64_t sampleRootOfUnity(uint64_t &state);

} // namespace mirage

#endif // MIRAGE_SEMANTICS_FINITEFIELD_H
