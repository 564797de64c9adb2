//===- TaskGraphProgram.cpp - Running task graphs on the CPU --------------===//
//
// Part of the Mirage MLIR project. See TaskGraphProgram.h.
//
//===----------------------------------------------------------------------===//

#include "mirage/Interpreter/TaskGraphProgram.h"

#include "Plan.h"
#include "mirage/Dialect/Block/IR/Block.h"
#include "mirage/Dialect/Task/Transforms/TaskGraphIO.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>
#include <deque>

using namespace mlir;
using namespace mirage;
using namespace mirage::detail;
namespace tgc = mirage::taskgraph;

char TaskGraphError::ID = 0;

namespace mirage {
struct TaskGraphState {
  tgc::TaskGraph graph;
  /// Per kernel, its block graph's plan.
  std::vector<std::unique_ptr<GraphPlan>> plans;
  /// Per buffer, its storage buffer, and whether that is a program input.
  std::vector<uint32_t> storage;
  std::vector<bool> isInput;
  /// Per program input and output, its buffer.
  SmallVector<uint32_t> inputBuffers, outputBuffers;
  SmallVector<Shape> inputShapes, outputShapes;
  /// The mega-kernel's dispatch, when runs follow it.
  std::optional<WorkerQueues> queues;
};
} // namespace mirage

namespace {

llvm::Error failure(const llvm::Twine &message) {
  return llvm::make_error<TaskGraphError>(message.str());
}

std::string formatIndex(ArrayRef<int64_t> index) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << '[';
  llvm::interleaveComma(index, os);
  os << ']';
  return text;
}

