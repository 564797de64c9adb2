//===- Passes.td - tg dialect passes -----------------------*- tablegen -*-===//
//
// Part of the Mirage MLIR project.
//
//===----------------------------------------------------------------------===//

#ifndef MIRAGE_DIALECT_TASK_TRANSFORMS_PASSES_TD
#define MIRAGE_DIALECT_TASK_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def TgFuseEvents : Pass<"tg-fuse-events", "::mirage::tg::GraphOp"> {
  let summary = "Fuse events with the same waiting or triggering tasks";
  let description = [{
    MPK's event fusion (Definitions 4.1 and 4.2), to a fixed point: events
    that the same tasks wait on merge into one triggered by all of their
    triggering tasks (successor-set fusion), then events that the same tasks
    trigger merge into one that all of their waiting tasks wait on
    (predecessor-set fusion). The result has the same dependencies with
    fewer events. Reports the events removed as a remark.
  }];
}

def TgNormalize : Pass<"tg-normalize", "::mirage::tg::GraphOp"> {
  let summary = "One awaited and at most one triggered event per task";
  let description = [{
    MPK's normalization (section 4.5): tasks that trigger several events
    trigger one new event instead, which empty tasks fan out to the old
    ones; tasks that wait on several wait on one new event that empty tasks
    join the old ones into (tasks with the same event sets share the empty
    tasks); tasks that wait on nothing wait on a start event. Reports what
    it added as a remark.
  }];
}

def TgLinearize : Pass<"tg-linearize", "::mirage::tg::GraphOp"> {
  let summary = "Order the tasks of a normalized graph for a persistent kernel";
  let description = [{
    MPK's linearization (Algorithm 1, bucketed by event, linear in tasks and
    events): reorders the tasks so that those waiting on one event are
    contiguous and each comes after the tasks it waits for, records each
    event's task range and marks the graph `linearized`. Fails on a graph
    that is not normalized or has a cycle, naming a task.
  }];
}

def TgLabelLaunch : Pass<"tg-label-launch", "::mirage::tg::GraphOp"> {
  let summary = "Mark tasks just-in-time or ahead-of-time";
  let description = [{
    MPK's JIT/AOT labels (section 4.8): tasks of `data_dependent` kernels
    are dispatched just in time, and so is everything downstream of them up
    to a global barrier (an event every other task is before or after);
    all other tasks are queued ahead of time.
  }];
}

def TgSchedule : Pass<"tg-schedule", "::mirage::tg::GraphOp"> {
  let summary = "Assign ahead-of-time tasks to per-worker queues";
  let description = [{
    A static schedule for a linearized graph: list scheduling on the speed
    model's per-task estimates, in linearized order, each AOT task to the
    worker where it can start first. Writes one `tg.queue` per worker and
    the graph's `workers`. Queue order is a topological order of the tasks,
    so workers that run their queues in order cannot deadlock.
  }];
  let options = [
    Option<"workers", "workers", "int64_t", /*default=*/"0",
           "Worker CTAs (0: the device's SMs times the workers an SM holds: "
           "as many as the largest task body's shared memory and threads "
           "allow, at most 4)">,
    Option<"device", "device", "std::string", /*default=*/"\"h100\"",
           "Device whose rates the estimates use (h100, h200)">,
  ];
}

def TgCheckSchedule : Pass<"tg-check-schedule", "::mirage::tg::GraphOp"> {
  let summary = "Simulate a scheduled graph and report its schedule";
  let description = [{
    Runs the runtime's rules on the speed model's estimates: each worker
    runs its queue in order, waiting at the head until the head's events
    are active; JIT tasks are claimed one at a time in the graph's order,
    each run by its claimer before the first task of its queue that comes
    later in that order (the mega-kernel's rule). A schedule that
    deadlocks is an error naming the task, the event and the triggers it
    received. Otherwise a remark reports the tasks (the empty ones
    normalization added among them) and events, the estimated makespan
    against the sum of one kernel launch per operator, the critical path and
    the idle time of the workers.
  }];
  let options = [
    Option<"device", "device", "std::string", /*default=*/"\"h100\"",
           "Device whose rates the estimates use (h100, h200)">,
  ];
}

#endif // MIRAGE_DIALECT_TASK_TRANSFORMS_PASSES_TD
