//===- MuGraph.h - The µGraphs the superoptimizer builds --------*- C++ -*-===//
//
// A compact form of kernel and block graphs, free of MLIR so that search
// threads can build, copy and discard millions of them. A kernel graph is a
// list of kernel ops over numbered tensors (the program inputs first); an op
// is a predefined operator or a graph-defined kernel whose body is a block
// graph. A block graph has two parts:
//
//  - its skeleton: which operators it runs on which tiles, in which phase
//    (loop body, accumulator, after the loop), with the shapes and abstract
//    expressions the operators would have on whole tensors;
//  - its schedule: grid, for-loop range and the imap/fmap/omap tiling maps,
//    with the tile shape of every node.
//
// The generator enumerates skeletons (lib/Search/BlockEnumerator.cpp) and
// derives schedules from them (lib/Search/Schedule.cpp). MuGraphIO turns a
// µGraph into `kn`/`tb` ops and back.
//
//===----------------------------------------------------------------------===//

#ifndef MIRAGE_SEARCH_MUGRAPH_H
#define MIRAGE_SEARCH_MUGRAPH_H

#include "mirage/Semantics/AbstractExpr.h"
#include "llvm/Support/JSON.h"

#include <memory>
#include <string>

namespace mirage::search {

/// Where a node of a block graph runs (Mirage v3 Def. 2.1 (3)).
enum class Phase : uint8_t {
  /// An input iterator: reads tile after tile of a kernel input.
  Input,
  /// The for-loop body.
  Body,
  /// A sum over the loop iterations.
  Accum,
  /// After the loop, on accumulated values only.
  Post,
};

/// A node of a block-graph skeleton.
struct BlockNode {
  Phase phase = Phase::Body;
  /// InputIterator, AccumSum or a compute operator.
  OpKind kind = OpKind::InputIterator;
  /// The compute operator's parameters (iterators and accumulators take
  /// theirs from the schedule).
  OpParams params;
  llvm::SmallVector<unsigned, 2> operands;
  /// Shape and abstract expression on whole tensors: iterators see the whole
  /// input and accumulators are identities.
  Shape shape;
  ExprId expr = 0;
};

/// What a block graph computes, before it is partitioned.
struct BlockSkeleton {
  /// Nodes [0, numInputs) are the iterators of the kernel op's operands, in
  /// order; the others are in execution order.
  unsigned numInputs = 0;
  llvm::SmallVector<BlockNode, 12> nodes;
  /// The nodes saved to the kernel op's results, in order.
  llvm::SmallVector<unsigned, 2> outputs;

  bool isLooped() const;
  /// Compute operators and accumulators (what the block-op limit counts).
  unsigned getNumOps() const;
  unsigned getNumComputeOps() const;
};

/// How a block graph partitions its work over blocks and iterations.
struct Schedule {
  llvm::SmallVector<int64_t, 3> grid;
  int64_t forloopRange = 1;
  int64_t threads = 128;
  /// Per iterator: the data dim each grid dim partitions (or kReplica), and
  /// the data dim the loop partitions (or kReplica).
  llvm::SmallVector<llvm::SmallVector<int64_t, 3>, 4> imaps;
  llvm::SmallVector<int64_t, 4> fmaps;
  /// Per output: the data dim each grid dim partitions.
  llvm::SmallVector<llvm::SmallVector<int64_t, 3>, 2> omaps;
  /// Per skeleton node: its tile shape.
  llvm::SmallVector<Shape, 12> tiles;

  int64_t getNumBlocks() const;
};

/// An op of a kernel graph.
struct KernelOp {
  /// A predefined operator, or nullptr skeleton.
  OpKind kind = OpKind::Matmul;
  OpParams params;
  /// A graph-defined kernel when set.
  std::shared_ptr<const BlockSkeleton> skeleton;
  Schedule schedule;
  llvm::SmallVector<unsigned, 4> operands;
  llvm::SmallVector<unsigned, 2> results;

  bool isCustom() const { return skeleton != nullptr; }
};

struct KernelTensor {
  Shape shape;
  ExprId expr = 0;
};

struct MuGraph {
  /// Tensors [0, numInputs) are the program's inputs.
  unsigned numInputs = 0;
  llvm::SmallVector<KernelTensor, 8> tensors;
  llvm::SmallVector<KernelOp, 4> ops;
  llvm::SmallVector<unsigned, 1> outputs;

  unsigned getNumCustomOps() const;
};

/// A stable one-line text of a µGraph (operators, operands, schedules): the
/// tie-breaker of the ranking and the key that deduplicates candidates.
std::string printMuGraph(const MuGraph &graph);
/// The text of one block-graph skeleton.
std::string printSkeleton(const BlockSkeleton &skeleton);
/// A short description for people: the kernels in order, a graph-defined
/// one with its launch shape and operators, e.g.
/// "matmul; kernel[grid 96, loop 64](rms_norm, matmul, accum_sum)".
std::string summarizeMuGraph(const MuGraph &graph);
/// Whether some op's results, an output of a graph-defined kernel or a node
/// of its block graph reach no output: the graph without them is
/// enumerated as well, so such a graph is a duplicate with dead work.
bool hasDeadOps(const MuGraph &graph);

/// The operator kind named `name` ("matmul", "input_iterator", ...).
std::optional<OpKind> lookupOpKind(llvm::StringRef name);

/// JSON forms for checkpoints. Expressions are not stored: a reader replays
/// the operators to rebuild shapes and expressions.
llvm::json::Value toJSON(const BlockSkeleton &skeleton);
llvm::json::Value toJSON(const MuGraph &graph);
llvm::json::Value toJSON(const OpParams &params);

/// Rebuilds a skeleton over operands with the given shapes and expressions.
llvm::Expected<std::shared_ptr<const BlockSkeleton>>
skeletonFromJSON(const llvm::json::Value &value,
                 llvm::ArrayRef<KernelTensor> operands, ExprContext &context);
/// Rebuilds a µGraph over inputs with the given shapes and expressions.
llvm::Expected<MuGraph> muGraphFromJSON(const llvm::json::Value &value,
                                        llvm::ArrayRef<KernelTensor> inputs,
                                        ExprContext &context);
llvm::Expected<OpParams> paramsFromJSON(const llvm::json::Value &value);

} // namespace mirage::search

#endif // MIRAGE_SEARCH_MUGRAPH_H
