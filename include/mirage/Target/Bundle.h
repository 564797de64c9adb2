//===- Bundle.h - Compiled functions as GPU bundles -------------*- C++ -*-===//
//
// A bundle is what runs on a GPU machine without LLVM or MLIR: PTX (and a
// cubin when ptxas is found), a launch manifest and the float64 reference
// outputs (docs/Bundle.md). writeBundle compiles one kernel-graph function
// through mirage-to-ptx (or mirage-to-megakernel) and writes its bundle.
//
//===----------------------------------------------------------------------===//

#ifndef MIRAGE_TARGET_BUNDLE_H
#define MIRAGE_TARGET_BUNDLE_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace mirage {

struct BundleOptions {
  std::string chip = "sm_90a";
  /// PTX ISA version times ten; 0 picks the chip's minimum.
  unsigned ptx = 0;
  /// Seed of the input generator the reference outputs are computed for.
  uint64_t seed = 1;
  /// Compute reference.bin with the float64 interpreter.
  bool computeReference = true;
  /// Scale each weight input by 1/sqrt(fan-in) (docs/Bundle.md); off for
  /// programs that scale their contractions' results themselves.
  bool scaleWeights = true;
  /// ptxas to assemble the cubin with; empty: search PATH and
  /// /usr/local/cuda/bin; "none": write PTX only.
  std::string ptxas;
  /// The input file, recorded in the manifest.
  std::string source;
  /// Grid size of default matmul tiles (kn-default-block-graphs).
  int64_t targetBlocks = 264;
  /// Fuse kernel ops first (kn-fuse).
  bool fuse = true;
  /// kn-fuse's fold-norms (both lowerings).
  bool foldNorms = true;
  /// Compile one persistent kernel (mirage-to-megakernel) instead of one
  /// kernel per fused group, for `workers` CTAs (0: the chip's SMs), its
  /// schedule estimated for `device`; waits give up after `deadlineMs`.
  bool megakernel = false;
  int64_t workers = 0;
  std::string device = "h100";
  int64_t deadlineMs = 2000;
  /// Mega-kernel: bytes of each task's read-only inputs prefetched into L2,
  /// `prefetchAhead` tasks ahead (convert-tg-to-gpu).
  int64_t prefetchBytes = 0;
  unsigned prefetchAhead = 1;
  /// Mega-kernel: workers claim tasks from one shared counter.
  bool dynamicDispatch = false;
  /// Copies of what no kernel writes (weights) are issued before a task's
  /// wait (mega-kernel) or before griddepcontrol.wait (per-operator kernels
  /// with dependent launch).
  bool preload = true;
  /// Mega-kernel: the first warp issues no preload copies, the second its
  /// share too (convert-tg-to-gpu preload-spares-leader).
  bool preloadSparesLeader = false;
  /// Mega-kernel: a warp beside the bodies' issues the preload copies of
  /// tasks whose shared memory is free early (convert-tg-to-gpu
  /// preload-warp).
  bool preloadWarp = false;
  /// Mega-kernel: the most pipeline stages a task copies before its wait
  /// (0: all its prologue has; convert-tg-to-gpu preload-stages).
  unsigned preloadStages = 0;
  /// Appended to the bundle's name: variants of one program side by side.
  std::string nameSuffix;
  /// Per-operator kernels start with griddepcontrol where the chip has it,
  /// and are marked `"pdl": true` in the manifest.
  bool dependentLaunch = true;
  /// Per-operator kernels load pipelined tiles with the bulk tensor copy
  /// engine where the chip has it (manifest version 3: tensor-map
  /// arguments).
  bool tma = false;
  /// Per-operator kernels run the tile matmuls that fit a warpgroup with
  /// wgmma where the chip has it (sm_90a).
  bool wgmma = true;
  /// With tma, TMA kernels issue their copies from a producer warpgroup
  /// (sm_90a; convert-kn-to-gpu warp-specialize): bundle `<function>_ws`.
  bool warpSpecialize = false;
  /// Options of the block-graph lowering.
  unsigned pipelineStages = 0;
  bool tensorCores = true;
  bool asyncCopy = true;
};

/// The bundle's name (its manifest's `name`, and the directory mirage-bundle
/// writes it to): the function's, with `_megakernel` appended for a
/// mega-kernel, `_tma` for per-operator kernels with TMA loads (`_ws` with
/// warp specialization) and `_mma`
/// for those kept on mma.sync where the chip has wgmma, then the name suffix,
/// so that the forms of a program can sit side by side.
std::string getBundleName(llvm::StringRef function,
                          const BundleOptions &options);

/// Compiles `function` (a kn function of `module`, which is not modified)
/// and writes its bundle into directory `directory` (created if needed).
/// Progress goes to `log`.
llvm::Error writeBundle(mlir::ModuleOp module, llvm::StringRef function,
                        llvm::StringRef directory, const BundleOptions &options,
                        llvm::raw_ostream &log);

} // namespace mirage

#endif // MIRAGE_TARGET_BUNDLE_H
