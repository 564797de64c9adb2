//===- Schedule.cpp - Static per-worker schedules and their simulation ----===//
//
// Part of the Mirage MLIR project. See TaskGraph.h.
//
//===----------------------------------------------------------------------===//

#include "mirage/TaskGraph/TaskGraph.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <limits>
#include <queue>

using namespace mirage;
using namespace mirage::taskgraph;
using llvm::ArrayRef;
using llvm::SmallVector;

void taskgraph::scheduleAheadOfTime(TaskGraph &graph, unsigned workers,
                                    double emptyMicros) {
  // In linearized order every task comes after the tasks it waits for, so
  // their finish times are known when it is placed.
  std::vector<double> eventReady(graph.numEvents, 0.0);
  std::vector<double> workerFree(workers, 0.0);
  graph.queues.assign(workers, {});
  for (uint32_t index = 0; index < graph.tasks.size(); ++index) {
    const Task &task = graph.tasks[index];
    double ready = 0;
    for (uint32_t event : task.waits)
      ready = std::max(ready, eventReady[event]);
    unsigned best = 0;
    double bestStart = std::numeric_limits<double>::infinity();
    for (unsigned w = 0; w < workers; ++w) {
      double start = std::max(ready, workerFree[w]);
      if (start < bestStart) {
        bestStart = start;
        best = w;
      }
    }
    double finish = bestStart + getTaskMicros(graph, index, emptyMicros);
    // JIT tasks run on whichever worker claims them; they are placed here
    // only to estimate when their events activate.
    workerFree[best] = finish;
    if (task.launch == LaunchMode::AOT)
      graph.queues[best].push_back(index);
    for (uint32_t event : task.triggers)
      eventReady[event] = std::max(eventReady[event], finish);
  }
}

SimulationReport taskgraph::simulate(const TaskGraph &graph, unsigned workers,
                                     double emptyMicros) {
  SimulationReport report;
  size_t taskCount = graph.tasks.size();
  std::vector<uint32_t> needed = graph.getTriggerCounts();
  std::vector<uint32_t> arrived(graph.numEvents, 0);
  std::vector<SmallVector<uint32_t, 2>> waiting = graph.getWaitingTasks();
  // Per task, how many of its events are not active yet.
  std::vector<uint32_t> pending(taskCount, 0);
  for (auto [index, task] : llvm::enumerate(graph.tasks))
    for (uint32_t event : task.waits)
      pending[index] += needed[event] > 0;

  // The just-in-time tasks in the graph's order, which workers claim one
  // at a time as the mega-kernel does: a worker runs the one it holds
  // before the head of its queue when it comes earlier (or the queue is
  // done), then claims the next.
  std::vector<uint32_t> jit;
  for (auto [index, task] : llvm::enumerate(graph.tasks))
    if (task.launch == LaunchMode::JIT)
      jit.push_back(index);
  size_t nextClaim = 0;
  std::vector<bool> finished(taskCount, false);

  struct Worker {
    WorkerCursor cursor;
    std::optional<uint32_t> running;
    double busyUntil = 0, idle = 0, freeSince = 0;
  };
  std::vector<Worker> state(workers);
  std::vector<SmallVector<uint32_t, 0>> queues(workers);
  for (unsigned w = 0; w < workers && w < graph.queues.size(); ++w)
    queues[w].assign(graph.queues[w].begin(), graph.queues[w].end());

  // Completions ordered by time, then worker.
  using Completion = std::pair<double, unsigned>;
  std::priority_queue<Completion, std::vector<Completion>,
                      std::greater<Completion>>
      completions;
  double now = 0;
  auto start = [&](unsigned w, uint32_t task) {
    Worker &worker = state[w];
    worker.idle += now - worker.freeSince;
    worker.running = task;
    worker.busyUntil = now + getTaskMicros(graph, task, emptyMicros);
    completions.push({worker.busyUntil, w});
  };
  // The task a worker runs next (claiming first if it holds none), or none
  // once it is done.
  auto nextTask = [&](Worker &worker,
                      ArrayRef<uint32_t> queue) -> std::optional<uint32_t> {
    if (!worker.cursor.held)
      worker.cursor.held = std::min(nextClaim++, jit.size());
    return worker.cursor.next(jit, queue);
  };
  auto dispatch = [&] {
    for (unsigned w = 0; w < workers; ++w) {
      Worker &worker = state[w];
      if (worker.running)
        continue;
      std::optional<uint32_t> task = nextTask(worker, queues[w]);
      if (!task || pending[*task] != 0)
        continue;
      worker.cursor.advance(jit, *task);
      start(w, *task);
    }
  };

  dispatch();
  while (!completions.empty()) {
    auto [time, w] = completions.top();
    completions.pop();
    now = time;
    Worker &worker = state[w];
    uint32_t task = *worker.running;
    finished[task] = true;
    worker.running.reset();
    worker.freeSince = now;
    ++report.tasksRun;
    for (uint32_t event : graph.tasks[task].triggers) {
      if (++arrived[event] != needed[event])
        continue;
      for (uint32_t next : waiting[event])
        --pending[next];
    }
    // Workers finishing at the same instant all complete before dispatch.
    if (!completions.empty() && completions.top().first == now)
      continue;
    dispatch();
  }
  report.makespanMicros = now;
  for (Worker &worker : state)
    report.idleMicros.push_back(worker.idle + (now - worker.freeSince));

  if (report.tasksRun < taskCount) {
    for (unsigned w = 0; w < workers && !report.deadlock; ++w) {
      std::optional<uint32_t> next = nextTask(state[w], queues[w]);
      if (!next)
        continue;
      uint32_t task = *next;
      for (uint32_t event : graph.tasks[task].waits)
        if (arrived[event] < needed[event]) {
          report.deadlock =
              Deadlock{task, event, w, arrived[event], needed[event]};
          break;
        }
    }
    if (!report.deadlock) {
      // A task in no queue and not JIT: report the first unfinished one.
      for (uint32_t task = 0; task < taskCount && !report.deadlock; ++task) {
        if (finished[task])
          continue;
        for (uint32_t event : graph.tasks[task].waits)
          if (arrived[event] < needed[event]) {
            report.deadlock =
                Deadlock{task, event, workers, arrived[event], needed[event]};
            break;
          }
      }
    }
  }

  // The critical path, in an order where every task follows those it
  // waits for (the linearized order).
  std::vector<double> eventReady(graph.numEvents, 0.0);
  std::vector<uint32_t> eventDepth(graph.numEvents, 0);
  for (uint32_t index = 0; index < taskCount; ++index) {
    const Task &task = graph.tasks[index];
    double ready = 0;
    uint32_t depth = 0;
    for (uint32_t event : task.waits)
      if (eventReady[event] >= ready) {
        ready = eventReady[event];
        depth = eventDepth[event];
      }
    double finish = ready + getTaskMicros(graph, index, emptyMicros);
    ++depth;
    for (uint32_t event : task.triggers)
      if (finish >= eventReady[event]) {
        eventReady[event] = finish;
        eventDepth[event] = depth;
      }
    if (finish >= report.criticalPathMicros) {
      report.criticalPathMicros = finish;
      report.criticalPathTasks = depth;
    }
  }
  return report;
}
