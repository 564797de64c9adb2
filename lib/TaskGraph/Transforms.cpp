//===- Transforms.cpp - Event fusion, normalization, linearization --------===//
//
// Part of the Mirage MLIR project. See TaskGraph.h.
//
//===----------------------------------------------------------------------===//

#include "mirage/TaskGraph/TaskGraph.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <deque>
#include <map>

using namespace mirage;
using namespace mirage::taskgraph;
using llvm::ArrayRef;
using llvm::SmallVector;

namespace {

using TaskSet = std::vector<uint32_t>;

void sortUnique(TaskSet &set) {
  llvm::sort(set);
  set.erase(std::unique(set.begin(), set.end()), set.end());
}

/// Events as explicit sets of triggering (in) and waiting (out) tasks;
/// `merged[e]` is false once e has been folded into another event.
struct EventSets {
  std::vector<TaskSet> in, out;
  std::vector<bool> alive;

  explicit EventSets(const TaskGraph &graph)
      : in(graph.numEvents), out(graph.numEvents),
        alive(graph.numEvents, true) {
    for (auto [index, task] : llvm::enumerate(graph.tasks)) {
      for (uint32_t event : task.triggers)
        in[event].push_back(index);
      for (uint32_t event : task.waits)
        out[event].push_back(index);
    }
    for (uint32_t e = 0; e < in.size(); ++e) {
      sortUnique(in[e]);
      sortUnique(out[e]);
    }
  }

  /// Merges events whose `key` sets are equal and non-empty (or, with
  /// `emptyKeys`, also empty), uniting their other sets. Returns the number
  /// of events merged away.
  unsigned mergeBy(std::vector<TaskSet> &key, std::vector<TaskSet> &other,
                   bool emptyKeys) {
    std::map<TaskSet, uint32_t> first;
    unsigned merged = 0;
    for (uint32_t e = 0; e < key.size(); ++e) {
      if (!alive[e] || (key[e].empty() && !emptyKeys))
        continue;
      auto [it, inserted] = first.try_emplace(key[e], e);
      if (inserted)
        continue;
      uint32_t into = it->second;
      other[into].insert(other[into].end(), other[e].begin(), other[e].end());
      sortUnique(other[into]);
      alive[e] = false;
      ++merged;
    }
    return merged;
  }

  /// Writes the surviving events back into the tasks, renumbered in order.
  void apply(TaskGraph &graph) {
    std::vector<uint32_t> renumber(alive.size(), 0);
    uint32_t next = 0;
    for (uint32_t e = 0; e < alive.size(); ++e)
      if (alive[e])
        renumber[e] = next++;
    for (Task &task : graph.tasks) {
      task.waits.clear();
      task.triggers.clear();
    }
    for (uint32_t e = 0; e < alive.size(); ++e) {
      if (!alive[e])
        continue;
      for (uint32_t task : in[e])
        graph.tasks[task].triggers.push_back(renumber[e]);
      for (uint32_t task : out[e])
        graph.tasks[task].waits.push_back(renumber[e]);
    }
    graph.numEvents = next;
    graph.eventTasks.clear();
  }
};

} // namespace

unsigned taskgraph::fuseEvents(TaskGraph &graph) {
  EventSets sets(graph);
  unsigned removed = 0;
  while (true) {
    // Definition 4.1: the same waiting tasks; then 4.2: the same triggering
    // tasks (events nothing triggers are all active from the start).
    unsigned merged = sets.mergeBy(sets.out, sets.in, /*emptyKeys=*/false);
    merged += sets.mergeBy(sets.in, sets.out, /*emptyKeys=*/true);
    if (!merged)
      break;
    removed += merged;
  }
  sets.apply(graph);
  return removed;
}

NormalizationStats taskgraph::normalize(TaskGraph &graph) {
  NormalizationStats stats;
  auto addEmptyTask = [&](uint32_t wait, uint32_t trigger) {
    Task task;
    task.waits.push_back(wait);
    task.triggers.push_back(trigger);
    graph.tasks.push_back(std::move(task));
    ++stats.emptyTasks;
  };
  auto newEvent = [&] {
    ++stats.events;
    return graph.addEvent();
  };

  // Fan-out: tasks triggering the same several events trigger one new
  // event, and an empty task per old event passes it on.
  std::map<TaskSet, TaskSet> fanOut;
  for (auto [index, task] : llvm::enumerate(graph.tasks))
    if (task.triggers.size() > 1) {
      TaskSet events(task.triggers.begin(), task.triggers.end());
      llvm::sort(events);
      fanOut[events].push_back(index);
    }
  for (auto &[events, tasks] : fanOut) {
    uint32_t joined = newEvent();
    for (uint32_t task : tasks)
      graph.tasks[task].triggers.assign(1, joined);
    for (uint32_t event : events)
      addEmptyTask(joined, event);
  }

  // Fan-in: tasks waiting on the same several events wait on one new event,
  // which an empty task per old event triggers.
  std::map<TaskSet, TaskSet> fanIn;
  for (auto [index, task] : llvm::enumerate(graph.tasks))
    if (task.waits.size() > 1) {
      TaskSet events(task.waits.begin(), task.waits.end());
      llvm::sort(events);
      fanIn[events].push_back(index);
    }
  for (auto &[events, tasks] : fanIn) {
    uint32_t joined = newEvent();
    for (uint32_t task : tasks)
      graph.tasks[task].waits.assign(1, joined);
    for (uint32_t event : events)
      addEmptyTask(event, joined);
  }

  // Sources wait on a start event (one that nothing triggers).
  std::optional<uint32_t> start;
  std::vector<uint32_t> counts = graph.getTriggerCounts();
  std::vector<SmallVector<uint32_t, 2>> waiting = graph.getWaitingTasks();
  for (uint32_t e = 0; e < graph.numEvents && !start; ++e)
    if (counts[e] == 0 && !waiting[e].empty())
      start = e;
  for (Task &task : graph.tasks) {
    if (!task.waits.empty())
      continue;
    if (!start)
      start = newEvent();
    task.waits.push_back(*start);
  }
  graph.eventTasks.clear();
  return stats;
}

