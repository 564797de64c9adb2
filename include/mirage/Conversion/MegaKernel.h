//===- MegaKernel.h - The mega-kernel's tables and arguments ----*- C++ -*-===//
//
// A scheduled, linearized task graph becomes one persistent kernel
// (`convert-tg-to-gpu`) that reads what to do from tables in device memory:
// the contract between the lowering, the bundle writer and the runtime.
// Every worker CTA runs its queue of tasks; for each it waits on the task's
// events, runs the task's body (its kernel's block graph for one block, on
// the buffers whose addresses the address table holds) and signals the
// events the task triggers. docs/MegaKernel.md has the design.
//
// The kernel's arguments, in order, each a bare pointer to device memory
// (sizes are fixed by the compiled graph):
//
//   0  addresses     memref<O x i64>       per entry of the operand table,
//                                          its buffer's device address (a
//                                          view: its storage's)
//   1  tasks         memref<T*12 x i32>    per task, TaskField order
//   2  queue starts  memref<W+1 x i32>     worker w runs queue[starts[w] ..
//                                          starts[w+1]); W+2 entries when
//                                          the graph has just-in-time
//                                          tasks: queue[starts[W] ..
//                                          starts[W+1]) lists them in the
//                                          graph's order
//   3  queues        memref<Q x i32>       task indices
//   4  needed        memref<E x i32>       per event, its trigger count
//   5  counters      memref<E x i64>       per event, notifications so far
//                                          (over all runs: never reset)
//   6  state         memref<10 x i64>      StateSlot order
//   7  trace         memref<T*5 x i64>     per task, TracePoint order, or
//                                          null: nothing is recorded
//   8  event lists   memref<L x i32>       the events tasks wait on and
//                                          signal past their first
//                                          (TaskField::MoreWaits)
//
// The operand table (per kernel, its buffers: inputs, then outputs) is not
// an argument: the runtime fills the addresses from it (the bundle's
// address_table), so that a task reaches its buffers in one load.
//
// The counters and the state persist from run to run: the runtime zeroes
// them once, and sets the deadline.
//
//===----------------------------------------------------------------------===//

#ifndef MIRAGE_CONVERSION_MEGAKERNEL_H
#define MIRAGE_CONVERSION_MEGAKERNEL_H

#include "mirage/Dialect/Task/IR/Task.h"
#include "mirage/Interpreter/TaskGraphProgram.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

namespace mirage::tb {
class GraphOp;
} // namespace mirage::tb

