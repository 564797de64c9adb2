//===- MuGraphIO.h - Between kernel-graph IR and search µGraphs -*- C++ -*-===//
//
// The superoptimizer searches over the MLIR-free µGraphs of MuGraph.h. This
// file connects them to the `kn`/`tb` dialects: a function is split into
// subprograms the verifier can prove, a subprogram becomes a search
// Problem, and a µGraph becomes `kn` ops (graph-defined kernels as
// `kn.kernel { tb.graph }`) again.
//
//===----------------------------------------------------------------------===//

#ifndef MIRAGE_SEARCH_MUGRAPHIO_H
#define MIRAGE_SEARCH_MUGRAPHIO_H

#include "mirage/Search/Search.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

namespace mirage::search {

/// Consecutive ops of a function, with the values they read from before
/// (in order of first use) and the values used after them (in order of
/// definition).
struct Subprogram {
  llvm::SmallVector<mlir::Operation *> ops;
  llvm::SmallVector<mlir::Value> inputs, outputs;

  /// Sets `inputs` to the values the ops read that none of them defines,
  /// in order of first use.
  void collectInputs();
};

/// Why an op cannot be part of a searched subprogram, or empty when it can:
/// every predefined `kn` op with a finite-field fingerprint except the
/// all-reduce collective.
std::string getUnsearchableReason(mlir::Operation *op);

/// Splits `function`'s body into subprograms for the search: maximal runs
/// of consecutive searchable ops, cut where a run would exceed `maxOps` ops
/// or leave the Lax fragment (a path through two exponentials). Runs of a
/// single op are left out: there is nothing to fuse.
llvm::SmallVector<Subprogram> splitIntoSubprograms(mlir::func::FuncOp function,
                                                   unsigned maxOps);

/// The search problem of a subprogram: its inputs are v0, v1, ... in order.
/// Fails, with the reason and nothing emitted, for a subprogram the search
/// cannot take: an op that is not a predefined operator, a value that is
/// not a static tensor, or mixed element types.
llvm::Expected<Problem> importSubprogram(const Subprogram &subprogram,
                                         ExprContext &context);

/// Builds `graph` at the builder's insertion point over `inputs` (one value
/// per graph input) and returns the values of its outputs. The ops are not
/// verified.
llvm::SmallVector<mlir::Value> buildMuGraph(mlir::OpBuilder &builder,
                                            mlir::Location loc,
                                            const MuGraph &graph,
                                            mlir::ValueRange inputs,
                                            mlir::Type elementType);

/// A function `name` of type `type` whose body is `graph`.
mlir::func::FuncOp buildFunction(mlir::OpBuilder &builder, mlir::Location loc,
                                 llvm::StringRef name, mlir::FunctionType type,
                                 const MuGraph &graph);

/// A function `name` whose body is a copy of the subprogram's ops.
mlir::func::FuncOp cloneSubprogram(mlir::OpBuilder &builder,
                                   const Subprogram &subprogram,
                                   llvm::StringRef name);

} // namespace mirage::search

#endif // MIRAGE_SEARCH_MUGRAPHIO_H
