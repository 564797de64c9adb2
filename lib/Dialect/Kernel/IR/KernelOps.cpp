//===- KernelOps.cpp - kn dialect and ops ---------------------------------===//
//
// Part of the Mirage MLIR project.
//
//===----------------------------------------------------------------------===//

#include "mirage/Dialect/Kernel/IR/Kernel.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

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
