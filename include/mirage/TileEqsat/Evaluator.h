//===- Evaluator.h - Reference semantics of tile programs -------*- C++ -*-===//
//
// Part of the Mirage MLIR project.
//
// Runs a tile-IR program on concrete float64 tensors: loops iterate, loads
// and stores slice the tensors, and every value operator is evaluated by its
// operator record (mirage::evaluate), so a tile program and the kernel graph
// it was converted from share one definition of every operator. Symbolic tile
// sizes take the values given in TileSizes.
//
// Used to test every rewrite rule for soundness (both sides on random
// inputs) and to check conversions and extracted candidates.
//
//===----------------------------------------------------------------------===//

#ifndef MIRAGE_TILEEQSAT_EVALUATOR_H
#define MIRAGE_TILEEQSAT_EVALUATOR_H

#include "mirage/Semantics/Tensor.h"
#include "mirage/TileEqsat/TileIR.h"

#include "llvm/ADT/StringMap.h"

namespace mirage::tile {

/// Values of symbolic tile sizes by symbol name; `defaultSize` for the rest
/// (clamped to the loop's extent, and to a divisor of it).
struct TileSizes {
  llvm::StringMap<int64_t> sizes;
  int64_t defaultSize = 4;
};

/// The step of a loop over `extent` elements with symbolic tile size
/// `symbol`: the largest divisor of the extent up to its value in `sizes`,
/// or up to the default where it has none.
int64_t chooseTileSize(const TileSizes &sizes, llvm::StringRef symbol,
                       int64_t extent);

/// Tensors by name.
using TensorStore = std::map<std::string, F64Tensor>;

/// Runs `term` (a statement) on `tensors`, which must hold every input;
/// outputs and variables that are missing start at zero. Fails on an index
/// out of bounds, a shape an operator does not take, or an unknown tensor.
llvm::Error evaluateProgram(const TileContext &context, const Term &term,
                            TensorStore &tensors, const TileSizes &sizes = {});

/// Random inputs (uniform in [-1, 1), from `seed`) for every input tensor
/// of `context`.
TensorStore randomInputs(const TileContext &context, uint64_t seed);

/// The largest elementwise difference between the outputs (and, with
/// `variables`, the variables) of two stores, relative to max(1, |value|);
/// +inf when a tensor is missing or shapes differ.
double compareOutputs(const TileContext &context, const TensorStore &a,
                      const TensorStore &b, bool variables = false);

} // namespace mirage::tile

#endif // MIRAGE_TILEEQSAT_EVALUATOR_H
