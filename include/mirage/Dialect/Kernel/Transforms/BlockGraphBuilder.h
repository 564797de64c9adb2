//===- BlockGraphBuilder.h - Building graph-defined kernels -----*- C++ -*-===//
//
// What the passes that turn kernel-graph ops into graph-defined kernels
// share (kn-default-block-graphs for one op, kn-fuse for a group of ops):
// a builder of `kn.kernel { tb.graph { ... } }` that creates iterators,
// block-level ops named like the kernel ops they compute, accumulators and
// savers with types from the operator records' shape rules; the default
// kernel of one op; and the speed model's summary of a block graph.
//
//===----------------------------------------------------------------------===//

#ifndef MIRAGE_DIALECT_KERNEL_TRANSFORMS_BLOCKGRAPHBUILDER_H
#define MIRAGE_DIALECT_KERNEL_TRANSFORMS_BLOCKGRAPHBUILDER_H

#include "mirage/CostModel/CostModel.h"
#include "mirage/Dialect/Block/IR/Block.h"
#include "mirage/Dialect/Kernel/IR/Kernel.h"
#include "mirage/Semantics/OpSemantics.h"
#include "mlir/IR/Builders.h"

namespace mirage::kn {

/// Threads per block of the generated block graphs.
constexpr int64_t kDefaultThreads = 128;

/// The largest divisor of `n` that is at most `cap` (1 when none is larger).
int64_t largestDivisorAtMost(int64_t n, int64_t cap);

/// Builds `kn.kernel(inputs) { tb.graph grid [...] threads T forloop F }`
/// at the builder's insertion point. Diagnostics name `diagnosticOp` with
/// `what` ("has no default block graph", ...).
class BlockGraphBuilder {
public:
  BlockGraphBuilder(mlir::OpBuilder &b, mlir::Location loc,
                    mlir::ValueRange inputs, mlir::TypeRange resultTypes,
                    llvm::ArrayRef<int64_t> grid, int64_t threads,
                    int64_t forloop, mlir::Operation *diagnosticOp,
                    llvm::StringRef what);

  llvm::ArrayRef<int64_t> getGrid() { return graph.getGrid(); }
  int64_t getForloop() {
    return static_cast<int64_t>(graph.getForloopRange());
  }
  /// The graph's entry argument bound to kernel input `index`.
  mlir::Value getInput(unsigned index) {
    return graph.getBodyBlock().getArgument(index);
  }

  /// An input iterator over graph input `input` with the given imap (one
  /// entry per grid dim) and fmap.
  mlir::FailureOr<mlir::Value> iterate(mlir::Value input,
                                       llvm::ArrayRef<int64_t> imap,
                                       int64_t fmap);

  /// The block-level op of operator `kind` on `operands` with `attributes`,
  /// whose result tiles have the shapes the operator's shape rule gives for
  /// the operand tiles (or `resultShapes`, where the type is written, as for
  /// a reshape) and `elementType`.
  mlir::FailureOr<llvm::SmallVector<mlir::Value>>
  compute(OpKind kind, mlir::ValueRange operands, const OpParams &params,
          llvm::ArrayRef<mlir::NamedAttribute> attributes,
          mlir::Type elementType,
          std::optional<llvm::ArrayRef<Shape>> resultShapes = std::nullopt);

  /// `op`'s block-level counterpart (`kn.exp` -> `tb.exp`) with its
  /// attributes and parameters.
  mlir::FailureOr<llvm::SmallVector<mlir::Value>>
  compute(mlir::Operation *op, mlir::ValueRange operands,
          const OpParams &params,
          llvm::ArrayRef<mlir::NamedAttribute> attributes);

  /// An accumulator of `kind` (AccumSum or AccumMax) over `tile`.
  mlir::Value accumulate(mlir::Value tile, OpKind kind);
  /// `tb.accum_concat` of `tile` along `dim`.
  mlir::Value accumulateConcat(mlir::Value tile, int64_t dim);
  mlir::Value reshape(mlir::Value tile, llvm::ArrayRef<int64_t> shape);

  /// Saves `tiles` as the kernel's outputs with the given omaps and
  /// finishes the graph.
  void save(llvm::ArrayRef<mlir::Value> tiles,
            llvm::ArrayRef<llvm::SmallVector<int64_t>> omaps);

  KernelOp getKernel() { return kernel; }
  tb::GraphOp getGraph() { return graph; }

private:
  mlir::InFlightDiagnostic emitError();

  mlir::OpBuilder &b;
  mlir::Location loc;
  mlir::Operation *diagnosticOp;
  std::string what;
  KernelOp kernel;
  tb::GraphOp graph;
};

/// The kernel kn-default-block-graphs gives `op` with its fixed tiling
/// (`targetBlocks` for matmuls), built before `op`; null with a diagnostic
/// when none fits. `op` is left in place.
KernelOp buildDefaultKernel(mlir::Operation *op, int64_t targetBlocks);

/// The kernel kn-default-block-graphs{persistent} gives `op` for a
/// persistent kernel of `workers` workers, built before `op`; null with a
/// diagnostic when none fits. `op` is left in place.
KernelOp buildPersistentKernel(mlir::Operation *op, int64_t workers);

/// What the speed model needs to know of a block graph's kernel
/// (mirage::KernelProfile), read from its IR: bytes per block by phase,
/// each phase's arithmetic and per-block latency, unique bytes, shared
/// memory; operator latencies at `device`'s rates.
KernelProfile getKernelProfile(KernelOp kernel, const DeviceModel &device);
/// The same for a block graph alone (a task-graph kernel's body): its
/// operand and result tensors are its block's arguments and yielded values.
KernelProfile getKernelProfile(tb::GraphOp graph, const DeviceModel &device);

/// The speed model's view of a graph-defined kernel on `device`, run on the
/// SMs its tb.target names (if any): its profile, its estimated time with
/// the terms, and the input-tile bytes its blocks keep in flight per SM as
/// convert-kn-to-gpu pipelines them (getBlockGraphLoadsInFlight times the
/// blocks resident). What kn-report-traffic prints and bundles record.
struct KernelEstimate {
  KernelProfile profile;
  KernelTimeBreakdown time;
  int64_t loadsInFlightPerSM = 0;
};
KernelEstimate estimateGraphKernel(KernelOp kernel, DeviceModel device);
/// The input-tile bytes the blocks of `graph` keep in flight per SM, with
/// `time`'s blocks resident (KernelEstimate::loadsInFlightPerSM).
int64_t getLoadsInFlightPerSM(tb::GraphOp graph,
                              const KernelTimeBreakdown &time);

} // namespace mirage::kn

#endif // MIRAGE_DIALECT_KERNEL_TRANSFORMS_BLOCKGRAPHBUILDER_H
