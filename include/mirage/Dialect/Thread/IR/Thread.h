//===- Thread.h - The th (thread graph) dialect -----------------*- C++ -*-===//
//
// Part of the Mirage MLIR project.
//
//===----------------------------------------------------------------------===//

#ifndef MIRAGE_DIALECT_THREAD_IR_THREAD_H
#define MIRAGE_DIALECT_THREAD_IR_THREAD_H

#include "mirage/Dialect/Block/IR/Block.h"

#include "mirage/Dialect/Thread/IR/ThreadOpsDialect.h.inc"

#define GET_TYPEDEF_CLASSES
#include "mirage/Dialect/Thread/IR/ThreadOpsTypes.h.inc"

#define GET_OP_CLASSES
#include "mirage/Dialect/Thread/IR/ThreadOps.h.inc"

namespace mirage::th {
/// The th op of operator `kind`, built with `operands`, result `types` and
/// `attributes` (mirage/IR/OperatorOps.h); fails, emitting nothing, where
/// th has no op of that kind.
llvm::FailureOr<mlir::Operation *>
createOperatorOp(mlir::OpBuilder &builder, mlir::Location loc, OpKind kind,
                 mlir::ValueRange operands, mlir::TypeRange types,
                 llvm::ArrayRef<mlir::NamedAttribute> attributes);
} // namespace mirage::th

#endif // MIRAGE_DIALECT_THREAD_IR_THREAD_H
