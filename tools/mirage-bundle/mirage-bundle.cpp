//===- mirage-bundle.cpp - Compile kernel graphs into GPU bundles ---------===//
//
// mirage-bundle INPUT.mlir -o DIR [--function NAME]...
//
// Writes one bundle (docs/Bundle.md) per function into DIR/<function>:
// PTX and cubin for the chip, the launch manifest and the float64 reference
// outputs. Without --function, every function of the file is compiled; with
// --megakernel, each into one persistent kernel.
//
//===----------------------------------------------------------------------===//

#include "mirage/Conversion/KernelToGPU.h"
#include "mirage/Conversion/MegaKernel.h"
#include "mirage/Conversion/Pipelines.h"
#include "mirage/CostModel/CostModel.h"
#include "mirage/Dialect/Block/IR/Block.h"
#include "mirage/IR/OptionChecks.h"
#include "mirage/InitAllDialects.h"
#include "mirage/InitAllExtensions.h"
#include "mirage/Target/Bundle.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace mlir;
namespace cl = llvm::cl;

// --help lists these options only, not the hundreds LLVM registers.
static cl::OptionCategory bundleCategory("mirage-bundle options");

static cl::opt<std::string> inputFile(cl::Positional, cl::Required,
                                      cl::desc("<input .mlir>"),
                                      cl::cat(bundleCategory));
static cl::opt<std::string> outputDir("o", cl::Required,
                                      cl::desc("Directory of the bundles"),
                                      cl::value_desc("dir"),
                                      cl::cat(bundleCategory));
static cl::list<std::string>
    functions("function",
              cl::desc("Compile this function (repeatable; "
                       "default: every function)"),
              cl::cat(bundleCategory));
static cl::opt<std::string> chip("chip", cl::init("sm_90a"),
                                 cl::desc("Target chip"),
                                 cl::cat(bundleCategory));
static cl::opt<unsigned> ptx("ptx", cl::init(0),
                             cl::desc("PTX ISA version times ten (0: the "
                                      "chip's minimum)"),
                             cl::cat(bundleCategory));
static cl::opt<uint64_t> seed("seed", cl::init(1),
                              cl::desc("Seed of the bundle inputs"),
                              cl::cat(bundleCategory));
static cl::opt<bool> noReference("no-reference",
                                 cl::desc("Skip the float64 reference"),
                                 cl::cat(bundleCategory));
static cl::opt<bool> scaleWeights(
    "scale-weights", cl::init(true),
    cl::desc("Scale each weight input (a matmul's right operand) by "
             "1/sqrt(fan-in); =false for programs that scale the "
             "products themselves (examples/trinity)"),
    cl::cat(bundleCategory));
static cl::opt<std::string>
    ptxas("ptxas",
          cl::desc("ptxas to use, or 'none' for PTX only "
                   "(default: search PATH, /usr/local/cuda/bin)"),
          cl::cat(bundleCategory));
static cl::opt<unsigned> pipelineStages("pipeline-stages", cl::init(0),
                                        cl::desc("cp.async pipeline stages "
                                                 "(0: automatic)"),
                                        cl::cat(bundleCategory));
static cl::opt<int64_t>
    targetBlocks("target-blocks", cl::init(264),
                 cl::desc("Grid size default matmul tiles aim for"),
                 cl::cat(bundleCategory));
static cl::opt<bool> fuse("fuse", cl::init(true),
                          cl::desc("Fuse kernel ops first (kn-fuse)"),
                          cl::cat(bundleCategory));
static cl::opt<bool> foldNorms(
    "fold-norms", cl::init(true),
    cl::desc("Fold RMSNorms over at most 128 columns into the matmuls that "
             "read them (kn-fuse fold-norms; the sum of squares is then held "
             "in the element type)"),
    cl::cat(bundleCategory));
static cl::opt<bool> tensorCores("tensor-cores", cl::init(true),
                                 cl::desc("Tile matmuls on tensor cores"),
                                 cl::cat(bundleCategory));
