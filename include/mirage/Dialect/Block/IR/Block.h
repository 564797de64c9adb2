//===- Block.h - The tb (block graph) dialect -------------------*- C++ -*-===//
//
// Part of the Mirage MLIR project.
//
//===----------------------------------------------------------------------===//

#ifndef MIRAGE_DIALECT_BLOCK_IR_BLOCK_H
#define MIRAGE_DIALECT_BLOCK_IR_BLOCK_H

#include "mirage/Dialect/Block/IR/BlockGraphMemory.h"
#include "mirage/IR/GraphUtils.h"
#include "mirage/IR/OperatorOps.h"
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

namespace mirage {
template <>
const OperatorOpTable &getOperatorOps<tb::BlockDialect>();
} // namespace mirage

#endif // MIRAGE_DIALECT_BLOCK_IR_BLOCK_H
