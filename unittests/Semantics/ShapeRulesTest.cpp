//===- ShapeRulesTest.cpp - Operator shape rules --------------------------===//
//
// Part of the Mirage MLIR project.
//
//===----------------------------------------------------------------------===//

#include "mirage/Semantics/OpKindCases.h"
#include "mirage/Semantics/OpSemantics.h"

#include "gtest/gtest.h"

#include <set>
#include <string>

using namespace mirage;
using llvm::ArrayRef;

namespace {

using Shapes = llvm::SmallVector<Shape, 1>;

/// The single result shape, or a failure with the error message.
::testing::AssertionResult hasShape(llvm::Expected<Shapes> result,
                                    ArrayRef<int64_t> expected) {
  if (!result)
    return ::testing::AssertionFailure()
           << "error: " << llvm::toString(result.takeError());
  if (result->size() != 1 || ArrayRef<int64_t>((*result)[0]) != expected)
    return ::testing::AssertionFailure()
           << "got " << formatShape((*result)[0]) << ", expected "
           << formatShape(expected);
  return ::testing::AssertionSuccess();
}

/// The error message (empty if the rule succeeded).
std::string errorOf(llvm::Expected<Shapes> result) {
  if (result)
    return "";
  return llvm::toString(result.takeError());
}

TEST(OpInfoTest, TableIsIndexedByKindWithUniqueNames) {
  std::set<std::string> names;
  for (unsigned i = 0; i <= static_cast<unsigned>(OpKind::AccumRescaledSum);
       ++i) {
    auto kind = static_cast<OpKind>(i);
    EXPECT_EQ(getOpInfo(kind).kind, kind);
    EXPECT_TRUE(names.insert(getOpInfo(kind).name.str()).second)
        << getOpInfo(kind).name.str();
  }
  EXPECT_EQ(getOpInfo(OpKind::Matmul).name, "matmul");
  EXPECT_TRUE(getOpInfo(OpKind::Exp).elementwise);
  EXPECT_FALSE(getOpInfo(OpKind::Matmul).elementwise);
}

TEST(ShapeRulesTest, OperandCountIsChecked) {
  EXPECT_EQ(errorOf(inferShapes(OpKind::Add, {{2, 3}}, {})),
            "add takes 2 operand(s), got 1");
  EXPECT_EQ(errorOf(inferShapes(OpKind::RmsNorm, {{2}, {2}, {2}}, {})),
            "rms_norm takes 1 to 2 operand(s), got 3");
  EXPECT_EQ(errorOf(inferShapes(OpKind::Concat, {}, {})),
            "concat takes at least 1 operand(s), got 0");
}

TEST(ShapeRulesTest, NonPositiveSizesAreRejected) {
  EXPECT_EQ(errorOf(inferShapes(OpKind::Exp, {{2, 0}}, {})),
            "operand #0 has shape 2x0; sizes must be static and positive");
}

TEST(ShapeRulesTest, BroadcastAlignsOnTheRight) {
  EXPECT_TRUE(hasShape(inferShapes(OpKind::Div, {{2, 4096}, {2, 1}}, {}),
                       {2, 4096}));
  EXPECT_TRUE(
      hasShape(inferShapes(OpKind::Mul, {{2, 64}, {64}}, {}), {2, 64}));
  EXPECT_TRUE(
      hasShape(inferShapes(OpKind::Add, {{3, 1, 5}, {4, 1}}, {}), {3, 4, 5}));
  EXPECT_EQ(errorOf(inferShapes(OpKind::Sub, {{2, 3}, {4, 3}}, {})),
            "shapes 2x3 and 4x3 do not broadcast: lhs dim 0 has size 2 but "
            "rhs dim 0 has size 4");
}

TEST(ShapeRulesTest, MatmulContractsAndBroadcastsBatchDims) {
  EXPECT_TRUE(hasShape(
      inferShapes(OpKind::Matmul, {{2, 4096}, {4096, 6144}}, {}), {2, 6144}));
  EXPECT_TRUE(hasShape(
      inferShapes(OpKind::Matmul, {{2, 256, 64}, {2, 64, 4096}}, {}),
      {2, 256, 4096}));
  EXPECT_TRUE(hasShape(
      inferShapes(OpKind::Matmul, {{8, 1, 16, 32}, {4, 32, 8}}, {}),
      {8, 4, 16, 8}));
  EXPECT_EQ(errorOf(inferShapes(OpKind::Matmul, {{2, 64}, {32, 8}}, {})),
            "contraction dims differ: lhs dim 1 has size 64 but rhs dim 0 has "
            "size 32");
  EXPECT_EQ(errorOf(inferShapes(OpKind::Matmul, {{64}, {64, 8}}, {})),
            "matmul operands must have rank >= 2, got 64 and 64x8");
  EXPECT_EQ(
      errorOf(inferShapes(OpKind::Matmul, {{2, 4, 8}, {3, 8, 4}}, {})),
      "batch dims do not broadcast: shapes 2 and 3 do not broadcast: lhs dim "
      "0 has size 2 but rhs dim 0 has size 3");
}

TEST(ShapeRulesTest, ReductionsKeepOrDropTheDim) {
  OpParams params;
  params.dim = 1;
  EXPECT_TRUE(
      hasShape(inferShapes(OpKind::ReduceSum, {{2, 4096}}, params), {2, 1}));
  params.keepDim = false;
  EXPECT_TRUE(
      hasShape(inferShapes(OpKind::ReduceMax, {{2, 4096}}, params), {2}));
  params.dim = 2;
  EXPECT_EQ(errorOf(inferShapes(OpKind::ReduceSum, {{2, 4096}}, params)),
            "reduction dim 2 is out of range for rank 2");
}

TEST(ShapeRulesTest, RmsNormWeightMatchesTheLastDim) {
  EXPECT_TRUE(hasShape(inferShapes(OpKind::RmsNorm, {{2, 4096}}, {}),
                       {2, 4096}));
  EXPECT_TRUE(hasShape(inferShapes(OpKind::RmsNorm, {{2, 4096}, {4096}}, {}),
                       {2, 4096}));
  EXPECT_EQ(errorOf(inferShapes(OpKind::RmsNorm, {{2, 4096}, {2, 4096}}, {})),
            "rms_norm weight must have shape 4096 (the normalized last dim), "
            "got 2x4096");
}

TEST(ShapeRulesTest, ConcatSplitReshapeTranspose) {
  OpParams params;
  params.dim = 1;
  EXPECT_TRUE(hasShape(
      inferShapes(OpKind::Concat, {{16, 256}, {16, 16}}, params), {16, 272}));
  EXPECT_EQ(
      errorOf(inferShapes(OpKind::Concat, {{16, 256}, {8, 16}}, params)),
      "concat operand #1 has size 8 in dim 0 but operand #0 has size 16; "
      "only the concat dim 1 may differ");

  params.ints = {256, 16};
  auto split = inferShapes(OpKind::Split, {{16, 272}}, params);
  ASSERT_TRUE(static_cast<bool>(split));
  ASSERT_EQ(split->size(), 2u);
  EXPECT_EQ(ArrayRef<int64_t>((*split)[1]), ArrayRef<int64_t>({16, 16}));
  params.ints = {256, 15};
  EXPECT_EQ(errorOf(inferShapes(OpKind::Split, {{16, 272}}, params)),
            "split sizes sum to 271 but dim 1 has size 272");

  params.ints = {1, 8, 64};
  EXPECT_TRUE(
      hasShape(inferShapes(OpKind::Reshape, {{8, 64}}, params), {1, 8, 64}));
  params.ints = {8, 65};
  EXPECT_EQ(errorOf(inferShapes(OpKind::Reshape, {{8, 64}}, params)),
            "reshape from 8x64 (512 elements) to 8x65 (520 elements) changes "
            "the element count");

  params.ints = {0, 2, 1};
  EXPECT_TRUE(hasShape(inferShapes(OpKind::Transpose, {{2, 4096, 64}}, params),
                       {2, 64, 4096}));
  params.ints = {0, 0, 1};
  EXPECT_EQ(errorOf(inferShapes(OpKind::Transpose, {{2, 4096, 64}}, params)),
            "permutation repeats dim 0");
}

OpParams tiling(ArrayRef<int64_t> grid, ArrayRef<int64_t> gridMap,
                int64_t forloop, int64_t loopMap) {
  OpParams params;
  params.tiling.grid.assign(grid.begin(), grid.end());
  params.tiling.gridMap.assign(gridMap.begin(), gridMap.end());
  params.tiling.forloopRange = forloop;
  params.tiling.loopMap = loopMap;
  return params;
}

TEST(ShapeRulesTest, InputIteratorTilesByGridThenLoop) {
  // W [4096, 6144]: imap x -> 1 over 96 blocks, fmap i -> 0 over 64 iterations.
  EXPECT_TRUE(hasShape(inferShapes(OpKind::InputIterator, {{4096, 6144}},
                                   tiling({96}, {1}, 64, 0)),
                       {64, 64}));
  // Replica along x, loop over the same dim the grid splits.
  EXPECT_TRUE(hasShape(inferShapes(OpKind::InputIterator, {{2, 4096}},
                                   tiling({96}, {kReplica}, 64, 1)),
                       {2, 64}));
  EXPECT_TRUE(hasShape(inferShapes(OpKind::InputIterator, {{2, 256, 64}},
                                   tiling({2, 4}, {0, 1}, 8, 1)),
                       {1, 8, 64}));
  EXPECT_EQ(errorOf(inferShapes(OpKind::InputIterator, {{4096, 6144}},
                                tiling({100}, {1}, 64, 0))),
            "data dim 1 (size 6144) is not divisible by grid dim x (size 100) "
            "that imap partitions it over");
  EXPECT_EQ(errorOf(inferShapes(OpKind::InputIterator, {{2, 4096}},
                                tiling({96}, {kReplica}, 3, 1))),
            "data dim 1 (size 4096 per block) is not divisible by the for-loop "
            "range 3 that fmap partitions it over");
  EXPECT_EQ(errorOf(inferShapes(OpKind::InputIterator, {{4, 8}},
                                tiling({2, 2}, {1, 1}, 1, kReplica))),
            "imap maps grid dims x and y to the same data dim 1");
  EXPECT_EQ(errorOf(inferShapes(OpKind::InputIterator, {{4, 8}},
                                tiling({2}, {1, 0}, 1, kReplica))),
            "imap has 2 entries but the grid has 1 dim(s); a map has one entry "
            "per grid dim");
  EXPECT_EQ(errorOf(inferShapes(OpKind::InputIterator, {{4, 8}},
                                tiling({2}, {2}, 1, kReplica))),
            "imap maps grid dim x to data dim 2, but the tensor has rank 2");
}

TEST(ShapeRulesTest, OutputSaverAssemblesDisjointTiles) {
  EXPECT_TRUE(hasShape(inferShapes(OpKind::OutputSaver, {{2, 64}},
                                   tiling({96}, {1}, 64, kReplica)),
                       {2, 6144}));
  EXPECT_EQ(errorOf(inferShapes(OpKind::OutputSaver, {{2, 64}},
                                tiling({96, 2}, {1, kReplica}, 1, kReplica))),
            "omap maps grid dim y to replica; every grid dim must map to a "
            "data dim so that blocks write disjoint parts of the output");
}

TEST(ShapeRulesTest, Accumulators) {
  OpParams params = tiling({96}, {}, 64, kReplica);
  params.dim = 1;
  EXPECT_TRUE(hasShape(inferShapes(OpKind::AccumConcat, {{16, 64}}, params),
                       {16, 4096}));
  EXPECT_TRUE(
      hasShape(inferShapes(OpKind::AccumSum, {{16, 64}}, params), {16, 64}));
  EXPECT_TRUE(hasShape(
      inferShapes(OpKind::AccumRescaledSum, {{64, 64}, {64, 1}}, {}),
      {64, 64}));
  EXPECT_EQ(errorOf(inferShapes(OpKind::AccumRescaledSum, {{64, 1}, {64, 64}},
                                {})),
            "the running-max operand of shape 64x64 does not broadcast to the "
            "accumulated shape 64x1");
}

} // namespace

