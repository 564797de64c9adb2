//===- TaskOps.cpp - tg dialect and ops -----------------------------------===//
//
// Part of the Mirage MLIR project.
//
//===----------------------------------------------------------------------===//

#include "mirage/Dialect/Task/IR/Task.h"

#include "mirage/Dialect/Block/IR/Block.h"
#include "mirage/IR/IsolatedRegion.h"
#include "mirage/Semantics/OpSemantics.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/TypeSwitch.h"

#include <map>

using namespace mlir;
using namespace mirage;
using namespace mirage::tg;

#include "mirage/Dialect/Task/IR/TaskOpsDialect.cpp.inc"
#include "mirage/Dialect/Task/IR/TaskOpsEnums.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "mirage/Dialect/Task/IR/TaskOpsTypes.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "mirage/Dialect/Task/IR/TaskOpsAttributes.cpp.inc"

void TaskDialect::initialize() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "mirage/Dialect/Task/IR/TaskOpsTypes.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "mirage/Dialect/Task/IR/TaskOpsAttributes.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "mirage/Dialect/Task/IR/TaskOps.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// BoxAttr
//===----------------------------------------------------------------------===//

LogicalResult BoxAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                              ArrayRef<int64_t> offsets,
                              ArrayRef<int64_t> sizes) {
  if (offsets.size() != sizes.size())
    return emitError() << "a box has " << offsets.size() << " offsets but "
                       << sizes.size() << " sizes";
  for (auto [index, offset, size] : llvm::enumerate(offsets, sizes))
    if (offset < 0 || size <= 0)
      return emitError() << "box dim " << index << " has offset " << offset
                         << " and size " << size
                         << "; offsets must be non-negative and sizes positive";
  return success();
}

//===----------------------------------------------------------------------===//
// BufferOp, ViewOp, ConcatOp
//===----------------------------------------------------------------------===//

LogicalResult BufferOp::verify() {
  bool numbered = getRole() != BufferRole::Temp;
  if (numbered != getIndex().has_value())
    return emitOpError() << (numbered ? "an " : "a ")
                         << stringifyBufferRole(getRole())
                         << (numbered ? " buffer needs its index"
                                      : " buffer has no index");
  if (numbered && static_cast<int64_t>(*getIndex()) < 0)
    return emitOpError() << "index must be non-negative, got "
                         << static_cast<int64_t>(*getIndex());
  return success();
}

LogicalResult ViewOp::verify() {
  MemRefType source = getSource().getType(), view = getView().getType();
  if (source.getElementType() != view.getElementType())
    return emitOpError() << "views " << source.getElementType()
                         << " elements as " << view.getElementType();
  if (source.getNumElements() != view.getNumElements())
    return emitOpError() << "views " << source.getNumElements()
                         << " elements as " << view.getNumElements();
  return success();
}

