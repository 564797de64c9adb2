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

namespace mirage {
template <>
const OperatorOpTable &getOperatorOps<th::ThreadDialect>();
} // namespace mirage

#endif // MIRAGE_DIALECT_THREAD_IR_THREAD_H
