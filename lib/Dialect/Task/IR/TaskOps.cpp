//===- TaskOps.cpp - tg dialect and ops -----------------------------------===//
//
// Part of the Mirage MLIR project.
//
//===----------------------------------------------------------------------===//

#include "mirage/Dialect/Task/IR/Task.h"

#include "mirage/Semantics/OpSemantics.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mirage;
using namespace mirage::tg;

#include "mirage/Dialect/Task/IR/TaskOpsDialect.cpp.inc"
#include "mirage/Dialect/Task/IR/TaskOpsEnums.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "mirage/Dialect/Task/IR/TaskOpsTypes.cpp.inc"

void TaskDialect::initialize() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "mirage/Dialect/Task/IR/TaskOpsTypes.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "mirage/Dialect/Task/IR/TaskOps.cpp.inc"
      >();
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
  bool runsOperator = getKind() != TaskKind::Empty;
  if (runsOperator && !getOp())
    return emitOpError() << "a " << stringifyTaskKind(getKind())
                         << " task must name the operator it runs";
  if (!runsOperator && (getOp() || getTileOffsets()))
    return emitOpError()
           << "an empty task runs no operator and owns no tile";
  if (getTileOffsets().has_value() != getTileSizes().has_value())
    return emitOpError() << "tile offsets and sizes go together";
  if (getTileOffsets()) {
    ArrayRef<int64_t> offsets = *getTileOffsets(), sizes = *getTileSizes();
    if (offsets.size() != sizes.size())
      return emitOpError() << "tile has " << offsets.size()
                           << " offsets but " << sizes.size() << " sizes";
    for (auto [index, offset, size] : llvm::enumerate(offsets, sizes))
      if (offset < 0 || size <= 0)
        return emitOpError()
               << "tile dim " << index << " has offset " << offset
               << " and size " << size
               << "; offsets must be non-negative and sizes positive";
  }
  if (Value event = findDuplicate(getWaits()))
    return emitOpError() << "waits twice on the same event";
  if (Value event = findDuplicate(getTriggered()))
    return emitOpError() << "triggers the same event twice";
  for (Value event : getWaits())
    if (llvm::is_contained(getTriggered(), event))
      return emitOpError() << "waits on and triggers the same event";
  return success();
}

LogicalResult TaskOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  if (!getOp())
    return success();
  Operation *target =
      symbolTable.lookupNearestSymbolFrom(getOperation(), *getOp());
  if (!target)
    return emitOpError() << "refers to " << *getOp()
                         << ", which is not defined";
  auto function = dyn_cast<FunctionOpInterface>(target);
  if (!function || !getTileOffsets() || function.getNumResults() == 0)
    return success();
  // The tile must lie within the operator's first result.
  auto result = dyn_cast<RankedTensorType>(function.getResultTypes()[0]);
  if (!result)
    return success();
  ArrayRef<int64_t> offsets = *getTileOffsets(), sizes = *getTileSizes();
  if (offsets.size() != static_cast<size_t>(result.getRank()))
    return emitOpError() << "tile has rank " << offsets.size() << " but "
                         << *getOp() << " returns " << result;
  for (auto [index, offset, size] : llvm::enumerate(offsets, sizes))
    if (offset + size > result.getDimSize(index))
      return emitOpError() << "tile dim " << index << " covers [" << offset
                           << ", " << offset + size << ") beyond the size "
                           << result.getDimSize(index) << " of " << *getOp()
                           << "'s result";
  return success();
}

//===----------------------------------------------------------------------===//
// GraphOp
//===----------------------------------------------------------------------===//

RegionKind GraphOp::getRegionKind(unsigned) { return RegionKind::Graph; }

/// Reports a cycle task -> triggered event -> waiting task -> ... if any.
static LogicalResult verifyAcyclic(MutableArrayRef<TaskOp> tasks) {
  llvm::DenseMap<Value, SmallVector<unsigned>> waiters;
  for (auto [index, task] : llvm::enumerate(tasks)) {
    for (Value event : task.getWaits())
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
      ValueRange triggered = tasks[frame.task].getTriggered();
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
      if (marks[successor] == Mark::Active)
        return tasks[successor].emitOpError()
               << "is on a cycle of the task graph: it transitively waits "
                  "for itself";
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
static LogicalResult verifyLinearized(MutableArrayRef<TaskOp> tasks,
                                      MutableArrayRef<EventOp> events) {
  llvm::DenseMap<Value, std::pair<int64_t, int64_t>> range;
  for (auto [index, task] : llvm::enumerate(tasks)) {
    if (task.getWaits().size() != 1)
      return task.emitOpError()
             << "waits on " << task.getWaits().size()
             << " events; in a linearized task graph every task waits on "
                "exactly one";
    if (task.getTriggered().size() > 1)
      return task.emitOpError()
             << "triggers " << task.getTriggered().size()
             << " events; in a linearized task graph a task triggers at most "
                "one";
    auto [it, inserted] = range.try_emplace(
        task.getWaits()[0], std::make_pair(int64_t(index), int64_t(index)));
    if (!inserted) {
      if (it->second.second != static_cast<int64_t>(index) - 1)
        return task.emitOpError()
               << "is not contiguous with the other tasks waiting on its "
                  "event; a linearized task graph orders them consecutively";
      it->second.second = index;
    }
  }
  for (EventOp event : events) {
    auto it = range.find(event.getEvent());
    if (it == range.end()) {
      if (event.getFirstTask())
        return event.emitOpError() << "has a task range but no task waits on it";
      continue;
    }
    auto [first, last] = it->second;
    if (!event.getFirstTask())
      return event.emitOpError()
             << "is awaited by tasks [" << first << ", " << last
             << "] but has no task range";
    if (static_cast<int64_t>(*event.getFirstTask()) != first ||
        static_cast<int64_t>(*event.getLastTask()) != last)
      return event.emitOpError()
             << "has task range [" << static_cast<int64_t>(*event.getFirstTask())
             << ", " << static_cast<int64_t>(*event.getLastTask())
             << "] but the tasks waiting on it are [" << first << ", " << last
             << "]";
  }
  return success();
}

LogicalResult GraphOp::verifyRegions() {
  SmallVector<TaskOp> tasks;
  SmallVector<EventOp> events;
  for (Operation &op : getBodyBlock()) {
    if (auto task = dyn_cast<TaskOp>(op))
      tasks.push_back(task);
    else if (auto event = dyn_cast<EventOp>(op))
      events.push_back(event);
    else
      return op.emitOpError()
             << "is not allowed in a task graph: only tg.event and tg.task";
  }

  llvm::DenseMap<Value, int64_t> notifications;
  for (TaskOp task : tasks)
    for (Value event : task.getTriggered())
      ++notifications[event];
  for (EventOp event : events) {
    int64_t expected = static_cast<int64_t>(event.getTriggers());
    int64_t actual = notifications.lookup(event.getEvent());
    if (expected != actual)
      return event.emitOpError() << "expects " << expected
                                 << " trigger(s) but " << actual
                                 << " task(s) trigger it";
  }

  if (failed(verifyAcyclic(tasks)))
    return failure();
  if (getLinearized())
    return verifyLinearized(tasks, events);
  return success();
}

#define GET_OP_CLASSES
#include "mirage/Dialect/Task/IR/TaskOps.cpp.inc"
