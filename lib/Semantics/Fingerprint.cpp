//===- Fingerprint.cpp - Finite-field fingerprints of tensor programs -----===//
//
// Part of the Mirage MLIR project.
//
//===----------------------------------------------------------------------===//

#include "mirage/Semantics/Fingerprint.h"

using namespace mirage;

char ResampleError::ID = 0;

namespace {
uint64_t drawRoot(uint64_t seed) {
  uint64_t state = seed ^ 0x5EEDF00D5EEDF00DULL;
  return sampleRootOfUnity(state);
}
uint64_t drawKey(uint64_t seed) {
  uint64_t state = seed ^ 0x0A7AC1E0A7AC1E0AULL;
  return splitMix64(state);
}
} // namespace

Fingerprinter::Fingerprinter(FingerprintMode mode, uint64_t seed)
    : mode(mode), omega(drawRoot(seed)), oracleKey(drawKey(seed)),
      omegaPower(p, omega) {}

uint64_t Fingerprinter::oracle(uint64_t tag, uint64_t a, uint64_t b) const {
  uint64_t state = oracleKey ^ (tag * 0xD6E8FEB86659FD93ULL);
  state ^= splitMix64(state) ^ a;
  state ^= splitMix64(state) ^ b;
  return splitMix64(state);
}

uint64_t Fingerprinter::exp(uint64_t xp, uint64_t xq) const {
  if (mode == FingerprintMode::Homomorphic)
    return omegaPower.pow(xq);
  return oracle(/*tag=*/1, xp, xq) % kFingerprintP;
}

std::optional<std::pair<uint64_t, uint64_t>>
Fingerprinter::sqrt(uint64_t xp, uint64_t xq, bool withQ) const {
  if (mode == FingerprintMode::Uninterpreted)
    return std::make_pair(oracle(/*tag=*/2, xp, xq) % kFingerprintP,
                          oracle(/*tag=*/3, xp, xq) % kFingerprintQ);
  std::optional<uint64_t> rootP = p.sqrt(xp);
  if (!rootP)
    return std::nullopt;
  if (!withQ)
    return std::make_pair(*rootP, uint64_t(0));
  std::optional<uint64_t> rootQ = q.sqrt(xq);
  if (!rootQ)
    return std::nullopt;
  return std::make_pair(*rootP, *rootQ);
}
