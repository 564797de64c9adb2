//===- Pipelines.h - mirage-to-ptx, mirage-to-megakernel --------*- C++ -*-===//
//
// The pipelines from kernel graphs to PTX or cubin in one mirage-opt call:
// one kernel per fused group of ops (default block graphs for ops that have
// none, the GPU lowering), or one persistent kernel running a task graph;
// both end in the upstream NVVM path and gpu-module-to-binary.
//
//===----------------------------------------------------------------------===//

#ifndef MIRAGE_CONVERSION_PIPELINES_H
#define MIRAGE_CONVERSION_PIPELINES_H

#include "mlir/Pass/PassOptions.h"

#include <optional>
#include <string>

namespace mlir {
class DialectRegistry;
class OpPassManager;
} // namespace mlir

namespace mirage {

/// The options of the device code every GPU pipeline emits: the chip, the
/// binary, and the block-graph lowering's choices.
template <typename Derived>
struct GPUCodeOptions : public mlir::PassPipelineOptions<Derived> {
  using Base = mlir::detail::PassOptions;
  Base::Option<std::string> chip{*this, "chip",
                                 llvm::cl::desc("Target chip, e.g. sm_90a"),
                                 llvm::cl::init("sm_90a")};
  Base::Option<unsigned> ptx{*this, "ptx",
                             llvm::cl::desc("PTX ISA version times ten (80 for "
                                            "8.0); 0 picks the chip's minimum"),
                             llvm::cl::init(0)};
  Base::Option<std::string> format{
      *this, "format",
      llvm::cl::desc("Binary format: isa (PTX text), bin (cubin), fatbin"),
      llvm::cl::init("isa")};
  Base::Option<std::string> cudaPath{
      *this, "cuda-path",
      llvm::cl::desc("CUDA toolkit whose ptxas assembles cubins (default: "
                     "$CUDA_HOME, else /usr/local/cuda)"),
      llvm::cl::init("")};
  Base::Option<unsigned> optLevel{
      *this, "O", llvm::cl::desc("LLVM optimization level"), llvm::cl::init(3)};
  Base::Option<unsigned> pipelineStages{
      *this, "pipeline-stages",
      llvm::cl::desc("cp.async pipeline stages of the block graphs (0: auto)"),
      llvm::cl::init(0)};
  Base::Option<bool> tensorCores{*this, "tensor-cores",
                                 llvm::cl::desc("Tile matmuls on tensor cores"),
                                 llvm::cl::init(true)};
  Base::Option<bool> asyncCopy{*this, "async-copy",
                               llvm::cl::desc("Load input tiles with cp.async"),
                               llvm::cl::init(true)};
  Base::Option<bool> foldNorms{
      *this, "fold-norms",
      llvm::cl::desc("Fold RMSNorms over at most 128 columns read only by "
                     "matmuls into the products' kernels (kn-fuse "
                     "fold-norms; the sum of squares is then held in the "
                     "element type)"),
      llvm::cl::init(true)};
};

struct MirageToPTXOptions : public GPUCodeOptions<MirageToPTXOptions> {
  Option<int64_t> targetBlocks{
      *this, "target-blocks",
      llvm::cl::desc("Grid size default matmul tiles aim for "
                     "(kn-default-block-graphs)"),
      llvm::cl::init(264)};
  Option<bool> fuse{*this, "fuse",
                    llvm::cl::desc("Fuse kernel ops into graph-defined "
                                   "kernels first (kn-fuse)"),
                    llvm::cl::init(true)};
  Option<bool> dependentLaunch{
      *this, "dependent-launch",
      llvm::cl::desc("Start kernels with griddepcontrol where the chip has "
                     "it (sm_90 and later), for programmatic dependent "
                     "launch"),
      llvm::cl::init(true)};
  Option<bool> preload{
      *this, "preload",
      llvm::cl::desc("With dependent-launch, copy the function's arguments' "
                     "tiles before griddepcontrol.wait (convert-kn-to-gpu)"),
      llvm::cl::init(true)};
  Option<bool> tma{
      *this, "tma",
      llvm::cl::desc("Load pipelined input tiles with the bulk tensor copy "
                     "engine and mbarriers where the chip has them (sm_90 "
                     "and later; convert-kn-to-gpu tma)"),
      llvm::cl::init(false)};
  Option<bool> wgmma{
      *this, "wgmma",
      llvm::cl::desc("Run tile matmuls that fit a warpgroup with wgmma where "
                     "the chip has it (sm_90a; convert-kn-to-gpu wgmma)"),
      llvm::cl::init(true)};
  Option<bool> warpSpecialize{
      *this, "warp-specialize",
      llvm::cl::desc("With tma, issue the copies from a producer warpgroup "
                     "that gives its registers to the computing threads "
                     "(sm_90a; convert-kn-to-gpu warp-specialize)"),
      llvm::cl::init(false)};
};

/// The options of mirage-to-megakernel: the task graph's and the device
/// code's.
struct MirageToMegaKernelOptions
    : public GPUCodeOptions<MirageToMegaKernelOptions> {
  Option<int64_t> workers{
      *this, "workers",
      llvm::cl::desc("Worker CTAs of the mega-kernel (0: the SMs of the "
                     "target chip, tb.target; 132 on sm_90a)"),
      llvm::cl::init(0)};
  Option<std::string> device{
      *this, "device",
      llvm::cl::desc("Device whose rates the schedule's estimates (and the "
                     "search's, with superoptimize) use (h100, h200)"),
      llvm::cl::init("h100")};
  Option<bool> superoptimize{
      *this, "superoptimize",
      llvm::cl::desc("Run mirage-superoptimize first, so that the tasks run "
                     "the verified kernels the search finds"),
      llvm::cl::init(false)};
  Option<double> timeBudget{
      *this, "time-budget",
      llvm::cl::desc("mirage-superoptimize: seconds per subprogram (0: the "
                     "whole space)"),
      llvm::cl::init(0.0)};
  Option<int64_t> prefetchBytes{
      *this, "prefetch-bytes",
      llvm::cl::desc("Bytes of each task's read-only inputs a worker "
                     "prefetches into L2 ahead of it (convert-tg-to-gpu; 0: "
                     "none)"),
      llvm::cl::init(0)};
  Option<bool> dynamicDispatch{
      *this, "dynamic-dispatch",
      llvm::cl::desc("Workers claim tasks in the graph's order from one "
                     "shared counter instead of running fixed queues "
                     "(convert-tg-to-gpu)"),
      llvm::cl::init(false)};
  Option<bool> preload{
      *this, "preload",
      llvm::cl::desc("Issue each task's copies of its read-only inputs' first "
                     "stages before it waits on its producers "
                     "(convert-tg-to-gpu)"),
      llvm::cl::init(true)};
  Option<bool> preloadSparesLeader{
      *this, "preload-spares-leader",
      llvm::cl::desc("The first warp issues no preload copies, the second "
                     "its share too (convert-tg-to-gpu)"),
      llvm::cl::init(false)};
  Option<unsigned> preloadStages{
      *this, "preload-stages",
      llvm::cl::desc("The most pipeline stages a task copies before its "
                     "wait (convert-tg-to-gpu; 0: all its prologue has)"),
      llvm::cl::init(0)};
  Option<bool> preloadWarp{
      *this, "preload-warp",
      llvm::cl::desc("A warp beside the bodies' issues the preload copies of "
                     "tasks whose shared memory is free early "
                     "(convert-tg-to-gpu)"),
      llvm::cl::init(false)};
  Option<unsigned> prefetchAhead{
      *this, "prefetch-ahead",
      llvm::cl::desc("How many tasks ahead a worker prefetches "
                     "(convert-tg-to-gpu)"),
      llvm::cl::init(1)};
};

/// The lowest PTX ISA version (times ten) that has what the lowering emits
/// for `chip`, or 0 for an unknown chip.
unsigned getMinimumPTXVersion(llvm::StringRef chip);

/// The error for an unknown `chip` or `format` given to `pipeline`, or a
/// `ptx` version (times ten) that is neither 0 nor one the NVPTX backend
/// knows at or above the chip's minimum, else nothing.
std::optional<std::string> checkGPUCodeOptions(llvm::StringRef pipeline,
                                               llvm::StringRef chip,
                                               llvm::StringRef format,
                                               unsigned ptx);

/// The error for an unknown cost-model `device` given to `where` (a pass or
/// pipeline), else nothing.
std::optional<std::string> checkDeviceOption(llvm::StringRef where,
                                             llvm::StringRef device);

/// Whether `chip` has griddepcontrol (programmatic dependent launch).
bool hasDependentLaunch(llvm::StringRef chip);

/// Whether `chip` has the bulk tensor copy engine (TMA) and mbarrier
/// transaction counts.
bool hasTensorMemoryAccelerator(llvm::StringRef chip);

/// Adds the passes of mirage-to-ptx to `pm` (a ModuleOp pass manager): the
/// kernel-graph stage, then the GPU stage.
void buildMirageToPTXPipeline(mlir::OpPassManager &pm,
                              const MirageToPTXOptions &options);
/// The kernel-graph stage of mirage-to-ptx: kn-fuse (unless `fuse` is off)
/// and kn-default-block-graphs, after which every op is a kn.kernel.
void buildMirageToPTXKernelStage(mlir::OpPassManager &pm,
                                 const MirageToPTXOptions &options);
/// The GPU stage: convert-kn-to-gpu and the NVVM path to a gpu.binary.
void buildMirageToPTXGPUStage(mlir::OpPassManager &pm,
                              const MirageToPTXOptions &options);

/// Registers `mirage-to-ptx` with the pass registry.
void registerMirageToPTXPipeline();

/// Adds mirage-superoptimize as the pipelines run it (`superoptimize=true`
/// of mirage-to-megakernel and mirage-linalg/tosa-to-ptx): seconds per
/// subprogram and the cost model's device, no progress lines.
void addSuperoptimizePass(mlir::OpPassManager &pm, double timeBudget,
                          llvm::StringRef device);

/// Adds the passes of mirage-to-megakernel to `pm` (a ModuleOp pass
/// manager).
void buildMirageToMegaKernelPipeline(mlir::OpPassManager &pm,
                                     const MirageToMegaKernelOptions &options);

/// Registers `mirage-to-megakernel` with the pass registry.
void registerMirageToMegaKernelPipeline();

/// Registers what running mirage-to-ptx needs beyond the Mirage dialects:
/// the dialects it lowers through, their conversions to LLVM, the NVVM
/// target and the LLVM IR translations. Tools that register every upstream
/// dialect and translation need not call it.
void registerMirageToPTXDependencies(mlir::DialectRegistry &registry);

} // namespace mirage

#endif // MIRAGE_CONVERSION_PIPELINES_H
