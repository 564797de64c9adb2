//===- Passes.h - kn dialect passes -----------------------------*- C++ -*-===//
//
// Part of the Mirage MLIR project.
//
//===----------------------------------------------------------------------===//

#ifndef MIRAGE_DIALECT_KERNEL_TRANSFORMS_PASSES_H
#define MIRAGE_DIALECT_KERNEL_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mirage::kn {

#define GEN_PASS_DECL
#define GEN_PASS_REGISTRATION
#include "mirage/Dialect/Kernel/Transforms/Passes.h.inc"

} // namespace mirage::kn

#endif // MIRAGE_DIALECT_KERNEL_TRANSFORMS_PASSES_H
