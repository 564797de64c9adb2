//===- DimensionFactsTest.cpp - Operand and result dims, per operator ----===//
//
// What every operator's record says about how its operands' and results'
// dims line up: the tiling facet (getTileDims, which kn-fuse cuts kernels
// with) and the axis sets (inferAxisSets, the search's axis labels), on
// representative shapes of every kind that has them. Both are pinned here
// as text, so that one dimension map per operator can replace the two
// rules without changing either.
//
//===----------------------------------------------------------------------===//

#include "TestParams.h"
#include "mirage/Semantics/OpSemantics.h"

#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <string>
#include <vector>

using namespace mirage;
using namespace mirage::test;

namespace {

struct Case {
  OpKind kind;
  std::vector<Shape> shapes;
  OpParams params;
};

std::vector<Case> cases() {
  return {
      {OpKind::Exp, {{8, 16}}, {}},
      {OpKind::Rsqrt, {{1, 16}}, {}},
      {OpKind::MulScalar, {{4, 8}}, {}},
      {OpKind::Add, {{8, 16}, {16}}, {}},
      {OpKind::Sub, {{8, 16}, {8, 1}}, {}},
      {OpKind::Mul, {{2, 1, 16}, {4, 16}}, {}},
      {OpKind::Maximum, {{8, 16}, {8, 16}}, {}},
      {OpKind::Matmul, {{8, 64}, {64, 16}}, {}},
      {OpKind::Matmul, {{2, 8, 64}, {64, 16}}, {}},
      {OpKind::Matmul, {{2, 8, 64}, {2, 64, 16}}, {}},
      {OpKind::Matmul, {{1, 8, 64}, {2, 64, 16}}, {}},
      {OpKind::ReduceSum, {{8, 300}}, withDim(1)},
      {OpKind::ReduceSum, {{8, 300}}, withDim(1, /*keepDim=*/false)},
      {OpKind::ReduceMax, {{8, 16}}, withDim(0)},
      {OpKind::ReduceMax, {{4, 8, 16}}, withDim(1, /*keepDim=*/false)},
      {OpKind::RmsNorm, {{4, 64}, {64}}, {}},
      {OpKind::RmsNorm, {{2, 4, 64}}, {}},
      {OpKind::Concat, {{4, 8}, {2, 8}}, withDim(0)},
      {OpKind::Concat, {{4, 8}, {4, 8}, {4, 2}}, withDim(1)},
      {OpKind::Split, {{8, 8}}, withInts(1, {3, 5})},
      {OpKind::Reshape, {{4, 8}}, withInts(0, {32})},
      {OpKind::Reshape, {{4, 8, 2}}, withInts(0, {32, 2})},
      {OpKind::Reshape, {{1, 8, 1}}, withInts(0, {8})},
      {OpKind::Transpose, {{4, 8}}, withInts(0, {1, 0})},
      {OpKind::Transpose, {{2, 4, 8}}, withInts(0, {0, 2, 1})},
      {OpKind::AllReduce, {{16}}, {}},
      {OpKind::AccumSum, {{8, 16}}, {}},
      {OpKind::AccumMax, {{8, 1}}, {}},
  };
}

void printDims(llvm::raw_ostream &os, llvm::ArrayRef<int64_t> dims) {
  os << '[';
  llvm::interleaveComma(dims, os, [&](int64_t d) {
    if (d == kWholeDim)
      os << "whole";
    else if (d == kBroadcastDim)
      os << "bcast";
    else
      os << d;
  });
  os << ']';
}

std::string describe(const Case &c) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << getOpInfo(c.kind).name;
  for (const Shape &shape : c.shapes) {
    os << ' ';
    printDims(os, shape);
  }
  llvm::SmallVector<llvm::ArrayRef<int64_t>, 3> shapes(c.shapes.begin(),
                                                       c.shapes.end());
  os << "\n  tiles: ";
  if (std::optional<TileDims> tiles = getTileDims(c.kind, shapes, c.params)) {
    os << "space ";
    printDims(os, tiles->space);
    os << " reduced";
    for (auto [d, reduced] : llvm::enumerate(tiles->reduced))
      if (reduced)
        os << ' ' << d;
    os << "; operands";
    for (const auto &dims : tiles->operands) {
      os << ' ';
      printDims(os, dims);
    }
    os << "; results";
    for (const auto &dims : tiles->results) {
      os << ' ';
      printDims(os, dims);
    }
    os << "; fold " << getOpInfo(tiles->accumulator).name;
  } else {
    os << "none";
  }
  // Axis sets: bit 8 * operand + dim for each operand dim of size > 1, as
  // the search labels its inputs.
  os << "\n  axes: ";
  auto result = inferShapes(c.kind, shapes, c.params);
  if (!result) {
    llvm::consumeError(result.takeError());
    os << "no shape";
    return text;
  }
  std::vector<AxisSets> operands;
  llvm::SmallVector<const AxisSets *, 3> pointers;
  for (auto [index, shape] : llvm::enumerate(c.shapes)) {
    AxisSets &sets = operands.emplace_back();
    for (auto [d, size] : llvm::enumerate(shape))
      sets.push_back(size == 1 ? 0 : uint64_t(1) << (8 * index + d));
  }
  for (const AxisSets &sets : operands)
    pointers.push_back(&sets);
  std::optional<AxisSets> sets =
      inferAxisSets(c.kind, pointers, shapes, (*result)[0], c.params);
  if (!sets) {
    os << "none";
    return text;
  }
  os << '[';
  llvm::interleaveComma(*sets, os, [&](uint64_t set) {
    os << llvm::format_hex(set, 2);
  });
  os << ']';
  return text;
}