static cl::opt<bool> asyncCopy("async-copy", cl::init(true),
                               cl::desc("Load input tiles with cp.async"),
                               cl::cat(bundleCategory));
static cl::opt<bool> dependentLaunch(
    "dependent-launch", cl::init(true),
    cl::desc("Start per-operator kernels with griddepcontrol (sm_90 and "
             "later) so that they may run with programmatic dependent "
             "launch; marked \"pdl\" in the manifest"),
    cl::cat(bundleCategory));
static cl::opt<bool>
    tma("tma", cl::init(false),
        cl::desc("Load the pipelined input tiles of per-operator kernels with "
                 "the bulk tensor copy engine (sm_90 and later); the "
                 "manifest (version 3) then passes tensor maps"),
        cl::cat(bundleCategory));
static cl::opt<bool>
    wgmma("wgmma", cl::init(true),
          cl::desc("Run the tile matmuls of per-operator kernels that fit a "
                   "warpgroup with wgmma where the chip has it (sm_90a); "
                   "--wgmma=false keeps mma.sync (bundle <function>_mma)"),
          cl::cat(bundleCategory));
static cl::opt<bool> warpSpecialize(
    "warp-specialize", cl::init(false),
    cl::desc("With --tma, issue each TMA kernel's copies from a producer "
             "warpgroup that gives its registers to the computing threads "
             "(sm_90a; bundle <function>_tma_ws)"),
    cl::cat(bundleCategory));
static cl::opt<bool>
    megakernel("megakernel",
               cl::desc("Compile each function into one persistent kernel "
                        "(mirage-to-megakernel; manifest version 2)"),
               cl::cat(bundleCategory));
static cl::opt<int64_t> workers("workers", cl::init(0),
                                cl::desc("Mega-kernel worker CTAs (0: the "
                                         "chip's SMs)"),
                                cl::cat(bundleCategory));
static cl::opt<std::string>
    device("device", cl::init("h100"),
           cl::desc("Device the mega-kernel's schedule is estimated for "
                    "(h100, h200)"),
           cl::cat(bundleCategory));
static cl::opt<int64_t>
    deadlineMs("deadline-ms", cl::init(2000),
               cl::desc("Mega-kernel: milliseconds a wait may take before "
                        "the run is abandoned and reported (0: no limit)"),
               cl::cat(bundleCategory));

static cl::opt<int64_t> prefetchBytes(
    "prefetch-bytes", cl::init(0),
    cl::desc("Mega-kernel: bytes of each task's read-only inputs (weights, "
             "caches) a worker prefetches into L2 ahead of it (0: none)"),
    cl::cat(bundleCategory));
static cl::opt<unsigned>
    prefetchAhead("prefetch-ahead", cl::init(1),
                  cl::desc("Mega-kernel: how many tasks ahead a worker "
                           "prefetches (0: each task's own, before its wait)"),
                  cl::cat(bundleCategory));
static cl::opt<bool>
    preload("preload", cl::init(true),
            cl::desc("Issue the copies of what no kernel writes (weights) "
                     "before waiting on the producers: a mega-kernel task's "
                     "wait, a per-operator kernel's griddepcontrol.wait"),
            cl::cat(bundleCategory));
static cl::opt<bool> preloadSparesLeader(
    "preload-spares-leader", cl::init(false),
    cl::desc("Mega-kernel: the first warp, whose thread 0 polls the events, "
             "issues no preload copies; the second issues its share too"),
    cl::cat(bundleCategory));
static cl::opt<bool> preloadWarp(
    "preload-warp", cl::init(false),
    cl::desc("Mega-kernel: a warp beside the bodies' issues the preload "
             "copies of tasks whose shared memory the task before does not "
             "use, while that task runs"),
    cl::cat(bundleCategory));
static cl::opt<unsigned> preloadStages(
    "preload-stages", cl::init(0),
    cl::desc("Mega-kernel: the most pipeline stages a task copies before its "
             "wait (0: all its prologue has); the body copies the rest"),
    cl::cat(bundleCategory));
