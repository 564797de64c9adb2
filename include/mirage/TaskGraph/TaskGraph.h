//===- TaskGraph.h - SM-level task graphs (MPK) -----------------*- C++ -*-===//
//
// The compact form of a task graph (MPK's tGraph) and the compiler's
// algorithms on it: dependency analysis over the regions tasks read and
// write, event fusion, normalization, linearization, JIT/AOT labels, a
// static per-worker schedule and a simulator of the runtime's rules. Plain
// C++ on LLVMSupport: the `tg` dialect is the interchange at pass
// boundaries (docs/TaskGraph.md), these structures are what the passes work
// on, so that a 36-layer model's tens of thousands of tasks build in
// seconds.
//
// A task graph is bipartite: tasks wait on events and trigger events. An
// event is activated once every task that triggers it has finished; an
// event no task triggers is active from the start. A task runs once every
// event it waits on is active.
//
//===----------------------------------------------------------------------===//

#ifndef MIRAGE_TASKGRAPH_TASKGRAPH_H
#define MIRAGE_TASKGRAPH_TASKGRAPH_H

#include "mirage/Semantics/OpSemantics.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace mirage::taskgraph {

/// A hyper-rectangle of a buffer: per dim, an offset and a size.
struct Box {
  Shape offsets, sizes;

  bool overlaps(const Box &other) const;
  bool contains(const Box &other) const;
  bool operator==(const Box &other) const {
    return offsets == other.offsets && sizes == other.sizes;
  }
  std::string str() const;
};

/// For test failure messages.
inline void PrintTo(const Box &box, std::ostream *os) { *os << box.str(); }

/// A buffer in device memory: a program input or output, an intermediate,
/// a view that reinterprets another buffer's elements (row-major, the
/// same element count) with another shape, or a concatenation of buffers
/// along a dim, which only tasks' reads name (its parts hold its elements).
struct Buffer {
  Shape shape;
  /// Views: the buffer viewed; -1 for a buffer with its own storage.
  int32_t base = -1;
  std::string name;
  /// Concatenations: the buffers joined along `concatDim`, in order.
  std::vector<uint32_t> parts;
  int64_t concatDim = 0;
};

/// A region of a buffer a task reads or writes.
struct Access {
  uint32_t buffer;
  Box box;
};

/// What a task runs: one block of a kernel, or nothing (a task that only
/// joins or forks events, added by normalization).
enum class TaskKind : uint8_t { Compute, Empty };

/// When a task is dispatched: ahead of time to a fixed worker's queue, or
/// just in time to an idle worker once its events are active.
enum class LaunchMode : uint8_t { AOT, JIT };

struct Task {
  TaskKind kind = TaskKind::Empty;
  /// Compute tasks: the kernel (an index into TaskGraph::kernels) and the
  /// block of its grid the task runs.
  int32_t kernel = -1;
  Shape block;
  llvm::SmallVector<Access, 4> reads, writes;
  llvm::SmallVector<uint32_t, 1> waits, triggers;
  LaunchMode launch = LaunchMode::AOT;
};

/// What the graph knows of a kernel: a name for reports, whether its time
/// depends on data (its tasks are dispatched just in time), and its blocks'
/// estimated time.
struct Kernel {
  std::string name;
  bool dataDependent = false;
  double taskMicros = 0;
  int64_t blocks = 0;
};

struct TaskGraph {
  std::vector<Buffer> buffers;
  std::vector<Kernel> kernels;
  std::vector<Task> tasks;
  uint32_t numEvents = 0;
  /// Linearized graphs: per event, the index range [first, last] of the
  /// tasks that wait on it (empty where none does).
  std::vector<std::optional<std::pair<uint32_t, uint32_t>>> eventTasks;
  /// Scheduled graphs: per worker, its ahead-of-time tasks in order.
  std::vector<std::vector<uint32_t>> queues;

  uint32_t addEvent() { return numEvents++; }
  /// Per event, how many tasks trigger it.
  std::vector<uint32_t> getTriggerCounts() const;
  /// Per event, the tasks that trigger it and those that wait on it.
  std::vector<llvm::SmallVector<uint32_t, 2>> getTriggeringTasks() const;
  std::vector<llvm::SmallVector<uint32_t, 2>> getWaitingTasks() const;
  /// The buffer holding `buffer`'s elements (itself unless a view; a
  /// concatenation's elements are in its parts: getStorageAccesses).
  uint32_t getStorage(uint32_t buffer) const;
  /// The accesses of storage buffers that hold exactly the elements of an
  /// access: a box per part of a concatenation it covers, several boxes
  /// where a view's box is not one run of the storage (the covering box
  /// where it is more than 65536 runs).
  llvm::SmallVector<Access, 2> getStorageAccesses(const Access &access) const;
  /// An access of a concatenation cut at its parts' bounds: a box per part
  /// it covers, in that part's coordinates.
  llvm::SmallVector<Access, 2> getPartAccesses(const Access &access) const;
  /// A short description of a task, for diagnostics: "task 12 (matmul,
  /// block [3])".
  std::string describeTask(uint32_t task) const;
};

//===----------------------------------------------------------------------===//
// The compiler's passes (MPK section 4)
//===----------------------------------------------------------------------===//