TEST(DimensionFactsTest, TilesAndAxesOfEveryKind) {
  std::string all;
  for (const Case &c : cases())
    all += describe(c) + "\n";
  EXPECT_EQ(all, R"(exp [8, 16]
  tiles: space [8, 16] reduced; operands [0, 1]; results [0, 1]; fold accum_sum
  axes: [0x1, 0x2]
rsqrt [1, 16]
  tiles: space [1, 16] reduced; operands [0, 1]; results [0, 1]; fold accum_sum
  axes: [0x0, 0x2]
mul_scalar [4, 8]
  tiles: space [4, 8] reduced; operands [0, 1]; results [0, 1]; fold accum_sum
  axes: [0x1, 0x2]
add [8, 16] [16]
  tiles: space [8, 16] reduced; operands [0, 1] [1]; results [0, 1]; fold accum_sum
  axes: [0x1, 0x102]
sub [8, 16] [8, 1]
  tiles: space [8, 16] reduced; operands [0, 1] [0, bcast]; results [0, 1]; fold accum_sum
  axes: [0x101, 0x2]
mul [2, 1, 16] [4, 16]
  tiles: space [2, 4, 16] reduced; operands [0, bcast, 2] [1, 2]; results [0, 1, 2]; fold accum_sum
  axes: [0x1, 0x100, 0x204]
maximum [8, 16] [8, 16]
  tiles: space [8, 16] reduced; operands [0, 1] [0, 1]; results [0, 1]; fold accum_sum
  axes: [0x101, 0x202]
matmul [8, 64] [64, 16]
  tiles: space [8, 16, 64] reduced 2; operands [0, 2] [2, 1]; results [0, 1]; fold accum_sum
  axes: [0x1, 0x200]
matmul [2, 8, 64] [64, 16]
  tiles: space [2, 8, 16, 64] reduced 3; operands [0, 1, 3] [3, 2]; results [0, 1, 2]; fold accum_sum
  axes: [0x1, 0x2, 0x200]
matmul [2, 8, 64] [2, 64, 16]
  tiles: space [2, 8, 16, 64] reduced 3; operands [0, 1, 3] [0, 3, 2]; results [0, 1, 2]; fold accum_sum
  axes: [0x101, 0x2, 0x400]
matmul [1, 8, 64] [2, 64, 16]
  tiles: space [2, 8, 16, 64] reduced 3; operands [bcast, 1, 3] [0, 3, 2]; results [0, 1, 2]; fold accum_sum
  axes: [0x100, 0x2, 0x400]
reduce_sum [8, 300]
  tiles: space [8, 300] reduced 1; operands [0, 1]; results [0, whole]; fold accum_sum
  axes: [0x1, 0x0]
reduce_sum [8, 300]
  tiles: space [8, 300] reduced 1; operands [0, 1]; results [0]; fold accum_sum
  axes: [0x1]
reduce_max [8, 16]
  tiles: space [8, 16] reduced 0; operands [0, 1]; results [whole, 1]; fold accum_max
  axes: [0x0, 0x2]
reduce_max [4, 8, 16]
  tiles: space [4, 8, 16] reduced 1; operands [0, 1, 2]; results [0, 2]; fold accum_max
  axes: [0x1, 0x4]
rms_norm [4, 64] [64]
  tiles: space [4, 64] reduced; operands [0, whole] [whole]; results [0, whole]; fold accum_sum
  axes: [0x1, 0x102]
rms_norm [2, 4, 64]
  tiles: space [2, 4, 64] reduced; operands [0, 1, whole]; results [0, 1, whole]; fold accum_sum
  axes: [0x1, 0x2, 0x4]
concat [4, 8] [2, 8]
  tiles: space [6, 8] reduced; operands [whole, 1] [whole, 1]; results [whole, 1]; fold accum_sum
  axes: [0x101, 0x202]
concat [4, 8] [4, 8] [4, 2]
  tiles: space [4, 18] reduced; operands [0, whole] [0, whole] [0, whole]; results [0, whole]; fold accum_sum
  axes: [0x10101, 0x20202]
split [8, 8]
  tiles: space [8, 8] reduced; operands [0, whole]; results [0, whole] [0, whole]; fold accum_sum
  axes: [0x1, 0x2]
reshape [4, 8]
  tiles: space [32] reduced; operands [whole, whole]; results [whole]; fold accum_sum
  axes: none
reshape [4, 8, 2]
  tiles: space [32, 2] reduced; operands [whole, whole, 1]; results [whole, 1]; fold accum_sum
  axes: none
reshape [1, 8, 1]
  tiles: space [8] reduced; operands [whole, 0, whole]; results [0]; fold accum_sum
  axes: none
transpose [4, 8]
  tiles: space [8, 4] reduced; operands [1, 0]; results [0, 1]; fold accum_sum
  axes: [0x2, 0x1]
transpose [2, 4, 8]
  tiles: space [2, 8, 4] reduced; operands [0, 2, 1]; results [0, 1, 2]; fold accum_sum
  axes: [0x1, 0x4, 0x2]
all_reduce [16]
  tiles: none
  axes: [0x1]
accum_sum [8, 16]
  tiles: none
  axes: [0x1, 0x2]
accum_max [8, 1]
  tiles: none
  axes: [0x1, 0x0]
)") << all;
}

