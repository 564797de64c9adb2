//===- MirageToMegaKernel.cpp - The mirage-to-megakernel pipeline ---------===//
//
// Kernel graphs to one persistent kernel per function: optionally the
// superoptimizer, the task-graph compiler (mirage-to-task-graph),
// convert-tg-to-gpu, and the NVVM path of mirage-to-ptx. The tg.graph stays beside the gpu.binary: it is the host
// side the bundle writer turns into the kernel's tables.
//
//===----------------------------------------------------------------------===//

#include "mirage/Conversion/Pipelines.h"

#include "DeviceToBinary.h"
#include "mirage/Conversion/MegaKernel.h"
#include "mirage/Conversion/Passes.h"
#include "mirage/Conversion/TaskGraphPipeline.h"
#include "mirage/IR/OptionChecks.h"
#include "mirage/Search/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void mirage::addSuperoptimizePass(OpPassManager &pm, double timeBudget,
                                  llvm::StringRef device) {
  MirageSuperoptimizeOptions search;
  search.timeBudget = timeBudget;
  search.device = device.str();
  search.progressInterval = 0;
  pm.addPass(createMirageSuperoptimize(search));
}

void mirage::buildMirageToMegaKernelPipeline(
    OpPassManager &pm, const MirageToMegaKernelOptions &options) {
  if (options.superoptimize)
    addSuperoptimizePass(pm, options.timeBudget, options.device);
  MirageToTaskGraphOptions taskGraph;
  taskGraph.workers = options.workers;
  taskGraph.device = options.device;
  taskGraph.foldNorms = options.foldNorms;
  buildMirageToTaskGraphPipeline(pm, taskGraph);

  ConvertTaskToGPUOptions lowering;
  lowering.chip = options.chip;
  lowering.pipelineStages = options.pipelineStages;
  lowering.tensorCores = options.tensorCores;
  lowering.asyncCopy = options.asyncCopy;
  lowering.prefetchBytes = options.prefetchBytes;
  lowering.prefetchAhead = options.prefetchAhead;
  lowering.dynamicDispatch = options.dynamicDispatch;
  lowering.preload = options.preload;
  lowering.preloadSparesLeader = options.preloadSparesLeader;
  lowering.preloadWarp = options.preloadWarp;
  lowering.preloadStages = options.preloadStages;
  pm.addPass(createConvertTaskToGPU(lowering));
  OpPassManager &device = pm.nest<gpu::GPUModuleOp>();
  device.addPass(createCanonicalizerPass());
  device.addPass(createCSEPass());
  addDeviceToBinaryPasses(pm, options.chip, options.ptx, options.optLevel,
                          options.format, options.cudaPath);
}

void mirage::registerMirageToMegaKernelPipeline() {
  registerCheckedPassPipeline<MirageToMegaKernelOptions>(
      "mirage-to-megakernel",
      "Compile kernel graphs into one persistent kernel each: "
      "mirage-superoptimize (with superoptimize=true), mirage-to-task-graph, "
      "convert-tg-to-gpu, then the NVVM path of "
      "mirage-to-ptx ending in gpu-module-to-binary. The scheduled tg.graph "
      "stays as the kernel's host side.",
      [](OpPassManager &pm, const MirageToMegaKernelOptions &options) {
        buildMirageToMegaKernelPipeline(pm, options);
      },
      [](const MirageToMegaKernelOptions &options) {
        if (auto error =
                checkGPUCodeOptions("mirage-to-megakernel", options.chip,
                                    options.format, options.ptx))
          return error;
        if (auto error = megakernel::checkPrefetchOptions(
                "mirage-to-megakernel", options.prefetchBytes,
                options.prefetchAhead))
          return error;
        return checkDeviceOption("mirage-to-megakernel", options.device);
      });
}
