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

namespace mirage {
template <>
const OperatorOpTable &getOperatorOps<kn::KernelDialect>();

namespace kn {
/// The tensor whose storage `value` shares: through kn.reshape views to the
/// first value that is not one.
inline mlir::Value getReshapeRoot(mlir::Value value) {
  while (auto reshape = value.getDefiningOp<ReshapeOp>())
    value = reshape.getInput();
  return value;
}
} // namespace kn
} // namespace mirage

#endif // MIRAGE_DIALECT_KERNEL_IR_KERNEL_H
