//===- Plan.cpp - Compiling functions and graphs into plans ---------------===//
//
// Part of the Mirage MLIR project. See Plan.h.
//
//===----------------------------------------------------------------------===//

#include "Plan.h"

#include "mirage/Dialect/Kernel/IR/Kernel.h"
#include "mirage/Dialect/Thread/IR/Thread.h"
#include "mirage/IR/GraphUtils.h"

using namespace mlir;
using namespace mirage;
using namespace mirage::detail;

namespace {

double rangeOf(Type type) {
  Type element = cast<ShapedType>(type).getElementType();
  if (element.isF16())
    return 65504.0;
  if (element.isBF16())
    return 3.3895313892515355e38;
  return std::numeric_limits<float>::max();
}

llvm::Error unsupported(Operation &op) {
  std::string name = op.getName().getStringRef().str();
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "the interpreter cannot run '" + name + "'");
}

} // namespace

unsigned Compiler::slotOf(GraphPlan &plan, Value value) {
  auto [it, inserted] = slots.try_emplace(value, plan.numSlots);
  if (inserted)
    ++plan.numSlots;
  return it->second;
}

llvm::Error Compiler::addStep(GraphPlan &plan, Step step, Operation &op,
                              bool after) {
  step.op = &op;
  for (Value operand : op.getOperands())
    step.operands.push_back(slotOf(plan, operand));
  for (Value result : op.getResults()) {
    step.results.push_back(slotOf(plan, result));
    auto shaped = cast<ShapedType>(result.getType());
    step.resultShapes.push_back(Shape(shaped.getShape()));
  }
  if (op.getNumResults())
    step.rangeLimit = rangeOf(op.getResult(0).getType());
  if (auto semantics = dyn_cast<SemanticsOpInterface>(op)) {
    step.kind = semantics.getOpKind();
    step.params = semantics.getOpParams();
  }
  (after ? plan.postSteps : plan.loopSteps).push_back(std::move(step));
  return llvm::Error::success();
}

llvm::Expected<std::unique_ptr<GraphPlan>>
Compiler::compileGraph(Block &body, ArrayRef<int64_t> workers,
                       int64_t forloopRange, bool parallelWorkers) {
  auto plan = std::make_unique<GraphPlan>();
  plan->workers.assign(workers.begin(), workers.end());
  plan->forloopRange = forloopRange;
  plan->parallelWorkers = parallelWorkers;
  for (BlockArgument arg : body.getArguments())
    plan->inputSlots.push_back(slotOf(*plan, arg));

  // Which yield operand each saver feeds.
  Operation *terminator = body.getTerminator();
  llvm::DenseMap<Value, unsigned> outputOf;
  for (auto [index, value] : llvm::enumerate(terminator->getOperands())) {
    outputOf[value] = index;
    plan->outputShapes.push_back(
        Shape(cast<ShapedType>(value.getType()).getShape()));
  }

  llvm::DenseSet<Operation *> postLoop = getPostLoopOps(body);
  for (Operation &op : body.without_terminator()) {
    Step step;
    bool after = postLoop.contains(&op);
    if (op.hasTrait<mirage::OpTrait::IsInputIterator>()) {
      step.role = Step::Role::Iterator;
      step.index = cast<BlockArgument>(op.getOperand(0)).getArgNumber();
    } else if (op.hasTrait<mirage::OpTrait::IsAccumulator>()) {
      step.role = Step::Role::Accumulator;
      step.index = plan->numAccumulators++;
    } else if (op.hasTrait<mirage::OpTrait::IsOutputSaver>()) {
      step.role = Step::Role::Saver;
      step.index = outputOf.lookup(op.getResult(0));
    } else if (auto thread = dyn_cast<th::GraphOp>(op)) {
      auto nested = compileGraph(thread.getBodyBlock(), thread.getThreads(),
                                 static_cast<int64_t>(thread.getForloopRange()),
                                 /*parallelWorkers=*/false);
      if (!nested)
        return nested.takeError();
      step.role = Step::Role::Nested;
      step.nested = nested->get();
      plan->children.push_back(std::move(*nested));
    } else if (isa<SemanticsOpInterface>(op)) {
      step.role = Step::Role::Compute;
    } else {
      return unsupported(op);
    }
    if (auto err = addStep(*plan, std::move(step), op, after))
      return std::move(err);
  }
  return plan;
}

llvm::Expected<std::unique_ptr<GraphPlan>>
Compiler::compileFunction(func::FuncOp fn) {
  auto plan = std::make_unique<GraphPlan>();
  Block &body = fn.getBody().front();
  for (BlockArgument arg : body.getArguments())
    plan->inputSlots.push_back(slotOf(*plan, arg));
  for (Operation &op : body) {
    if (auto ret = dyn_cast<func::ReturnOp>(op)) {
      for (Value value : ret.getOperands()) {
        plan->resultSlots.push_back(slotOf(*plan, value));
        plan->outputShapes.push_back(
            Shape(cast<ShapedType>(value.getType()).getShape()));
      }
      continue;
    }
    Step step;
    if (auto kernel = dyn_cast<kn::KernelOp>(op)) {
      tb::GraphOp graph = kernel.getBlockGraph();
      auto nested = compileGraph(graph.getBodyBlock(), graph.getGrid(),
                                 static_cast<int64_t>(graph.getForloopRange()),
                                 /*parallelWorkers=*/true);
      if (!nested)
        return nested.takeError();
      step.role = Step::Role::Nested;
      step.nested = nested->get();
      plan->children.push_back(std::move(*nested));
    } else if (isa<SemanticsOpInterface>(op) && op.getNumRegions() == 0) {
      step.role = Step::Role::Compute;
    } else {
      return unsupported(op);
    }
    if (auto err = addStep(*plan, std::move(step), op, /*after=*/false))
      return std::move(err);
  }
  return plan;
}
