//===- ThreadDialect.cpp - th dialect and types ---------------------------===//
//
// Part of the Mirage MLIR project.
//
//===----------------------------------------------------------------------===//

#include "mirage/Dialect/Thread/IR/Thread.h"

#include "mirage/IR/GraphUtils.h"
#include "mirage/IR/OperatorOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mirage;
using namespace mirage::th;

#include "mirage/Dialect/Thread/IR/ThreadOpsDialect.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "mirage/Dialect/Thread/IR/ThreadOpsTypes.cpp.inc"

void ThreadDialect::initialize() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "mirage/Dialect/Thread/IR/ThreadOpsTypes.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "mirage/Dialect/Thread/IR/ThreadOps.cpp.inc"
      >();
}

template <>
const OperatorOpTable &mirage::getOperatorOps<ThreadDialect>() {
  static const OperatorOpTable table = OperatorOpTable::get<
#define GET_OP_LIST
#include "mirage/Dialect/Thread/IR/ThreadOps.cpp.inc"
      >();
  return table;
}

Type FragType::parse(AsmParser &parser) {
  return parseShapedType<FragType>(parser);
}

void FragType::print(AsmPrinter &printer) const {
  printShapedType(printer, *this);
}

LogicalResult FragType::verify(function_ref<InFlightDiagnostic()> emitError,
                               ArrayRef<int64_t> shape, Type elementType) {
  return verifyShapeAndElementType(emitError, "fragment", shape, elementType);
}

FragType FragType::cloneWith(std::optional<ArrayRef<int64_t>> shape,
                             Type elementType) const {
  return FragType::get(getContext(), shape ? *shape : getShape(), elementType);
}
