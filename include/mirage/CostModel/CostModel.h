//===- CostModel.h - The GPU speed model's device and arithmetic --*- C++
//-*-===//
//
// What every estimate of the project is built from: a device's rates and
// fixed costs, and an operator's arithmetic as the generated code runs it
// (tensor cores where the tiles fit mma.sync, CUDA cores otherwise). The
// superoptimizer's kernel costs (lib/Search/CostModel.cpp) and the task
// graph's per-task estimates read them; their constants were fitted to
// kernels measured on an H200 (docs/Search.md).
//
//===----------------------------------------------------------------------===//

#ifndef MIRAGE_COSTMODEL_COSTMODEL_H
#define MIRAGE_COSTMODEL_COSTMODEL_H

#include "mirage/Semantics/OpSemantics.h"

#include <optional>
#include <string>

namespace mirage {

/// A GPU's rates and fixed costs (defaults: an H100 SXM).
struct DeviceModel {
  std::string name;
  int64_t sms = 132;
  double dramBytesPerUs = 3.35e6;
  double l2BytesPerUs = 1.0e7;
  /// Dense f16 tensor-core and f32 CUDA-core rates reachable by mma.sync and
  /// SIMT code.
  double tensorFlopsPerUs = 6.6e8;
  double simtFlopsPerUs = 6.0e7;
  int64_t smemPerSM = 233472;
  int64_t smemPerBlock = 232448;
  int64_t maxThreadsPerSM = 2048;
  int64_t maxBlocksPerSM = 32;
  /// Fixed costs: a launch, one loop iteration of a block (pipeline wait,
  /// barriers), a block's post-loop work.
  double launchUs = 2.5;
  double iterationUs = 0.5;
  double postLoopUs = 1.0;
  /// Generated SIMT code: one step of a thread's k loop in a matmul (two
  /// shared-memory loads and an FMA, dependent), and one element of another
  /// tile operator per thread. Fitted to SIMT matmuls measured on an H200.
  double simtMacUs = 0.0125;
  double simtElementUs = 0.008;

  /// "h100" (H100 SXM) or "h200".
  static std::optional<DeviceModel> get(llvm::StringRef name);
  /// The names get() knows.
  static llvm::ArrayRef<llvm::StringRef> getNames();
};

/// Floating-point operations on tensor cores and on CUDA cores.
struct Flops {
  double tensor = 0, simt = 0;

  /// At the whole device's rates.
  double time(const DeviceModel &device) const {
    return tensor / device.tensorFlopsPerUs + simt / device.simtFlopsPerUs;
  }
};

/// An operator's work (its record's facet) as the GPU runs it: multiply-adds
/// on tensor cores where the tiles fit `mma.sync` (padded to the m16n8k16
/// instruction shape), everything else on CUDA cores.
Flops getFlops(OpKind kind, const OpParams &params,
               llvm::ArrayRef<llvm::ArrayRef<int64_t>> in,
               llvm::ArrayRef<int64_t> out, unsigned elementBytes);

/// A graph-defined kernel as the speed model sees it: its launch shape,
/// what one block moves and computes, and what the kernel touches in all.
struct KernelProfile {
  int64_t blocks = 1, threads = 128, iterations = 1;
  /// Bytes one block loads every iteration (tiles that change with it),
  /// once (loop-invariant tiles) and stores.
  double loopBytes = 0, onceBytes = 0, outputBytes = 0;
  /// Bytes of the kernel's operand and result tensors, each counted once.
  double uniqueBytes = 0;
  /// One block's arithmetic per iteration and after the loop, and the time
  /// its operators take run one after another (getTileOpLatencyUs).
  Flops bodyFlops, postFlops;
  double bodyLatencyUs = 0, postLatencyUs = 0;
  int64_t sharedMemoryBytes = 0;
};

/// Microseconds one block spends on a tile operator as generated: tensor
/// cores at the SM's share of the chip's rate; a SIMT matmul with a thread
/// per result element looping over k; other operators a round of `threads`
/// elements at a time.
double getTileOpLatencyUs(OpKind kind, const OpParams &params,
                          llvm::ArrayRef<llvm::ArrayRef<int64_t>> in,
                          llvm::ArrayRef<int64_t> out, int64_t threads,
                          unsigned elementBytes, const DeviceModel &device);

/// A kernel's time: launch + max(memory, compute, latency), where memory is
/// the larger of the unique bytes over DRAM and all blocks' bytes over L2,
/// compute the blocks' arithmetic, both over the utilization min(1, blocks
/// / SMs), and latency the waves of resident blocks (occupancy from shared
/// memory and threads) times one block's critical path (per iteration a
/// fixed cost plus the larger of its loads at the SM's share of L2 and its
/// operators; then the post-loop work and its stores). The search's cost of
/// a graph-defined kernel (docs/Search.md) on its compact µGraphs, with the
/// block's stores added to its critical path. `launch` false leaves the
/// launch out (a task of a persistent kernel).
double estimateKernelUs(const KernelProfile &kernel, const DeviceModel &device,
                        bool launch = true);

} // namespace mirage

#endif // MIRAGE_COSTMODEL_COSTMODEL_H