/// Dependency analysis (section 4.3) on a graph whose tasks have no events
/// yet: for every producer and consumer whose written and read regions of
/// a buffer overlap, the consumer waits for the producer; regions no task
/// writes (program inputs: weights, caches) need nothing. An interval index
/// per buffer finds the overlaps without trying all pairs. `pairwise` adds
/// one event per producer/consumer pair (the paper's stage b); otherwise
/// one event per consumer triggered by all its producers, which is what
/// successor-set fusion makes of the pairwise events. Fails when two tasks
/// write one element, naming both and the element.
llvm::Error addDependencies(TaskGraph &graph, bool pairwise);

/// Event fusion (Definitions 4.1 and 4.2) to a fixed point: events with the
/// same waiting tasks merge (successor-set fusion), then events with the
/// same triggering tasks (predecessor-set fusion), until neither applies.
/// Returns the number of events removed.
unsigned fuseEvents(TaskGraph &graph);

/// What normalization added.
struct NormalizationStats {
  unsigned emptyTasks = 0, events = 0;
};

/// Normalization (section 4.5): afterwards every task waits on exactly one
/// event and triggers at most one. Tasks that trigger several events
/// trigger one new event instead, which empty tasks fan out to the old
/// ones; tasks that wait on several wait on one new event that empty tasks
/// join the old ones into. Tasks with the same sets share the empty tasks.
/// Tasks that wait on nothing wait on a start event.
NormalizationStats normalize(TaskGraph &graph);

/// Linearization (Algorithm 1, bucketed by event): reorders the tasks so
/// that those waiting on one event are contiguous and every task comes
/// after the tasks its event waits for, and records each event's task
/// range. Needs a normalized graph; fails on a cycle, naming a task on it.
llvm::Error linearize(TaskGraph &graph);

/// JIT/AOT labels (section 4.8): tasks of data-dependent kernels are JIT,
/// and so is everything downstream of them up to a global barrier (an
/// event every task not after it must trigger, transitively); all other
/// tasks are AOT. Returns the number of JIT tasks.
unsigned labelLaunchModes(TaskGraph &graph);

/// The estimated time of a task: its kernel's per-task estimate, or
/// `emptyMicros` for an empty task.
double getTaskMicros(const TaskGraph &graph, uint32_t task, double emptyMicros);

/// A static schedule: the AOT tasks of a linearized graph assigned to
/// per-worker queues by list scheduling on the estimates, in linearized
/// order, each to the worker where it can start first (JIT tasks stay out
/// of the queues). Queue order is a topological order, so workers that run
/// their queues in order cannot deadlock.
void scheduleAheadOfTime(TaskGraph &graph, unsigned workers,
                         double emptyMicros);

/// Where a mega-kernel worker is in its dispatch (docs/MegaKernel.md): the
/// head of its queue and the just-in-time task it has claimed. It runs the
/// claimed task before the head when that comes earlier in the graph's
/// order (or its queue is done), then claims another; tasks are graph task
/// indices, `jit` the just-in-time ones in the graph's order.
struct WorkerCursor {
  size_t head = 0;
  /// An index into `jit` (its size once none is left); none until the
  /// worker claims.
  std::optional<size_t> held;

  /// The task the worker runs next, or none once it is done.
  std::optional<uint32_t> next(llvm::ArrayRef<uint32_t> jit,
                               llvm::ArrayRef<uint32_t> queue) const {
    bool queueDone = head == queue.size();
    if (held && *held < jit.size() && (queueDone || jit[*held] < queue[head]))
      return jit[*held];
    if (queueDone)
      return std::nullopt;
    return queue[head];
  }
  /// Records that the worker ran `task`, which next() gave: a claimed task
  /// leaves it holding none (it claims again), a queued one moves the head.
  void advance(llvm::ArrayRef<uint32_t> jit, uint32_t task) {
    if (held && *held < jit.size() && jit[*held] == task)
      held.reset();
    else
      ++head;
  }
};

/// A task that waits forever in a simulation: the head of its worker's
/// queue, its event and the triggers that arrived.
struct Deadlock {
  uint32_t task;
  uint32_t event;
  uint32_t worker;
  uint32_t triggered, needed;
};

/// What simulating the runtime's rules on the estimates gives.
struct SimulationReport {
  std::optional<Deadlock> deadlock;
  double makespanMicros = 0;
  /// Tasks run before the end (or the deadlock).
  uint32_t tasksRun = 0;
  /// The longest chain of dependent tasks, by estimate.
  double criticalPathMicros = 0;
  uint32_t criticalPathTasks = 0;
  /// Per worker, the time it spent without a task before the makespan.
  std::vector<double> idleMicros;
};

/// Simulates a scheduled graph: each worker runs its AOT queue in order,
/// waiting at the head until the head's events are active; JIT tasks are
/// claimed one at a time in the graph's order, and a worker runs the one it
/// holds before its queue's head when it comes earlier in that order (or
/// the queue is done), as the mega-kernel does. Reports a deadlock instead
/// of hanging.
SimulationReport simulate(const TaskGraph &graph, unsigned workers,
                          double emptyMicros);

/// Checks the normalized, linearized form: one awaited and at most one
/// triggered event per task, waiters of an event contiguous and recorded.
llvm::Error verifyLinearized(const TaskGraph &graph);

} // namespace mirage::taskgraph

#endif // MIRAGE_TASKGRAPH_TASKGRAPH_H