// The tiling facet keeps normalized and whole dims alike; the search's
// schedules and the tile IR tell them apart (a loop may split a normalized
// dim, whose partial sums fold, never a concatenated one).
TEST(DimensionFactsTest, SpaceDimKinds) {
  auto kinds = [](OpKind kind, std::vector<Shape> shapes, OpParams params,
                  Shape result) {
    llvm::SmallVector<llvm::ArrayRef<int64_t>, 3> in(shapes.begin(),
                                                     shapes.end());
    std::optional<DimMap> map = getDimMap(kind, in, result, params);
    std::string text;
    for (SpaceDimKind k :
         map ? map->kinds : llvm::SmallVector<SpaceDimKind, 4>{})
      text += "prnw"[static_cast<int>(k)];
    return text;
  };
  EXPECT_EQ(kinds(OpKind::RmsNorm, {{4, 64}, {64}}, {}, {4, 64}), "pn");
  EXPECT_EQ(kinds(OpKind::Concat, {{4, 8}, {2, 8}}, withDim(0), {6, 8}), "wp");
  EXPECT_EQ(kinds(OpKind::Split, {{8, 8}}, withInts(1, {3, 5}), {8, 3}), "pw");
  EXPECT_EQ(kinds(OpKind::Matmul, {{8, 64}, {64, 16}}, {}, {8, 16}), "ppr");
  EXPECT_EQ(kinds(OpKind::ReduceSum, {{8, 300}}, withDim(1), {8, 1}), "pr");
  EXPECT_EQ(kinds(OpKind::Exp, {{8, 16}}, {}, {8, 16}), "pp");
  EXPECT_TRUE(needsWholeDim(SpaceDimKind::Normalized));
  EXPECT_TRUE(needsWholeDim(SpaceDimKind::Whole));
  EXPECT_FALSE(needsWholeDim(SpaceDimKind::Reduced));
}

TEST(DimensionFactsTest, ShapesInferShapesWouldRefuseGiveNoMap) {
  // A left operand of more dims than the product, an empty reshape.
  EXPECT_FALSE(getDimMap(OpKind::Matmul, {{1, 8, 64}, {64, 16}}, {8, 16}, {}));
  OpParams reshape;
  reshape.ints = {0};
  EXPECT_FALSE(getDimMap(OpKind::Reshape, {{2, 0}}, {0}, reshape));
  OpParams reduce;
  reduce.dim = 2;
  EXPECT_FALSE(getDimMap(OpKind::ReduceSum, {{4, 8}}, {4, 8}, reduce));
}

} // namespace