/// Calls `fn(linear offset)` for every element of the box of `shape` at
/// `offsets` with `sizes`, stopping at the first error.
llvm::Error forEachElement(ArrayRef<int64_t> shape, ArrayRef<int64_t> offsets,
                           ArrayRef<int64_t> sizes,
                           llvm::function_ref<llvm::Error(int64_t)> fn) {
  for (int64_t offset : boxOffsets(shape, offsets, sizes))
    if (auto err = fn(offset))
      return err;
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// Buffers in each number system
//===----------------------------------------------------------------------===//

/// A buffer no task has written: NaN where the number system has one.
F64Tensor poisoned(const F64Tensor *, ArrayRef<int64_t> shape) {
  return F64Tensor(shape, std::nan(""));
}
BoundedTensor poisoned(const BoundedTensor *, ArrayRef<int64_t> shape) {
  BoundedTensor tensor(shape);
  std::fill(tensor.value.data.begin(), tensor.value.data.end(), std::nan(""));
  return tensor;
}
FFTensor poisoned(const FFTensor *, ArrayRef<int64_t> shape) {
  return FFTensor(shape);
}

/// The same elements with another shape.
template <typename Tensor>
Tensor reshaped(const Tensor &tensor, ArrayRef<int64_t> shape) {
  Tensor copy = tensor;
  if constexpr (std::is_same_v<Tensor, BoundedTensor>) {
    copy.value.shape.assign(shape.begin(), shape.end());
    copy.error.shape.assign(shape.begin(), shape.end());
  } else {
    copy.shape.assign(shape.begin(), shape.end());
  }
  return copy;
}

template <typename Tensor>
void copyElements(Tensor &into, const Tensor &from) {
  Shape shape(shapeOf(into));
  into = reshaped(from, shape);
}

/// Records which task wrote each element of the buffers tasks write, and
/// checks every access of one task against it.
class AccessChecker : public AccessObserver {
public:
  AccessChecker(const TaskGraphState &state,
                std::vector<std::vector<int32_t>> &writers, uint32_t task)
      : state(state), graph(state.graph), writers(writers), task(task) {}

  llvm::Error onRead(unsigned input, ArrayRef<int64_t> offsets,
                     ArrayRef<int64_t> shape) override {
    uint32_t buffer = graph.tasks[task].reads[input].buffer;
    if (graph.buffers[buffer].parts.empty())
      return checkWritten(buffer, offsets, shape);
    // A concatenation: the boxes of its parts (buffers or views).
    for (const tgc::Access &part : graph.getPartAccesses(
             {buffer, tgc::Box{Shape(offsets), Shape(shape)}}))
      if (auto err =
              checkWritten(part.buffer, part.box.offsets, part.box.sizes))
        return err;
    return llvm::Error::success();
  }

  /// Checks that a task wrote every element of a box of `buffer` (a buffer
  /// with storage or a view) unless it is a program input.
  llvm::Error checkWritten(uint32_t buffer, ArrayRef<int64_t> offsets,
                           ArrayRef<int64_t> shape) {
    uint32_t storage = state.storage[buffer];
    if (state.isInput[storage])
      return llvm::Error::success();
    const Shape &bufferShape = graph.buffers[buffer].shape;
    return forEachElement(
        bufferShape, offsets, shape, [&](int64_t offset) -> llvm::Error {
          if (writers[storage][offset] >= 0)
            return llvm::Error::success();
          return failure(llvm::formatv(
              "{0} reads element {1} of {2} before any task wrote it ({3})",
              graph.describeTask(task),
              formatIndex(unflattenIndex(offset, bufferShape)),
              graph.buffers[buffer].name, describeWriter(storage, offset)));
        });
  }

  llvm::Error onWrite(unsigned output, ArrayRef<int64_t> offsets,
                      ArrayRef<int64_t> shape) override {
    const tgc::Access &declared = graph.tasks[task].writes[output];
    uint32_t storage = state.storage[declared.buffer];
    const Shape &bufferShape = graph.buffers[declared.buffer].shape;
    tgc::Box box{Shape(offsets), Shape(shape)};
    if (!declared.box.contains(box)) {
      return forEachElement(
          bufferShape, offsets, shape, [&](int64_t offset) -> llvm::Error {
            Shape index = unflattenIndex(offset, bufferShape);
            if (declared.box.contains({index, Shape(index.size(), 1)}))
              return llvm::Error::success();
            return failure(llvm::formatv(
                "{0} writes element {1} of {2}, outside its tile {3}",
                graph.describeTask(task), formatIndex(index),
                graph.buffers[declared.buffer].name, declared.box.str()));
          });
    }
    return forEachElement(
        bufferShape, offsets, shape, [&](int64_t offset) -> llvm::Error {
          int32_t &writer = writers[storage][offset];
          if (writer >= 0)
            return failure(
                llvm::formatv("{0} and {1} both write element {2} of {3}",
                              graph.describeTask(static_cast<uint32_t>(writer)),
                              graph.describeTask(task),
                              formatIndex(unflattenIndex(offset, bufferShape)),
                              graph.buffers[declared.buffer].name));
          writer = static_cast<int32_t>(task);
          return llvm::Error::success();
        });
  }

private:
  /// Which task declares a write of element `offset` of `storage`.
  std::string describeWriter(uint32_t storage, int64_t offset) const {
    const Shape &shape = graph.buffers[storage].shape;
    tgc::Box element{unflattenIndex(offset, shape), Shape(shape.size(), 1)};
    for (uint32_t t = 0; t < graph.tasks.size(); ++t)
      for (const tgc::Access &write : graph.tasks[t].writes)
        for (const tgc::Access &stored : graph.getStorageAccesses(write))
          if (stored.buffer == storage && stored.box.contains(element))
            return graph.describeTask(t) + " writes it";
    return "no task writes it";
  }

  const TaskGraphState &state;
  const tgc::TaskGraph &graph;
  std::vector<std::vector<int32_t>> &writers;
  uint32_t task;
};

/// Whether `queues` dispatches each compute task of `graph` exactly once,
/// and each empty task at most once, with counters in range.
llvm::Error checkQueues(const WorkerQueues &queues,
                        const tgc::TaskGraph &graph) {
  auto invalid = [](const llvm::Twine &why) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "invalid worker queues: " + why);
  };
  size_t tasks = graph.tasks.size();
  if (queues.waits.size() != tasks || queues.signals.size() != tasks)
    return invalid(llvm::formatv("{0} waits and {1} signals for {2} tasks",
                                 queues.waits.size(), queues.signals.size(),
                                 tasks));
  std::vector<bool> queued(tasks, false);
  SmallVector<ArrayRef<uint32_t>> spans(queues.queues.begin(),
                                        queues.queues.end());
  spans.push_back(queues.jit);
  for (ArrayRef<uint32_t> span : spans)
    for (uint32_t task : span) {
      if (task >= tasks || queued[task])
        return invalid(
            llvm::formatv("task {0} is {1}", task,
                          task >= tasks ? "out of range" : "queued twice"));
      queued[task] = true;
    }
  for (size_t task = 0; task < tasks; ++task) {
    bool events = !queues.waits[task].empty() || !queues.signals[task].empty();
    if (!queued[task] &&
        (graph.tasks[task].kind != tgc::TaskKind::Empty || events))
      return invalid(llvm::formatv("task {0} is in no queue", task));
    for (ArrayRef<int32_t> counters :
         {ArrayRef(queues.waits[task]), ArrayRef(queues.signals[task])})
      for (int32_t counter : counters)
        if (counter < 0 ||
            counter >= static_cast<int64_t>(queues.needed.size()))
          return invalid(llvm::formatv("task {0} uses counter {1} of {2}", task,
                                       counter, queues.needed.size()));
  }
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// Task orders
//===----------------------------------------------------------------------===//

