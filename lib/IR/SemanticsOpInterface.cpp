//===- SemanticsOpInterface.cpp - Binding ops to operator records ---------===//
//
// Part of the Mirage MLIR project.
//
//===----------------------------------------------------------------------===//

#include "mirage/IR/SemanticsOpInterface.h"

#include "mlir/IR/BuiltinTypeInterfaces.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mirage;

#include "mirage/IR/SemanticsOpInterface.cpp.inc"

/// Collects the static shapes of `types`, checking that they share the element
/// type of the first. Returns an error message on failure.
static std::optional<std::string>
collectShapes(TypeRange types, SmallVectorImpl<ArrayRef<int64_t>> &shapes) {
  ShapedType first;
  for (auto [index, type] : llvm::enumerate(types)) {
    auto shaped = dyn_cast<ShapedType>(type);
    std::string message;
    llvm::raw_string_ostream os(message);
    if (!shaped || !shaped.hasStaticShape()) {
      os << "operand #" << index << " of type '" << type
         << "' is not a statically shaped tensor, tile or fragment";
      return message;
    }
    if (!first) {
      first = shaped;
    } else if (shaped.getElementType() != first.getElementType()) {
      os << "operand #" << index << " has element type '"
         << shaped.getElementType() << "' but operand #0 has '"
         << first.getElementType() << "'";
      return message;
    }
    shapes.push_back(shaped.getShape());
  }
  return std::nullopt;
}

LogicalResult mirage::inferResultTypes(StringRef opName, OpKind kind,
                                       const OpParams &params,
                                       TypeRange operandTypes,
                                       std::optional<Location> loc,
                                       SmallVectorImpl<Type> &results) {
  auto fail = [&](const std::string &message) {
    return emitOptionalError(loc, "'", opName, "' op ", message);
  };
  if (operandTypes.empty())
    return fail("needs at least one operand");
  SmallVector<ArrayRef<int64_t>> shapes;
  if (auto message = collectShapes(operandTypes, shapes))
    return fail(*message);
  auto inferred = inferShapes(kind, shapes, params);
  if (!inferred)
    return fail(llvm::toString(inferred.takeError()));
  auto first = cast<ShapedType>(operandTypes.front());
  for (const Shape &shape : *inferred)
    results.push_back(first.cloneWith(ArrayRef<int64_t>(shape),
                                      first.getElementType()));
  return success();
}

LogicalResult mirage::verifyResultShapes(Operation *op) {
  auto semantics = cast<SemanticsOpInterface>(op);
  SmallVector<ArrayRef<int64_t>> shapes;
  if (auto message = collectShapes(op->getOperandTypes(), shapes))
    return op->emitOpError() << *message;
  auto inferred =
      inferShapes(semantics.getOpKind(), shapes, semantics.getOpParams());
  if (!inferred)
    return op->emitOpError() << llvm::toString(inferred.takeError());
  if (inferred->size() != op->getNumResults())
    return op->emitOpError() << "has " << op->getNumResults()
                             << " results but its shape rule gives "
                             << inferred->size();
  Type elementType = cast<ShapedType>(op->getOperand(0).getType())
                         .getElementType();
  for (auto [index, result] : llvm::enumerate(op->getResults())) {
    auto type = cast<ShapedType>(result.getType());
    if (type.getShape() != ArrayRef<int64_t>((*inferred)[index]))
      return op->emitOpError()
             << "result #" << index << " has shape "
             << formatShape(type.getShape()) << " but should have shape "
             << formatShape((*inferred)[index]);
    if (type.getElementType() != elementType)
      return op->emitOpError()
             << "result #" << index << " has element type "
             << type.getElementType() << " but the operand has " << elementType;
  }
  return success();
}

SmallVector<NamedAttribute> mirage::getOpAttributes(OpKind kind,
                                                    const OpParams &params,
                                                    Builder &builder) {
  SmallVector<NamedAttribute> attributes;
  auto add = [&](StringRef name, Attribute value) {
    attributes.push_back(builder.getNamedAttr(name, value));
  };
  switch (getOpInfo(kind).params) {
  case ParamForm::Scalar:
    add("scalar", builder.getF64FloatAttr(params.scalar));
    break;
  case ParamForm::ReduceDim:
    add("dim", builder.getI64IntegerAttr(params.dim));
    if (!params.keepDim)
      add("keepdim", builder.getBoolAttr(false));
    break;
  case ParamForm::Epsilon:
    if (params.scalar != 0.0)
      add("eps", builder.getF64FloatAttr(params.scalar));
    break;
  case ParamForm::Dim:
    add("dim", builder.getI64IntegerAttr(params.dim));
    break;
  case ParamForm::DimSizes:
    add("dim", builder.getI64IntegerAttr(params.dim));
    add("sizes", builder.getDenseI64ArrayAttr(params.ints));
    break;
  case ParamForm::Permutation:
    add("permutation", builder.getDenseI64ArrayAttr(params.ints));
    break;
  // The result type gives the shape; the graph's ops give the tiling.
  case ParamForm::ResultShape:
  case ParamForm::Tiling:
  case ParamForm::None:
    break;
  }
  return attributes;
}
