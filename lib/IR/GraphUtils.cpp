//===- GraphUtils.cpp - Checks shared by block and thread graphs ----------===//
//
// Part of the Mirage MLIR project.
//
//===----------------------------------------------------------------------===//

#include "mirage/IR/GraphUtils.h"

#include "mirage/IR/SemanticsOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/DenseMap.h"

using namespace mlir;
using namespace mirage;

namespace {
/// Where a value of a graph body lives relative to the for-loop.
enum class Phase { GraphInput, LoopBody, AfterLoop, GraphOutput };

const char *describe(Phase phase) {
  switch (phase) {
  case Phase::GraphInput:
    return "graph-input";
  case Phase::LoopBody:
    return "loop-body";
  case Phase::AfterLoop:
    return "post-loop";
  case Phase::GraphOutput:
    return "graph-output";
  }
  llvm_unreachable("unknown phase");
}
} // namespace

LogicalResult mirage::verifyLoopStructure(Block &body, bool looped) {
  llvm::DenseMap<Value, Phase> phases;
  for (BlockArgument arg : body.getArguments())
    phases[arg] = Phase::GraphInput;

  for (Operation &op : body) {
    if (op.hasTrait<mlir::OpTrait::IsTerminator>()) {
      for (auto [index, value] : llvm::enumerate(op.getOperands())) {
        auto it = phases.find(value);
        if (it == phases.end() || it->second != Phase::GraphOutput)
          return op.emitOpError()
                 << "operand #" << index
                 << " is not the result of an output saver; graph outputs "
                    "are written by output savers";
      }
      continue;
    }

    SmallVector<Phase> operandPhases;
    for (auto [index, value] : llvm::enumerate(op.getOperands())) {
      auto it = phases.find(value);
      if (it == phases.end())
        return op.emitOpError() << "operand #" << index
                                << " is not defined in this graph";
      if (it->second == Phase::GraphOutput)
        return op.emitOpError()
               << "operand #" << index
               << " is the result of an output saver, which may only be "
                  "yielded";
      if (it->second == Phase::GraphInput &&
          !op.hasTrait<OpTrait::IsInputIterator>())
        return op.emitOpError()
               << "operand #" << index
               << " is a graph input; inputs must be read through an input "
                  "iterator";
      operandPhases.push_back(it->second);
    }

    Phase resultPhase = Phase::LoopBody;
    if (op.hasTrait<OpTrait::IsInputIterator>()) {
      if (operandPhases.empty() || operandPhases[0] != Phase::GraphInput)
        return op.emitOpError()
               << "must read a graph input (an entry block argument)";
      resultPhase = Phase::LoopBody;
    } else if (op.hasTrait<OpTrait::IsAccumulator>()) {
      for (auto [index, phase] : llvm::enumerate(operandPhases))
        if (phase == Phase::AfterLoop)
          return op.emitOpError()
                 << "accumulates operand #" << index
                 << ", which has already passed an accumulator; every "
                    "input-to-output path must pass exactly one accumulator";
      resultPhase = Phase::AfterLoop;
    } else if (op.hasTrait<OpTrait::IsOutputSaver>()) {
      if (looped && operandPhases[0] == Phase::LoopBody)
        return op.emitOpError()
               << "saves a loop-body value that has not passed an "
                  "accumulator; in a graph with a for-loop every "
                  "input-to-output path must pass exactly one accumulator";
      for (Operation *user : op.getResult(0).getUsers())
        if (!user->hasTrait<mlir::OpTrait::IsTerminator>())
          return op.emitOpError()
                 << "result is used by '" << user->getName()
                 << "'; an output saver's result may only be yielded";
      resultPhase = Phase::GraphOutput;
    } else if (!operandPhases.empty()) {
      resultPhase = operandPhases[0];
      for (auto [index, phase] : llvm::enumerate(operandPhases))
        if (phase != resultPhase)
          return op.emitOpError()
                 << "mixes " << describe(resultPhase) << " operand #0 with "
                 << describe(phase) << " operand #" << index
                 << "; an op runs either in the loop body or after the loop";
    }
    for (Value result : op.getResults())
      phases[result] = resultPhase;
  }
  return success();
}

bool mirage::isSupportedElementType(Type type) {
  return type.isF16() || type.isBF16() || type.isF32();
}

int64_t mirage::getByteSize(ShapedType type) {
  return type.getNumElements() *
         static_cast<int64_t>(type.getElementTypeBitWidth() / 8);
}

ParseResult mirage::parseShapeAndElementType(AsmParser &parser,
                                             SmallVectorImpl<int64_t> &shape,
                                             Type &elementType) {
  if (parser.parseDimensionList(shape, /*allowDynamic=*/false,
                                /*withTrailingX=*/true) ||
      parser.parseType(elementType))
    return failure();
  return success();
}

void mirage::printShapeAndElementType(AsmPrinter &printer,
                                      ArrayRef<int64_t> shape,
                                      Type elementType) {
  for (int64_t size : shape)
    printer << size << 'x';
  printer << elementType;
}

LogicalResult mirage::verifyShapeAndElementType(
    llvm::function_ref<InFlightDiagnostic()> emitError, StringRef typeName,
    ArrayRef<int64_t> shape, Type elementType) {
  for (int64_t size : shape)
    if (size <= 0)
      return emitError() << typeName << " sizes must be positive, got "
                         << formatShape(shape);
  if (!isSupportedElementType(elementType))
    return emitError() << typeName << " element type must be f16, bf16 or f32, got "
                       << elementType;
  return success();
}
