//===- KernelToTile.h - Kernel graphs as tile programs ----------*- C++ -*-===//
//
// Part of the Mirage MLIR project.
//
// The deterministic conversion of a kernel graph (a func.func of predefined
// kn ops) into a tile program, Trinity's front door:
//
//  1. Axes. The dims of all values are grouped into axes with a union-find:
//     an elementwise op's aligned dims, a matmul's batch, row, column and
//     contraction dims, a transpose's permuted dims, the kept dims of a
//     reduction or concatenation are one axis. A reshape that splits an
//     axis into (outer, inner...) records the split; two axes split into the
//     same axes are one.
//  2. Loops. Every axis gets a loop variable, named a, b, c, ... in order of
//     first appearance. An axis of size 1, or up to `fullThreshold`
//     elements, is kept whole (fulltile); the leading (batch) axes of
//     batched matmuls are iterated one element at a time (elem, step 1);
//     every other axis is tiled with a symbolic size t<var> (tile).
//  3. Statements. Every op becomes one loop nest over its result's axes
//     (batch axes outermost), in op order, joined by a right-associated seq:
//     a store of the op's value into its result tensor. Contractions and
//     reductions over a tiled axis initialize the result to zero and
//     accumulate over an inner loop. rms_norm becomes its sum of squares
//     and a division; silu, square, neg and the scalar ops their
//     arithmetic. A reshape that splits or merges an axis loops over the
//     large axis with the inner size as its step and indexes the outer one
//     by element (Trinity's head reshape).
//
// Tensors: arguments are inputs in0, in1, ...; returned values outputs
// out0, ...; every other op result a variable v<op index>_<op name>.
//
//===----------------------------------------------------------------------===//

#ifndef MIRAGE_TILEEQSAT_KERNELTOTILE_H
#define MIRAGE_TILEEQSAT_KERNELTOTILE_H

#include "mirage/TileEqsat/TileIR.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <memory>

namespace mirage::tile {

struct KernelToTileOptions {
  /// Axes of at most this many elements are kept whole.
  int64_t fullThreshold = 128;
};

/// A loop variable of the program: its axis's size and how it is iterated.
struct AxisVar {
  enum class Mode : uint8_t { Full, Elem, Tile };
  std::string name;
  int64_t size = 0;
  Mode mode = Mode::Full;
};

struct TileProgram {
  std::unique_ptr<TileContext> context;
  Term term;
  /// Tensor names in argument and result order.
  llvm::SmallVector<std::string> inputs, outputs;
  mlir::Type elementType;
  /// The axes that are iterated (Elem and Tile), in order of first use.
  std::vector<AxisVar> vars;
};

/// Converts `function`; fails with a message naming the first op that has
/// no tile form (ops outside elementwise arithmetic, matmul, reduce_sum,
/// rms_norm, concat, split, transpose and axis-splitting reshapes).
llvm::Expected<TileProgram>
convertToTileProgram(mlir::func::FuncOp function,
                     const KernelToTileOptions &options = {});

} // namespace mirage::tile

#endif // MIRAGE_TILEEQSAT_KERNELTOTILE_H
