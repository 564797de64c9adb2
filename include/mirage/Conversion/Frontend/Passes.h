//===- Passes.h - linalg and tosa into kernel graphs ------------*- C++ -*-===//
//
// convert-linalg-to-kn and convert-tosa-to-kn (docs/Embedding.md).
//
//===----------------------------------------------------------------------===//

#ifndef MIRAGE_CONVERSION_FRONTEND_PASSES_H
#define MIRAGE_CONVERSION_FRONTEND_PASSES_H

#include "mirage/Dialect/Kernel/IR/Kernel.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mirage {

#define GEN_PASS_DECL
#define GEN_PASS_REGISTRATION
#include "mirage/Conversion/Frontend/Passes.h.inc"

} // namespace mirage

#endif // MIRAGE_CONVERSION_FRONTEND_PASSES_H
