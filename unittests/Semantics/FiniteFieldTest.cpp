//===- FiniteFieldTest.cpp - Prime-field arithmetic -----------------------===//
//
// Part of the Mirage MLIR project.
//
//===----------------------------------------------------------------------===//

#include "mirage/Semantics/FiniteField.h"

#include "gtest/gtest.h"

using namespace mirage;

namespace {

const PrimeField P(kFingerprintP);
const PrimeField Q(kFingerprintQ);

/// Miller-Rabin with the bases that are exact below 2^64.
bool isPrime(uint64_t n) {
  PrimeField f(n);
  uint64_t d = n - 1;
  unsigned s = 0;
  while ((d & 1) == 0) {
    d >>= 1;
    ++s;
  }
  for (uint64_t a : {2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37}) {
    uint64_t x = f.pow(a, d);
    if (x == 1 || x == n - 1)
      continue;
    bool composite = true;
    for (unsigned r = 1; r < s && composite; ++r) {
      x = f.mul(x, x);
      composite = x != n - 1;
    }
    if (composite)
      return false;
  }
  return true;
}

TEST(FiniteFieldTest, PrimesAreNear2To61AndQDividesPMinus1) {
  EXPECT_TRUE(isPrime(kFingerprintP));
  EXPECT_TRUE(isPrime(kFingerprintQ));
  EXPECT_EQ((kFingerprintP - 1) % kFingerprintQ, 0u);
  EXPECT_LT(kFingerprintP, uint64_t(1) << 61);
  EXPECT_GT(kFingerprintQ, uint64_t(1) << 58);
}

TEST(FiniteFieldTest, ReduceMatchesWideRemainder) {
  uint64_t state = 1;
  for (int i = 0; i < 1000; ++i) {
    unsigned __int128 x =
        static_cast<unsigned __int128>(splitMix64(state)) << 64 |
        splitMix64(state);
    EXPECT_EQ(P.reduce(x), static_cast<uint64_t>(x % kFingerprintP));
    EXPECT_EQ(Q.reduce(x), static_cast<uint64_t>(x % kFingerprintQ));
  }
}

TEST(FiniteFieldTest, InversesMultiplyToOne) {
  uint64_t state = 2;
  std::vector<uint64_t> values, batch;
  for (int i = 0; i < 200; ++i) {
    uint64_t a = 1 + splitMix64(state) % (kFingerprintP - 1);
    std::optional<uint64_t> inverse = P.inverse(a);
    ASSERT_TRUE(inverse.has_value());
    EXPECT_EQ(P.mul(a, *inverse), 1u);
    values.push_back(a);
  }
  batch = values;
  ASSERT_TRUE(P.inverseAll(batch));
  for (size_t i = 0; i < values.size(); ++i)
    EXPECT_EQ(batch[i], *P.inverse(values[i]));
  EXPECT_FALSE(P.inverse(0).has_value());
  batch = {3, 0, 5};
  EXPECT_FALSE(P.inverseAll(batch));
}

TEST(FiniteFieldTest, RootsOfUnityHaveOrderQ) {
  uint64_t state = 3;
  for (int i = 0; i < 5; ++i) {
    uint64_t omega = sampleRootOfUnity(state);
    EXPECT_NE(omega, 1u);
    EXPECT_EQ(P.pow(omega, kFingerprintQ), 1u);
    // exp(a + b) = exp(a) exp(b) with exponents mod q.
    FixedBasePower power(P, omega);
    uint64_t a = splitMix64(state) % kFingerprintQ;
    uint64_t b = splitMix64(state) % kFingerprintQ;
    EXPECT_EQ(power.pow(a), P.pow(omega, a));
    EXPECT_EQ(power.pow(Q.add(a, b)), P.mul(power.pow(a), power.pow(b)));
    EXPECT_EQ(power.pow(0), 1u);
  }
}

TEST(FiniteFieldTest, SquareRootsAreCanonicalAndNonResiduesHaveNone) {
  uint64_t state = 4;
  for (const PrimeField *field : {&P, &Q}) {
    uint64_t m = field->modulus();
    int nonResidues = 0;
    for (int i = 0; i < 200; ++i) {
      uint64_t a = splitMix64(state) % m;
      uint64_t square = field->mul(a, a);
      std::optional<uint64_t> root = field->sqrt(square);
      ASSERT_TRUE(root.has_value());
      EXPECT_TRUE(*root == a || *root == field->neg(a));
      EXPECT_LE(*root, m - *root);
      uint64_t b = splitMix64(state) % m;
      if (!field->isQuadraticResidue(b)) {
        EXPECT_FALSE(field->sqrt(b).has_value());
        ++nonResidues;
      }
    }
    EXPECT_GT(nonResidues, 50); // about half of the residues
    EXPECT_EQ(*field->sqrt(0), 0u);
  }
}

TEST(FiniteFieldTest, ConstantsMapExactly) {
  EXPECT_EQ(P.mul(P.fromDouble(0.125), 8), 1u);
  EXPECT_EQ(P.fromDouble(-2.5), P.neg(P.mul(5, *P.inverse(2))));
  EXPECT_EQ(P.fromDouble(4096.0), 4096u);
  EXPECT_EQ(Q.mul(Q.fromDouble(0.75), 4), 3u);
  EXPECT_EQ(P.fromInt(-1), kFingerprintP - 1);
  EXPECT_EQ(P.fromInt(INT64_MIN), P.neg(P.pow(2, 63)));
}

} // namespace
