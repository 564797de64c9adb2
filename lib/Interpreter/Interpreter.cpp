//===- Interpreter.cpp - Reference interpreter for kn, tb and th ----------===//
//
// Programs (functions) and the stability monitor; the plans and their
// executor are in Plan.h.
//
//===----------------------------------------------------------------------===//

#include "Plan.h"

#include "mirage/Dialect/Kernel/IR/Kernel.h"
#include "mirage/Dialect/Thread/IR/Thread.h"
#include "mirage/IR/GraphUtils.h"
#include "mirage/Semantics/Parallel.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

#include <atomic>
#include <cmath>
#include <limits>

using namespace mlir;
using namespace mirage;

using namespace mirage::detail;

//===----------------------------------------------------------------------===//
// StabilityMonitor
//===----------------------------------------------------------------------===//

void StabilityMonitor::observe(Operation *op, const F64Tensor &value,
                               double limit) {
  double worst = 0.0;
  for (double v : value.data) {
    if (!std::isfinite(v)) {
      worst = v;
      break;
    }
    worst = std::max(worst, std::fabs(v));
  }
  if (std::isfinite(worst) && worst <= limit)
    return;
  std::lock_guard<std::mutex> lock(mutex);
  if (!firstViolation) {
    firstViolation = {op, worst};
    violatedLimit = limit;
  }
}

std::string StabilityMonitor::describe() const {
  std::lock_guard<std::mutex> lock(mutex);
  if (!firstViolation)
    return "all values within range";
  auto [op, value] = *firstViolation;
  std::string where = describeOp(op);
  if (!std::isfinite(value))
    return llvm::formatv("{0} produces {1}", where, value).str();
  return llvm::formatv("{0} produces {1:e}, beyond the largest value {2:e} of "
                       "its element type",
                       where, value, violatedLimit)
      .str();
}

//===----------------------------------------------------------------------===//
// Program
//===----------------------------------------------------------------------===//

Program::Program() = default;
Program::Program(Program &&) = default;
Program &Program::operator=(Program &&) = default;
Program::~Program() = default;

namespace {
std::string describeValue(Value value) {
  if (auto arg = dyn_cast<BlockArgument>(value))
    return llvm::formatv("argument #{0}", arg.getArgNumber()).str();
  return "the result of " + describeOp(value.getDefiningOp());
}

/// Refuses programs whose tensors the interpreter cannot hold, before any
/// allocation: sizes in overflow-safe arithmetic, against `maxElements`.
llvm::Error checkSize(func::FuncOp function, int64_t maxElements) {
  SmallVector<Value> values(function.getArguments());
  for (Operation &op : function.getBody().front())
    llvm::append_range(values, op.getResults());
  int64_t total = 0, largest = 0;
  Value largestValue;
  for (Value value : values) {
    auto shaped = dyn_cast<ShapedType>(value.getType());
    if (!shaped)
      continue;
    std::optional<int64_t> count = getCheckedNumElements(shaped.getShape());
    if (!count || llvm::AddOverflow(total, *count, total))
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          llvm::formatv("{0} has type {1}, whose element count {2}; the "
                        "interpreter cannot evaluate it",
                        describeValue(value), shaped,
                        count ? "overflows the program's total"
                              : "is not positive or exceeds 2^63 - 1"));
    if (*count > largest) {
      largest = *count;
      largestValue = value;
    }
  }
  if (total <= maxElements)
    return llvm::Error::success();
  return llvm::createStringError(
      llvm::inconvertibleErrorCode(),
      llvm::formatv("the program is too large to evaluate: its tensors hold "
                    "{0} elements (the largest, {1} of type {2}, {3}), more "
                    "than the limit of {4}; raise it with the option "
                    "max-elements",
                    total, describeValue(largestValue),
                    largestValue.getType(), largest, maxElements));
}
} // namespace

llvm::Expected<Program> Program::compile(func::FuncOp function,
                                         int64_t maxElements) {
  if (function.isDeclaration())
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        llvm::formatv("@{0} is a declaration: it has no body to evaluate",
                      function.getSymName()));
  for (auto [index, type] : llvm::enumerate(function.getArgumentTypes()))
    if (!isa<RankedTensorType>(type))
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          llvm::formatv("@{0}'s argument #{1} has type {2}; the interpreter "
                        "takes ranked tensors only",
                        function.getSymName(), index, type));
  if (auto err = checkSize(function, maxElements))
    return std::move(err);
  Compiler compiler;
  auto plan = compiler.compileFunction(function);
  if (!plan)
    return plan.takeError();
  Program program;
  program.plan = std::move(*plan);
  for (Type type : function.getArgumentTypes())
    program.inputShapes.push_back(Shape(cast<ShapedType>(type).getShape()));
  program.outputShapes = program.plan->outputShapes;
  return program;
}

llvm::Expected<std::vector<F64Tensor>>
Program::run(ArrayRef<F64Tensor> inputs, StabilityMonitor *monitor,
             const StepCallback *onStep) const {
  F64Domain domain{monitor};
  return Executor<F64Domain>(domain, onStep).run(*plan, pointers(inputs));
}

llvm::Expected<std::vector<BoundedTensor>>
Program::run(ArrayRef<BoundedTensor> inputs, StabilityMonitor *monitor) const {
  BoundedDomain domain{monitor};
  return Executor<BoundedDomain>(domain).run(*plan, pointers(inputs));
}

llvm::Expected<std::vector<FFTensor>>
Program::run(ArrayRef<FFTensor> inputs,
             const Fingerprinter &fingerprinter) const {
  FFDomain domain{fingerprinter};
  return Executor<FFDomain>(domain).run(*plan, pointers(inputs));
}
