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

#endif // MIRAGE_DIALECT_KERNEL_IR_KERNEL_H
