//===- SubexprTest.cpp - Abstract expressions and their pruning -----------===//
//
// Each axiom of Mirage v3 Table 2 makes some subexpression or equivalence
// provable that is not provable without it; the filter rejects what no
// axiom can produce; answers are cached.
//
//===----------------------------------------------------------------------===//

#include "mirage/Search/Subexpr.h"

#include "gtest/gtest.h"

using namespace mirage;

namespace {

class SubexprTest : public ::testing::Test {
protected:
  ExprContext c;
  ExprId x = c.var(0), y = c.var(1), z = c.var(2), w = c.var(3);

  bool sub(ExprId candidate, ExprId target) {
    SubexprChecker checker(c, {target}, std::make_shared<SubexprCache>());
    return checker.isSubexpr(candidate);
  }
  bool equal(ExprId candidate, ExprId target) {
    SubexprChecker checker(c, {target}, std::make_shared<SubexprCache>());
    return checker.isEquivalent(candidate, target);
  }
};

TEST_F(SubexprTest, HashConsing) {
  EXPECT_EQ(c.add(x, y), c.add(x, y));
  // Normal form modulo commutativity, associativity and nested sums.
  EXPECT_EQ(c.add(x, y), c.add(y, x));
  EXPECT_EQ(c.mul(c.mul(x, y), z), c.mul(x, c.mul(z, y)));
  EXPECT_NE(c.add(c.mul(x, y), z), c.mul(c.add(x, y), z));
  EXPECT_EQ(c.sum(1, x), x);
  EXPECT_EQ(c.sum(4, c.sum(16, x)), c.sum(64, x));
  EXPECT_EQ(c.print(c.div(c.sum(64, x), c.sqrt(x))),
            "div(sum(64, v0), sqrt(v0))");
  EXPECT_EQ(c.print(c.constant(0.125)), "c[0.125]");
  EXPECT_EQ(c.constant(0.125), c.constant(0.125));
}

// A_sub: each direct subterm, reflexivity and transitivity.
TEST_F(SubexprTest, SubexpressionAxioms) {
  EXPECT_TRUE(sub(x, c.add(x, y)));                       // s1
  EXPECT_TRUE(sub(x, c.mul(x, y)));                       // s2
  EXPECT_TRUE(sub(x, c.div(x, y)));                       // s3
  EXPECT_TRUE(sub(y, c.div(x, y)));                       // s4
  EXPECT_TRUE(sub(x, c.exp(x)));                          // s5
  EXPECT_TRUE(sub(x, c.sqrt(x)));                         // s6
  EXPECT_TRUE(sub(x, c.silu(x)));                         // s7
  EXPECT_TRUE(sub(x, c.sum(8, x)));                       // s8
  EXPECT_TRUE(sub(c.exp(x), c.exp(x)));                   // s9
  EXPECT_TRUE(sub(x, c.exp(c.sqrt(c.sum(8, x)))));        // s10
  EXPECT_TRUE(sub(x, c.opaque("max[64]", {x})));          // uninterpreted
  EXPECT_FALSE(sub(c.exp(x), c.sqrt(x)));
  EXPECT_FALSE(sub(z, c.add(x, y)));
}

// A_eq 1-4: commutativity and associativity make operand order and grouping
// irrelevant.
TEST_F(SubexprTest, CommutativityAndAssociativity) {
  EXPECT_TRUE(sub(y, c.add(x, y)));
  EXPECT_TRUE(sub(c.mul(y, x), c.exp(c.mul(x, y))));
  EXPECT_TRUE(sub(c.add(x, z), c.add(c.add(x, y), z)));
  EXPECT_TRUE(sub(c.mul(x, z), c.mul(c.mul(x, y), z)));
  EXPECT_TRUE(equal(c.add(x, c.add(y, z)), c.add(c.add(z, y), x)));
}

// A_eq 5-8: distributivity and the division rules.
TEST_F(SubexprTest, DistributivityAndDivision) {
  ExprId factored = c.mul(c.add(x, y), z);
  EXPECT_TRUE(equal(c.add(c.mul(x, z), c.mul(y, z)), factored)); // 5
  EXPECT_TRUE(equal(c.add(c.div(x, z), c.div(y, z)),
                    c.div(c.add(x, y), z)));                     // 6
  EXPECT_TRUE(equal(c.mul(x, c.div(y, z)), c.div(c.mul(x, y), z))); // 7
  EXPECT_TRUE(equal(c.div(c.div(x, y), z), c.div(x, c.mul(y, z)))); // 8
  // x * y is a subexpression of (x * y) / z = x * (y / z).
  EXPECT_TRUE(sub(c.div(y, z), c.div(c.mul(x, y), z)));
  EXPECT_FALSE(equal(c.div(x, y), c.div(y, x)));
}

// A_eq 9-13: sums.
TEST_F(SubexprTest, Sums) {
  EXPECT_TRUE(equal(c.sum(4, c.sum(16, x)), c.sum(64, x)));         // 10
  EXPECT_TRUE(sub(c.sum(16, x), c.sum(64, x)));                     // 10
  EXPECT_TRUE(equal(c.sum(8, c.add(x, y)),
                    c.add(c.sum(8, x), c.sum(8, y))));              // 11
  EXPECT_TRUE(equal(c.sum(8, c.mul(x, y)), c.mul(c.sum(8, x), y))); // 12
  EXPECT_TRUE(equal(c.sum(8, c.div(x, y)), c.div(c.sum(8, x), y))); // 13
  EXPECT_FALSE(equal(c.sum(8, x), c.sum(16, x)));
  EXPECT_FALSE(sub(c.sum(3, x), c.sum(64, x)));
}

// A_eq 14-15: exp and sqrt of sums and products.
TEST_F(SubexprTest, ExpAndSqrt) {
  EXPECT_TRUE(equal(c.mul(c.exp(x), c.exp(y)), c.exp(c.add(x, y))));     // 14
  EXPECT_TRUE(equal(c.mul(c.sqrt(x), c.sqrt(y)), c.sqrt(c.mul(x, y)))); // 15
  EXPECT_TRUE(sub(c.exp(x), c.exp(c.add(x, y))));
}

// The fused RMSNorm + Linear program: the per-iteration pieces of the fused
// µGraph are subexpressions of the reference, the final ones equivalent.
TEST_F(SubexprTest, RmsNormLinear) {
  ExprId gx = c.mul(x, y), squares = c.mul(x, x);
  auto rms = [&](ExprId sumOfSquares) {
    return c.sqrt(c.add(c.mul(sumOfSquares, c.constant(1.0 / 4096)),
                        c.constant(1e-6)));
  };
  ExprId reference =
      c.sum(4096, c.mul(c.mul(c.div(x, rms(c.sum(4096, squares))), y), z));
  SubexprChecker checker(c, {reference}, std::make_shared<SubexprCache>());
  ExprId tile = c.sum(64, c.mul(gx, z));
  EXPECT_TRUE(checker.isSubexpr(gx));
  EXPECT_TRUE(checker.isSubexpr(tile));
  EXPECT_TRUE(checker.isSubexpr(c.sum(64, c.sum(64, squares))));
  ExprId fused = c.div(c.sum(64, tile), rms(c.sum(64, c.sum(64, squares))));
  EXPECT_TRUE(checker.isEquivalent(fused, reference));
  // Pruned: an exp, an input product that is not there, a wrong constant.
  EXPECT_FALSE(checker.isSubexpr(c.exp(x)));
  EXPECT_FALSE(checker.isSubexpr(c.add(x, y)));
  EXPECT_FALSE(checker.isSubexpr(c.mul(squares, c.constant(0.5))));
  // A constant factor moves through the sums: the mean of partial sums of
  // squares, scaled per iteration, is still the reference's mean.
  EXPECT_TRUE(checker.isEquivalent(
      c.sum(64, c.mul(c.sum(64, squares), c.constant(1.0 / 4096))),
      c.mul(c.sum(4096, squares), c.constant(1.0 / 4096))));
}

TEST_F(SubexprTest, CacheAndStatistics) {
  auto cache = std::make_shared<SubexprCache>();
  ExprId target = c.exp(c.sum(8, c.mul(x, y)));
  SubexprChecker first(c, {target}, cache), second(c, {target}, cache);
  EXPECT_TRUE(first.isSubexpr(c.mul(y, x)));
  EXPECT_TRUE(second.isSubexpr(c.mul(y, x)));
  EXPECT_FALSE(first.isSubexpr(c.sqrt(x)));
  SubexprStats stats = cache->getStats();
  EXPECT_EQ(stats.queries, 3u);
  EXPECT_EQ(stats.cacheHits, 1u);
  EXPECT_EQ(stats.filtered, 1u);
  EXPECT_EQ(stats.solved, 1u);
}

} // namespace
