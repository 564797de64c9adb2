//===- Kernel.h - The kn (kernel graph) dialect -----------------*- C++ -*-===//
//
// Part of the Mirage MLIR project.
//
//===----------------------------------------------------------------------===//

#ifndef MIRAGE_DIALECT_KERNEL_IR_KERNEL_H
#define MIRAGE_DIALECT_KERNEL_IR_KERNEL_H

#include "mirage/Dialect/Block/IR/Block.h"

#include "mirage/Dialect/Kernel/IR/KernelOpsDialect.h.inc"

#define GET_OP_CLASSES
#include "mirage/Dialect/Kernel/IR/KernelOps.h.inc"

namespace mirage::kn {
/// The kn op of operator `kind`, built with `operands`, result `types` and
/// `attributes` (mirage/IR/OperatorOps.h); fails, emitting nothing, where
/// kn has no op of that kind.
llvm::FailureOr<mlir::Operation *>
createOperatorOp(mlir::OpBuilder &builder, mlir::Location loc, OpKind kind,
                 mlir::ValueRange operands, mlir::TypeRange types,
                 llvm::ArrayRef<mlir::NamedAttribute> attributes);
} // namespace mirage::kn

#endif // MIRAGE_DIALECT_KERNEL_IR_KERNEL_H
