//===- SemanticsOpInterface.h - Binding ops to operator records -*- C++ -*-===//
//
// Part of the Mirage MLIR project.
//
//===----------------------------------------------------------------------===//

#ifndef MIRAGE_IR_SEMANTICSOPINTERFACE_H
#define MIRAGE_IR_SEMANTICSOPINTERFACE_H

#include "mirage/Semantics/OpSemantics.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/TypeRange.h"

#include <optional>

namespace mirage {
namespace OpTrait {

/// Reads a graph input (device tensor, or shared-memory tile at thread level)
/// into the loop body.
template <typename ConcreteType>
class IsInputIterator
    : public mlir::OpTrait::TraitBase<ConcreteType, IsInputIterator> {};

/// Combines per-iteration values across the for-loop; its result is available
/// after the loop.
template <typename ConcreteType>
class IsAccumulator
    : public mlir::OpTrait::TraitBase<ConcreteType, IsAccumulator> {};

/// Writes a graph output.
template <typename ConcreteType>
class IsOutputSaver
    : public mlir::OpTrait::TraitBase<ConcreteType, IsOutputSaver> {};

} // namespace OpTrait

/// Result types of an op of kind `kind` from the operator's shape rule: each
/// result is the type of operand #0 with the inferred shape. All operands must
/// share operand #0's element type. On failure, emits at `loc` (when given) an
/// error that names `opName` and the problem.
llvm::LogicalResult inferResultTypes(llvm::StringRef opName, OpKind kind,
                                     const OpParams &params,
                                     mlir::TypeRange operandTypes,
                                     std::optional<mlir::Location> loc,
                                     llvm::SmallVectorImpl<mlir::Type> &results);

/// The attributes that give an op of operator `kind` the parameters
/// `params`: the inverse of the ops' getOpParams, for building ops from
/// operator records (a reshape's parameters live in its result type).
llvm::SmallVector<mlir::NamedAttribute>
getOpAttributes(OpKind kind, const OpParams &params, mlir::Builder &builder);

/// Verifies, for an op whose result types are written rather than inferred,
/// that they match its shape rule and its operand element type.
llvm::LogicalResult verifyResultShapes(mlir::Operation *op);

} // namespace mirage

#include "mirage/IR/SemanticsOpInterface.h.inc"

#endif // MIRAGE_IR_SEMANTICSOPINTERFACE_H
