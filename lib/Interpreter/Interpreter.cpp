//===- Interpreter.cpp - Reference interpreter for kn, tb and th ----------===//
//
// A function is compiled into a GraphPlan: its ops as steps over numbered
// value slots, with graph-defined kernels and thread graphs as nested plans.
// An Executor runs a plan in one number system (float64 or fingerprints);
// every compute step is evaluated by the operator's record.
//
//===----------------------------------------------------------------------===//

#include "mirage/Interpreter/Interpreter.h"

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

//===----------------------------------------------------------------------===//
// Plans
//===----------------------------------------------------------------------===//

namespace mirage {

/// One op of a plan.
struct Step {
  enum class Role { Compute, Iterator, Accumulator, Saver, Nested };
  Role role;
  Operation *op;
  OpKind kind = OpKind::Add;
  OpParams params;
  SmallVector<unsigned> operands, results; // value slots
  SmallVector<Shape> resultShapes;
  /// The largest finite value of the result's element type.
  double rangeLimit = std::numeric_limits<double>::max();
  /// Savers: the graph output they write. Accumulators: their index.
  unsigned index = 0;
  /// kn.kernel (its block graph) and th.graph (its body).
  const GraphPlan *nested = nullptr;
};

/// A function, block graph or thread graph, ready to run.
struct GraphPlan {
  /// The workers: grid dims (block graph), thread layout (thread graph), or
  /// none for a function (one worker, no loop).
  Shape workers;
  int64_t forloopRange = 1;
  bool parallelWorkers = false;
  unsigned numSlots = 0;
  unsigned numAccumulators = 0;
  SmallVector<unsigned> inputSlots;
  std::vector<Step> loopSteps, postSteps;
  /// Functions: the slots returned. Graphs write outputs through savers.
  SmallVector<unsigned> resultSlots;
  SmallVector<Shape> outputShapes;
  std::vector<std::unique_ptr<GraphPlan>> children;
};

} // namespace mirage

namespace {

double rangeOf(Type type) {
  Type element = cast<ShapedType>(type).getElementType();
  if (element.isF16())
    return 65504.0;
  if (element.isBF16())
    return 3.3895313892515355e38;
  return std::numeric_limits<float>::max();
}

class Compiler {
public:
  llvm::Expected<std::unique_ptr<GraphPlan>> compileFunction(func::FuncOp fn);

private:
  llvm::Expected<std::unique_ptr<GraphPlan>>
  compileGraph(Block &body, ArrayRef<int64_t> workers, int64_t forloopRange,
               bool parallelWorkers);
  llvm::Error addStep(GraphPlan &plan, Step step, Operation &op, bool after);
  unsigned slotOf(GraphPlan &plan, Value value);

  llvm::DenseMap<Value, unsigned> slots;
};

llvm::Error unsupported(Operation &op) {
  std::string name = op.getName().getStringRef().str();
  return llvm::createStringError(
      llvm::inconvertibleErrorCode(),
      "the interpreter cannot run '" + name + "'");
}

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

//===----------------------------------------------------------------------===//
// Number systems
//===----------------------------------------------------------------------===//

struct F64Domain {
  using Tensor = F64Tensor;
  StabilityMonitor *monitor;

  llvm::Expected<F64Tensors> evaluate(const Step &step,
                                      ArrayRef<const Tensor *> in) const {
    return mirage::evaluate(step.kind, in, step.params);
  }
  llvm::Expected<std::unique_ptr<Accumulator<Tensor>>>
  accumulator(const Step &step) const {
    return makeAccumulator(step.kind, step.params, step.resultShapes[0]);
  }
  Tensor allocate(ArrayRef<int64_t> shape) const { return Tensor(shape); }
  void observe(const Step &step, const Tensor &value) const {
    if (monitor)
      monitor->observe(step.op, value, step.rangeLimit);
  }
};

/// Float64 values with bounds on their rounding errors (running error
/// analysis); the values are those of F64Domain.
struct BoundedDomain {
  using Tensor = BoundedTensor;
  StabilityMonitor *monitor;