llvm::Error taskgraph::linearize(TaskGraph &graph) {
  std::vector<uint32_t> remaining = graph.getTriggerCounts();
  std::vector<SmallVector<uint32_t, 2>> waiting = graph.getWaitingTasks();
  for (auto [index, task] : llvm::enumerate(graph.tasks))
    if (task.waits.size() != 1 || task.triggers.size() > 1)
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          graph.describeTask(index) +
              " has several events to wait on or trigger; normalize first");

  std::deque<uint32_t> active;
  for (uint32_t e = 0; e < graph.numEvents; ++e)
    if (remaining[e] == 0)
      active.push_back(e);
  std::vector<uint32_t> order;
  order.reserve(graph.tasks.size());
  std::vector<std::optional<std::pair<uint32_t, uint32_t>>> ranges(
      graph.numEvents);
  while (!active.empty()) {
    uint32_t event = active.front();
    active.pop_front();
    if (!waiting[event].empty())
      ranges[event] = {
          static_cast<uint32_t>(order.size()),
          static_cast<uint32_t>(order.size() + waiting[event].size() - 1)};
    for (uint32_t task : waiting[event]) {
      order.push_back(task);
      for (uint32_t next : graph.tasks[task].triggers)
        if (--remaining[next] == 0)
          active.push_back(next);
    }
  }
  if (order.size() != graph.tasks.size()) {
    std::vector<bool> placed(graph.tasks.size(), false);
    for (uint32_t task : order)
      placed[task] = true;
    uint32_t stuck = 0;
    while (placed[stuck])
      ++stuck;
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        graph.describeTask(stuck) +
            " never becomes ready: the task graph has a cycle through it or "
            "through the tasks it waits for");
  }

  std::vector<uint32_t> position(order.size());
  for (auto [to, from] : llvm::enumerate(order))
    position[from] = to;
  std::vector<Task> tasks(graph.tasks.size());
  for (auto [to, from] : llvm::enumerate(order))
    tasks[to] = std::move(graph.tasks[from]);
  graph.tasks = std::move(tasks);
  for (std::vector<uint32_t> &queue : graph.queues)
    for (uint32_t &task : queue)
      task = position[task];
  graph.eventTasks = std::move(ranges);
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// JIT/AOT labels
//===----------------------------------------------------------------------===//

namespace {
/// Counts the tasks reachable from event `event` forwards or backwards.
uint32_t countReachable(const TaskGraph &graph, uint32_t event, bool forward,
                        const std::vector<SmallVector<uint32_t, 2>> &waiting,
                        const std::vector<SmallVector<uint32_t, 2>> &trigger) {
  std::vector<bool> seenTask(graph.tasks.size(), false);
  std::vector<bool> seenEvent(graph.numEvents, false);
  std::vector<uint32_t> events{event};
  seenEvent[event] = true;
  uint32_t count = 0;
  while (!events.empty()) {
    uint32_t e = events.back();
    events.pop_back();
    for (uint32_t task : forward ? waiting[e] : trigger[e]) {
      if (seenTask[task])
        continue;
      seenTask[task] = true;
      ++count;
      const Task &t = graph.tasks[task];
      for (uint32_t next : forward ? t.triggers : t.waits)
        if (!seenEvent[next]) {
          seenEvent[next] = true;
          events.push_back(next);
        }
    }
  }
  return count;
}
} // namespace

unsigned taskgraph::labelLaunchModes(TaskGraph &graph) {
  std::vector<SmallVector<uint32_t, 2>> waiting = graph.getWaitingTasks();
  std::vector<SmallVector<uint32_t, 2>> triggering = graph.getTriggeringTasks();
  std::vector<bool> jit(graph.tasks.size(), false);
  std::vector<uint32_t> work;
  for (auto [index, task] : llvm::enumerate(graph.tasks)) {
    task.launch = LaunchMode::AOT;
    if (task.kind == TaskKind::Compute &&
        graph.kernels[task.kernel].dataDependent) {
      jit[index] = true;
      work.push_back(index);
    }
  }
  // Downstream of a JIT task stays JIT until an event every other task is
  // before or after: a global barrier, after which the imbalance is gone.
  std::vector<std::optional<bool>> barrier(graph.numEvents);
  while (!work.empty()) {
    uint32_t task = work.back();
    work.pop_back();
    for (uint32_t event : graph.tasks[task].triggers) {
      if (!barrier[event])
        barrier[event] =
            countReachable(graph, event, true, waiting, triggering) +
                countReachable(graph, event, false, waiting, triggering) ==
            graph.tasks.size();
      if (*barrier[event])
        continue;
      for (uint32_t next : waiting[event])
        if (!jit[next]) {
          jit[next] = true;
          work.push_back(next);
        }
    }
  }
  unsigned count = 0;
  for (auto [index, task] : llvm::enumerate(graph.tasks))
    if (jit[index]) {
      task.launch = LaunchMode::JIT;
      ++count;
    }
  return count;
}
