//===- Passes.h - Tile-level equality saturation ----------------*- C++ -*-===//
//
// Part of the Mirage MLIR project.
//
//===----------------------------------------------------------------------===//

#ifndef MIRAGE_TILEEQSAT_PASSES_H
#define MIRAGE_TILEEQSAT_PASSES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mirage {

#define GEN_PASS_DECL
#define GEN_PASS_REGISTRATION
#include "mirage/TileEqsat/Passes.h.inc"

} // namespace mirage

#endif // MIRAGE_TILEEQSAT_PASSES_H
