//===- UntiledValuesTest.cpp - Which values the lowering gives no tile ----===//
//
// kn-fuse counts a plan's shared memory by the lowering's own rules
// (isComputedInUser, isReadInPlace in KernelToGPU.h), which read kn and tb
// ops alike: elementwise chains are computed in their users (elementwise
// ops of their shape, or broadcasting them along rows, or reductions, or
// concats read in place), splits, unit-dim reshapes and concats read by
// elementwise ops are views; anything else gets a tile.
//
//===----------------------------------------------------------------------===//

#include "mirage/Conversion/KernelToGPU.h"

#include "mirage/InitAllDialects.h"
#include "mirage/InitAllExtensions.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

#include <map>

using namespace mlir;
using namespace mirage;

namespace {

constexpr const char *kProgram = R"(
func.func @f(%gu: tensor<8x64xf16>, %x: tensor<8x32xf16>, %w: tensor<32x32xf16>, %c: tensor<32xf16>) -> (tensor<8x32xf16>, tensor<8x32xf16>, tensor<1x8x32xf16>, tensor<256xf16>, tensor<8x32xf16>, tensor<8x16xf16>, tensor<8x64xf16>, tensor<8x1xf16>) {
  %g, %u = kn.split %gu dim 1 sizes [32, 32] : tensor<8x64xf16>
  %s = kn.silu %g : tensor<8x32xf16>
  %gated = kn.mul %s, %u : tensor<8x32xf16>, tensor<8x32xf16>
  %e = kn.exp %x : tensor<8x32xf16>
  %twice = kn.add %e, %e : tensor<8x32xf16>, tensor<8x32xf16>
  %n = kn.neg %c : tensor<32xf16>
  %b = kn.add %x, %n : tensor<8x32xf16>, tensor<32xf16>
  %p = kn.matmul %x, %w : tensor<8x32xf16>, tensor<32x32xf16>
  %p0, %p1 = kn.split %p dim 1 sizes [16, 16] : tensor<8x32xf16>
  %pe = kn.exp %p0 : tensor<8x16xf16>
  %r = kn.reshape %twice : tensor<8x32xf16> -> tensor<1x8x32xf16>
  %rs = kn.sqrt %r : tensor<1x8x32xf16>
  %flat = kn.reshape %b : tensor<8x32xf16> -> tensor<256xf16>
  %fs = kn.sqrt %flat : tensor<256xf16>
  %sq = kn.square %p1 : tensor<8x16xf16>
  %sq2 = kn.square %x : tensor<8x32xf16>
  %red = kn.reduce_sum %sq2 dim 1 : tensor<8x32xf16>
  %mx = kn.reduce_max %x dim 1 : tensor<8x32xf16>
  %half = kn.mul_scalar %mx, 0.5 : tensor<8x1xf16>
  %d = kn.sub %x, %half : tensor<8x32xf16>, tensor<8x1xf16>
  %hi = kn.neg %x : tensor<8x32xf16>
  %cat = kn.concat %hi, %x dim 1 : tensor<8x32xf16>, tensor<8x32xf16>
  %rot = kn.mul %cat, %gu : tensor<8x64xf16>, tensor<8x64xf16>
  %cat2 = kn.concat %x, %x dim 1 : tensor<8x32xf16>, tensor<8x32xf16>
  %sum = kn.reduce_sum %cat2 dim 1 : tensor<8x64xf16>
  return %gated, %b, %rs, %fs, %b, %pe, %rot, %sum : tensor<8x32xf16>, tensor<8x32xf16>, tensor<1x8x32xf16>, tensor<256xf16>, tensor<8x32xf16>, tensor<8x16xf16>, tensor<8x64xf16>, tensor<8x1xf16>
}
)";

class UntiledValuesTest : public ::testing::Test {
protected:
  UntiledValuesTest() {
    DialectRegistry registry;
    registerAllDialects(registry);
    registerAllExtensions(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
    module = parseSourceString<ModuleOp>(kProgram, &context);
    for (Operation &op : module->lookupSymbol<func::FuncOp>("f").getOps())
      if (op.getNumResults() > 0)
        byName[getName(op)] = &op;
  }

  static std::string getName(Operation &op) {
    std::string name;
    llvm::raw_string_ostream os(name);
    op.getResult(0).printAsOperand(os, OpPrintingFlags());
    return name;
  }

  bool computedInUser(StringRef name, bool usersAreViews = false) {
    return isComputedInUser(byName.at(name.str()), everyPhase,
                            [&](Operation *) { return usersAreViews; });
  }
  bool readInPlace(StringRef name) {
    return isReadInPlace(
        byName.at(name.str()), [](Operation *) { return false; }, everyPhase);
  }

  static bool everyPhase(Operation *, Operation *) { return true; }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
  std::map<std::string, Operation *> byName;
};

TEST_F(UntiledValuesTest, ElementwiseChainsAreComputedInTheirUsers) {
  EXPECT_TRUE(computedInUser("%1"));  // silu, read once by mul
  EXPECT_FALSE(computedInUser("%2")); // mul, returned
  EXPECT_FALSE(computedInUser("%3")); // exp, read twice by one add
  EXPECT_FALSE(computedInUser("%5")); // neg, broadcast by its user
  EXPECT_FALSE(computedInUser("%4")); // add, read by a reshape
}

TEST_F(UntiledValuesTest, ReductionsFoldTheirChainsAndRowValuesAreRecomputed) {
  EXPECT_TRUE(computedInUser("%15"));  // square, read by reduce_sum
  EXPECT_FALSE(computedInUser("%16")); // reduce_sum: not elementwise
  EXPECT_TRUE(computedInUser("%18"));  // per-row mul_scalar, broadcast by sub
  EXPECT_FALSE(computedInUser("%19")); // sub, unused
}

TEST_F(UntiledValuesTest, SplitsAndUnitDimReshapesAreViews) {
  EXPECT_TRUE(readInPlace("%0#0"));  // split read by silu and mul
  EXPECT_FALSE(readInPlace("%8#0")); // split of a matmul's result
  EXPECT_TRUE(readInPlace("%10"));   // reshape adding a unit dim
  EXPECT_FALSE(readInPlace("%12"));  // reshape regrouping dims
  EXPECT_FALSE(readInPlace("%1"));   // not data movement
}

TEST_F(UntiledValuesTest, PhasesAndNestedViews) {
  Operation *split = byName.at("%0#0");
  // A user in another phase keeps the tile.
  EXPECT_FALSE(isReadInPlace(
      split, [](Operation *) { return false; },
      [&](Operation *a, Operation *b) { return a == split && b == split; }));
  EXPECT_FALSE(isComputedInUser(
      byName.at("%1"), [](Operation *, Operation *) { return false; },
      [](Operation *) { return false; }));
}

TEST_F(UntiledValuesTest, ConcatsReadByElementwiseOpsAreViews) {
  EXPECT_TRUE(readInPlace("%21"));  // concat read by mul
  EXPECT_FALSE(readInPlace("%23")); // concat read by reduce_sum
  // neg, a part of the concat: computed inside it when it is a view.
  EXPECT_TRUE(computedInUser("%20", /*usersAreViews=*/true));
  EXPECT_FALSE(computedInUser("%20"));
}

} // namespace