  llvm::Expected<SmallVector<Tensor, 1>>
  evaluate(const Step &step, ArrayRef<const Tensor *> in) const {
    SmallVector<const F64Tensor *> values, errors;
    for (const Tensor *operand : in) {
      values.push_back(&operand->value);
      errors.push_back(&operand->error);
    }
    auto results = mirage::evaluate(step.kind, values, step.params);
    if (!results)
      return results.takeError();
    auto bounds =
        mirage::boundErrors(step.kind, values, errors, *results, step.params);
    if (!bounds)
      return bounds.takeError();
    SmallVector<Tensor, 1> out;
    for (auto [value, error] : llvm::zip(*results, *bounds))
      out.emplace_back(std::move(value), std::move(error));
    return out;
  }
  llvm::Expected<std::unique_ptr<Accumulator<Tensor>>>
  accumulator(const Step &step) const {
    return makeBoundedAccumulator(step.kind, step.params, step.resultShapes[0]);
  }
  Tensor allocate(ArrayRef<int64_t> shape) const { return Tensor(shape); }
  void observe(const Step &step, const Tensor &value) const {
    if (monitor)
      monitor->observe(step.op, value.value, step.rangeLimit);
  }
};

struct FFDomain {
  using Tensor = FFTensor;
  const Fingerprinter &fingerprinter;

  llvm::Expected<FFTensors> evaluate(const Step &step,
                                     ArrayRef<const Tensor *> in) const {
    return mirage::evaluate(step.kind, in, step.params, fingerprinter);
  }
  llvm::Expected<std::unique_ptr<Accumulator<Tensor>>>
  accumulator(const Step &step) const {
    return makeAccumulator(step.kind, step.params, step.resultShapes[0],
                           fingerprinter);
  }
  Tensor allocate(ArrayRef<int64_t> shape) const { return Tensor(shape); }
  void observe(const Step &, const Tensor &) const {}
};

/// Collects the first error of a parallel region; a ResampleError keeps its
/// type so the caller can redraw the inputs.
class FirstError {
public:
  void record(llvm::Error error) {
    std::lock_guard<std::mutex> lock(mutex);
    if (!failed) {
      failed = true;
      first = std::move(error);
    } else {
      llvm::consumeError(std::move(error));
    }
  }
  bool hasFailed() const { return failed; }
  llvm::Error take() { return std::move(first); }

private:
  std::mutex mutex;
  std::atomic<bool> failed{false};
  llvm::Error first = llvm::Error::success();
};

//===----------------------------------------------------------------------===//
// Execution
//===----------------------------------------------------------------------===//

template <typename Domain>
class Executor {
public:
  using Tensor = typename Domain::Tensor;
  explicit Executor(const Domain &domain) : domain(domain) {}

  /// Runs a plan on its inputs: a function returns its results, a graph its
  /// outputs.
  llvm::Expected<std::vector<Tensor>> run(const GraphPlan &plan,
                                          ArrayRef<const Tensor *> inputs) {
    if (plan.resultSlots.size() || plan.workers.empty())
      return runFunction(plan, inputs);
    std::vector<Tensor> outputs;
    for (const Shape &shape : plan.outputShapes)
      outputs.push_back(domain.allocate(shape));
    std::vector<std::atomic<bool>> withoutQ(outputs.size());
    int64_t count = getNumElements(plan.workers);
    FirstError error;
    auto runOne = [&](int64_t index) {
      if (error.hasFailed())
        return;
      Shape worker = unflattenIndex(index, plan.workers);
      if (auto err = runWorker(plan, worker, inputs, outputs, withoutQ))
        error.record(std::move(err));
    };
    if (plan.parallelWorkers)
      parallelFor(count, runOne);
    else
      for (int64_t index = 0; index < count; ++index)
        runOne(index);
    if (error.hasFailed())
      return error.take();
    if constexpr (std::is_same_v<Tensor, FFTensor>)
      for (size_t i = 0; i < outputs.size(); ++i)
        if (withoutQ[i])
          outputs[i].q.clear();
    return outputs;
  }

private:
  /// The values of one worker.
  struct Frame {
    std::vector<std::optional<Tensor>> owned;
    std::vector<const Tensor *> view;
    explicit Frame(unsigned slots) : owned(slots), view(slots, nullptr) {}
    void set(unsigned slot, Tensor value) {
      owned[slot] = std::move(value);
      view[slot] = &*owned[slot];
    }
  };

  SmallVector<const Tensor *> operandsOf(const Step &step, const Frame &frame) {
    SmallVector<const Tensor *> operands;
    for (unsigned slot : step.operands)
      operands.push_back(frame.view[slot]);
    return operands;
  }

