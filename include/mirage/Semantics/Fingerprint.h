//===- Fingerprint.h - Finite-field fingerprints of tensor programs -*- C++ -*-===//
//
// A fingerprint evaluates a program on random residues instead of reals: each
// element is a pair (x_p, x_q) in Z_p x Z_q, where Z_q is the field of
// exponents (Mirage v3, section 5). Two semantics are available for the
// operators that are not rational functions:
//
//  - Homomorphic (the paper's): exp(x) = w^(x_q) for a random q-th root of
//    unity w, so exp(a + b) = exp(a) * exp(b) holds; sqrt is the canonical
//    field square root of both components, and a non-residue makes the trial
//    draw new inputs.
//  - Uninterpreted: exp and sqrt are random oracles keyed by their argument's
//    fingerprint. Programs that agree then agree for *any* function in their
//    place, so agreement is a proof with the Schwartz-Zippel bound; programs
//    that rely on an identity of exp or sqrt are not recognized.
//
// Division multiplies by the modular inverse; a zero divisor makes the trial
// draw new inputs (ResampleError). Nothing is ever silently wrong.
//
//===----------------------------------------------------------------------===//

#ifndef MIRAGE_SEMANTICS_FINGERPRINT_H
#define MIRAGE_SEMANTICS_FINGERPRINT_H

#include "mirage/Semantics/FiniteField.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <utility>

namespace mirage {

enum class FingerprintMode { Homomorphic, Uninterpreted };

/// The random choices of one fingerprint trial and the arithmetic that uses
/// them.
class Fingerprinter {
public:
  /// Draws the root of unity and the oracle key from `seed`.
  Fingerprinter(FingerprintMode mode, uint64_t seed);

  FingerprintMode getMode() const { return mode; }
  const PrimeField &fieldP() const { return p; }
  const PrimeField &fieldQ() const { return q; }
  uint64_t getRootOfUnity() const { return omega; }

  /// exp of the element (x_p, x_q): a residue mod p (the exponent-field
  /// component of the result is undefined).
  uint64_t exp(uint64_t xp, uint64_t xq) const;
  /// sqrt of (x_p, x_q); nullopt when the trial must be redrawn
  /// (a non-residue, homomorphic mode). With `withQ` false only the p
  /// component is meaningful.
  std::optional<std::pair<uint64_t, uint64_t>> sqrt(uint64_t xp, uint64_t xq,
                                                     bool withQ) const;

private:
  uint64_t oracle(uint64_t tag, uint64_t a, uint64_t b) const;

  FingerprintMode mode;
  PrimeField p{kFingerprintP};
  PrimeField q{kFingerprintQ};
  uint64_t omega;
  uint64_t oracleKey;
  FixedBasePower omegaPower;
};

/// Returned when the sampled inputs hit a zero divisor or a square root of a
/// non-residue: the trial is redrawn with new inputs.
class ResampleError : public llvm::ErrorInfo<ResampleError> {
public:
  static char ID;
  explicit ResampleError(std::string reason) : reason(std::move(reason)) {}
  void log(llvm::raw_ostream &os) const override { os << reason; }
  std::error_code convertToErrorCode() const override {
    return llvm::inconvertibleErrorCode();
  }
  const std::string &getReason() const { return reason; }

private:
  std::string reason;
};

} // namespace mirage

#endif // MIRAGE_SEMANTICS_FINGERPRINT_H
