//===- MirageToPTX.cpp - The mirage-to-ptx pipeline -----------------------===//
//
// Kernel graphs to a gpu.binary holding PTX or a cubin for one chip. The
// host functions stay at the memref + gpu.launch_func level, which is what
// the bundle writer turns into a launch manifest (docs/Bundle.md); only the
// gpu.modules go down the NVVM path.
//
//===----------------------------------------------------------------------===//

#include "mirage/Conversion/Pipelines.h"

#include "DeviceToBinary.h"
#include "mirage/Conversion/KernelToGPU.h"
#include "mirage/Conversion/Passes.h"
#include "mirage/CostModel/CostModel.h"
#include "mirage/Dialect/Block/IR/Block.h"
#include "mirage/Dialect/Kernel/Transforms/Passes.h"
#include "mirage/IR/OptionChecks.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/ConvertToLLVM/ToLLVMPass.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVM.h"
#include "mlir/Conversion/GPUCommon/GPUToLLVM.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/Passes.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVM.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Index/IR/IndexDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FileSystem.h"

using namespace mlir;

unsigned mirage::getMinimumPTXVersion(llvm::StringRef chip) {
  return llvm::StringSwitch<unsigned>(chip)
      .Case("sm_80", 70)
      .Case("sm_86", 71)
      .Case("sm_89", 78)
      // 8.3: the tensor-map proxy fence of the TMA loads.
      .Case("sm_90", 83)
      .Case("sm_90a", 83)
      .Cases({"sm_100", "sm_100a"}, 86)
      .Default(0);
}

std::optional<std::string> mirage::checkGPUCodeOptions(llvm::StringRef pipeline,
                                                       llvm::StringRef chip,
                                                       llvm::StringRef format,
                                                       unsigned ptx) {
  if (auto error = checkOptionValue(pipeline, "chip", chip,
                                    tb::TargetAttr::getKnownChips()))
    return error;
  // The PTX ISA versions LLVM 22's NVPTX backend knows (an unknown one is
  // ignored with a warning per function, and the PTX says another).
  static constexpr unsigned knownPTX[] = {70, 71, 72, 73, 74, 75, 76,
                                          77, 78, 80, 81, 82, 83, 84,
                                          85, 86, 87, 88, 90};
  unsigned minimum = getMinimumPTXVersion(chip);
  if (ptx && (ptx < minimum || !llvm::is_contained(knownPTX, ptx))) {
    std::string valid = "0 (the chip's minimum)";
    for (unsigned version : knownPTX)
      if (version >= minimum)
        valid += ", " + std::to_string(version);
    return formatBadOptionValue(pipeline, "ptx", std::to_string(ptx),
                                valid + " for " + chip.str());
  }
  // What gpu-module-to-binary takes; it reports anything else without
  // failing and writes a fatbin.
  if (!llvm::is_contained({"isa", "bin", "fatbin", "llvm", "assembly", "binary",
                           "fatbinary", "offloading"},
                          format))
    return formatBadOptionValue(
        pipeline, "format", format,
        "isa, bin, fatbin, llvm (or assembly, binary, fatbinary, offloading)");
  return std::nullopt;
}

std::optional<std::string> mirage::checkDeviceOption(llvm::StringRef where,
                                                     llvm::StringRef device) {
  return checkOptionValue(where, "device", device, DeviceModel::getNames());
}

/// Hopper and later: griddepcontrol, the bulk tensor copy engine and
/// mbarrier transaction counts all came with sm_90.
static bool isSm90OrLater(llvm::StringRef chip) {
  return llvm::is_contained({"sm_90", "sm_90a", "sm_100", "sm_100a"}, chip);
}

bool mirage::hasDependentLaunch(llvm::StringRef chip) {
  return isSm90OrLater(chip);
}

