//===- Schedule.cpp - Static per-worker schedules and their simulation ----===//
//
// Part of the Mirage MLIR project. See TaskGraph.h.
//
//===----------------------------------------------------------------------===//

#include "mirage/TaskGraph/TaskGraph.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <deque>
#include <limits>
#include <queue>

using namespace mirage;
using namespace mirage::taskgraph;
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
    // JIT tasks run wherever a worker is idle; they are placed here only to
    // estimate when their events activate.
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

  std::deque<uint32_t> jitReady;
  for (auto [index, task] : llvm::enumerate(graph.tasks))
    if (task.launch == LaunchMode::JIT && pending[index] == 0)
      jitReady.push_back(index);

  struct Worker {
    size_t head = 0;
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
  auto dispatch = [&] {
    for (unsigned w = 0; w < workers; ++w) {
      Worker &worker = state[w];
      if (worker.running)
        continue;
      if (!jitReady.empty()) {
        start(w, jitReady.front());
        jitReady.pop_front();
      } else if (worker.head < queues[w].size() &&
                 pending[queues[w][worker.head]] == 0) {
        start(w, queues[w][worker.head++]);
      }
    }
  };

  dispatch();
  while (!completions.empty()) {
    auto [time, w] = completions.top();
    completions.pop();
    now = time;
    Worker &worker = state[w];
    uint32_t task = *worker.running;
    worker.running.reset();
    worker.freeSince = now;
    ++report.tasksRun;
    for (uint32_t event : graph.tasks[task].triggers) {
      if (++arrived[event] != needed[event])
        continue;
      for (uint32_t next : waiting[event])
        if (--pending[next] == 0 && graph.tasks[next].launch == LaunchMode::JIT)
          jitReady.push_back(next);
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
      if (state[w].head >= queues[w].size())
        continue;
      uint32_t task = queues[w][state[w].head];
      for (uint32_t event : graph.tasks[task].waits)
        if (arrived[event] < needed[event]) {
          report.deadlock =
              Deadlock{task, event, w, arrived[event], needed[event]};
          break;
        }
    }
    if (!report.deadlock) {
      // A task in no queue and not JIT, or a JIT task whose events never
      // activate: report the first unfinished one.
      std::vector<bool> done(taskCount, false);
      for (unsigned w = 0; w < workers; ++w)
        for (size_t i = 0; i < state[w].head; ++i)
          done[queues[w][i]] = true;
      for (uint32_t task = 0; task < taskCount && !report.deadlock; ++task) {
        if (done[task] || graph.tasks[task].launch == LaunchMode::AOT)
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