namespace mirage::megakernel {

/// The tg.graph attribute convert-tg-to-gpu leaves for the bundle writer: a
/// dictionary with `kernel` (the kernel's symbol, nested in its gpu.module),
/// `threads`, `dynamic_shared_bytes`, `bodies` (distinct block graphs) and
/// `tables`, which maps each table's name below to the private constant
/// memref.global of i32 holding it, and `dynamic_dispatch`.
constexpr llvm::StringLiteral kMegaKernelAttrName = "mirage.megakernel";
/// Whether the workers claim tasks from one shared counter in the graph's
/// order (the queues then only fix the worker count) rather than run their
/// queues.
constexpr llvm::StringLiteral kDynamicDispatchAttrName = "dynamic_dispatch";
constexpr llvm::StringLiteral kTaskTable = "tasks";
constexpr llvm::StringLiteral kQueueStartsTable = "queue_starts";
constexpr llvm::StringLiteral kQueuesTable = "queues";
constexpr llvm::StringLiteral kNeededTable = "needed";
constexpr llvm::StringLiteral kOperandsTable = "operands";
constexpr llvm::StringLiteral kEventListsTable = "event_lists";
/// Per task of the tables, the `tg.task` (its index in the graph) it runs:
/// the tables leave out the empty tasks whose events the lists carry. Read
/// by the CPU executor only.
constexpr llvm::StringLiteral kGraphTasksTable = "graph_tasks";

/// The fields of a task record.
enum TaskField : unsigned {
  /// The body (a distinct block graph) and the kernel whose block it runs.
  Body,
  Kernel,
  BlockX,
  BlockY,
  BlockZ,
  /// The events to wait on: how many, the first (-1 when none) and where
  /// the others start in the event-list table. The first is in the record
  /// because most tasks have one: reading it costs no dependent load. A
  /// wait is left out when it needs no counter: an event with no triggers,
  /// or (static dispatch) one whose triggering tasks all run earlier on
  /// this task's worker (a same-SM hand-off).
  Waits,
  Wait,
  MoreWaits,
  /// The events to signal, likewise; left out when no task waits on its
  /// counter.
  Triggers,
  Trigger,
  MoreTriggers,
  /// Where the task's kernel's buffers start in the address table (one
  /// entry per operand of each kernel).
  FirstOperand,
  kTaskFields
};

/// The words of the state buffer.
enum StateSlot : unsigned {
  /// Runs completed: a wait of run r needs counter >= (r + 1) * needed.
  Epoch,
  /// Workers done with the current run; the last one advances the epoch.
  Finished,
  /// Nonzero once a wait ran past the deadline; the rest describe it.
  Failed,
  FailedTask,
  FailedEvent,
  FailedCount,
  FailedTarget,
  FailedWorker,
  /// Nanoseconds a wait may take before the run is abandoned (0: no limit);
  /// set by the runtime.
  Deadline,
  /// Tasks claimed over all runs: with dynamic dispatch every task, with
  /// static queues the just-in-time tasks. Every worker's last claim of a
  /// run is past them, so run r's claims start at r * (claimable tasks +
  /// workers).
  NextTask,
  kStateSlots
};

/// What thread 0 records per task in the trace (%globaltimer, ns): when it
/// reached the task (before loading its record, issuing its preload and
/// waiting for its events), when it saw its events complete or gave up
/// (before the barrier that hands them to the CTA), when the body began, when
/// every thread had issued the body's writes (after the barrier, before the
/// signal's fence), and when lane 0's signals were issued (after its fence
/// and adds; the first warp's other lanes signal the task's other events).
/// The last run's times stay.
enum TracePoint : unsigned {
  WaitBegan,
  WaitEnded,
  BodyBegan,
  BodyEnded,
  Signalled,
  kTracePoints
};

/// The kernel's arguments (see the file comment).
enum Argument : unsigned {
  AddressesArg,
  TasksArg,
  QueueStartsArg,
  QueuesArg,
  NeededArg,
  CountersArg,
  StateArg,
  TraceArg,
  EventListsArg,
  kArguments
};

/// The tables of one task graph, and the bodies its kernels share.
struct Tables {
  llvm::SmallVector<int32_t> tasks, queueStarts, queues, needed, operands,
      eventLists;
  /// Per task of the table, its index among the graph's `tg.task`s.
  llvm::SmallVector<int32_t> graphTasks;
  /// Per body, a kernel whose block graph (and buffer types) it runs.
  llvm::SmallVector<tg::KernelOp> bodies;
  int64_t workers = 0;
  int64_t threads = 0;
  /// The just-in-time tasks, listed after the queues (the last span of
  /// queueStarts when there are any). With static dispatch, before each
  /// task of its queue a worker runs the just-in-time tasks it claims that
  /// come earlier in the graph's order, and after its queue all it can
  /// claim; dynamic dispatch claims them with the others.
  int64_t jitTasks = 0;
  /// Dependency edges by kind: waits that need a counter in device memory,
  /// and same-SM hand-offs that need none.
  unsigned counterWaits = 0, localWaits = 0;
  /// Empty tasks left out: their producers signal, or their consumers wait
  /// on, the events they forwarded.
  unsigned elidedTasks = 0;
  /// Dynamic dispatch: no worker knows its tasks ahead, so every wait goes
  /// through its counter.
  bool dynamic = false;
  /// Per body, the inputs (positions among its kernels' `ins`) that no
  /// kernel of the graph writes, in every kernel running the body: the
  /// program's weights and caches, which a task may prefetch before its
  /// events fire.
  llvm::SmallVector<llvm::SmallVector<unsigned>> readOnlyInputs;
};

/// The bytes one block of a block graph reads of one input over all its
/// iterations, as `runs` runs of `runBytes` contiguous bytes in the
/// row-major buffer, in row-major order: the region the mega-kernel
/// prefetches into L2 ahead of the task.
struct PrefetchRegion {
  /// The byte offset of block 0's first run, and how much it grows per
  /// unit of each grid coordinate.
  int64_t baseBytes = 0;
  llvm::SmallVector<int64_t, 3> bytesPerBlock;
  /// Run `r` is the mixed-radix number with digits of `runCounts` (the
  /// outermost dim first); digit `d` moves the run by `runStrides[d]`
  /// bytes.
  llvm::SmallVector<int64_t> runCounts, runStrides;
  int64_t runs = 0, runBytes = 0;

  /// The byte offset of run `run` of block `block`.
  int64_t getRunStart(llvm::ArrayRef<int64_t> block, int64_t run) const;
};

/// The most bytes a task may prefetch and the most tasks ahead
/// (convert-tg-to-gpu prefetch-bytes, prefetch-ahead), and the error for
/// values outside them, given to `where`.
constexpr int64_t kMaxPrefetchBytes = int64_t(1) << 30;
constexpr unsigned kMaxPrefetchAhead = 1024;
std::optional<std::string> checkPrefetchOptions(llvm::StringRef where,
                                                int64_t bytes, unsigned ahead);

/// The region of input `argument` of `graph` that one block reads, cut to
/// its first `maxBytes` (whole runs, or part of the first); std::nullopt
/// when the graph does not iterate over that input.
std::optional<PrefetchRegion>
getPrefetchRegion(tb::GraphOp graph, unsigned argument, int64_t maxBytes);

/// The tables of a linearized, scheduled graph (its ahead-of-time tasks in
/// the workers' queues, the just-in-time ones in none), for static or
/// `dynamic` dispatch; a diagnostic on `graph` when it is not one the kernel
/// can run.
mlir::FailureOr<Tables> buildTables(tg::GraphOp graph, bool dynamic = false);

/// The dispatch that the tables convert-tg-to-gpu left beside `graph`
/// describe, for the CPU executor (TaskGraphProgram); a diagnostic on
/// `graph` when they are missing or malformed.
mlir::FailureOr<WorkerQueues> readWorkerQueues(tg::GraphOp graph);

} // namespace mirage::megakernel

#endif // MIRAGE_CONVERSION_MEGAKERNEL_H
