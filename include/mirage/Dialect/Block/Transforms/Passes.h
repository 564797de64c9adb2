//===- Passes.h - tb dialect passes -----------------------------*- C++ -*-===//
//
// Part of the Mirage MLIR project.
//
//===----------------------------------------------------------------------===//

#ifndef MIRAGE_DIALECT_BLOCK_TRANSFORMS_PASSES_H
#define MIRAGE_DIALECT_BLOCK_TRANSFORMS_PASSES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mirage::tb {

#define GEN_PASS_DECL
#define GEN_PASS_REGISTRATION
#include "mirage/Dialect/Block/Transforms/Passes.h.inc"

} // namespace mirage::tb

#endif // MIRAGE_DIALECT_BLOCK_TRANSFORMS_PASSES_H
