//===- AxisLabelsTest.cpp - Axis labels tell index-different programs apart -===//
//
// Each pair below has one abstract expression (indices are ignored) but
// computes different functions; the labels must differ. Equivalent forms,
// including a graph-defined kernel that accumulates the matmul over a loop,
// must get the same labels.
//
//===----------------------------------------------------------------------===//

#include "AxisLabels.h"

#include "gtest/gtest.h"

using namespace mirage;
using namespace mirage::search;
using namespace mirage::search::detail;

namespace {

class AxisLabelsTest : public ::testing::Test {
protected:
  MuGraph graph;

  unsigned input(Shape shape) {
    graph.tensors.push_back({shape, 0});
    graph.numInputs = graph.tensors.size();
    return graph.numInputs - 1;
  }

  unsigned op(OpKind kind, llvm::ArrayRef<unsigned> operands,
              OpParams params = {}) {
    llvm::SmallVector<llvm::ArrayRef<int64_t>, 3> shapes;
    for (unsigned operand : operands)
      shapes.push_back(graph.tensors[operand].shape);
    auto inferred = inferShapes(kind, shapes, params);
    EXPECT_TRUE(static_cast<bool>(inferred));
    KernelOp kernelOp;
    kernelOp.kind = kind;
    kernelOp.params = params;
    kernelOp.operands.assign(operands.begin(), operands.end());
    kernelOp.results.push_back(graph.tensors.size());
    graph.tensors.push_back({inferred->front(), 0});
    graph.ops.push_back(kernelOp);
    return kernelOp.results.front();
  }

  std::optional<AxisLabels> labelsOf(unsigned tensor) {
    return labelTensors(graph)[tensor];
  }

  static OpParams reduceDim(int64_t dim) {
    OpParams params;
    params.dim = dim;
    return params;
  }
};

TEST_F(AxisLabelsTest, MatmulIsNotMulBySummedColumns) {
  unsigned x = input({8, 64}), w = input({64, 64});
  unsigned matmul = op(OpKind::Matmul, {x, w});
  unsigned summed = op(OpKind::ReduceSum, {w}, reduceDim(0));
  unsigned mul = op(OpKind::Mul, {x, summed});
  // Rows from x, columns from W; the mul also indexes x's columns.
  EXPECT_EQ(*labelsOf(matmul), (AxisLabels{1u << 0, 1u << 9}));
  EXPECT_EQ(*labelsOf(mul), (AxisLabels{1u << 0, (1u << 1) | (1u << 9)}));
  EXPECT_FALSE(sameLabels(labelsOf(matmul), labelsOf(mul), {8, 64}));
}

TEST_F(AxisLabelsTest, GatedMlpOperandsAreNotInterchangeable) {
  unsigned x = input({8, 64}), w1 = input({64, 64}), w2 = input({64, 64});
  unsigned gate = op(OpKind::Silu, {op(OpKind::Matmul, {x, w1})});
  unsigned gated = op(OpKind::Mul, {gate, op(OpKind::Matmul, {x, w2})});
  // x * (silu(x W1) W2): the same abstract expression.
  unsigned swapped = op(OpKind::Mul, {x, op(OpKind::Matmul, {gate, w2})});
  EXPECT_FALSE(sameLabels(labelsOf(gated), labelsOf(swapped), {8, 64}));
}

TEST_F(AxisLabelsTest, ReductionsEmptyTheirAxis) {
  unsigned x = input({8, 64});
  OpParams dropped = reduceDim(1);
  dropped.keepDim = false;
  EXPECT_EQ(*labelsOf(op(OpKind::ReduceSum, {x}, reduceDim(1))),
            (AxisLabels{1u << 0, 0}));
  EXPECT_EQ(*labelsOf(op(OpKind::ReduceSum, {x}, dropped)),
            (AxisLabels{1u << 0}));
  // Size-1 axes carry no label and never decide a comparison.
  EXPECT_TRUE(sameLabels(AxisLabels{1, 0}, AxisLabels{1, 4}, {8, 1}));
  EXPECT_FALSE(sameLabels(AxisLabels{1, 0}, AxisLabels{1, 4}, {8, 2}));
}

TEST_F(AxisLabelsTest, BlockGraphsFollowTheSameRules) {
  unsigned x = input({8, 64}), w = input({64, 64});
  unsigned reference = op(OpKind::Matmul, {x, w});
  // A graph-defined kernel: matmul in the loop body, accumulated.
  auto skeleton = std::make_shared<BlockSkeleton>();
  skeleton->numInputs = 2;
  skeleton->nodes.push_back(
      {Phase::Input, OpKind::InputIterator, {}, {}, {8, 64}, 0});
  skeleton->nodes.push_back(
      {Phase::Input, OpKind::InputIterator, {}, {}, {64, 64}, 0});
  skeleton->nodes.push_back({Phase::Body, OpKind::Matmul, {}, {0, 1}, {8, 64}, 0});
  skeleton->nodes.push_back({Phase::Accum, OpKind::AccumSum, {}, {2}, {8, 64}, 0});
  skeleton->outputs.push_back(3);
  KernelOp kernel;
  kernel.skeleton = skeleton;
  kernel.operands = {x, w};
  kernel.results.push_back(graph.tensors.size());
  graph.tensors.push_back({{8, 64}, 0});
  graph.ops.push_back(kernel);
  EXPECT_EQ(labelsOf(kernel.results.front()), labelsOf(reference));
}

TEST_F(AxisLabelsTest, UnknownForOperatorsWithoutARule) {
  unsigned x = input({8, 64});
  OpParams shape;
  shape.ints = {64, 8};
  unsigned reshaped = op(OpKind::Reshape, {x}, shape);
  EXPECT_FALSE(labelsOf(reshaped).has_value());
  // Unknown labels agree with anything.
  EXPECT_TRUE(sameLabels(std::nullopt, AxisLabels{1, 2}, {64, 8}));
}

} // namespace
