//===- KernelOps.cpp - kn dialect and ops ---------------------------------===//
//
// Part of the Mirage MLIR project.
//
//===----------------------------------------------------------------------===//

#include "mirage/Dialect/Kernel/IR/Kernel.h"
#include "mirage/IR/IsolatedRegion.h"
#include "mirage/IR/OperatorOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace mirage;
using namespace mirage::kn;

#include "mirage/Dialect/Kernel/IR/KernelOpsDialect.cpp.inc"

void KernelDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "mirage/Dialect/Kernel/IR/KernelOps.cpp.inc"
      >();
}

template <>
const OperatorOpTable &mirage::getOperatorOps<KernelDialect>() {
  static const OperatorOpTable table = OperatorOpTable::get<
#define GET_OP_LIST
#include "mirage/Dialect/Kernel/IR/KernelOps.cpp.inc"
      >();
  return table;
}

std::optional<std::string> mirage::kn::getConcatViewRefusal(ConcatOp concat) {
  int64_t rank = cast<ShapedType>(concat.getType()).getRank();
  if (static_cast<int64_t>(concat.getDim()) + 1 >= rank)
    return std::string("needs a concatenation along an outer dim: along the "
                       "innermost, a row would come from two operands");
  for (Operation *user : concat->getUsers())
    if (isa<ReshapeOp, ConcatOp>(user) ||
        !isa<SemanticsOpInterface, KernelOp>(user))
      return ("is read by '" + user->getName().getStringRef() +
              "', which cannot read a view; only kernels and predefined ops "
              "other than kn.reshape and kn.concat can")
          .str();
  return std::nullopt;
}

/// `kn.view` on `op`: a unit attribute on a concat that may be a view.
static LogicalResult verifyConcatView(Operation *op, NamedAttribute attr) {
  auto concat = dyn_cast<ConcatOp>(op);
  if (!concat || !isa<UnitAttr>(attr.getValue()))
    return op->emitError() << "'" << attr.getName().getValue()
                           << "' must be a unit attribute on a kn.concat";
  if (std::optional<std::string> refusal = getConcatViewRefusal(concat))
    return op->emitError() << "'" << attr.getName().getValue() << "' "
                           << *refusal;
  return success();
}

LogicalResult KernelDialect::verifyOperationAttribute(Operation *op,
                                                      NamedAttribute attr) {
  if (attr.getName() == getPartitionAttrName()) {
    auto parts = dyn_cast<DenseI64ArrayAttr>(attr.getValue());
    if (!parts || !isa<SemanticsOpInterface>(op) || isa<KernelOp>(op))
      return op->emitError() << "'" << getPartitionAttrName()
                             << "' must be an array<i64> on a predefined kn "
                                "op";
    if (llvm::any_of(parts.asArrayRef(), [](int64_t p) { return p < 1; }))
      return op->emitError() << "'" << getPartitionAttrName()
                             << "' must count at least one block per dim";
    return success();
  }
  if (attr.getName() == getDataDependentAttrName()) {
    if (!isa<UnitAttr>(attr.getValue()) || op->getDialect() != this)
      return op->emitError() << "'" << getDataDependentAttrName()
                             << "' must be a unit attribute on a kn op";
    return success();
  }
  if (attr.getName() == getViewAttrName())
    return verifyConcatView(op, attr);
  if (attr.getName() != getReferenceAttrName())
    return op->emitError() << "unknown kn dialect attribute '"
                           << attr.getName().getValue() << "'; expected '"
                           << getReferenceAttrName() << "', '"
                           << getPartitionAttrName() << "', '"
                           << getDataDependentAttrName() << "' or '"
                           << getViewAttrName() << "'";
  auto function = dyn_cast<FunctionOpInterface>(op);
  auto reference = dyn_cast<FlatSymbolRefAttr>(attr.getValue());
  if (!function || !reference)
    return op->emitError() << "'" << getReferenceAttrName()
                           << "' must be a symbol reference on a function";
  auto target = dyn_cast_or_null<FunctionOpInterface>(
      SymbolTable::lookupNearestSymbolFrom(op, reference));
  if (!target)
    return op->emitError() << "'" << getReferenceAttrName() << "' names "
                           << reference << ", which is not a function";
  if (target == function)
    return op->emitError() << "'" << getReferenceAttrName()
                           << "' names the function itself";
  if (target.getFunctionType() != function.getFunctionType())
    return op->emitError() << "has type " << function.getFunctionType()
                           << " but its reference " << reference << " has type "
                           << target.getFunctionType();
  return success();
}

//===----------------------------------------------------------------------===//
// KernelOp
//===----------------------------------------------------------------------===//

tb::GraphOp KernelOp::getBlockGraph() {
  Block &body = getBody().front();
  if (body.empty())
    return {};
  return dyn_cast<tb::GraphOp>(body.front());
}

LogicalResult KernelOp::verifyRegions() {
  Block &body = getBody().front();
  tb::GraphOp graph = getBlockGraph();
  if (!graph || !llvm::hasSingleElement(body))
    return emitOpError() << "body must hold exactly one 'tb.graph'";
  TypeRange graphInputs = graph.getBodyBlock().getArgumentTypes();
  if (graphInputs.size() != getInputs().size())
    return emitOpError() << "has " << getInputs().size()
                         << " operands but its block graph has "
                         << graphInputs.size() << " inputs";
  for (auto [index, types] :
       llvm::enumerate(llvm::zip(getInputs().getTypes(), graphInputs)))
    if (std::get<0>(types) != std::get<1>(types))
      return emitOpError() << "operand #" << index << " has type "
                           << std::get<0>(types)
                           << " but block graph input #" << index << " has type "
                           << std::get<1>(types);
  TypeRange graphOutputs = graph.getBodyBlock().back().getOperandTypes();
  if (graphOutputs.size() != getNumResults())
    return emitOpError() << "has " << getNumResults()
                         << " results but its block graph yields "
                         << graphOutputs.size() << " outputs";
  for (auto [index, types] :
       llvm::enumerate(llvm::zip(getResultTypes(), graphOutputs)))
    if (std::get<0>(types) != std::get<1>(types))
      return emitOpError() << "result #" << index << " has type "
                           << std::get<0>(types)
                           << " but block graph output #" << index
                           << " has type " << std::get<1>(types);
  return success();
}

LogicalResult ReshapeOp::verify() { return verifyResultShapes(*this); }

#define GET_OP_CLASSES
#include "mirage/Dialect/Kernel/IR/KernelOps.cpp.inc"
