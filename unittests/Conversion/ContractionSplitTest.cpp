//===- ContractionSplitTest.cpp - Summed dims split over slices -----------===//
//
// The regions kn-fuse may split (ContractionSplit.h): which ops and sums a
// region holds and where its dim is, the programs that have none, and the
// sliced region for several slice counts, each proven equivalent to the
// original by the verifier (kn-fuse itself tries only the counts its speed
// model prices, test/Conversion/fuse-split-sums.mlir).
//
//===----------------------------------------------------------------------===//

#include "mirage/Dialect/Kernel/Transforms/ContractionSplit.h"

#include "mirage/Dialect/Kernel/IR/Kernel.h"
#include "mirage/InitAllDialects.h"
#include "mirage/InitAllExtensions.h"
#include "mirage/Verify/Equivalence.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mirage;

namespace {

/// Attention after kn-fuse's scale move: the division follows the product
/// with the values.
constexpr const char *kAttention = R"mlir(
func.func @f(%q: tensor<2x16x64xf16>, %k: tensor<2x64x1024xf16>, %v: tensor<2x1024x64xf16>) -> tensor<2x16x64xf16> {
  %s = kn.matmul %q, %k : tensor<2x16x64xf16>, tensor<2x64x1024xf16>
  %scaled = kn.mul_scalar %s, 0.125 : tensor<2x16x1024xf16>
  %e = kn.exp %scaled : tensor<2x16x1024xf16>
  %l = kn.reduce_sum %e dim 2 : tensor<2x16x1024xf16>
  %o = kn.matmul %e, %v : tensor<2x16x1024xf16>, tensor<2x1024x64xf16>
  %r = kn.div %o, %l : tensor<2x16x64xf16>, tensor<2x16x1xf16>
  return %r : tensor<2x16x64xf16>
}
)mlir";

/// Keys stored [heads, positions, head dim], normalized, then transposed.
constexpr const char *kNormalizedKeys = R"mlir(
func.func @f(%q: tensor<2x16x64xf16>, %k: tensor<2x1024x64xf16>, %v: tensor<2x1024x64xf16>) -> tensor<2x16x64xf16> {
  %kn = kn.rms_norm %k {eps = 1.0e-6 : f64} : tensor<2x1024x64xf16>
  %kt = kn.transpose %kn permutation [0, 2, 1] : tensor<2x1024x64xf16>
  %s = kn.matmul %q, %kt : tensor<2x16x64xf16>, tensor<2x64x1024xf16>
  %scaled = kn.mul_scalar %s, 0.125 : tensor<2x16x1024xf16>
  %e = kn.exp %scaled : tensor<2x16x1024xf16>
  %l = kn.reduce_sum %e dim 2 : tensor<2x16x1024xf16>
  %o = kn.matmul %e, %v : tensor<2x16x1024xf16>, tensor<2x1024x64xf16>
  %r = kn.div %o, %l : tensor<2x16x64xf16>, tensor<2x16x1xf16>
  return %r : tensor<2x16x64xf16>
}
)mlir";