static cl::opt<bool> dynamicDispatch(
    "dynamic-dispatch",
    cl::desc("Mega-kernel: workers claim tasks in the graph's order from one "
             "shared counter instead of running fixed queues"),
    cl::cat(bundleCategory));
static cl::opt<std::string>
    nameSuffix("suffix",
               cl::desc("Appended to each bundle's name, to keep variants "
                        "of one program side by side"),
               cl::cat(bundleCategory));

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(bundleCategory);
  cl::ParseCommandLineOptions(argc, argv,
                              "Compile kernel graphs into GPU bundles\n");
  // Flags with a fixed set of values, before the input is read.
  for (std::optional<std::string> error :
       {mirage::checkGPUCodeOptions("mirage-bundle", chip, "bin", ptx),
        mirage::checkOptionValue("mirage-bundle", "--device", device,
                                 mirage::DeviceModel::getNames()),
        mirage::megakernel::checkPrefetchOptions("mirage-bundle", prefetchBytes,
                                                 prefetchAhead)})
    if (error) {
      llvm::errs() << "error: " << *error << "\n";
      return 1;
    }
  if (warpSpecialize && (!tma || megakernel)) {
    llvm::errs() << "error: mirage-bundle: --warp-specialize specializes the "
                    "warps of TMA kernels: it needs --tma and per-operator "
                    "kernels (no --megakernel)\n";
    return 1;
  }
  // Elsewhere the bundle would be named _ws for kernels without it.
  if (warpSpecialize && !mirage::hasWarpgroupMma(chip)) {
    llvm::errs() << "error: mirage-bundle: --warp-specialize needs setmaxnreg: "
                    "--chip=sm_90a, not "
                 << chip << "\n";
    return 1;
  }
  DialectRegistry registry;
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registerAllToLLVMIRTranslations(registry);
  mirage::registerAllDialects(registry);
  mirage::registerAllExtensions(registry);
  MLIRContext context(registry);

  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler handler(sourceMgr, &context);
  OwningOpRef<ModuleOp> module =
      parseSourceFile<ModuleOp>(inputFile, sourceMgr, &context);
  if (!module)
    return 1;

  SmallVector<std::string> names(functions.begin(), functions.end());
  if (names.empty())
    for (auto function : module->getOps<func::FuncOp>())
      names.push_back(function.getSymName().str());

  mirage::BundleOptions options;
  options.chip = chip;
  options.ptx = ptx;
  options.seed = seed;
  options.computeReference = !noReference;
  options.scaleWeights = scaleWeights;
  options.ptxas = ptxas;
  options.source = inputFile;
  options.targetBlocks = targetBlocks;
  options.fuse = fuse;
  options.foldNorms = foldNorms;
  options.pipelineStages = pipelineStages;
  options.tensorCores = tensorCores;
  options.asyncCopy = asyncCopy;
  options.dependentLaunch = dependentLaunch;
  options.tma = tma;
  options.wgmma = wgmma;
  options.warpSpecialize = warpSpecialize;
  options.megakernel = megakernel;
  options.workers = workers;
  options.device = device;
  options.deadlineMs = deadlineMs;
  options.prefetchBytes = prefetchBytes;
  options.prefetchAhead = prefetchAhead;
  options.dynamicDispatch = dynamicDispatch;
  options.preload = preload;
  options.preloadSparesLeader = preloadSparesLeader;
  options.preloadWarp = preloadWarp;
  options.preloadStages = preloadStages;
  options.nameSuffix = nameSuffix;

  int failures = 0;
  for (auto [index, name] : llvm::enumerate(names)) {
    llvm::errs() << "[" << index + 1 << "/" << names.size() << "] " << name
                 << "\n";
    std::string directory =
        outputDir + "/" + mirage::getBundleName(name, options);
    if (auto error = mirage::writeBundle(*module, name, directory, options,
                                         llvm::errs())) {
      llvm::errs() << "error: " << name << ": "
                   << llvm::toString(std::move(error)) << "\n";
      ++failures;
    }
  }
  if (failures)
    llvm::errs() << failures << " of " << names.size() << " bundles failed\n";
  return failures ? 1 : 0;
}
