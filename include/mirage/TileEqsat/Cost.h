//===- Cost.h - What a tile program costs on a GPU --------------*- C++ -*-===//
//
// Part of the Mirage MLIR project.
//
// The ranking model of tile-program candidates, built on the project's
// device model and operator arithmetic (include/mirage/CostModel). A program
// is a sequence of kernels, one per top-level statement (Trinity 6.1). A
// kernel's outermost loops whose iterations are independent (no iteration
// touches what another writes) become its grid, up to three; the rest runs
// in every block, sequential loops multiplying what their bodies do.
//
// Memory placement follows Trinity 6.2: a load reads device memory when the
// tensor is an input or output, or when no store of it in the same kernel
// is at the same or an enclosing or enclosed loop level (a value stored in
// one loop and read in a sibling loop is spilled); a store writes device
// memory when the tensor is an output or is read in such a place.
//
// A kernel takes launch + max(device bytes over DRAM bandwidth, arithmetic
// over the chip's rates, waves of blocks times one block's time), where one
// block's time is its arithmetic at one SM's share of the rates, its bytes
// at its share of the bandwidth and a fixed cost per loop iteration.
//
//===----------------------------------------------------------------------===//

#ifndef MIRAGE_TILEEQSAT_COST_H
#define MIRAGE_TILEEQSAT_COST_H

#include "mirage/CostModel/CostModel.h"
#include "mirage/TileEqsat/Evaluator.h"

namespace mirage::tile {

struct CostOptions {
  DeviceModel device;
  unsigned elementBytes = 2;
  /// Symbolic tile sizes (default 64, clamped to a divisor of the range).
  TileSizes sizes = [] {
    TileSizes s;
    s.defaultSize = 64;
    return s;
  }();
};

struct KernelEstimate {
  /// The statement's index in the program's term.
  unsigned root = 0;
  /// The grid: loop variables and trip counts.
  llvm::SmallVector<std::pair<std::string, int64_t>, 3> grid;
  int64_t blocks = 1;
  /// Sequential loops inside a block (name and trips, in order).
  llvm::SmallVector<std::pair<std::string, int64_t>, 4> loops;
  /// Per block.
  Flops flops;
  double deviceBytes = 0;
  int64_t iterations = 0;
  /// Variables stored to device memory and read back in the same kernel.
  llvm::SmallVector<std::string, 2> spills;
  unsigned statements = 0;
  double us = 0;
};

struct ProgramEstimate {
  double us = 0;
  std::vector<KernelEstimate> kernels;
  /// A one-line summary: per kernel its grid, sequential loops and spills.
  std::string describe() const;
};

ProgramEstimate estimateProgram(const TileContext &context, const Term &term,
                                const CostOptions &options = {});

} // namespace mirage::tile

#endif // MIRAGE_TILEEQSAT_COST_H
