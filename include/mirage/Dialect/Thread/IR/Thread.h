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

namespace mirage::th {
/// The tiling an iterator, saver or accumulator nested in a `th.graph` sees:
/// the thread layout as grid and the thread loop range, with the given maps.
TilingParams getTilingOf(mlir::Operation *op, llvm::ArrayRef<int64_t> gridMap,
                         int64_t loopMap);
} // namespace mirage::th

#define GET_OP_CLASSES
#include "mirage/Dialect/Thread/IR/ThreadOps.h.inc"

#endif // MIRAGE_DIALECT_THREAD_IR_THREAD_H