namespace {
/// Exhaustive without default: the families and the other kinds together
/// cover the enum exactly once (-Werror=switch, duplicate labels fail).
bool isInElementwiseCases(mirage::OpKind kind) {
  switch (kind) {
  MIRAGE_ELEMENTWISE_OP_KIND_CASES:
    return true;
  MIRAGE_GRAPH_STRUCTURE_OP_KIND_CASES:
  case mirage::OpKind::Matmul:
  case mirage::OpKind::ReduceSum:
  case mirage::OpKind::ReduceMax:
  case mirage::OpKind::RmsNorm:
  case mirage::OpKind::Concat:
  case mirage::OpKind::Split:
  case mirage::OpKind::Reshape:
  case mirage::OpKind::Transpose:
  case mirage::OpKind::AllReduce:
    return false;
  }
  llvm_unreachable("covered switch");
}
} // namespace

// OpKindCases.h lists the elementwise kinds for exhaustive switches; the
// operator records say which kinds are elementwise. They agree.
TEST(OpKindCasesTest, ElementwiseCasesAreTheElementwiseRecords) {
  for (unsigned i = 0; i < mirage::kNumOpKinds; ++i) {
    auto kind = static_cast<mirage::OpKind>(i);
    EXPECT_EQ(isInElementwiseCases(kind), mirage::getOpInfo(kind).elementwise)
        << mirage::getOpInfo(kind).name.str();
  }
}
