//===- Passes.h - tg dialect passes -----------------------------*- C++ -*-===//
//
// Part of the Mirage MLIR project.
//
//===----------------------------------------------------------------------===//

#ifndef MIRAGE_DIALECT_TASK_TRANSFORMS_PASSES_H
#define MIRAGE_DIALECT_TASK_TRANSFORMS_PASSES_H

#include "mirage/Dialect/Task/IR/Task.h"
#include "mlir/Pass/Pass.h"

namespace mirage::tg {

#define GEN_PASS_DECL
#define GEN_PASS_REGISTRATION
#include "mirage/Dialect/Task/Transforms/Passes.h.inc"

} // namespace mirage::tg

#endif // MIRAGE_DIALECT_TASK_TRANSFORMS_PASSES_H
