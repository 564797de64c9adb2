//===- KernelToGPU.h - What the GPU lowering can place ----------*- C++ -*-===//
//
// Questions other passes ask the block-graph lowering (convert-kn-to-gpu)
// before they commit to a block graph, so that what they build is what it
// can lower.
//
//===----------------------------------------------------------------------===//

#ifndef MIRAGE_CONVERSION_KERNELTOGPU_H
#define MIRAGE_CONVERSION_KERNELTOGPU_H

#include "mirage/Dialect/Block/IR/Block.h"

#include <string>

namespace mirage {

/// The memory `graph`'s kernel needs as convert-kn-to-gpu plans it with its
/// default options, with mma.sync and with wgmma (the larger of the two:
/// the lowering's chip option picks wgmma): shared memory with the stages the
/// lowering chooses (one, and its bytes, when the tiles do not fit), the
/// registers of its tensor-core accumulators. std::nullopt where the
/// lowering refuses the graph for another reason than memory. This is the
/// account the tb.graph verifier reads (tb::getBlockGraphMemory) once
/// registerBlockGraphMemoryPlanner has attached it.
std::optional<tb::BlockGraphMemory>
planBlockGraphMemory(tb::GraphOp graph, int64_t chipSharedMemory = 0,
                     int64_t residentBlocks = 0);

/// Attaches planBlockGraphMemory to the tb dialect as its
/// MemoryPlannerInterface (part of mirage::registerAllExtensions).
void registerBlockGraphMemoryPlanner(mlir::DialectRegistry &registry);

/// Plans `graph`'s kernel as convert-kn-to-gpu does with its default options
/// (tensor cores, cp.async pipeline, automatic stage count, the graph's
/// tb.target, and a chip with `chipSharedMemory` bytes per block where not
/// 0) and returns the dynamic shared memory it needs, in bytes; a failure,
/// with the lowering's diagnostic on the graph, when its tiles do not fit
/// even with the fewest stages, or the graph has a shape the lowering
/// refuses. The lowering runs a looped graph whose tiles fit only once with
/// one stage (load, wait, compute); a pass that builds graphs should not
/// build one, and asks for `requirePipeline` to have it refused too.
/// `residentBlocks` is how many of the graph's blocks share an SM's bytes in
/// flight (0: as the kernel's grid spreads over the SMs; a mega-kernel's
/// task bodies, which a worker runs one at a time: 1).
mlir::FailureOr<int64_t>
planBlockGraphSharedMemory(tb::GraphOp graph, int64_t chipSharedMemory = 0,
                           bool requirePipeline = false,
                           int64_t residentBlocks = 0);

/// The f32 registers per thread that `graph`'s tensor-core accumulators take
/// at once as the lowering plans them (planBlockGraphMemory): the sums of
/// every matmul summed in registers across the loop, plus one job's
/// fragments of a product stored as it is computed; 0 where the lowering
/// refuses the graph. Past about half of the 255 registers a thread has,
/// ptxas spills to local memory.
int64_t getBlockGraphAccumulatorRegisters(tb::GraphOp graph);

/// The input-tile bytes one block of `graph` has requested and not yet used
/// while it computes, as the lowering plans it (the options of
/// planBlockGraphSharedMemory): with a loop, the tiles of the iterations
/// ahead of the one computed (stages - 1 of them, or one without a
/// pipeline); without one, every tile, all requested at once. 0 when the
/// lowering refuses the graph. Little's law wants about bandwidth times
/// latency of it per SM (25-30 KiB on an H100) to keep DRAM busy.
int64_t getBlockGraphLoadsInFlight(tb::GraphOp graph,
                                   int64_t chipSharedMemory = 0);

/// The lowering's rules for values that get no shared-memory tile of their
/// own, over kn or tb ops, for passes that plan block graphs before they
/// exist (kn-fuse) to count what the lowering will place. `samePhase` says
/// whether two ops run in the same phase of the block graph (the loop body,
/// or after the loop).
///
/// An elementwise op whose only user is an elementwise op of its phase with
/// the same result shape, or one that broadcasts it along its rows (a
/// per-row mean or norm: last dim 1), or a reduction of its phase, or a
/// concat read in place (`isView`), is computed inside that user, in
/// registers.
bool isComputedInUser(
    mlir::Operation *op,
    llvm::function_ref<bool(mlir::Operation *, mlir::Operation *)> samePhase,
    llvm::function_ref<bool(mlir::Operation *)> isView);

/// A split, a reshape that only adds or drops unit dims, or a concat, whose
/// users are all elementwise ops or such views (`isView`) of its phase, and
/// whose operands are not a matmul's result (which may never get a tile),
/// is read in place: its users index its operand's tile (a concat's users
/// read the operand that holds each element, or compute it there). Callers
/// visit users before their operands so that a view of a view is one.
bool isReadInPlace(
    mlir::Operation *op, llvm::function_ref<bool(mlir::Operation *)> isView,
    llvm::function_ref<bool(mlir::Operation *, mlir::Operation *)> samePhase);

/// Both rules over a block graph's ops in program order (users visited
/// first for views): `views` gets the ops read in place, `untiled` those
/// and the ops computed in their users.
void findUntiledOps(
    llvm::ArrayRef<mlir::Operation *> ops,
    llvm::function_ref<bool(mlir::Operation *, mlir::Operation *)> samePhase,
    llvm::DenseSet<mlir::Operation *> &views,
    llvm::DenseSet<mlir::Operation *> &untiled);

/// Whether `chip` has warpgroup matrix multiplies (wgmma.mma_async: sm_90a
/// only, the architecture-specific target).
bool hasWarpgroupMma(llvm::StringRef chip);

/// The name convert-kn-to-gpu gives the gpu.func of the `index`-th kn.kernel
/// (program order) of `function`.
std::string getKernelName(llvm::StringRef function, int64_t index);

} // namespace mirage

#endif // MIRAGE_CONVERSION_KERNELTOGPU_H