  llvm::Error compute(const Step &step, Frame &frame) {
    SmallVector<const Tensor *> operands = operandsOf(step, frame);
    SmallVector<Tensor, 1> results;
    if (step.role == Step::Role::Nested) {
      auto nested = run(*step.nested, operands);
      if (!nested)
        return nested.takeError();
      results.assign(std::make_move_iterator(nested->begin()),
                     std::make_move_iterator(nested->end()));
    } else {
      auto evaluated = domain.evaluate(step, operands);
      if (!evaluated)
        return evaluated.takeError();
      results = std::move(*evaluated);
    }
    for (auto [slot, value] : llvm::zip(step.results, results)) {
      domain.observe(step, value);
      frame.set(slot, std::move(value));
    }
    return llvm::Error::success();
  }

  llvm::Expected<std::vector<Tensor>>
  runFunction(const GraphPlan &plan, ArrayRef<const Tensor *> inputs) {
    Frame frame(plan.numSlots);
    for (auto [slot, input] : llvm::zip(plan.inputSlots, inputs))
      frame.view[slot] = input;
    for (const Step &step : plan.loopSteps)
      if (auto err = compute(step, frame))
        return std::move(err);
    std::vector<Tensor> results;
    for (unsigned slot : plan.resultSlots)
      results.push_back(*frame.view[slot]);
    return results;
  }

  llvm::Error runWorker(const GraphPlan &plan, ArrayRef<int64_t> worker,
                        ArrayRef<const Tensor *> inputs,
                        std::vector<Tensor> &outputs,
                        std::vector<std::atomic<bool>> &withoutQ) {
    Frame frame(plan.numSlots);
    for (auto [slot, input] : llvm::zip(plan.inputSlots, inputs))
      frame.view[slot] = input;
    std::vector<std::unique_ptr<Accumulator<Tensor>>> accumulators(
        plan.numAccumulators);

    auto execute = [&](const Step &step, int64_t iteration) -> llvm::Error {
      switch (step.role) {
      case Step::Role::Iterator: {
        const Tensor &input = *frame.view[step.operands[0]];
        Shape offsets = getInputTileOffsets(step.params.tiling, worker,
                                            iteration, shapeOf(input));
        frame.set(step.results[0],
                  extractTile(input, offsets, step.resultShapes[0]));
        return llvm::Error::success();
      }
      case Step::Role::Accumulator: {
        std::unique_ptr<Accumulator<Tensor>> &accumulator =
            accumulators[step.index];
        if (!accumulator) {
          auto made = domain.accumulator(step);
          if (!made)
            return made.takeError();
          accumulator = std::move(*made);
        }
        return accumulator->fold(operandsOf(step, frame), iteration);
      }
      case Step::Role::Saver: {
        const Tensor &tile = *frame.view[step.operands[0]];
        Shape offsets =
            getOutputTileOffsets(step.params.tiling, worker, shapeOf(tile));
        if constexpr (std::is_same_v<Tensor, FFTensor>)
          if (!tile.hasQ())
            withoutQ[step.index] = true;
        // Workers write disjoint boxes of the output.
        scatterTile(outputs[step.index], offsets, tile);
        return llvm::Error::success();
      }
      case Step::Role::Compute:
      case Step::Role::Nested:
        return compute(step, frame);
      }
      llvm_unreachable("unknown step role");
    };

    for (int64_t iteration = 0; iteration < plan.forloopRange; ++iteration)
      for (const Step &step : plan.loopSteps)
        if (auto err = execute(step, iteration))
          return err;
    for (const Step &step : plan.loopSteps)
      if (step.role == Step::Role::Accumulator) {
        Tensor result = accumulators[step.index]->result();
        domain.observe(step, result);
        frame.set(step.results[0], std::move(result));
      }
    for (const Step &step : plan.postSteps)
      if (auto err = execute(step, /*iteration=*/0))
        return err;
    return llvm::Error::success();
  }

  const Domain &domain;
};

template <typename Tensor>
SmallVector<const Tensor *> pointers(ArrayRef<Tensor> tensors) {
  SmallVector<const Tensor *> result;
  for (const Tensor &tensor : tensors)
    result.push_back(&tensor);
  return result;
}

} // namespace

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
Program::run(ArrayRef<F64Tensor> inputs, StabilityMonitor *monitor) const {
  F64Domain domain{monitor};
  return Executor<F64Domain>(domain).run(*plan, pointers(inputs));
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
