//===- SharedMemoryPlanTest.cpp - The lowering's plan as passes see it ----===//
//
// planBlockGraphSharedMemory answers for a graph what convert-kn-to-gpu
// would place in shared memory. A looped graph whose tiles fit only once is
// lowered with one stage, but a pass building graphs (kn-fuse) asks for a
// pipeline and is refused such a graph. The tb.graph verifier reads the same
// plan once the lowering's extensions are registered, and the live tiles
// without them.
//
//===----------------------------------------------------------------------===//

#include "mirage/Conversion/KernelToGPU.h"

#include "mirage/Dialect/Block/IR/Block.h"
#include "mirage/InitAllDialects.h"
#include "mirage/InitAllExtensions.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mirage;

namespace {

/// A loop over two 120 KiB tiles: one fits a block's shared memory, two do
/// not.
constexpr const char *kLoopedGraph = R"(
func.func @f(%a: tensor<1x122880xf16>) -> tensor<1x1xf16> {
  %b = kn.kernel(%a) {
    tb.graph grid [1] threads 128 forloop 2 {
    ^bb0(%ad: tensor<1x122880xf16>):
      %at = tb.input_iterator %ad imap <x -> 0> fmap <i -> 1> : tensor<1x122880xf16> -> !tb.tile<1x61440xf16>
      %s = tb.reduce_sum %at dim 1 : !tb.tile<1x61440xf16>
      %acc = tb.accum_sum %s : !tb.tile<1x1xf16>
      %o = tb.output_saver %acc omap <x -> 0> : !tb.tile<1x1xf16> -> tensor<1x1xf16>
      tb.yield %o : tensor<1x1xf16>
    }
  } : (tensor<1x122880xf16>) -> tensor<1x1xf16>
  return %b : tensor<1x1xf16>
}
)";

TEST(SharedMemoryPlanTest, OneStageIsLoweredButNotBuilt) {
  DialectRegistry registry;
  registerAllDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(kLoopedGraph, &context);
  ASSERT_TRUE(module);
  tb::GraphOp graph;
  module->walk([&](tb::GraphOp op) { graph = op; });
  ASSERT_TRUE(graph);

  FailureOr<int64_t> lowered = planBlockGraphSharedMemory(graph);
  ASSERT_TRUE(succeeded(lowered));
  // The tile, the accumulator and the scratch of the split reduction.
  EXPECT_GT(*lowered, 122880);
  EXPECT_LT(*lowered, 2 * 122880);

  std::string message;
  ScopedDiagnosticHandler capture(&context, [&](Diagnostic &diagnostic) {
    message = diagnostic.str();
    return success();
  });
  EXPECT_TRUE(failed(planBlockGraphSharedMemory(graph, 0,
                                                /*requirePipeline=*/true)));
  EXPECT_NE(message.find("fit in shared memory only once"), std::string::npos)
      << message;
}

/// An exponential of a 64x64 f32 tile on a target with 16 KiB a block: its
/// input and result, 16 KiB each, are live together, but the lowering reads
/// the input from device memory and stores the result as it computes it.
constexpr const char *kReadAndStoredInPlace = R"(
func.func @f(%x: tensor<64x64xf32>) -> tensor<64x64xf32> attributes {tb.target = #tb.target<"sm_86", smem = 16384>} {
  %z = kn.kernel(%x) {
    tb.graph grid [1] threads 128 forloop 1 {
    ^bb0(%xd: tensor<64x64xf32>):
      %a = tb.input_iterator %xd imap <x -> replica> fmap <i -> replica> : tensor<64x64xf32> -> !tb.tile<64x64xf32>
      %e = tb.exp %a : !tb.tile<64x64xf32>
      %o = tb.output_saver %e omap <x -> 1> : !tb.tile<64x64xf32> -> tensor<64x64xf32>
      tb.yield %o : tensor<64x64xf32>
    }
  } : (tensor<64x64xf32>) -> tensor<64x64xf32>
  return %z : tensor<64x64xf32>
}
)";

TEST(SharedMemoryPlanTest, TheVerifierReadsTheLoweringsPlan) {
  auto parse = [](bool withExtensions, std::string &message) {
    DialectRegistry registry;
    registerAllDialects(registry);
    if (withExtensions)
      registerAllExtensions(registry);
    auto context = std::make_unique<MLIRContext>(registry);
    context->loadAllAvailableDialects();
    ScopedDiagnosticHandler capture(context.get(), [&](Diagnostic &d) {
      message += d.str();
      return success();
    });
    bool parsed = static_cast<bool>(
        parseSourceString<ModuleOp>(kReadAndStoredInPlace, context.get()));
    return parsed;
  };
  std::string withoutPlan, withPlan;
  EXPECT_FALSE(parse(/*withExtensions=*/false, withoutPlan));
  EXPECT_NE(withoutPlan.find("needs 32768 bytes of shared memory for the "
                             "tiles live at its peak"),
            std::string::npos)
      << withoutPlan;
  EXPECT_TRUE(parse(/*withExtensions=*/true, withPlan)) << withPlan;
}

} // namespace