bool mirage::hasTensorMemoryAccelerator(llvm::StringRef chip) {
  return isSm90OrLater(chip);
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

void mirage::addDeviceToBinaryPasses(OpPassManager &pm, StringRef chip,
                                     unsigned ptx, unsigned optLevel,
                                     StringRef format, StringRef cudaPath) {
  GpuNVVMAttachTargetOptions target;
  target.chip = chip.str();
  target.features =
      "+ptx" + std::to_string(ptx ? ptx : getMinimumPTXVersion(chip));
  target.optLevel = optLevel;
  pm.addPass(createGpuNVVMAttachTarget(target));

  OpPassManager &device = pm.nest<gpu::GPUModuleOp>();
  device.addPass(createConvertNVGPUToNVVMWithLayout());
  device.addPass(createSCFToControlFlowPass());
  device.addPass(memref::createExpandStridedMetadataPass());
  device.addPass(createLowerAffinePass());
  ConvertGpuOpsToNVVMOpsOptions toNVVM;
  toNVVM.useBarePtrCallConv = true;
  device.addPass(createConvertGpuOpsToNVVMOps(toNVVM));
  // NVVM ops that exist only as inline PTX (the mbarrier parity wait).
  device.addPass(createConvertNVVMToLLVMPass());
  device.addPass(createReconcileUnrealizedCastsPass());
  device.addPass(createExternDynamicSharedMemory());
  device.addPass(createCanonicalizerPass());
  device.addPass(createCSEPass());

  GpuModuleToBinaryPassOptions binary;
  binary.compilationTarget = format.str();
  binary.toolkitPath = getCudaPath(cudaPath);
  pm.addPass(createGpuModuleToBinaryPass(binary));
}

void mirage::buildMirageToPTXPipeline(OpPassManager &pm,
                                      const MirageToPTXOptions &options) {
  buildMirageToPTXKernelStage(pm, options);
  buildMirageToPTXGPUStage(pm, options);
}

void mirage::buildMirageToPTXKernelStage(OpPassManager &pm,
                                         const MirageToPTXOptions &options) {
  if (options.fuse) {
    kn::KnFuseOptions fusion;
    fusion.targetBlocks = options.targetBlocks;
    fusion.chip = options.chip;
    fusion.foldNorms = options.foldNorms;
    pm.addNestedPass<func::FuncOp>(kn::createKnFuse(fusion));
  }
  kn::KnDefaultBlockGraphsOptions defaults;
  defaults.targetBlocks = options.targetBlocks;
  pm.addNestedPass<func::FuncOp>(kn::createKnDefaultBlockGraphs(defaults));
}

void mirage::buildMirageToPTXGPUStage(OpPassManager &pm,
                                      const MirageToPTXOptions &options) {
  ConvertKernelToGPUOptions lowering;
  lowering.chip = options.chip;
  lowering.pipelineStages = options.pipelineStages;
  lowering.tensorCores = options.tensorCores;
  lowering.asyncCopy = options.asyncCopy;
  lowering.dependentLaunch =
      options.dependentLaunch && hasDependentLaunch(options.chip);
  lowering.preload = options.preload;
  lowering.tma = options.tma && hasTensorMemoryAccelerator(options.chip);
  lowering.wgmma = options.wgmma && hasWarpgroupMma(options.chip);
  lowering.warpSpecialize =
      lowering.tma && options.warpSpecialize && hasWarpgroupMma(options.chip);
  pm.addPass(createConvertKernelToGPU(lowering));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());

  addDeviceToBinaryPasses(pm, options.chip, options.ptx, options.optLevel,
                          options.format, options.cudaPath);
}

void mirage::registerMirageToPTXPipeline() {
  registerCheckedPassPipeline<MirageToPTXOptions>(
      "mirage-to-ptx",
      "Lower kernel graphs to PTX or cubin: kn-fuse, kn-default-block-graphs, "
      "convert-kn-to-gpu, then the NVVM path of the gpu.modules ending in "
      "gpu-module-to-binary. Host functions stay as memref + gpu.launch_func.",
      [](OpPassManager &pm, const MirageToPTXOptions &options) {
        buildMirageToPTXPipeline(pm, options);
      },
      [](const MirageToPTXOptions &options) -> std::optional<std::string> {
        if (options.warpSpecialize && !options.tma)
          return std::string("mirage-to-ptx: warp-specialize gives the "
                             "copies of TMA kernels their own warps: it "
                             "needs tma=true");
        return checkGPUCodeOptions("mirage-to-ptx", options.chip,
                                   options.format, options.ptx);
      });
}

void mirage::registerMirageToPTXDependencies(DialectRegistry &registry) {
  registry.insert<arith::ArithDialect, cf::ControlFlowDialect,
                  func::FuncDialect, gpu::GPUDialect, index::IndexDialect,
                  LLVM::LLVMDialect, math::MathDialect, memref::MemRefDialect,
                  NVVM::NVVMDialect, nvgpu::NVGPUDialect, scf::SCFDialect,
                  ub::UBDialect, vector::VectorDialect>();
  NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  registerBlockGraphMemoryPlanner(registry);
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerNVVMDialectTranslation(registry);
  registerGPUDialectTranslation(registry);
  registerConvertToLLVMDependentDialectLoading(registry);
  arith::registerConvertArithToLLVMInterface(registry);
  cf::registerConvertControlFlowToLLVMInterface(registry);
  registerConvertFuncToLLVMInterface(registry);
  index::registerConvertIndexToLLVMInterface(registry);
  registerConvertMathToLLVMInterface(registry);
  registerConvertMemRefToLLVMInterface(registry);
  registerConvertNVVMToLLVMInterface(registry);
  ub::registerConvertUBToLLVMInterface(registry);
  vector::registerConvertVectorToLLVMInterface(registry);
  gpu::registerConvertGpuToLLVMInterface(registry);
}
