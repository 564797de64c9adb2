//===- SharedMemoryPlanTest.cpp - The lowering's plan as passes see it ----===//
//
// planBlockGraphSharedMemory answers for a graph what convert-kn-to-gpu
// would place in shared memory. A looped graph whose tiles fit only once is
// lowered with one stage, but a pass building graphs (kn-fuse) asks for a
// pipeline and is refused such a graph.
//
//===----------------------------------------------------------------------===//

#include "mirage/Conversion/KernelToGPU.h"

#include "mirage/Dialect/Block/IR/Block.h"
#include "mirage/InitAllDialects.h"
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

} // namespace
