//===- MonomialFilterTest.cpp - The cheap necessary test for subexpr ------===//
//
// The filter must never reject what the axioms make a subexpression (each
// positive below is one), and should reject the negatives the search meets
// most, which Z3 could only time out on.
//
//===----------------------------------------------------------------------===//

#include "MonomialFilter.h"

#include "gtest/gtest.h"

using namespace mirage;
using mirage::search::detail::MonomialFilter;

namespace {

class MonomialFilterTest : public ::testing::Test {
protected:
  ExprContext c;
  ExprId x = c.var(0), g = c.var(1), w = c.var(2);

  /// sum(k, x g w / sqrt(sum(k, x x) / k + eps)): RMSNorm and a matmul.
  ExprId rmsNormLinear(int64_t k) {
    ExprId meanSquare = c.mul(c.sum(k, c.mul(x, x)), c.constant(1.0 / k));
    ExprId rms = c.sqrt(c.add(meanSquare, c.constant(1e-6)));
    return c.sum(k, c.mul(c.mul(c.div(x, rms), g), w));
  }
};

TEST_F(MonomialFilterTest, KeepsSubexpressionsTheAxiomsAllow) {
  ExprId target = rmsNormLinear(256);
  MonomialFilter filter(c, {target});
  // Direct subterms and their rearrangements.
  EXPECT_TRUE(filter.mayBeSubexpr(c.mul(x, g)));
  EXPECT_TRUE(filter.mayBeSubexpr(c.mul(c.mul(x, g), w)));
  EXPECT_TRUE(filter.mayBeSubexpr(c.sum(256, c.mul(x, x))));
  // sum(i, a) b = sum(i, a b) and sum(256, a) = sum(128, sum(2, a)).
  EXPECT_TRUE(filter.mayBeSubexpr(c.sum(256, c.mul(x, w))));
  EXPECT_TRUE(filter.mayBeSubexpr(c.sum(2, c.mul(x, g))));
  // The denominator, and a quotient that keeps it a denominator.
  ExprId meanSquare = c.mul(c.sum(256, c.mul(x, x)), c.constant(1.0 / 256));
  ExprId rms = c.sqrt(c.add(meanSquare, c.constant(1e-6)));
  EXPECT_TRUE(filter.mayBeSubexpr(rms));
  EXPECT_TRUE(filter.mayBeSubexpr(c.div(c.mul(x, w), rms)));
  EXPECT_TRUE(filter.mayBeSubexpr(c.div(c.sum(256, c.mul(x, w)), rms)));
  EXPECT_TRUE(filter.mayBeEquivalent(
      c.div(c.sum(256, c.mul(c.mul(x, g), w)), rms), target));
}

TEST_F(MonomialFilterTest, RejectsWhatNoAxiomProduces) {
  MonomialFilter filter(c, {rmsNormLinear(256)});
  // No sum of 512 terms: 512 divides no sum size outside the square root.
  EXPECT_FALSE(filter.mayBeSubexpr(c.sum(512, x)));
  // A sum of two monomials never occurs outside the square root.
  EXPECT_FALSE(filter.mayBeSubexpr(c.add(g, x)));
  // x x g: x occurs squared only under the square root.
  EXPECT_FALSE(filter.mayBeSubexpr(c.mul(c.mul(x, x), g)));
  // g / x: no factor leaves a square root.
  EXPECT_FALSE(filter.mayBeSubexpr(c.div(g, x)));
  // Square roots and exponentials of the wrong argument.
  EXPECT_FALSE(filter.mayBeSubexpr(c.sqrt(c.mul(x, g))));
  EXPECT_FALSE(filter.mayBeSubexpr(c.exp(x)));
  EXPECT_FALSE(filter.mayBeEquivalent(c.sum(256, c.mul(c.mul(x, g), w)),
                                      rmsNormLinear(256)));
}

TEST_F(MonomialFilterTest, ExponentialsSplitAndMerge) {
  // Attention: sum(n, exp(q k) v) / sum(n, exp(q k)).
  ExprId q = x, k = g, v = w;
  ExprId e = c.exp(c.mul(c.sum(64, c.mul(q, k)), c.constant(0.125)));
  ExprId target = c.div(c.sum(4096, c.mul(e, v)), c.sum(4096, e));
  MonomialFilter filter(c, {target});
  EXPECT_TRUE(filter.mayBeSubexpr(e));
  EXPECT_TRUE(filter.mayBeSubexpr(c.sum(4096, e)));
  EXPECT_TRUE(filter.mayBeSubexpr(c.sum(64, c.mul(e, v))));
  EXPECT_FALSE(filter.mayBeSubexpr(c.exp(q)));
  EXPECT_FALSE(filter.mayBeSubexpr(c.mul(e, c.mul(v, v))));
}

} // namespace