/// Draws the order tasks run in: any task whose events are all active (the
/// graph's semantics), or, given the mega-kernel's dispatch, the next task
/// of any worker whose counter wait is met (what the GPU can do).
class TaskOrder {
public:
  TaskOrder(const tgc::TaskGraph &graph, const WorkerQueues *queues,
            uint64_t random)
      : graph(graph), queues(queues), random(random) {
    if (queues) {
      cursors.assign(queues->queues.size(), {});
      counters.assign(queues->needed.size(), 0);
      for (const std::vector<uint32_t> &queue : queues->queues)
        total += queue.size();
      total += queues->jit.size();
      return;
    }
    total = graph.tasks.size();
    needed = graph.getTriggerCounts();
    arrived.assign(graph.numEvents, 0);
    waiting = graph.getWaitingTasks();
    pending.assign(graph.tasks.size(), 0);
    for (auto [index, task] : llvm::enumerate(graph.tasks)) {
      for (uint32_t event : task.waits)
        pending[index] += needed[event] > 0;
      if (pending[index] == 0)
        ready.push_back(index);
    }
  }

  /// The next task to run, or none when none can.
  std::optional<uint32_t> next() {
    if (queues)
      return nextFromQueues();
    if (ready.empty())
      return std::nullopt;
    size_t pick = splitMix64(random) % ready.size();
    uint32_t task = ready[pick];
    ready[pick] = ready.back();
    ready.pop_back();
    return task;
  }

  /// Records that `task` (the last one next() gave) ran.
  void finish(uint32_t task) {
    if (queues) {
      for (int32_t signal : queues->signals[task])
        ++counters[signal];
      return;
    }
    for (uint32_t event : graph.tasks[task].triggers)
      if (++arrived[event] == needed[event])
        for (uint32_t next : waiting[event])
          if (--pending[next] == 0)
            ready.push_back(next);
  }

  /// How many tasks a run runs: those in the queues, or all.
  size_t getTotal() const { return total; }

