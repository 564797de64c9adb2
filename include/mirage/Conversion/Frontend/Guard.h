//===- Guard.h - Refusing input that is not yet a kernel graph --*- C++ -*-===//
//
// The Mirage passes read kernel graphs (kn). A function still written in
// linalg, tensor or tosa must be converted first; these helpers let a pass
// say so instead of passing it through unchanged. Header-only: it names
// dialects by namespace and links nothing.
//
//===----------------------------------------------------------------------===//

#ifndef MIRAGE_CONVERSION_FRONTEND_GUARD_H
#define MIRAGE_CONVERSION_FRONTEND_GUARD_H

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/StringRef.h"

namespace mirage {

/// The conversion that turns ops of dialect `dialect` into kn, or "" for
/// dialects no Mirage conversion reads.
inline llvm::StringRef getFrontendConversion(llvm::StringRef dialect) {
  if (dialect == "linalg" || dialect == "tensor")
    return "convert-linalg-to-kn";
  if (dialect == "tosa")
    return "convert-tosa-to-kn";
  return "";
}

/// The first op under `root` (in program order) of a dialect that a Mirage
/// conversion reads but no other Mirage pass does, or null. A linalg or tosa
/// op is named before the tensor ops (tensor.empty) around it.
inline mlir::Operation *findFrontendOp(mlir::Operation *root) {
  mlir::Operation *found = nullptr, *tensorOp = nullptr;
  root->walk<mlir::WalkOrder::PreOrder>([&](mlir::Operation *op) {
    llvm::StringRef dialect = op->getName().getDialectNamespace();
    if (getFrontendConversion(dialect).empty())
      return mlir::WalkResult::advance();
    if (dialect != "tensor") {
      found = op;
      return mlir::WalkResult::interrupt();
    }
    if (!tensorOp)
      tensorOp = op;
    return mlir::WalkResult::skip();
  });
  return found ? found : tensorOp;
}

/// Fails, with an error naming the first such op and the conversion to run
/// first, when `root` holds an op findFrontendOp finds.
inline mlir::LogicalResult checkNoFrontendOps(mlir::Operation *root,
                                              llvm::StringRef pass) {
  mlir::Operation *op = findFrontendOp(root);
  if (!op)
    return mlir::success();
  llvm::StringRef conversion =
      getFrontendConversion(op->getName().getDialectNamespace());
  op->emitError() << pass << " reads kernel graphs (kn) only: convert this "
                  << op->getName().getDialectNamespace() << " op first ("
                  << conversion << ", or the mirage-"
                  << (conversion == "convert-tosa-to-kn" ? "tosa" : "linalg")
                  << "-to-ptx pipeline)";
  return mlir::failure();
}

} // namespace mirage

#endif // MIRAGE_CONVERSION_FRONTEND_GUARD_H
