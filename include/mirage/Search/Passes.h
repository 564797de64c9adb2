//===- Passes.h - Superoptimization passes ----------------------*- C++ -*-===//
//
// Part of the Mirage MLIR project.
//
//===----------------------------------------------------------------------===//

#ifndef MIRAGE_SEARCH_PASSES_H
#define MIRAGE_SEARCH_PASSES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mirage {

#define GEN_PASS_DECL
#define GEN_PASS_REGISTRATION
#include "mirage/Search/Passes.h.inc"

} // namespace mirage

#endif // MIRAGE_SEARCH_PASSES_H
