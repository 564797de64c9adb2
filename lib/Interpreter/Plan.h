//===- Plan.h - The interpreter's plans and executor (internal) -*- C++ -*-===//
//
// A function, block graph or thread graph is compiled into a GraphPlan: its
// ops as steps over numbered value slots, with graph-defined kernels and
// thread graphs as nested plans. An Executor runs a plan in one number
// system (float64, float64 with error bounds, or fingerprints); every
// compute step is evaluated by the operator's record. Shared by the
// function interpreter (Interpreter.cpp) and the task-graph executor
// (TaskGraphProgram.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef MIRAGE_LIB_INTERPRETER_PLAN_H
#define MIRAGE_LIB_INTERPRETER_PLAN_H

#include "mirage/Interpreter/Interpreter.h"

#include "mirage/Semantics/Parallel.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/DenseMap.h"

#include <atomic>
#include <limits>

namespace mirage::detail {

using namespace mlir;

struct GraphPlan;

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
  /// Savers: the graph output they write. Iterators: the graph input they
  /// read. Accumulators: their index.
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

/// Compiles functions and block graphs into plans.
class Compiler {
public:
  llvm::Expected<std::unique_ptr<GraphPlan>> compileFunction(func::FuncOp fn);
  /// A block or thread graph body run by `workers` over `forloopRange`
  /// iterations.
  llvm::Expected<std::unique_ptr<GraphPlan>>
  compileGraph(Block &body, ArrayRef<int64_t> workers, int64_t forloopRange,
               bool parallelWorkers);

private:
  llvm::Error addStep(GraphPlan &plan, Step step, Operation &op, bool after);
  unsigned slotOf(GraphPlan &plan, Value value);

  llvm::DenseMap<Value, unsigned> slots;
};

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

/// Sees every tile one block of a graph plan reads (iterators: its input,
/// offsets and shape) and writes (savers); an error stops the block.
class AccessObserver {
public:
  virtual ~AccessObserver() = default;
  virtual llvm::Error onRead(unsigned input, ArrayRef<int64_t> offsets,
                             ArrayRef<int64_t> shape) = 0;
  virtual llvm::Error onWrite(unsigned output, ArrayRef<int64_t> offsets,
                              ArrayRef<int64_t> shape) = 0;
};

template <typename Domain>
class Executor {
public:
  using Tensor = typename Domain::Tensor;
  explicit Executor(const Domain &domain, const StepCallback *onStep = nullptr)
      : domain(domain), onStep(onStep) {}

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
    SmallVector<Tensor *> outputPointers;
    for (Tensor &output : outputs)
      outputPointers.push_back(&output);
    int64_t count = getNumElements(plan.workers);
    FirstError error;
    auto runOne = [&](int64_t index) {
      if (error.hasFailed())
        return;
      Shape worker = unflattenIndex(index, plan.workers);
      if (auto err = runWorker(plan, worker, inputs, outputPointers, withoutQ,
                               nullptr))
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

  /// Runs block `block` of a block-graph plan alone: its savers write into
  /// `outputs`; `observer` sees its reads and writes. For FFTensors,
  /// `withoutQ[i]` is set when output i receives a tile without an
  /// exponent-field component.
  llvm::Error runBlock(const GraphPlan &plan, ArrayRef<int64_t> block,
                       ArrayRef<const Tensor *> inputs,
                       ArrayRef<Tensor *> outputs,
                       std::vector<std::atomic<bool>> &withoutQ,
                       AccessObserver *observer) {
    return runWorker(plan, block, inputs, outputs, withoutQ, observer);
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
    // Only the outermost function reports its steps.
    const StepCallback *report = std::exchange(onStep, nullptr);
    for (auto [index, step] : llvm::enumerate(plan.loopSteps)) {
      if (report)
        (*report)(index, plan.loopSteps.size(), step.op);
      if (auto err = compute(step, frame))
        return std::move(err);
    }
    std::vector<Tensor> results;
    for (unsigned slot : plan.resultSlots)
      results.push_back(*frame.view[slot]);
    return results;
  }

  llvm::Error runWorker(const GraphPlan &plan, ArrayRef<int64_t> worker,
                        ArrayRef<const Tensor *> inputs,
                        ArrayRef<Tensor *> outputs,
                        std::vector<std::atomic<bool>> &withoutQ,
                        AccessObserver *observer) {
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
        if (observer)
          if (auto err =
                  observer->onRead(step.index, offsets, step.resultShapes[0]))
            return err;
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
        if (observer)
          if (auto err = observer->onWrite(step.index, offsets, shapeOf(tile)))
            return err;
        if constexpr (std::is_same_v<Tensor, FFTensor>)
          if (!tile.hasQ())
            withoutQ[step.index] = true;
        // Workers write disjoint boxes of the output.
        scatterTile(*outputs[step.index], offsets, tile);
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
  const StepCallback *onStep;
};

template <typename Tensor>
SmallVector<const Tensor *> pointers(ArrayRef<Tensor> tensors) {
  SmallVector<const Tensor *> result;
  for (const Tensor &tensor : tensors)
    result.push_back(&tensor);
  return result;
}

} // namespace mirage::detail

#endif // MIRAGE_LIB_INTERPRETER_PLAN_H
