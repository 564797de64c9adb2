//===- Kernel.h - The kn (kernel graph) dialect -----------------*- C++ -*-===//
//
// Part of the Mirage MLIR project.
//
//===----------------------------------------------------------------------===//

#ifndef MIRAGE_DIALECT_KERNEL_IR_KERNEL_H
#define MIRAGE_DIALECT_KERNEL_IR_KERNEL_H

#include "mirage/Dialect/Block/IR/Block.h"

#include <optional>
#include <string>

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

/// The concatenation view (a kn.concat marked kn.view) defining `value`, or
/// null: its readers resolve it; no kernel computes it.
inline ConcatOp getConcatView(mlir::Value value) {
  auto concat = value.getDefiningOp<ConcatOp>();
  return concat && concat->hasAttr(KernelDialect::getViewAttrName())
             ? concat
             : ConcatOp();
}
inline bool isConcatView(mlir::Operation *op) {
  return op && op->getNumResults() == 1 && getConcatView(op->getResult(0));
}

/// Why `concat` may not be a view, or none: it concatenates along an outer
/// dim (along the innermost a row would come from two operands), and only
/// kernels and predefined ops other than kn.reshape and kn.concat read it (a
/// reshape needs one buffer, another concatenation one buffer per operand,
/// the return a written one). The dialect verifier reports it;
/// kn-fuse makes views where there is none.
std::optional<std::string> getConcatViewRefusal(ConcatOp concat);
} // namespace kn
} // namespace mirage

#endif // MIRAGE_DIALECT_KERNEL_IR_KERNEL_H