LogicalResult ConcatOp::verify() {
  if (getParts().size() < 2)
    return emitOpError() << "concatenates " << getParts().size()
                         << " part(s); it needs at least 2";
  MemRefType result = getView().getType();
  for (auto [index, part] : llvm::enumerate(getParts()))
    if (cast<MemRefType>(part.getType()).getElementType() !=
        result.getElementType())
      return emitOpError() << "part #" << index << " of type " << part.getType()
                           << " differs in element type from " << result;
  // The shape rule is kn.concat's (its operator record).
  SmallVector<ArrayRef<int64_t>> shapes;
  for (Value part : getParts())
    shapes.push_back(cast<MemRefType>(part.getType()).getShape());
  OpParams params;
  params.dim = static_cast<int64_t>(getDim());
  auto inferred = inferShapes(OpKind::Concat, shapes, params);
  if (!inferred)
    return emitOpError() << llvm::toString(inferred.takeError());
  if (ArrayRef<int64_t>(inferred->front()) != result.getShape())
    return emitOpError() << "concatenates its parts to "
                         << formatShape(inferred->front()) << " but the result "
                         << "has shape " << formatShape(result.getShape());
  if (params.dim + 1 == result.getRank())
    return emitOpError() << "joins its parts along the innermost dim; a "
                            "kernel copies rows of 16 bytes, which would "
                            "straddle two parts";
  for (OpOperand &use : getView().getUses()) {
    auto kernel = dyn_cast<KernelOp>(use.getOwner());
    if (!kernel || use.getOperandNumber() >= kernel.getInputs().size())
      return emitOpError() << "has no storage: only kernels read it (as an "
                              "input), nothing writes or views it";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// KernelOp
//===----------------------------------------------------------------------===//

Operation *KernelOp::getBlockGraph() {
  Block &body = getBody().front();
  return body.empty() ? nullptr : &body.front();
}

SmallVector<Value> KernelOp::getBodyOperands() {
  SmallVector<Value> operands, extraParts;
  for (Value input : getInputs()) {
    auto concat = input.getDefiningOp<ConcatOp>();
    if (!concat) {
      operands.push_back(input);
      continue;
    }
    operands.push_back(concat.getParts().front());
    llvm::append_range(extraParts, concat.getParts().drop_front());
  }
  llvm::append_range(operands, getOutputs());
  llvm::append_range(operands, extraParts);
  return operands;
}

/// The tensor a buffer holds.
static RankedTensorType getTensorType(MemRefType buffer) {
  return RankedTensorType::get(buffer.getShape(), buffer.getElementType());
}

LogicalResult KernelOp::verifyRegions() {
  auto graph = dyn_cast_or_null<tb::GraphOp>(getBlockGraph());
  if (!graph || !llvm::hasSingleElement(getBody().front()))
    return emitOpError() << "body must hold exactly one 'tb.graph'";
  TypeRange graphInputs = graph.getBodyBlock().getArgumentTypes();
  if (graphInputs.size() != getInputs().size())
    return emitOpError() << "binds " << getInputs().size()
                         << " input buffers but its block graph has "
                         << graphInputs.size() << " inputs";
  for (auto [index, buffer, input] :
       llvm::enumerate(getInputs().getTypes(), graphInputs))
    if (getTensorType(cast<MemRefType>(buffer)) != input)
      return emitOpError() << "input buffer #" << index << " of type " << buffer
                           << " does not hold block graph input #" << index
                           << " of type " << input;
  TypeRange graphOutputs = graph.getBodyBlock().back().getOperandTypes();
  if (graphOutputs.size() != getOutputs().size())
    return emitOpError() << "binds " << getOutputs().size()
                         << " output buffers but its block graph yields "
                         << graphOutputs.size() << " outputs";
  for (auto [index, buffer, output] :
       llvm::enumerate(getOutputs().getTypes(), graphOutputs))
    if (getTensorType(cast<MemRefType>(buffer)) != output)
      return emitOpError() << "output buffer #" << index << " of type "
                           << buffer << " does not hold block graph output #"
                           << index << " of type " << output;
  return success();
}

//===----------------------------------------------------------------------===//
// EventOp
//===----------------------------------------------------------------------===//

LogicalResult EventOp::verify() {
  if (static_cast<int64_t>(getTriggers()) < 0)
    return emitOpError() << "trigger count must be non-negative, got "
                         << static_cast<int64_t>(getTriggers());
  std::optional<uint64_t> first = getFirstTask(), last = getLastTask();
  if (first.has_value() != last.has_value())
    return emitOpError() << "a task range needs both its first and last task";
  if (!first)
    return success();
  if (!cast<GraphOp>(getOperation()->getParentOp()).getLinearized())
    return emitOpError()
           << "a task range is only meaningful in a linearized task graph";
  if (static_cast<int64_t>(*first) < 0 ||
      static_cast<int64_t>(*first) > static_cast<int64_t>(*last))
    return emitOpError() << "task range [" << static_cast<int64_t>(*first)
                         << ", " << static_cast<int64_t>(*last)
                         << "] is empty or negative";
  return success();
}

//===----------------------------------------------------------------------===//
// TaskOp
//===----------------------------------------------------------------------===//

/// Returns an event that appears twice in `events`, if any.
static Value findDuplicate(ValueRange events) {
  llvm::SmallDenseSet<Value> seen;
  for (Value event : events)
    if (!seen.insert(event).second)
      return event;
  return {};
}

LogicalResult TaskOp::verify() {
  bool compute = getKind() == TaskKind::Compute;
  bool hasRegions = getReads() || getWrites();
  if (compute && (!getKernel() || !getReads() || !getWrites()))
    return emitOpError() << "a compute task names its kernel and block and "
                            "the boxes it reads and writes";
  if (!compute && (getKernel() || hasRegions))
    return emitOpError()
           << "an empty task runs no kernel and reads and writes nothing";
  if (findDuplicate(getWaits()))
    return emitOpError() << "waits twice on the same event";
  if (findDuplicate(getTriggered()))
    return emitOpError() << "triggers the same event twice";
  for (Value event : getWaits())
    if (llvm::is_contained(getTriggered(), event))
      return emitOpError() << "waits on and triggers the same event";
  return success();
}

//===----------------------------------------------------------------------===//
// GraphOp
//===----------------------------------------------------------------------===//

RegionKind GraphOp::getRegionKind(unsigned) { return RegionKind::Graph; }

LogicalResult GraphOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  if (!getSource())
    return success();
  // Looked up around the graph, which is a symbol table of its own.
  auto function = symbolTable.lookupNearestSymbolFrom<func::FuncOp>(
      getOperation()->getParentOp(), getSourceAttr());
  if (!function)
    return emitOpError() << "is built from " << getSourceAttr()
                         << ", which is not a function";
  // The inputs and outputs hold the function's arguments and results.
  for (auto buffer : getBodyBlock().getOps<BufferOp>()) {
    if (buffer.getRole() == BufferRole::Temp)
      continue;
    bool input = buffer.getRole() == BufferRole::Input;
    TypeRange types =
        input ? function.getArgumentTypes() : function.getResultTypes();
    int64_t index = static_cast<int64_t>(*buffer.getIndex());
    if (index >= static_cast<int64_t>(types.size()))
      return buffer.emitOpError()
             << "is " << stringifyBufferRole(buffer.getRole()) << " #" << index
             << " but " << getSourceAttr() << " has " << types.size()
             << (input ? " arguments" : " results");
    Type expected = types[index];
    if (getTensorType(buffer.getType()) != expected)
      return buffer.emitOpError()
             << "holds " << getTensorType(buffer.getType()) << " but "
             << (input ? "argument" : "result") << " #" << index << " of "
             << getSourceAttr() << " is " << expected;
  }
  return success();
}

namespace {

/// Reports a cycle task -> triggered event -> waiting task -> ... if any.
LogicalResult verifyAcyclic(ArrayRef<TaskOp> tasks) {
  llvm::DenseMap<Value, SmallVector<unsigned>> waiters;
  for (auto [index, task] : llvm::enumerate(tasks)) {
    TaskOp op = task;
    for (Value event : op.getWaits())
      waiters[event].push_back(index);
  }
  enum class Mark { Unvisited, Active, Done };
  SmallVector<Mark> marks(tasks.size(), Mark::Unvisited);
  // Iterative DFS: (task, next triggered event, next waiter of that event).
  struct Frame {
    unsigned task;
    unsigned event = 0;
    unsigned waiter = 0;
  };
  for (unsigned root = 0; root < tasks.size(); ++root) {
    if (marks[root] != Mark::Unvisited)
      continue;
    SmallVector<Frame> stack{{root}};
    marks[root] = Mark::Active;
    while (!stack.empty()) {
      Frame &frame = stack.back();
      TaskOp task = tasks[frame.task];
      ValueRange triggered = task.getTriggered();
      if (frame.event == triggered.size()) {
        marks[frame.task] = Mark::Done;
        stack.pop_back();
        continue;
      }
      auto &next = waiters[triggered[frame.event]];
      if (frame.waiter == next.size()) {
        ++frame.event;
        frame.waiter = 0;
        continue;
      }
      unsigned successor = next[frame.waiter++];
      if (marks[successor] == Mark::Active) {
        TaskOp cyclic = tasks[successor];
        return cyclic.emitOpError()
               << "is on a cycle of the task graph: it transitively waits "
                  "for itself";
      }
      if (marks[successor] == Mark::Unvisited) {
        marks[successor] = Mark::Active;
        stack.push_back({successor});
      }
    }
  }
  return success();
}

/// Checks the layout a persistent kernel reads: one awaited and at most one
/// triggered event per task, and the waiters of each event contiguous and
/// recorded in its task range.
LogicalResult verifyLinearized(ArrayRef<TaskOp> tasks,
                               ArrayRef<EventOp> events) {
  llvm::DenseMap<Value, std::pair<int64_t, int64_t>> range;
  for (auto [index, task] : llvm::enumerate(tasks)) {
    TaskOp op = task;
    if (op.getWaits().size() != 1)
      return op.emitOpError()
             << "waits on " << op.getWaits().size()
             << " events; in a linearized task graph every task waits on "
                "exactly one";
    if (op.getTriggered().size() > 1)
      return op.emitOpError()
             << "triggers " << op.getTriggered().size()
             << " events; in a linearized task graph a task triggers at most "
                "one";
    auto [it, inserted] = range.try_emplace(
        op.getWaits()[0], std::make_pair(int64_t(index), int64_t(index)));
    if (!inserted) {
      if (it->second.second != static_cast<int64_t>(index) - 1)
        return op.emitOpError()
               << "is not contiguous with the other tasks waiting on its "
                  "event; a linearized task graph orders them consecutively";
      it->second.second = index;
    }
  }
  for (EventOp event : events) {
    EventOp op = event;
    auto it = range.find(op.getEvent());
    if (it == range.end()) {
      if (op.getFirstTask())
        return op.emitOpError() << "has a task range but no task waits on it";
      continue;
    }
    auto [first, last] = it->second;
    if (!op.getFirstTask())
      return op.emitOpError() << "is awaited by tasks [" << first << ", "
                              << last << "] but has no task range";
    if (static_cast<int64_t>(*op.getFirstTask()) != first ||
        static_cast<int64_t>(*op.getLastTask()) != last)
      return op.emitOpError()
             << "has task range [" << static_cast<int64_t>(*op.getFirstTask())
             << ", " << static_cast<int64_t>(*op.getLastTask())
             << "] but the tasks waiting on it are [" << first << ", " << last
             << "]";
  }
  return success();
}

/// Checks one access of a compute task: the box fits the buffer.
LogicalResult verifyBox(TaskOp task, StringRef what, unsigned index,
                        BoxAttr box, Value buffer) {
  ArrayRef<int64_t> shape = cast<MemRefType>(buffer.getType()).getShape();
  if (box.getOffsets().size() != shape.size())
    return task.emitOpError()
           << what << " box #" << index << " has rank "
           << box.getOffsets().size() << " but its buffer " << buffer.getType()
           << " has rank " << shape.size();
  for (auto [d, offset, size] :
       llvm::enumerate(box.getOffsets(), box.getSizes()))
    if (offset + size > shape[d])
      return task.emitOpError()
             << what << " box #" << index << " covers [" << offset << ", "
             << offset + size << ") of dim " << d << ", beyond its buffer "
             << buffer.getType();
  return success();
}

/// Checks that compute tasks run existing blocks of existing kernels, each
/// block exactly once, with a box per kernel buffer.
LogicalResult verifyTasksCoverKernels(GraphOp graph, ArrayRef<TaskOp> tasks) {
  llvm::StringMap<KernelOp> kernels;
  for (KernelOp kernel : graph.getBodyBlock().getOps<KernelOp>())
    kernels[kernel.getSymName()] = kernel;
  std::map<std::pair<std::string, SmallVector<int64_t>>, unsigned> owner;
  llvm::StringMap<int64_t> counts;
  for (auto [index, task] : llvm::enumerate(tasks)) {
    TaskOp op = task;
    if (op.getKind() != TaskKind::Compute)
      continue;
    StringRef name = *op.getKernel();
    auto it = kernels.find(name);
    if (it == kernels.end())
      return op.emitOpError()
             << "runs @" << name << ", which is no kernel of this graph";
    KernelOp kernel = it->second;
    auto blockGraph = cast<tb::GraphOp>(kernel.getBlockGraph());
    ArrayRef<int64_t> grid = blockGraph.getGrid();
    ArrayRef<int64_t> block =
        op.getBlock() ? *op.getBlock() : ArrayRef<int64_t>();
    bool inGrid = block.size() == grid.size();
    for (size_t d = 0; inGrid && d < grid.size(); ++d)
      inGrid = block[d] >= 0 && block[d] < grid[d];
    if (!inGrid) {
      InFlightDiagnostic diag = op.emitOpError() << "runs block [";
      llvm::interleaveComma(block, diag);
      diag << "], which is not in the grid [";
      llvm::interleaveComma(grid, diag);
      return diag << "] of @" << name;
    }
    auto [previous, inserted] = owner.try_emplace(
        std::make_pair(name.str(), SmallVector<int64_t>(block)), index);
    if (!inserted)
      return op.emitOpError() << "runs the same block of @" << name
                              << " as task " << previous->second;
    ++counts[name];
    if (op.getReads()->size() != kernel.getInputs().size() ||
        op.getWrites()->size() != kernel.getOutputs().size())
      return op.emitOpError()
             << "has " << op.getReads()->size() << " read and "
             << op.getWrites()->size() << " written boxes but @" << name
             << " binds " << kernel.getInputs().size() << " inputs and "
             << kernel.getOutputs().size() << " outputs";
    for (auto [i, box, buffer] : llvm::enumerate(
             op.getReads()->getAsRange<BoxAttr>(), kernel.getInputs()))
      if (failed(verifyBox(op, "read", i, box, buffer)))
        return failure();
    for (auto [i, box, buffer] : llvm::enumerate(
             op.getWrites()->getAsRange<BoxAttr>(), kernel.getOutputs()))
      if (failed(verifyBox(op, "written", i, box, buffer)))
        return failure();
  }
  for (auto &[name, kernel] : kernels) {
    int64_t blocks =
        getNumElements(cast<tb::GraphOp>(kernel.getBlockGraph()).getGrid());
    int64_t count = counts.lookup(name);
    if (count != blocks)
      return kernel.emitOpError() << "has " << blocks << " blocks but " << count
                                  << " task(s) run them";
  }
  return success();
}

/// Checks the queues: valid workers and tasks, every AOT task in exactly
/// one queue and no JIT task in any.
LogicalResult verifyQueues(GraphOp graph, ArrayRef<TaskOp> tasks,
                           ArrayRef<QueueOp> queues) {
  if (queues.empty())
    return success();
  if (!graph.getWorkers())
    return graph.emitOpError() << "has queues but no worker count";
  int64_t workers = static_cast<int64_t>(*graph.getWorkers());
  llvm::SmallDenseSet<int64_t> seenWorkers;
  SmallVector<int> queued(tasks.size(), 0);
  for (QueueOp queue : queues) {
    QueueOp op = queue;
    int64_t worker = static_cast<int64_t>(op.getWorker());
    if (worker < 0 || worker >= workers)
      return op.emitOpError() << "is for worker " << worker
                              << " of a graph with " << workers << " workers";
    if (!seenWorkers.insert(worker).second)
      return op.emitOpError() << "is a second queue of worker " << worker;
    for (int64_t task : op.getTasks()) {
      if (task < 0 || task >= static_cast<int64_t>(tasks.size()))
        return op.emitOpError()
               << "names task " << task << " of " << tasks.size();
      ++queued[task];
    }
  }
  for (auto [index, task] : llvm::enumerate(tasks)) {
    TaskOp op = task;
    bool aot = op.getLaunch() == LaunchMode::AOT;
    if (aot && queued[index] != 1)
      return op.emitOpError() << "is ahead-of-time but in " << queued[index]
                              << " queues; every AOT task is in exactly one";
    if (!aot && queued[index] != 0)
      return op.emitOpError() << "is just-in-time but queued";
  }
  return success();
}

} // namespace

LogicalResult GraphOp::verifyRegions() {
  // A persistent kernel runs one block per worker; the bound keeps the
  // per-worker tables of the schedule and the simulator small.
  constexpr int64_t kMaxWorkers = 65536;
  if (std::optional<uint64_t> count = getWorkers()) {
    int64_t workers = static_cast<int64_t>(*count);
    if (workers <= 0 || workers > kMaxWorkers)
      return emitOpError() << "has " << workers
                           << " workers; a worker count is between 1 and "
                           << kMaxWorkers;
  }
  SmallVector<TaskOp> tasks;
  SmallVector<EventOp> events;
  SmallVector<QueueOp> queues;
  llvm::SmallDenseSet<std::pair<int, int64_t>> indices;
  for (Operation &op : getBodyBlock()) {
    if (auto task = dyn_cast<TaskOp>(op)) {
      tasks.push_back(task);
    } else if (auto event = dyn_cast<EventOp>(op)) {
      events.push_back(event);
    } else if (auto queue = dyn_cast<QueueOp>(op)) {
      queues.push_back(queue);
    } else if (auto buffer = dyn_cast<BufferOp>(op)) {
      if (buffer.getIndex() &&
          !indices
               .insert({static_cast<int>(buffer.getRole()),
                        static_cast<int64_t>(*buffer.getIndex())})
               .second)
        return buffer.emitOpError()
               << "is a second " << stringifyBufferRole(buffer.getRole())
               << " #" << static_cast<int64_t>(*buffer.getIndex());
    } else if (!isa<ViewOp, ConcatOp, KernelOp>(op)) {
      return op.emitOpError() << "is not allowed in a task graph: only "
                                 "tg.buffer, tg.view, tg.concat, tg.kernel, "
                                 "tg.event, tg.task and tg.queue";
    }
  }

  llvm::DenseMap<Value, int64_t> notifications;
  for (TaskOp task : tasks)
    for (Value event : task.getTriggered())
      ++notifications[event];
  for (EventOp event : events) {
    int64_t expected = static_cast<int64_t>(event.getTriggers());
    int64_t actual = notifications.lookup(event.getEvent());
    if (expected != actual)
      return event.emitOpError() << "expects " << expected << " trigger(s) but "
                                 << actual << " task(s) trigger it";
  }

  if (failed(verifyTasksCoverKernels(*this, tasks)) ||
      failed(verifyAcyclic(tasks)) ||
      failed(verifyQueues(*this, tasks, queues)))
    return failure();
  if (getLinearized())
    return verifyLinearized(tasks, events);
  return success();
}

#define GET_OP_CLASSES
#include "mirage/Dialect/Task/IR/TaskOps.cpp.inc"
