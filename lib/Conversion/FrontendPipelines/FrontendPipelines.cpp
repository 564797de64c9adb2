//===- FrontendPipelines.cpp - linalg or tosa to PTX ----------------------===//
//
// mirage-linalg-to-ptx and mirage-tosa-to-ptx: the conversion into kn, the
// µGraph search when asked, then the passes of mirage-to-ptx.
//
//===----------------------------------------------------------------------===//

#include "mirage/Conversion/Frontend/Pipelines.h"

#include "mirage/Conversion/Frontend/Passes.h"
#include "mirage/IR/OptionChecks.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

using namespace mlir;

void mirage::buildFrontendToPTXPipeline(OpPassManager &pm, FrontendInput input,
                                        const FrontendToPTXOptions &options) {
  if (input == FrontendInput::Linalg)
    pm.addPass(createConvertLinalgToKernel());
  else
    pm.addPass(createConvertTosaToKernel());
  if (options.superoptimize)
    addSuperoptimizePass(pm, options.timeBudget, options.device);
  buildMirageToPTXPipeline(pm, options);
}

static std::optional<std::string>
checkFrontendToPTXOptions(llvm::StringRef pipeline,
                          const mirage::FrontendToPTXOptions &options) {
  if (auto error = mirage::checkGPUCodeOptions(pipeline, options.chip,
                                               options.format, options.ptx))
    return error;
  return mirage::checkDeviceOption(pipeline, options.device);
}

void mirage::registerFrontendToPTXPipelines() {
  registerCheckedPassPipeline<FrontendToPTXOptions>(
      "mirage-linalg-to-ptx",
      "Compile linalg on tensors to PTX or cubin: convert-linalg-to-kn, "
      "mirage-superoptimize (with superoptimize=true), then mirage-to-ptx "
      "(whose options it takes)",
      [](OpPassManager &pm, const FrontendToPTXOptions &options) {
        buildFrontendToPTXPipeline(pm, FrontendInput::Linalg, options);
      },
      [](const FrontendToPTXOptions &options) {
        return checkFrontendToPTXOptions("mirage-linalg-to-ptx", options);
      });
  registerCheckedPassPipeline<FrontendToPTXOptions>(
      "mirage-tosa-to-ptx",
      "Compile tosa to PTX or cubin: convert-tosa-to-kn, "
      "mirage-superoptimize (with superoptimize=true), then mirage-to-ptx "
      "(whose options it takes)",
      [](OpPassManager &pm, const FrontendToPTXOptions &options) {
        buildFrontendToPTXPipeline(pm, FrontendInput::Tosa, options);
      },
      [](const FrontendToPTXOptions &options) {
        return checkFrontendToPTXOptions("mirage-tosa-to-ptx", options);
      });
}
