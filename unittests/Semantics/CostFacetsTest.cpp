//===- CostFacetsTest.cpp - The work and axis-set facets ------------------===//
//
// The facets the search's cost model and axis labels read: each operator's
// arithmetic, the tensor-core tile rule shared with the code generator, and
// how result axes inherit their operands' axis sets.
//
//===----------------------------------------------------------------------===//

#include "mirage/Semantics/OpSemantics.h"

#include "gtest/gtest.h"

using namespace mirage;

namespace {

TEST(CostFacetsTest, Work) {
  OpWork matmul = getWork(OpKind::Matmul, {{2, 8, 64}, {2, 64, 32}},
                          {2, 8, 32}, {});
  EXPECT_EQ(matmul.multiplyAdds, 2.0 * 8 * 32 * 64);
  EXPECT_EQ(matmul.elementOps, 0.0);
  EXPECT_EQ(getWork(OpKind::ReduceSum, {{8, 64}}, {8, 1}, {}).elementOps,
            512.0);
  // Transcendentals count four operations per element.
  EXPECT_EQ(getWork(OpKind::Exp, {{8, 64}}, {8, 64}, {}).elementOps, 2048.0);
  EXPECT_EQ(getWork(OpKind::Mul, {{8, 64}, {64}}, {8, 64}, {}).elementOps,
            512.0);
  EXPECT_EQ(getWork(OpKind::RmsNorm, {{8, 64}, {64}}, {8, 64}, {}).elementOps,
            2048.0);
  OpWork moved = getWork(OpKind::Transpose, {{8, 64}}, {64, 8}, {});
  EXPECT_EQ(moved.multiplyAdds + moved.elementOps, 0.0);
}

TEST(CostFacetsTest, TensorCoreTiles) {
  EXPECT_TRUE(fitsTensorCoreTiles({2, 512}, {512, 32}, 2));
  EXPECT_FALSE(fitsTensorCoreTiles({2, 512}, {512, 4}, 2));  // n % 8
  EXPECT_FALSE(fitsTensorCoreTiles({2, 40}, {40, 32}, 2));   // k % 16
  EXPECT_FALSE(fitsTensorCoreTiles({2, 512}, {512, 32}, 4)); // f32
  EXPECT_TRUE(fitsTensorCoreTiles({2, 8, 64}, {64, 32}, 2));
  EXPECT_FALSE(fitsTensorCoreTiles({2, 8, 64}, {3, 64, 32}, 2));
}

TEST(CostFacetsTest, AxisSets) {
  AxisSets x{1, 2}, w{4, 8};
  // matmul keeps x's rows and w's columns.
  EXPECT_EQ(*inferAxisSets(OpKind::Matmul, {&x, &w}, {{8, 64}, {64, 64}},
                           {8, 64}, {}),
            (AxisSets{1, 8}));
  // An elementwise op joins aligned axes; a broadcast axis adds nothing.
  AxisSets row{0, 8};
  EXPECT_EQ(*inferAxisSets(OpKind::Mul, {&x, &row}, {{8, 64}, {1, 64}},
                           {8, 64}, {}),
            (AxisSets{1, 2 | 8}));
  OpParams reduce;
  reduce.dim = 1;
  EXPECT_EQ(*inferAxisSets(OpKind::ReduceSum, {&x}, {{8, 64}}, {8, 1}, reduce),
            (AxisSets{1, 0}));
  OpParams permutation;
  permutation.ints = {1, 0};
  EXPECT_EQ(*inferAxisSets(OpKind::Transpose, {&x}, {{8, 64}}, {64, 8},
                           permutation),
            (AxisSets{2, 1}));
  OpParams reshape;
  reshape.ints = {512};
  EXPECT_FALSE(
      inferAxisSets(OpKind::Reshape, {&x}, {{8, 64}}, {512}, reshape));
}

} // namespace
