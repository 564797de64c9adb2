//===- BlockGraphMemory.h - What a block graph's kernel holds ---*- C++ -*-===//
//
// One account of a block graph's memory for every reader: the tb.graph
// verifier, the passes that build block graphs (kn-fuse, the default block
// graphs, the superoptimizer through the verifier), the speed model, the
// resource report and the lowering. The account is the lowering's own plan
// (tiles placed in shared memory with the types, stages and alignments the
// code generator uses, f32 sums, tensor-core accumulators in registers);
// the library that lowers block graphs provides it as a dialect interface
// (mirage::registerAllExtensions). Without it, the peak of the tiles live
// at once at their declared types stands in.
//
//===----------------------------------------------------------------------===//

#ifndef MIRAGE_DIALECT_BLOCK_IR_BLOCKGRAPHMEMORY_H
#define MIRAGE_DIALECT_BLOCK_IR_BLOCKGRAPHMEMORY_H

#include "mlir/IR/DialectInterface.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace mirage::tb {

class GraphOp;

/// What one block of a graph's kernel holds.
struct BlockGraphMemory {
  /// Dynamic shared memory per block: with the pipeline stages the
  /// lowering chooses when the tiles fit, with one stage (and no reduction
  /// scratch) when they do not.
  int64_t sharedBytes = 0;
  /// Pipeline stages of the loop's input tiles (1 without a loop).
  int64_t stages = 1;
  /// f32 registers per thread held by tensor-core accumulators.
  int64_t accumulatorRegisters = 0;
  /// Whether this is the lowering's plan (else the live-tile peak).
  bool planned = false;
  /// The ops whose results take the most shared memory, largest first (at
  /// most three): where a message points to shrink.
  llvm::SmallVector<mlir::Operation *, 3> largest;
};

/// The lowering's memory plan of a block graph, attached to the tb dialect
/// by the library that lowers block graphs.
class MemoryPlannerInterface
    : public mlir::DialectInterface::Base<MemoryPlannerInterface> {
public:
  explicit MemoryPlannerInterface(mlir::Dialect *dialect) : Base(dialect) {}

  /// The plan of `graph` for its tb.target, without diagnostics, or
  /// std::nullopt where the lowering refuses the graph for a reason other
  /// than memory (which the lowering reports itself).
  virtual std::optional<BlockGraphMemory> plan(GraphOp graph) const = 0;
};

/// `graph`'s memory as the registered planner accounts it, or the peak of
/// its live tiles at their declared types (f32 for sums) where no planner
/// is registered or the lowering refuses the graph.
BlockGraphMemory getBlockGraphMemory(GraphOp graph);

} // namespace mirage::tb

#endif // MIRAGE_DIALECT_BLOCK_IR_BLOCKGRAPHMEMORY_H
