//===- DefaultBlockGraphsTest.cpp - Default block graphs are equivalent ---===//
//
// Every scheme of kn-default-block-graphs is checked by the equivalence
// verifier: the wrapped function against the original one, on programs
// small enough for the interpreter and shaped so that every scheme really
// tiles (several blocks, several loop iterations).
//
//===----------------------------------------------------------------------===//

#include "mirage/Dialect/Kernel/Transforms/Passes.h"

#include "mirage/Dialect/Kernel/IR/Kernel.h"
#include "mirage/InitAllDialects.h"
#include "mirage/InitAllExtensions.h"
#include "mirage/Verify/Equivalence.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mirage;

namespace {

class DefaultBlockGraphsTest : public ::testing::TestWithParam<const char *> {
protected:
  DefaultBlockGraphsTest() {
    DialectRegistry registry;
    registerAllDialects(registry);
    registerAllExtensions(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  MLIRContext context;
};

TEST_P(DefaultBlockGraphsTest, EquivalentToTheOriginal) {
  OwningOpRef<ModuleOp> original = parseSourceString<ModuleOp>(GetParam(), &context);
  ASSERT_TRUE(original);
  // The fixed tiling, and the partitions chosen for persistent kernels of a
  // few and of many workers.
  for (int64_t workers : {0, 4, 132}) {
    SCOPED_TRACE("workers " + std::to_string(workers));
    OwningOpRef<ModuleOp> wrapped = original->clone();
    PassManager pm(&context);
    kn::KnDefaultBlockGraphsOptions options;
    options.persistent = workers > 0;
    options.workers = workers;
    pm.addNestedPass<func::FuncOp>(kn::createKnDefaultBlockGraphs(options));
    ASSERT_TRUE(succeeded(pm.run(*wrapped)));

    auto candidate = wrapped->lookupSymbol<func::FuncOp>("f");
    auto reference = original->lookupSymbol<func::FuncOp>("f");
    // Every op was wrapped, apart from views.
    candidate.walk([](Operation *op) {
      if (op->getParentOp() == op->getParentOfType<func::FuncOp>())
        EXPECT_TRUE((isa<kn::KernelOp, kn::ReshapeOp, func::ReturnOp>(op)))
            << op->getName().getStringRef().str();
    });
    auto result = checkEquivalence(candidate, reference, EquivalenceOptions());
    ASSERT_TRUE(static_cast<bool>(result))
        << llvm::toString(result.takeError());
    EXPECT_TRUE(result->verdict == Verdict::Proven ||
                result->verdict == Verdict::Tested)
        << describe(*result, "f");
  }
}

INSTANTIATE_TEST_SUITE_P(
    Schemes, DefaultBlockGraphsTest,
    ::testing::Values(
        // Elementwise with broadcasting, scalar ops.
        R"mlir(func.func @f(%a: tensor<16x1024xf32>, %b: tensor<1024xf32>) -> tensor<16x1024xf32> {
          %c = kn.mul %a, %b : tensor<16x1024xf32>, tensor<1024xf32>
          %d = kn.mul_scalar %c, 0.5 : tensor<16x1024xf32>
          %e = kn.sub %d, %a : tensor<16x1024xf32>, tensor<16x1024xf32>
          return %e : tensor<16x1024xf32>
        })mlir",
        // Reductions over a looped dim, with and without keepdim.
        R"mlir(func.func @f(%a: tensor<4x8x4096xf32>) -> (tensor<4x8x1xf32>, tensor<4x4096xf32>) {
          %s = kn.reduce_sum %a dim 2 : tensor<4x8x4096xf32>
          %m = kn.reduce_sum %a dim 1 keepdim = false : tensor<4x8x4096xf32>
          return %s, %m : tensor<4x8x1xf32>, tensor<4x4096xf32>
        })mlir",
        // A reduction one block covers, dropping the reduced dim.
        R"mlir(func.func @f(%a: tensor<2x4096xf32>) -> tensor<2xf32> {
          %s = kn.reduce_max %a dim 1 keepdim = false : tensor<2x4096xf32>
          return %s : tensor<2xf32>
        })mlir",
        // rms_norm with a weight, then a batched matmul with a broadcast
        // operand, looped over k.
        R"mlir(func.func @f(%x: tensor<2x128x64xf32>, %g: tensor<64xf32>, %w: tensor<64x256xf32>) -> tensor<2x128x256xf32> {
          %n = kn.rms_norm %x weight %g {eps = 1.0e-6 : f64} : tensor<2x128x64xf32>, tensor<64xf32>
          %y = kn.matmul %n, %w : tensor<2x128x64xf32>, tensor<64x256xf32>
          return %y : tensor<2x128x256xf32>
        })mlir",
        R"mlir(func.func @f(%a: tensor<2x96x256xf32>, %b: tensor<2x256x128xf32>) -> tensor<2x96x128xf32> {
          %c = kn.matmul %a, %b : tensor<2x96x256xf32>, tensor<2x256x128xf32>
          return %c : tensor<2x96x128xf32>
        })mlir",
        // Data movement around a reshape view.
        R"mlir(func.func @f(%a: tensor<2x64x32xf32>, %b: tensor<2x64x32xf32>) -> (tensor<2x32x48xf32>, tensor<64x128xf32>) {
          %c = kn.concat %a, %b dim 1 : tensor<2x64x32xf32>, tensor<2x64x32xf32>
          %t = kn.transpose %c permutation [0, 2, 1] : tensor<2x128x32xf32>
          %p:2 = kn.split %t dim 2 sizes [80, 48] : tensor<2x32x128xf32>
          %r = kn.reshape %t : tensor<2x32x128xf32> -> tensor<64x128xf32>
          %e = kn.exp %r : tensor<64x128xf32>
          return %p#1, %e : tensor<2x32x48xf32>, tensor<64x128xf32>
        })mlir"));

} // namespace
