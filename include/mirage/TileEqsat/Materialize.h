//===- Materialize.h - Tile programs as graph-defined kernels ---*- C++ -*-===//
//
// Part of the Mirage MLIR project.
//
// Turns an extracted tile program into `kn.kernel`s with `tb.graph` block
// graphs, the form the verifier checks and the code generator lowers. Every
// top-level statement is one kernel:
//
//  - its outermost loops with independent iterations (up to three) are the
//    grid; a loop over v with step s is grid dim size extent / s, and a
//    tensor dim indexed by `tile:v` (or `elem:v`) is the one the grid dim
//    partitions (imap for loads, omap for stores);
//  - at most one further loop is the block graph's for-loop; a dim indexed
//    by its variable is the fmap of the tiles loaded in it;
//  - statements before that loop compute loop-body values (recomputed every
//    iteration from the loaded tiles, as Trinity's loop insertion does);
//    `(store C 0 I)` followed by `(store C (+ (load C I) v) I)` in the loop
//    is `tb.accum_sum v`; a tile stored in the loop at a dim indexed by the
//    loop variable and read after it is `tb.accum_concat`; statements after
//    the loop are post-loop ops;
//  - tensors the kernel loads but does not store are its inputs (input
//    iterators); tensors it stores that are results of the function or that
//    later kernels load are its results (output savers).
//
// What a block graph cannot say today makes the candidate inexpressible,
// with the reason: two sequential loops in one kernel (Trinity's fully fused
// attention: the projection's k loop, then the attention's p loop), a loop
// inside the for-loop, a value stored to device memory and read back by the
// same kernel (Trinity's mid-kernel spill), an input read after the loop, a
// store that not every block writes a disjoint part of, constant slices.
//
//===----------------------------------------------------------------------===//

#ifndef MIRAGE_TILEEQSAT_MATERIALIZE_H
#define MIRAGE_TILEEQSAT_MATERIALIZE_H

#include "mirage/TileEqsat/KernelToTile.h"

#include "mirage/TileEqsat/Evaluator.h"
#include "mlir/IR/Builders.h"

namespace mirage::tile {

struct MaterializeOptions {
  /// Symbolic tile sizes (default 64, clamped to a divisor of the range).
  TileSizes sizes = [] {
    TileSizes s;
    s.defaultSize = 64;
    return s;
  }();
  int64_t threads = 128;
};

/// `term` with kernels split where a block graph could not follow them: a
/// kernel's outer loops with independent iterations (its grid) are split
/// (loop fission, valid because no iteration touches what another writes)
/// before a second sequential loop and before a statement that reads a
/// tensor the kernel wrote in another region (a block graph cannot read back
/// what it writes to device memory); and around a statement that stores the
/// concatenation of two loads into at least `concatCopyElements` elements
/// per block (a KV-cache append: a block graph would hold the whole slice in
/// shared memory), which materializeProgram makes a `kn.concat`. What is
/// split then goes through device memory between kernels.
Term splitForBlockGraphs(const TileContext &context, const Term &term,
                         int64_t concatCopyElements);

/// A function `name` with `type` whose body is `term` as graph-defined
/// kernels, `program`'s inputs bound to the arguments and its outputs
/// returned; or an error saying why a kernel has no block graph. Nothing is
/// left in the IR on failure. The ops are not verified.
llvm::Expected<mlir::func::FuncOp>
materializeProgram(mlir::OpBuilder &builder, mlir::Location loc,
                   llvm::StringRef name, mlir::FunctionType type,
                   const TileProgram &program, const Term &term,
                   const MaterializeOptions &options = {});

} // namespace mirage::tile

#endif // MIRAGE_TILEEQSAT_MATERIALIZE_H
