//===- Block.h - The tb (block graph) dialect -------------------*- C++ -*-===//
//
// Part of the Mirage MLIR project.
//
//===----------------------------------------------------------------------===//

#ifndef MIRAGE_DIALECT_BLOCK_IR_BLOCK_H
#define MIRAGE_DIALECT_BLOCK_IR_BLOCK_H

#include "mirage/IR/GraphUtils.h"
#include "mirage/IR/SemanticsOpInterface.h"
#include "mirage/Semantics/OpSemantics.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "mirage/Dialect/Block/IR/BlockOpsDialect.h.inc"

#define GET_TYPEDEF_CLASSES
#include "mirage/Dialect/Block/IR/BlockOpsTypes.h.inc"

#define GET_ATTRDEF_CLASSES
#include "mirage/Dialect/Block/IR/BlockAttributes.h.inc"

#define GET_OP_CLASSES
#include "mirage/Dialect/Block/IR/BlockOps.h.inc"

namespace mirage::tb {
/// The tb op of operator `kind`, built with `operands`, result `types` and
/// `attributes` (mirage/IR/OperatorOps.h); fails, emitting nothing, where
/// tb has no op of that kind.
llvm::FailureOr<mlir::Operation *>
createOperatorOp(mlir::OpBuilder &builder, mlir::Location loc, OpKind kind,
                 mlir::ValueRange operands, mlir::TypeRange types,
                 llvm::ArrayRef<mlir::NamedAttribute> attributes);
} // namespace mirage::tb

#endif // MIRAGE_DIALECT_BLOCK_IR_BLOCK_H
