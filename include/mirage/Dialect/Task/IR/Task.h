//===- Task.h - The tg (task graph) dialect ---------------------*- C++ -*-===//
//
// Part of the Mirage MLIR project.
//
//===----------------------------------------------------------------------===//

#ifndef MIRAGE_DIALECT_TASK_IR_TASK_H
#define MIRAGE_DIALECT_TASK_IR_TASK_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/RegionKindInterface.h"
#include "mlir/IR/SymbolTable.h"

#include "mirage/Dialect/Block/IR/Block.h"

#include "mirage/Dialect/Task/IR/TaskOpsDialect.h.inc"
#include "mirage/Dialect/Task/IR/TaskOpsEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "mirage/Dialect/Task/IR/TaskOpsAttributes.h.inc"

#define GET_TYPEDEF_CLASSES
#include "mirage/Dialect/Task/IR/TaskOpsTypes.h.inc"

#define GET_OP_CLASSES
#include "mirage/Dialect/Task/IR/TaskOps.h.inc"

#endif // MIRAGE_DIALECT_TASK_IR_TASK_H
