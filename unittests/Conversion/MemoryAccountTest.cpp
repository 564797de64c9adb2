//===- MemoryAccountTest.cpp - Verified block graphs always lower ---------===//
//
// The tb.graph verifier checks the lowering's own memory plan, so every
// block graph the passes build from the examples, per operator (kn-fuse) and
// as a persistent kernel's tasks (kn-fuse{persistent}), verifies and lowers
// with every memory-relevant option: cp.async, the bulk tensor copy engine,
// mma.sync and wgmma. (The superoptimizer's candidates:
// test/Search/candidates-lower.mlir.)
//
//===----------------------------------------------------------------------===//

#include "mirage/Conversion/KernelToGPU.h"

#include "mirage/Conversion/Passes.h"
#include "mirage/Dialect/Kernel/Transforms/Passes.h"
#include "mirage/InitAllDialects.h"
#include "mirage/InitAllExtensions.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mirage;

namespace {

class MemoryAccountTest : public ::testing::Test {
protected:
  MemoryAccountTest() {
    DialectRegistry registry;
    registerAllDialects(registry);
    registerAllExtensions(registry);
    context = std::make_unique<MLIRContext>(registry);
    context->loadAllAvailableDialects();
  }

  /// Runs the passes `addPasses` adds on a copy of `module`; the copy, or
  /// null with the errors in `errors`.
  OwningOpRef<ModuleOp> run(ModuleOp module,
                            llvm::function_ref<void(PassManager &)> addPasses,
                            std::string &errors) {
    OwningOpRef<ModuleOp> copy = module.clone();
    PassManager pm(context.get());
    addPasses(pm);
    ScopedDiagnosticHandler capture(context.get(), [&](Diagnostic &d) {
      if (d.getSeverity() == DiagnosticSeverity::Error)
        errors += d.str() + "\n";
      return success();
    });
    if (failed(pm.run(*copy)))
      return nullptr;
    return copy;
  }

  std::unique_ptr<MLIRContext> context;
};

TEST_F(MemoryAccountTest, EveryExampleGraphThatVerifiesLowers) {
  std::vector<std::string> files;
  std::error_code error;
  for (llvm::sys::fs::directory_iterator it(MIRAGE_EXAMPLES_DIR, error), end;
       it != end && !error; it.increment(error))
    if (llvm::sys::path::extension(it->path()) == ".mlir")
      files.push_back(it->path());
  llvm::sort(files);
  ASSERT_GE(files.size(), 10u);

  int graphs = 0;
  for (const std::string &file : files) {
    SCOPED_TRACE(file);
    auto buffer = llvm::MemoryBuffer::getFile(file);
    ASSERT_TRUE(static_cast<bool>(buffer));
    OwningOpRef<ModuleOp> program =
        parseSourceString<ModuleOp>((*buffer)->getBuffer(), context.get());
    ASSERT_TRUE(program);
    for (bool persistent : {false, true}) {
      std::string errors;
      OwningOpRef<ModuleOp> kernels = run(
          *program,
          [&](PassManager &pm) {
            kn::KnFuseOptions fusion;
            fusion.persistent = persistent;
            pm.addNestedPass<func::FuncOp>(kn::createKnFuse(fusion));
            kn::KnDefaultBlockGraphsOptions defaults;
            defaults.persistent = persistent;
            pm.addNestedPass<func::FuncOp>(
                kn::createKnDefaultBlockGraphs(defaults));
          },
          errors);
      ASSERT_TRUE(kernels) << "persistent " << persistent << ":\n" << errors;
      // Every graph the passes built passed the verifier, whose account
      // is the lowering's plan.
      kernels->walk([&](tb::GraphOp graph) {
        ++graphs;
        std::optional<tb::BlockGraphMemory> memory =
            planBlockGraphMemory(graph);
        ASSERT_TRUE(memory.has_value());
        EXPECT_TRUE(memory->planned);
        EXPECT_LE(memory->sharedBytes,
                  tb::TargetAttr::lookup(graph).getSmemPerBlock());
      });
      for (int options = 0; options < 4; ++options) {
        bool tma = options & 1, wgmma = options & 2;
        std::string loweringErrors;
        EXPECT_TRUE(run(
            *kernels,
            [&](PassManager &pm) {
              ConvertKernelToGPUOptions lowering;
              lowering.chip = "sm_90a";
              lowering.tma = tma;
              lowering.wgmma = wgmma;
              pm.addPass(createConvertKernelToGPU(lowering));
            },
            loweringErrors))
            << "persistent " << persistent << ", tma " << tma << ", wgmma "
            << wgmma << ":\n"
            << loweringErrors;
      }
    }
  }
  // Every example's kernels, per operator and persistent: 120 graphs on
  // 2026-11-28.
  EXPECT_GE(graphs, 100);
}

} // namespace