  /// Why no task can run while `done` of them have.
  std::string describeStall(size_t done) const {
    if (queues) {
      for (size_t worker = 0; worker < queues->queues.size(); ++worker) {
        std::optional<uint32_t> task =
            cursors[worker].next(queues->jit, queues->queues[worker]);
        if (!task)
          continue;
        int32_t event = *llvm::find_if(queues->waits[*task], [&](int32_t e) {
          return counters[e] < queues->needed[e];
        });
        return llvm::formatv("the mega-kernel deadlocks after {0} of {1} "
                             "tasks: worker {2} waits with {3} on counter {4}, "
                             "which received {5} of {6} signals",
                             done, total, worker, graph.describeTask(*task),
                             event, counters[event], queues->needed[event]);
      }
    }
    for (uint32_t task = 0; task < total; ++task) {
      if (pending[task] == 0)
        continue;
      for (uint32_t event : graph.tasks[task].waits)
        if (arrived[event] < needed[event])
          return llvm::formatv(
              "{0} of {1} tasks ran; {2} never runs: it waits on event {3}, "
              "which received {4} of {5} triggers",
              done, total, graph.describeTask(task), event, arrived[event],
              needed[event]);
    }
    return llvm::formatv("{0} of {1} tasks ran", done, total);
  }

private:
  std::optional<uint32_t> nextFromQueues() {
    // Claims interleave with runs in any order: pick among both. A worker
    // that holds no just-in-time task (at its start, and after running one)
    // claims the next before it goes on.
    while (true) {
      SmallVector<std::pair<size_t, bool>> moves; // (worker, is a claim)
      for (size_t worker = 0; worker < queues->queues.size(); ++worker) {
        tgc::WorkerCursor &cursor = cursors[worker];
        if (!cursor.held && !queues->jit.empty()) {
          moves.push_back({worker, true});
          continue;
        }
        std::optional<uint32_t> task =
            cursor.next(queues->jit, queues->queues[worker]);
        if (task && llvm::all_of(queues->waits[*task], [&](int32_t e) {
              return counters[e] >= queues->needed[e];
            }))
          moves.push_back({worker, false});
      }
      if (moves.empty())
        return std::nullopt;
      auto [worker, claim] = moves[splitMix64(random) % moves.size()];
      tgc::WorkerCursor &cursor = cursors[worker];
      if (claim) {
        cursor.held = std::min(nextClaim++, queues->jit.size());
        continue;
      }
      uint32_t task = *cursor.next(queues->jit, queues->queues[worker]);
      cursor.advance(queues->jit, task);
      return task;
    }
  }

  const tgc::TaskGraph &graph;
  const WorkerQueues *queues;
  uint64_t random;
  size_t total = 0;
  // Event semantics.
  std::vector<uint32_t> needed, arrived, pending;
  std::vector<SmallVector<uint32_t, 2>> waiting;
  std::vector<uint32_t> ready;
  // Worker queues: where each worker is, and the just-in-time tasks claimed.
  std::vector<tgc::WorkerCursor> cursors;
  size_t nextClaim = 0;
  std::vector<uint32_t> counters;
};

} // namespace

//===----------------------------------------------------------------------===//
// TaskGraphProgram
//===----------------------------------------------------------------------===//

TaskGraphProgram::TaskGraphProgram() = default;
TaskGraphProgram::TaskGraphProgram(TaskGraphProgram &&) = default;
TaskGraphProgram &TaskGraphProgram::operator=(TaskGraphProgram &&) = default;
TaskGraphProgram::~TaskGraphProgram() = default;

ArrayRef<Shape> TaskGraphProgram::getInputShapes() const {
  return state->inputShapes;
}
ArrayRef<Shape> TaskGraphProgram::getOutputShapes() const {
  return state->outputShapes;
}

