//===- MirageToPTX.cpp - The mirage-to-ptx pipeline -----------------------===//
//
// Kernel graphs to a gpu.binary holding PTX or a cubin for one chip. The
// host functions stay at the memref + gpu.launch_func level, which is what
// the bundle writer turns into a launch manifest (docs/Bundle.md); only the
// gpu.modules go down the NVVM path.
//
//===----------------------------------------------------------------------===//

#include "mirage/Conversion/Pipelines.h"

#include "mirage/Conversion/Passes.h"
#include "mirage/Dialect/Kernel/Transforms/Passes.h"
#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FileSystem.h"

using namespace mlir;

unsigned mirage::getMinimumPTXVersion(llvm::StringRef chip) {
  return llvm::StringSwitch<unsigned>(chip)
      .Cases("sm_80", "sm_86", 70)
      .Case("sm_89", 78)
      .Case("sm_90", 78)
      .Case("sm_90a", 80)
      .Cases("sm_100", "sm_100a", 86)
      .Default(0);
}

/// The toolkit gpu-module-to-binary takes ptxas from: without one it only
/// finds ptxas when CUDA_HOME is set.
static std::string getCudaPath(llvm::StringRef requested) {
  if (!requested.empty())
    return requested.str();
  if (const char *home = std::getenv("CUDA_HOME"))
    return home;
  return llvm::sys::fs::exists("/usr/local/cuda") ? "/usr/local/cuda" : "";
}

void mirage::buildMirageToPTXPipeline(OpPassManager &pm,
                                      const MirageToPTXOptions &options) {
  pm.addPass(kn::createKnDefaultBlockGraphs());
  ConvertKernelToGPUOptions lowering;
  lowering.pipelineStages = options.pipelineStages;
  lowering.tensorCores = options.tensorCores;
  lowering.asyncCopy = options.asyncCopy;
  pm.addPass(createConvertKernelToGPU(lowering));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());

  unsigned ptx = options.ptx ? options.ptx.getValue()
                             : getMinimumPTXVersion(options.chip);
  GpuNVVMAttachTargetOptions target;
  target.chip = options.chip;
  target.features = "+ptx" + std::to_string(ptx);
  target.optLevel = options.optLevel;
  pm.addPass(createGpuNVVMAttachTarget(target));

  OpPassManager &device = pm.nest<gpu::GPUModuleOp>();
  device.addPass(createConvertNVGPUToNVVMPass());
  device.addPass(createSCFToControlFlowPass());
  device.addPass(memref::createExpandStridedMetadataPass());
  device.addPass(createLowerAffinePass());
  ConvertGpuOpsToNVVMOpsOptions toNVVM;
  toNVVM.useBarePtrCallConv = true;
  device.addPass(createConvertGpuOpsToNVVMOps(toNVVM));
  device.addPass(createReconcileUnrealizedCastsPass());
  device.addPass(createExternDynamicSharedMemory());
  device.addPass(createCanonicalizerPass());
  device.addPass(createCSEPass());

  GpuModuleToBinaryPassOptions binary;
  binary.compilationTarget = options.format;
  binary.toolkitPath = getCudaPath(options.cudaPath);
  pm.addPass(createGpuModuleToBinaryPass(binary));
}

void mirage::registerMirageToPTXPipeline() {
  PassPipelineRegistration<MirageToPTXOptions>(
      "mirage-to-ptx",
      "Lower kernel graphs to PTX or cubin: kn-default-block-graphs, "
      "convert-kn-to-gpu, then the NVVM path of the gpu.modules ending in "
      "gpu-module-to-binary. Host functions stay as memref + gpu.launch_func.",
      [](OpPassManager &pm, const MirageToPTXOptions &options) {
        buildMirageToPTXPipeline(pm, options);
      });
}
