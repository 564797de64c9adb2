//===- OperatorOps.cpp - Building a dialect's op by operator kind ---------===//
//
// Part of the Mirage MLIR project.
//
//===----------------------------------------------------------------------===//

#include "mirage/IR/OperatorOps.h"

using namespace mlir;

FailureOr<Operation *> mirage::OperatorOpTable::create(
    OpBuilder &builder, Location loc, OpKind kind,
    ValueRange operands, TypeRange types,
    ArrayRef<NamedAttribute> attributes) const {
  const std::optional<TypeID> &typeID = ops[static_cast<unsigned>(kind)];
  std::optional<RegisteredOperationName> name;
  if (typeID)
    name = RegisteredOperationName::lookup(*typeID, builder.getContext());
  if (!name)
    return failure();
  OperationState state(loc, *name);
  state.addOperands(operands);
  state.addTypes(types);
  state.addAttributes(attributes);
  return builder.create(state);
}