llvm::Expected<TaskGraphProgram>
TaskGraphProgram::compile(tg::GraphOp op, uint64_t seed, int64_t maxElements,
                          std::optional<WorkerQueues> queues) {
  auto state = std::make_unique<TaskGraphState>();
  DeviceModel device = *DeviceModel::get("h100");
  tg::ImportedGraph imported = tg::importGraph(op, device);
  state->graph = std::move(imported.graph);
  const tgc::TaskGraph &graph = state->graph;
  if (queues) {
    if (auto err = checkQueues(*queues, graph))
      return std::move(err);
    state->queues = std::move(queues);
  }

  // Buffers: storage, roles, program inputs and outputs.
  int64_t total = 0;
  SmallVector<std::optional<uint32_t>> inputs, outputs;
  for (auto [index, value] : llvm::enumerate(imported.buffers)) {
    state->storage.push_back(graph.getStorage(index));
    auto buffer = value.getDefiningOp<tg::BufferOp>();
    state->isInput.push_back(buffer &&
                             buffer.getRole() == tg::BufferRole::Input);
    if (!buffer)
      continue;
    std::optional<int64_t> count =
        getCheckedNumElements(graph.buffers[index].shape);
    if (!count || llvm::AddOverflow(total, *count, total))
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          llvm::formatv("buffer '{0}' has an element count beyond 2^63 - 1",
                        graph.buffers[index].name));
    if (buffer.getRole() == tg::BufferRole::Temp)
      continue;
    auto &list = buffer.getRole() == tg::BufferRole::Input ? inputs : outputs;
    size_t position = static_cast<size_t>(*buffer.getIndex());
    if (list.size() <= position)
      list.resize(position + 1);
    list[position] = index;
  }
  if (total > maxElements)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        llvm::formatv("the task graph is too large to evaluate: its buffers "
                      "hold {0} elements, more than the limit of {1}; raise "
                      "it with the option max-elements",
                      total, maxElements));
  for (auto [list, buffers, shapes, role] :
       {std::make_tuple(&inputs, &state->inputBuffers, &state->inputShapes,
                        "input"),
        std::make_tuple(&outputs, &state->outputBuffers, &state->outputShapes,
                        "output")}) {
    for (auto [position, buffer] : llvm::enumerate(*list)) {
      if (!buffer)
        return llvm::createStringError(
            llvm::inconvertibleErrorCode(),
            llvm::formatv("the task graph has no {0} #{1}", role, position));
      buffers->push_back(*buffer);
      shapes->push_back(graph.buffers[*buffer].shape);
    }
  }

  // One plan per kernel, run one block at a time.
  for (tg::KernelOp kernel : imported.kernels) {
    auto blockGraph = cast<tb::GraphOp>(kernel.getBlockGraph());
    auto plan = Compiler().compileGraph(
        blockGraph.getBodyBlock(), blockGraph.getGrid(),
        static_cast<int64_t>(blockGraph.getForloopRange()),
        /*parallelWorkers=*/false);
    if (!plan)
      return plan.takeError();
    state->plans.push_back(std::move(*plan));
  }

  TaskGraphProgram program;
  program.state = std::move(state);
  program.seed = seed;
  program.runs = std::make_unique<std::atomic<uint64_t>>(0);
  return program;
}