class ContractionSplitTest : public ::testing::Test {
protected:
  ContractionSplitTest() {
    DialectRegistry registry;
    registerAllDialects(registry);
    registerAllExtensions(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  OwningOpRef<ModuleOp> parse(const char *program) {
    return parseSourceString<ModuleOp>(program, &context);
  }

  static func::FuncOp getFunction(ModuleOp module) {
    return module.lookupSymbol<func::FuncOp>("f");
  }

  /// Slices the one region of `program` into `slices`, replaces its sums
  /// by the totals, and checks the result against the program.
  void sliceAndVerify(const char *program, int64_t slices) {
    OwningOpRef<ModuleOp> original = parse(program);
    ASSERT_TRUE(original);
    OwningOpRef<ModuleOp> sliced = original->clone();
    func::FuncOp function = getFunction(*sliced);
    SmallVector<kn::ContractedRegion> regions =
        kn::findContractedRegions(function);
    ASSERT_EQ(regions.size(), 1u);
    const kn::ContractedRegion &region = regions.front();
    OpBuilder builder(region.sums.back());
    kn::SlicedRegion built = kn::sliceContractedRegion(region, slices, builder);
    ASSERT_EQ(built.totals.size(), region.sums.size());
    for (auto [sum, total] : llvm::zip(region.sums, built.totals))
      sum->getResult(0).replaceAllUsesWith(total->getResult(0));
    SmallVector<Operation *> old(region.ops);
    old.append(region.sums);
    llvm::sort(
        old, [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
    for (Operation *op : llvm::reverse(old)) {
      ASSERT_TRUE(op->use_empty());
      op->erase();
    }
    ASSERT_TRUE(succeeded(verify(*sliced)));
    auto result = checkEquivalence(function, getFunction(*original),
                                   EquivalenceOptions());
    ASSERT_TRUE(static_cast<bool>(result))
        << llvm::toString(result.takeError());
    EXPECT_EQ(result->verdict, Verdict::Proven) << describe(*result, "f");
  }

  MLIRContext context;
};

TEST_F(ContractionSplitTest, FindsAttentionsRegion) {
  OwningOpRef<ModuleOp> module = parse(kAttention);
  ASSERT_TRUE(module);
  func::FuncOp function = getFunction(*module);
  SmallVector<kn::ContractedRegion> regions =
      kn::findContractedRegions(function);
  ASSERT_EQ(regions.size(), 1u);
  const kn::ContractedRegion &region = regions.front();
  EXPECT_EQ(region.extent, 1024);
  // The scores' matmul, the scaling and the exponential; the row sums and
  // the product with the values.
  ASSERT_EQ(region.ops.size(), 3u);
  EXPECT_TRUE(isa<kn::MatmulOp>(region.ops[0]));
  EXPECT_TRUE(isa<kn::ExpOp>(region.ops[2]));
  ASSERT_EQ(region.sums.size(), 2u);
  EXPECT_TRUE(isa<kn::ReduceSumOp>(region.sums[0]));
  EXPECT_TRUE(isa<kn::MatmulOp>(region.sums[1]));
  // The keys carry the positions innermost, the values outermost of their
  // two innermost dims; the queries (no positions) are no leaf.
  Block &body = function.getBody().front();
  EXPECT_EQ(region.positions.lookup(body.getArgument(1)), 2);
  EXPECT_EQ(region.positions.lookup(body.getArgument(2)), 1);
  EXPECT_FALSE(region.positions.count(body.getArgument(0)));
}

TEST_F(ContractionSplitTest, RegionsLeftWhole) {
  const char *programs[] = {
      // The exponentials are returned too.
      R"mlir(
func.func @f(%s: tensor<2x16x1024xf16>, %v: tensor<2x1024x64xf16>) -> (tensor<2x16x64xf16>, tensor<2x16x1024xf16>) {
  %e = kn.exp %s : tensor<2x16x1024xf16>
  %o = kn.matmul %e, %v : tensor<2x16x1024xf16>, tensor<2x1024x64xf16>
  return %o, %e : tensor<2x16x64xf16>, tensor<2x16x1024xf16>
}
)mlir",
      // The scores' row maximum is no sum.
      R"mlir(
func.func @f(%s: tensor<2x16x1024xf16>, %v: tensor<2x1024x64xf16>) -> tensor<2x16x64xf16> {
  %e = kn.exp %s : tensor<2x16x1024xf16>
  %m = kn.reduce_max %e dim 2 : tensor<2x16x1024xf16>
  %o = kn.matmul %e, %v : tensor<2x16x1024xf16>, tensor<2x1024x64xf16>
  %r = kn.div %o, %m : tensor<2x16x64xf16>, tensor<2x16x1xf16>
  return %r : tensor<2x16x64xf16>
}
)mlir",
      // Two-dim operands (an MLP's hidden dim).
      R"mlir(
func.func @f(%x: tensor<1x512xf16>, %w1: tensor<512x2048xf16>, %w2: tensor<2048x512xf16>) -> tensor<1x512xf16> {
  %h = kn.matmul %x, %w1 : tensor<1x512xf16>, tensor<512x2048xf16>
  %a = kn.silu %h : tensor<1x2048xf16>
  %y = kn.matmul %a, %w2 : tensor<1x2048xf16>, tensor<2048x512xf16>
  return %y : tensor<1x512xf16>
}
)mlir",
      // Nothing computed on the way: the sums of a plain batched matmul.
      R"mlir(
func.func @f(%e: tensor<2x16x1024xf16>, %v: tensor<2x1024x64xf16>) -> tensor<2x16x64xf16> {
  %o = kn.matmul %e, %v : tensor<2x16x1024xf16>, tensor<2x1024x64xf16>
  return %o : tensor<2x16x64xf16>
}
)mlir",
  };
  for (const char *program : programs) {
    OwningOpRef<ModuleOp> module = parse(program);
    ASSERT_TRUE(module);
    EXPECT_TRUE(kn::findContractedRegions(getFunction(*module)).empty())
        << program;
  }
}

TEST_F(ContractionSplitTest, SlicedAttentionIsEquivalent) {
  for (int64_t slices : {2, 8, 32})
    sliceAndVerify(kAttention, slices);
}

TEST_F(ContractionSplitTest, SlicedNormalizedKeysAreEquivalent) {
  for (int64_t slices : {4, 16})
    sliceAndVerify(kNormalizedKeys, slices);
}

} // namespace
