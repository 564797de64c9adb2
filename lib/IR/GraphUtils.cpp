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
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

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

    // Type constraints keep graph inputs away from all but iterators and the
    // terminator; output-saver results reach only the terminator (checked
    // when the saver is visited, before any user).
    SmallVector<Phase> operandPhases;
    for (Value operand : op.getOperands())
      operandPhases.push_back(phases.lookup(operand));

    Phase resultPhase = Phase::LoopBody;
    if (op.hasTrait<OpTrait::IsInputIterator>()) {
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

llvm::DenseSet<Operation *> mirage::getPostLoopOps(Block &body) {
  llvm::DenseSet<Operation *> postLoop;
  for (Operation &op : body) {
    if (op.hasTrait<mlir::OpTrait::IsTerminator>())
      continue;
    bool after = op.hasTrait<OpTrait::IsOutputSaver>();
    for (Value operand : op.getOperands())
      if (Operation *def = operand.getDefiningOp())
        after |= def->hasTrait<OpTrait::IsAccumulator>() ||
                 postLoop.contains(def);
    if (after)
      postLoop.insert(&op);
  }
  return postLoop;
}

PeakMemory mirage::computePeakMemory(
    Block &body, llvm::function_ref<std::optional<int64_t>(Value)> bytesOf) {
  // Execution order: loop-body ops, then post-loop ops, each in program order.
  llvm::DenseSet<Operation *> postLoop = getPostLoopOps(body);
  SmallVector<Operation *> order;
  for (Operation &op : body)
    if (!op.hasTrait<mlir::OpTrait::IsTerminator>() && !postLoop.contains(&op))
      order.push_back(&op);
  for (Operation &op : body)
    if (postLoop.contains(&op))
      order.push_back(&op);
  llvm::DenseMap<Operation *, int64_t> position;
  for (auto [index, op] : llvm::enumerate(order))
    position[op] = index;
  int64_t end = order.size();

  struct Interval {
    int64_t first, last, bytes;
    Operation *op;
  };
  SmallVector<Interval> intervals;
  for (Operation *op : order) {
    for (Value result : op->getResults()) {
      std::optional<int64_t> bytes = bytesOf(result);
      if (!bytes)
        continue;
      int64_t first = op->hasTrait<OpTrait::IsAccumulator>() ? 0 : position[op];
      int64_t last = position[op];
      for (Operation *user : result.getUsers()) {
        auto it = position.find(user);
        last = std::max(last, it == position.end() ? end : it->second);
      }
      intervals.push_back({first, last, *bytes, op});
    }
  }

  PeakMemory peak;
  int64_t peakPoint = -1;
  for (int64_t point = 0; point < end; ++point) {
    int64_t live = 0;
    for (const Interval &interval : intervals)
      if (interval.first <= point && point <= interval.last)
        live += interval.bytes;
    if (live > peak.bytes) {
      peak.bytes = live;
      peakPoint = point;
    }
  }
  // Largest first; ties keep execution order.
  SmallVector<size_t> atPeak;
  for (auto [index, interval] : llvm::enumerate(intervals))
    if (interval.first <= peakPoint && peakPoint <= interval.last)
      atPeak.push_back(index);
  llvm::sort(atPeak, [&](size_t a, size_t b) {
    return intervals[a].bytes != intervals[b].bytes
               ? intervals[a].bytes > intervals[b].bytes
               : a < b;
  });
  for (size_t index : atPeak)
    peak.liveAtPeak.push_back(intervals[index].op);
  return peak;
}

std::string mirage::formatLocation(Location loc) {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (auto file = dyn_cast<FileLineColLoc>(loc))
    os << file.getFilename().getValue() << ':' << file.getLine() << ':'
       << file.getColumn();
  else
    os << loc;
  return text;
}

std::string mirage::describeOp(Operation *op) {
  return "'" + op->getName().getStringRef().str() + "' at " +
         formatLocation(op->getLoc());
}

bool mirage::isSupportedElementType(Type type) {
  return type.isF16() || type.isBF16() || type.isF32();
}

int64_t mirage::getByteSize(ShapedType type) {
  // Saturates, so that memory limits reject shapes whose size overflows.
  std::optional<int64_t> count = getCheckedNumElements(type.getShape());
  int64_t bytes;
  if (!count || llvm::MulOverflow(*count,
                                  static_cast<int64_t>(
                                      type.getElementTypeBitWidth() / 8),
                                  bytes))
    return std::numeric_limits<int64_t>::max();
  return bytes;
}

void mirage::printShapedType(AsmPrinter &printer, ShapedType type) {
  printer << '<';
  for (int64_t size : type.getShape())
    printer << size << 'x';
  printer << type.getElementType() << '>';
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