template <typename Domain>
llvm::Expected<std::vector<typename Domain::Tensor>>
TaskGraphProgram::execute(const Domain &domain,
                          ArrayRef<typename Domain::Tensor> inputs) const {
  using Tensor = typename Domain::Tensor;
  const tgc::TaskGraph &graph = state->graph;
  size_t bufferCount = graph.buffers.size();

  // Storage: poisoned outputs and temporaries with no element written yet;
  // inputs are read in place.
  std::vector<Tensor> storage(bufferCount);
  std::vector<const Tensor *> inputStorage(bufferCount, nullptr);
  std::vector<std::vector<int32_t>> writers(bufferCount);
  for (uint32_t b = 0; b < bufferCount; ++b) {
    if (state->storage[b] != b || state->isInput[b] ||
        !graph.buffers[b].parts.empty())
      continue;
    storage[b] =
        poisoned(static_cast<const Tensor *>(nullptr), graph.buffers[b].shape);
    writers[b].assign(getNumElements(graph.buffers[b].shape), -1);
  }
  for (auto [position, buffer] : llvm::enumerate(state->inputBuffers))
    inputStorage[state->storage[buffer]] = &inputs[position];

  uint64_t random = seed * 0x9E3779B97F4A7C15ULL + runs->fetch_add(1);
  TaskOrder order(graph, state->queues ? &*state->queues : nullptr, random);

  Executor<Domain> executor(domain);
  size_t done = 0;
  while (std::optional<uint32_t> next = order.next()) {
    uint32_t task = *next;
    const tgc::Task &t = graph.tasks[task];
    if (t.kind == tgc::TaskKind::Compute) {
      // Views are run on copies of their storage, written back after.
      std::deque<Tensor> views;
      auto bind = [&](uint32_t buffer) -> Tensor * {
        uint32_t home = state->storage[buffer];
        const Tensor &held =
            inputStorage[home] ? *inputStorage[home] : storage[home];
        if (home == buffer && !inputStorage[home])
          return &storage[home];
        return &views.emplace_back(reshaped(held, graph.buffers[buffer].shape));
      };
      auto bindRead = [&](uint32_t buffer) -> const Tensor * {
        uint32_t home = state->storage[buffer];
        return home == buffer && inputStorage[home] ? inputStorage[home]
                                                    : bind(buffer);
      };
      SmallVector<const Tensor *> in;
      SmallVector<Tensor *> out;
      for (const tgc::Access &read : t.reads) {
        const tgc::Buffer &buffer = graph.buffers[read.buffer];
        if (buffer.parts.empty()) {
          in.push_back(bindRead(read.buffer));
          continue;
        }
        // A concatenation is read as its parts joined.
        Step concat{Step::Role::Compute, /*op=*/nullptr, OpKind::Concat};
        concat.params.dim = buffer.concatDim;
        SmallVector<const Tensor *> parts;
        for (uint32_t part : buffer.parts)
          parts.push_back(bindRead(part));
        auto joined = domain.evaluate(concat, parts);
        if (!joined)
          return joined.takeError();
        in.push_back(&views.emplace_back(std::move(joined->front())));
      }
      for (const tgc::Access &write : t.writes)
        out.push_back(bind(write.buffer));
      std::vector<std::atomic<bool>> noQ(out.size());
      AccessChecker checker(*state, writers, task);
      if (auto err = executor.runBlock(*state->plans[t.kernel], t.block, in,
                                       out, noQ, &checker))
        return std::move(err);
      for (auto [index, write] : llvm::enumerate(t.writes)) {
        uint32_t home = state->storage[write.buffer];
        if (home != write.buffer)
          copyElements(storage[home], *out[index]);
        // A tile past an exponential has no exponent-field component: nor
        // has the buffer from then on (later readers must not see one).
        if constexpr (std::is_same_v<Tensor, FFTensor>)
          if (noQ[index])
            storage[home].q.clear();
      }
    }
    ++done;
    order.finish(task);
  }
  if (done < order.getTotal())
    return failure(order.describeStall(done));
  for (uint32_t b = 0; b < bufferCount; ++b) {
    for (auto [offset, writer] : llvm::enumerate(writers[b]))
      if (writer < 0)
        return failure(llvm::formatv(
            "element {0} of {1} is never written: no task's block writes it",
            formatIndex(unflattenIndex(offset, graph.buffers[b].shape)),
            graph.buffers[b].name));
  }

  std::vector<Tensor> outputs;
  for (uint32_t buffer : state->outputBuffers) {
    uint32_t home = state->storage[buffer];
    outputs.push_back(reshaped(storage[home], graph.buffers[buffer].shape));
  }
  return outputs;
}

llvm::Expected<std::vector<F64Tensor>>
TaskGraphProgram::run(ArrayRef<F64Tensor> inputs) const {
  return execute(F64Domain{nullptr}, inputs);
}

llvm::Expected<std::vector<BoundedTensor>>
TaskGraphProgram::run(ArrayRef<BoundedTensor> inputs,
                      StabilityMonitor *monitor) const {
  return execute(BoundedDomain{monitor}, inputs);
}

llvm::Expected<std::vector<FFTensor>>
TaskGraphProgram::run(ArrayRef<FFTensor> inputs,
                      const Fingerprinter &fingerprinter) const {
  return execute(FFDomain{fingerprinter}, inputs);
}
