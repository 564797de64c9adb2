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
  /// barriers), a block's post-loop work, the first bytes of a load to
  /// arrive (device-memory latency under load).
  double launchUs = 2.5;
  double iterationUs = 0.0;
  double postLoopUs = 1.0;
  double loadLatencyUs = 1.0;
  /// What starting each block costs the SM it runs on (dispatch, its
  /// first instructions), paid one block after another: 2048 blocks of 64
  /// elements ran an elementwise chain 1.2 µs slower than 128 blocks of
  /// 1024 on an H100 (2026-11-26).
  double blockStartUs = 0.08;
  /// Bytes per µs one SM's blocks stream from device memory together when
  /// their loads are in flight (above the SM's even share of DRAM: SMs
  /// with more requests outstanding get more). Fitted to the decode matmul
  /// sweep of 2026-11-26 on an H100 (docs/results/2026-11-26-h100.md).
  double smStreamBytesPerUs = 4.0e4;
  /// What each contiguous row of a loaded tile costs on top of its bytes
  /// (narrow tiles stream slower: 32-byte rows about 20% below 128-byte
  /// ones in the same sweep).
  double rowOverheadBytes = 8;
  /// One step of a warp's m16n8k16 chain as generated (two ldmatrix, the
  /// dependent mma.sync): the latency a block pays per 16 of k for each job
  /// its busiest warp owns, over the job's independent accumulators
  /// (getTensorCoreChains). Fitted to the Qwen3 layer's kernels (one chain
  /// each then) under Nsight Compute on the same day.
  double mmaStepUs = 0.035;
  /// Generated SIMT code: one step of a thread's k loop in a matmul (two
  /// shared-memory loads and an FMA, dependent), and one element of another
  /// tile operator per thread. Fitted to SIMT matmuls measured on an H200.
  double simtMacUs = 0.0125;
  double simtElementUs = 0.008;

  /// The device as the tasks of a persistent kernel see it: nothing is
  /// launched, and each worker (an SM) runs one task at a time.
  DeviceModel forPersistentTasks() const {
    DeviceModel persistent = *this;
    persistent.launchUs = 0;
    persistent.maxBlocksPerSM = 1;
    return persistent;
  }

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
  /// once (loop-invariant tiles) and stores, and the contiguous rows those
  /// loads come in (getTileRows).
  double loopBytes = 0, onceBytes = 0, outputBytes = 0;
  double loopRows = 0, onceRows = 0;
  /// Bytes of the kernel's operand and result tensors, each counted once.
  double uniqueBytes = 0;
  /// One block's arithmetic per iteration and after the loop, and the time
  /// its operators take run one after another (getTileOpLatencyUs).
  Flops bodyFlops, postFlops;
  double bodyLatencyUs = 0, postLatencyUs = 0;
  int64_t sharedMemoryBytes = 0;
};

/// The contiguous rows a tile of `tensor` is read in: its elements over the
/// span of its innermost dims that are whole (plus the first cut one).
double getTileRows(llvm::ArrayRef<int64_t> tile,
                   llvm::ArrayRef<int64_t> tensor);

/// Microseconds one block spends on a tile operator as generated: on tensor
/// cores the larger of the SM's share of the chip's rate and the busiest
/// warp's chain of m16n8k16 steps (its jobs of 16 rows by 8 or 16 columns
/// times k / 16); a SIMT matmul with a thread per result element looping
/// over k; other operators a round of `threads` elements at a time.
double getTileOpLatencyUs(OpKind kind, const OpParams &params,
                          llvm::ArrayRef<llvm::ArrayRef<int64_t>> in,
                          llvm::ArrayRef<int64_t> out, int64_t threads,
                          unsigned elementBytes, const DeviceModel &device);

/// A kernel's time: launch + max(memory, compute, latency), where memory is
/// the larger of the unique bytes (plus each loaded row's overhead) over
/// DRAM and all blocks' bytes over L2, compute the blocks' arithmetic over
/// the utilization min(1, blocks / SMs), and latency the waves of resident
/// blocks (occupancy from shared memory and threads) times one block's critical
/// path. A block's loads stream at the SM's rate shared by the blocks resident
/// with it; the path is the first load's latency, the loop-invariant tiles,
/// then per iteration a fixed cost plus its loads and its operators (the larger
/// of the two when the loop is pipelined, their sum for a single iteration,
/// which loads everything before it computes), then the post-loop work and
/// its stores; plus the start of each block an SM runs, one after another.
/// `launch` false leaves the launch out (a task of a persistent kernel).
double estimateKernelUs(const KernelProfile &kernel, const DeviceModel &device,
                        bool launch = true);

/// The terms of estimateKernelUs, for reports: the estimate is the launch
/// plus the largest of memory, compute and latency.
struct KernelTimeBreakdown {
  double us = 0, launchUs = 0, memoryUs = 0, computeUs = 0, latencyUs = 0;
  /// Rounds of resident blocks, blocks resident on an SM at once, and one
  /// block's critical path.
  double waves = 0, residentPerSM = 0, blockUs = 0;

  /// "memory", "compute" or "latency": the term the estimate is.
  llvm::StringRef getBound() const;
};
KernelTimeBreakdown estimateKernel(const KernelProfile &kernel,
                                   const DeviceModel &device,
                                   bool launch = true);

} // namespace mirage

#endif // MIRAGE_COSTMODEL_COSTMODEL_H
