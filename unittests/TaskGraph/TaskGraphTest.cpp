//===- TaskGraphTest.cpp - The task-graph compiler's algorithms -----------===//
//
// Region intersection, dependency analysis, both fusion rules,
// normalization, linearization, JIT/AOT labels, the static schedule and
// the simulator, on small graphs whose answers are worked out by hand.
//
//===----------------------------------------------------------------------===//

#include "mirage/TaskGraph/TaskGraph.h"

#include "gtest/gtest.h"

using namespace mirage;
using namespace mirage::taskgraph;
using llvm::SmallVector;

namespace {

Box box(Shape offsets, Shape sizes) { return Box{offsets, sizes}; }

/// Adds a buffer and returns its index.
uint32_t addBuffer(TaskGraph &graph, Shape shape, int32_t base = -1,
                   std::string name = "") {
  graph.buffers.push_back(
      {shape, base,
       name.empty() ? "b" + std::to_string(graph.buffers.size()) : name});
  return graph.buffers.size() - 1;
}

uint32_t addKernel(TaskGraph &graph, std::string name, double micros = 1.0,
                   bool dataDependent = false) {
  graph.kernels.push_back({name, dataDependent, micros, 0});
  return graph.kernels.size() - 1;
}

uint32_t addTask(TaskGraph &graph, uint32_t kernel, Shape block,
                 std::vector<Access> reads, std::vector<Access> writes) {
  Task task;
  task.kind = TaskKind::Compute;
  task.kernel = kernel;
  task.block = block;
  task.reads.assign(reads.begin(), reads.end());
  task.writes.assign(writes.begin(), writes.end());
  graph.tasks.push_back(task);
  ++graph.kernels[kernel].blocks;
  return graph.tasks.size() - 1;
}

/// The boxes of the storage buffer `storage` that hold an access.
SmallVector<Box, 2> getStorageBoxes(const TaskGraph &graph,
                                    const Access &access, uint32_t storage) {
  SmallVector<Box, 2> boxes;
  for (const Access &stored : graph.getStorageAccesses(access)) {
    EXPECT_EQ(stored.buffer, storage);
    boxes.push_back(stored.box);
  }
  return boxes;
}

/// A producer op of `producers` column tiles of a 1 x 64 buffer and a
/// consumer op of `consumers` tasks that each read the whole buffer and
/// write their own column tile of another.
TaskGraph producerConsumer(int64_t producers, int64_t consumers) {
  TaskGraph graph;
  uint32_t input = addBuffer(graph, {1, 64}, -1, "x");
  uint32_t middle = addBuffer(graph, {1, 64}, -1, "h");
  uint32_t output = addBuffer(graph, {1, 64}, -1, "y");
  uint32_t p = addKernel(graph, "p"), c = addKernel(graph, "c");
  for (int64_t i = 0; i < producers; ++i) {
    int64_t width = 64 / producers;
    addTask(graph, p, {i}, {{input, box({0, i * width}, {1, width})}},
            {{middle, box({0, i * width}, {1, width})}});
  }
  for (int64_t i = 0; i < consumers; ++i) {
    int64_t width = 64 / consumers;
    addTask(graph, c, {i}, {{middle, box({0, 0}, {1, 64})}},
            {{output, box({0, i * width}, {1, width})}});
  }
  return graph;
}

TEST(TaskGraphTest, BoxesOverlapAndContain) {
  Box a = box({0, 0}, {4, 4}), b = box({3, 3}, {2, 2}), c = box({4, 0}, {1, 4});
  EXPECT_TRUE(a.overlaps(b));
  EXPECT_TRUE(b.overlaps(a));
  EXPECT_FALSE(a.overlaps(c)); // touching rows do not overlap
  EXPECT_TRUE(a.contains(box({1, 1}, {2, 3})));
  EXPECT_FALSE(a.contains(b));
  EXPECT_EQ(a.str(), "[0, 0] sizes [4, 4]");
}

TEST(TaskGraphTest, ViewsMapToTheStorageTheyShare) {
  TaskGraph graph;
  uint32_t flat = addBuffer(graph, {1, 4096});
  uint32_t heads = addBuffer(graph, {1, 32, 128}, flat);
  uint32_t twice = addBuffer(graph, {32, 128}, heads);
  EXPECT_EQ(graph.getStorage(twice), flat);
  // Two whole heads are one contiguous run.
  EXPECT_EQ(getStorageBoxes(graph, {heads, box({0, 2, 0}, {1, 2, 128})}, flat),
            (SmallVector<Box, 2>{box({0, 256}, {1, 256})}));
  EXPECT_EQ(getStorageBoxes(graph, {twice, box({3, 0}, {1, 128})}, flat),
            (SmallVector<Box, 2>{box({0, 384}, {1, 128})}));
  // The left halves of two heads are two runs: exactly those elements.
  EXPECT_EQ(
      getStorageBoxes(graph, {twice, box({0, 0}, {2, 64})}, flat),
      (SmallVector<Box, 2>{box({0, 0}, {1, 64}), box({0, 128}, {1, 64})}));
  // A run that crosses rows of the storage: elements 4 to 19 of an 8 x 8
  // buffer are the end of row 0, row 1 and the start of row 2.
  TaskGraph square;
  uint32_t grid = addBuffer(square, {8, 8});
  uint32_t line = addBuffer(square, {64}, grid);
  EXPECT_EQ(getStorageBoxes(square, {line, box({4}, {16})}, grid),
            (SmallVector<Box, 2>{box({0, 4}, {1, 4}), box({1, 0}, {1, 8}),
                                 box({2, 0}, {1, 4})}));
}

TEST(TaskGraphTest, ConcatenationsReadTheirParts) {
  // A cache of 6 positions and a new row (a view of a 1 x 8 buffer),
  // joined along dim 1.
  TaskGraph graph;
  uint32_t cache = addBuffer(graph, {2, 6, 4});
  uint32_t flat = addBuffer(graph, {1, 8});
  uint32_t row = addBuffer(graph, {2, 1, 4}, flat);
  uint32_t joined = addBuffer(graph, {2, 7, 4});
  graph.buffers[joined].parts = {cache, row};
  graph.buffers[joined].concatDim = 1;
  SmallVector<Access, 2> parts =
      graph.getPartAccesses({joined, box({1, 4, 0}, {1, 3, 4})});
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(parts[1].buffer, row);
  EXPECT_EQ(parts[1].box, box({1, 0, 0}, {1, 1, 4}));
  SmallVector<Access, 2> stored =
      graph.getStorageAccesses({joined, box({1, 4, 0}, {1, 3, 4})});
  ASSERT_EQ(stored.size(), 2u);
  EXPECT_EQ(stored[0].buffer, cache);
  EXPECT_EQ(stored[0].box, box({1, 4, 0}, {1, 2, 4}));
  // Head 1 of the new row is the second half of the flat buffer.
  EXPECT_EQ(stored[1].buffer, flat);
  EXPECT_EQ(stored[1].box, box({0, 4}, {1, 4}));
  // Positions of the cache alone touch no other part.
  EXPECT_EQ(getStorageBoxes(graph, {joined, box({0, 0, 0}, {2, 6, 4})}, cache),
            (SmallVector<Box, 2>{box({0, 0, 0}, {2, 6, 4})}));

  // Only a reader of the new row waits for the task that writes it.
  uint32_t out = addBuffer(graph, {2, 7, 4});
  uint32_t p = addKernel(graph, "p"), c = addKernel(graph, "c");
  addTask(graph, p, {0}, {}, {{flat, box({0, 0}, {1, 8})}});
  for (int64_t i = 0; i < 7; ++i)
    addTask(graph, c, {i}, {{joined, box({0, i, 0}, {2, 1, 4})}},
            {{out, box({0, i, 0}, {2, 1, 4})}});
  ASSERT_FALSE(bool(addDependencies(graph, /*pairwise=*/true)));
  EXPECT_EQ(graph.numEvents, 1u);
  for (int64_t i = 0; i < 6; ++i)
    EXPECT_TRUE(graph.tasks[1 + i].waits.empty());
  EXPECT_EQ(graph.tasks[7].waits.size(), 1u);
}

TEST(TaskGraphTest, DependenciesFollowOverlappingRegions) {
  TaskGraph pairwise = producerConsumer(4, 2);
  ASSERT_FALSE(bool(addDependencies(pairwise, /*pairwise=*/true)));
  // Each consumer reads what all 4 producers write: 8 pairs. The input is
  // no task's output: no event for it.
  EXPECT_EQ(pairwise.numEvents, 8u);
  for (uint32_t producer = 0; producer < 4; ++producer)
    EXPECT_EQ(pairwise.tasks[producer].triggers.size(), 2u);
  for (uint32_t producer = 0; producer < 4; ++producer)
    EXPECT_TRUE(pairwise.tasks[producer].waits.empty());

  TaskGraph grouped = producerConsumer(4, 2);
  ASSERT_FALSE(bool(addDependencies(grouped, /*pairwise=*/false)));
  EXPECT_EQ(grouped.numEvents, 2u);
  EXPECT_EQ(grouped.getTriggerCounts(), (std::vector<uint32_t>{4, 4}));

  // A consumer that reads one column tile waits for its producer only.
  TaskGraph narrow;
  uint32_t in = addBuffer(narrow, {1, 64}), out = addBuffer(narrow, {1, 64});
  uint32_t p = addKernel(narrow, "p"), c = addKernel(narrow, "c");
  for (int64_t i = 0; i < 4; ++i)
    addTask(narrow, p, {i}, {}, {{in, box({0, 16 * i}, {1, 16})}});
  addTask(narrow, c, {0}, {{in, box({0, 20}, {1, 8})}},
          {{out, box({0, 0}, {1, 64})}});
  ASSERT_FALSE(bool(addDependencies(narrow, true)));
  EXPECT_EQ(narrow.numEvents, 1u);
  EXPECT_EQ(narrow.tasks[1].triggers.size(), 1u);
}

TEST(TaskGraphTest, TwoWritersOfOneElementAreRejected) {
  TaskGraph graph = producerConsumer(2, 1);
  // The second producer's tile now overlaps the first one's by a column.
  graph.tasks[1].writes[0].box = box({0, 31}, {1, 33});
  llvm::Error error = addDependencies(graph, false);
  ASSERT_TRUE(bool(error));
  EXPECT_EQ(llvm::toString(std::move(error)),
            "task 0 (p, block [0]) and task 1 (p, block [1]) both write "
            "element [0, 31] of buffer 'h'");
}

TEST(TaskGraphTest, SuccessorSetFusionMergesEventsWithTheSameWaiters) {
  // T0 -> e0 -> T2 and T1 -> e1 -> T2: one event with both triggers.
  TaskGraph graph;
  addKernel(graph, "k");
  for (int i = 0; i < 3; ++i)
    addTask(graph, 0, {i}, {}, {});
  graph.numEvents = 2;
  graph.tasks[0].triggers = {0};
  graph.tasks[1].triggers = {1};
  graph.tasks[2].waits = {0, 1};
  EXPECT_EQ(fuseEvents(graph), 1u);
  EXPECT_EQ(graph.numEvents, 1u);
  EXPECT_EQ(graph.getTriggerCounts(), std::vector<uint32_t>{2});
  EXPECT_EQ(graph.tasks[2].waits.size(), 1u);
}

TEST(TaskGraphTest, PredecessorSetFusionMergesEventsWithTheSameTriggers) {
  // T0 -> e0 -> T1 and T0 -> e1 -> T2: one event launching both.
  TaskGraph graph;
  addKernel(graph, "k");
  for (int i = 0; i < 3; ++i)
    addTask(graph, 0, {i}, {}, {});
  graph.numEvents = 2;
  graph.tasks[0].triggers = {0, 1};
  graph.tasks[1].waits = {0};
  graph.tasks[2].waits = {1};
  EXPECT_EQ(fuseEvents(graph), 1u);
  EXPECT_EQ(graph.numEvents, 1u);
  EXPECT_EQ(graph.tasks[0].triggers.size(), 1u);
  EXPECT_EQ(graph.getWaitingTasks()[0].size(), 2u);
}

TEST(TaskGraphTest, FusionOfPairwiseEventsReachesTheGroupedForm) {
  TaskGraph graph = producerConsumer(4, 3);
  ASSERT_FALSE(bool(addDependencies(graph, true)));
  EXPECT_EQ(graph.numEvents, 12u);
  // Successor-set fusion: one event per consumer (3); predecessor-set
  // fusion: all three have the same 4 producers, one event.
  EXPECT_EQ(fuseEvents(graph), 11u);
  EXPECT_EQ(graph.numEvents, 1u);
  EXPECT_EQ(graph.getTriggerCounts(), std::vector<uint32_t>{4});
  EXPECT_EQ(graph.getWaitingTasks()[0].size(), 3u);
}

TEST(TaskGraphTest, NormalizationLeavesOneEventEachWay) {
  // A writes two buffers that two different ops read: after fusion it
  // triggers two events (B's and C's); D waits on B and C.
  TaskGraph graph;
  uint32_t x = addBuffer(graph, {1, 8}), y = addBuffer(graph, {1, 8});
  uint32_t u = addBuffer(graph, {1, 8}), v = addBuffer(graph, {1, 8});
  uint32_t out = addBuffer(graph, {1, 8});
  addTask(graph, addKernel(graph, "a"), {0}, {},
          {{x, box({0, 0}, {1, 8})}, {y, box({0, 0}, {1, 8})}});
  addTask(graph, addKernel(graph, "b"), {0}, {{x, box({0, 0}, {1, 8})}},
          {{u, box({0, 0}, {1, 8})}});
  addTask(graph, addKernel(graph, "c"), {0}, {{y, box({0, 0}, {1, 8})}},
          {{v, box({0, 0}, {1, 8})}});
  addTask(graph, addKernel(graph, "d"), {0},
          {{u, box({0, 0}, {1, 8})}, {v, box({0, 0}, {1, 8})}},
          {{out, box({0, 0}, {1, 8})}});
  ASSERT_FALSE(bool(addDependencies(graph, true)));
  fuseEvents(graph);
  // a -> {e_b, e_c}: predecessor-set fusion makes one event for b and c;
  // d waits on e(b) and e(c): successor-set fusion joins them.
  EXPECT_EQ(graph.numEvents, 2u);
  NormalizationStats stats = normalize(graph);
  // Nothing left to split, but a waits on nothing: a start event.
  EXPECT_EQ(stats.emptyTasks, 0u);
  EXPECT_EQ(stats.events, 1u);
  ASSERT_FALSE(bool(linearize(graph)));
  EXPECT_FALSE(bool(verifyLinearized(graph)));

  // Without fusion, fan-out and fan-in need empty tasks.
  TaskGraph wide;
  addKernel(wide, "k");
  for (int i = 0; i < 4; ++i)
    addTask(wide, 0, {i}, {}, {});
  wide.numEvents = 4;
  wide.tasks[0].triggers = {0, 1};
  wide.tasks[1].waits = {0};
  wide.tasks[2].waits = {1};
  wide.tasks[1].triggers = {2};
  wide.tasks[2].triggers = {3};
  wide.tasks[3].waits = {2, 3};
  stats = normalize(wide);
  // Fan-out: one joined event and 2 empty tasks; fan-in: one event and 2
  // empty tasks; a start event for task 0.
  EXPECT_EQ(stats.emptyTasks, 4u);
  EXPECT_EQ(stats.events, 3u);
  for (const Task &task : wide.tasks) {
    EXPECT_EQ(task.waits.size(), 1u);
    EXPECT_LE(task.triggers.size(), 1u);
  }
  ASSERT_FALSE(bool(linearize(wide)));
  EXPECT_FALSE(bool(verifyLinearized(wide)));
}

TEST(TaskGraphTest, NormalizationSharesEmptyTasksAmongEqualSets) {
  // Two tasks that both trigger e0 and e1 share one fan-out.
  TaskGraph graph;
  addKernel(graph, "k");
  for (int i = 0; i < 4; ++i)
    addTask(graph, 0, {i}, {}, {});
  graph.numEvents = 2;
  graph.tasks[0].triggers = {0, 1};
  graph.tasks[1].triggers = {1, 0};
  graph.tasks[2].waits = {0};
  graph.tasks[3].waits = {1};
  NormalizationStats stats = normalize(graph);
  EXPECT_EQ(stats.emptyTasks, 2u);
  // The joined event and the start event.
  EXPECT_EQ(stats.events, 2u);
  std::vector<uint32_t> counts = graph.getTriggerCounts();
  // e0 and e1 are now each triggered by one empty task; the joined event
  // by both original tasks.
  EXPECT_EQ(counts[0], 1u);
  EXPECT_EQ(counts[1], 1u);
  EXPECT_EQ(counts[2], 2u);
}

TEST(TaskGraphTest, LinearizationOrdersWaitersContiguously) {
  TaskGraph graph = producerConsumer(4, 3);
  // Interleave the tasks so that order has to change: consumers first.
  std::rotate(graph.tasks.begin(), graph.tasks.begin() + 4, graph.tasks.end());
  ASSERT_FALSE(bool(addDependencies(graph, false)));
  fuseEvents(graph);
  normalize(graph);
  ASSERT_FALSE(bool(linearize(graph)));
  EXPECT_FALSE(bool(verifyLinearized(graph)));
  // Producers (kernel 0) come first, then the consumers.
  for (uint32_t i = 0; i < 4; ++i)
    EXPECT_EQ(graph.tasks[i].kernel, 0);
  for (uint32_t i = 4; i < 7; ++i)
    EXPECT_EQ(graph.tasks[i].kernel, 1);
  ASSERT_TRUE(graph.eventTasks[graph.tasks[4].waits[0]].has_value());
  EXPECT_EQ(*graph.eventTasks[graph.tasks[4].waits[0]], std::make_pair(4u, 6u));
}

TEST(TaskGraphTest, LinearizationReportsACycle) {
  TaskGraph graph;
  addKernel(graph, "k");
  for (int i = 0; i < 3; ++i)
    addTask(graph, 0, {i}, {}, {});
  graph.numEvents = 3;
  graph.tasks[0].waits = {0}; // start
  graph.tasks[0].triggers = {1};
  graph.tasks[1].waits = {1};
  graph.tasks[1].triggers = {2};
  graph.tasks[2].waits = {2};
  graph.tasks[2].triggers = {1}; // back to task 1's event
  llvm::Error error = linearize(graph);
  ASSERT_TRUE(bool(error));
  EXPECT_EQ(llvm::toString(std::move(error)),
            "task 1 (k, block [1]) never becomes ready: the task graph has a "
            "cycle through it or through the tasks it waits for");
}

TEST(TaskGraphTest, JitSpreadsDownstreamUntilABarrier) {
  // a (data-dependent, 2 tasks) -> b (2 tasks, each reading one of a's) ->
  // c (1 task reading everything: a barrier) -> d.
  TaskGraph graph;
  uint32_t x = addBuffer(graph, {1, 2}), y = addBuffer(graph, {1, 2});
  uint32_t z = addBuffer(graph, {1, 1}), w = addBuffer(graph, {1, 1});
  uint32_t a = addKernel(graph, "a", 1.0, /*dataDependent=*/true);
  uint32_t b = addKernel(graph, "b"), c = addKernel(graph, "c");
  uint32_t d = addKernel(graph, "d");
  for (int64_t i = 0; i < 2; ++i)
    addTask(graph, a, {i}, {}, {{x, box({0, i}, {1, 1})}});
  for (int64_t i = 0; i < 2; ++i)
    addTask(graph, b, {i}, {{x, box({0, i}, {1, 1})}},
            {{y, box({0, i}, {1, 1})}});
  addTask(graph, c, {0}, {{y, box({0, 0}, {1, 2})}},
          {{z, box({0, 0}, {1, 1})}});
  addTask(graph, d, {0}, {{z, box({0, 0}, {1, 1})}},
          {{w, box({0, 0}, {1, 1})}});
  ASSERT_FALSE(bool(addDependencies(graph, false)));
  fuseEvents(graph);
  normalize(graph);
  ASSERT_FALSE(bool(linearize(graph)));
  // a and b are JIT; the event c waits on is triggered by both b tasks,
  // and everything else comes after it: a barrier. c and d stay AOT.
  EXPECT_EQ(labelLaunchModes(graph), 4u);
  for (const Task &task : graph.tasks)
    if (task.kind == TaskKind::Compute)
      EXPECT_EQ(task.launch == LaunchMode::JIT,
                task.kernel == int32_t(a) || task.kernel == int32_t(b))
          << graph.kernels[task.kernel].name;
}

/// A chain p (4 tasks of 2 us) -> c (3 tasks of 1 us) compiled for
/// `workers` workers; p's tasks just in time when `jitProducers`.
TaskGraph scheduledChain(unsigned workers, bool jitProducers = false) {
  TaskGraph graph = producerConsumer(4, 3);
  graph.kernels[0].dataDependent = jitProducers;
  graph.kernels[0].taskMicros = 2.0;
  graph.kernels[1].taskMicros = 1.0;
  EXPECT_FALSE(bool(addDependencies(graph, false)));
  fuseEvents(graph);
  normalize(graph);
  EXPECT_FALSE(bool(linearize(graph)));
  labelLaunchModes(graph);
  scheduleAheadOfTime(graph, workers, 0.1);
  return graph;
}

TEST(TaskGraphTest, ListSchedulingAndSimulationAgree) {
  TaskGraph graph = scheduledChain(2);
  // 4 producer tasks on 2 workers: 4 us; then 3 consumers: 2 more us.
  EXPECT_EQ(graph.queues[0].size() + graph.queues[1].size(), 7u);
  SimulationReport report = simulate(graph, 2, 0.1);
  EXPECT_FALSE(report.deadlock.has_value());
  EXPECT_EQ(report.tasksRun, 7u);
  EXPECT_DOUBLE_EQ(report.makespanMicros, 6.0);
  EXPECT_DOUBLE_EQ(report.criticalPathMicros, 3.0);
  EXPECT_EQ(report.criticalPathTasks, 2u);
  // Worker 1 idles while worker 0 runs the third consumer.
  ASSERT_EQ(report.idleMicros.size(), 2u);
  EXPECT_DOUBLE_EQ(report.idleMicros[0] + report.idleMicros[1], 1.0);

  // With 8 workers everything runs in one wave each: 2 + 1 us.
  SimulationReport wide = simulate(scheduledChain(8), 8, 0.1);
  EXPECT_DOUBLE_EQ(wide.makespanMicros, 3.0);
}

TEST(TaskGraphTest, SimulationClaimsJustInTimeTasksInOrder) {
  // The producers are claimed one at a time, each run before the
  // consumers queued after it: the same 6 us on 2 workers as ahead of time,
  // with only the consumers in the queues.
  TaskGraph graph = scheduledChain(2, /*jitProducers=*/true);
  EXPECT_EQ(graph.queues[0].size() + graph.queues[1].size(), 3u);
  SimulationReport report = simulate(graph, 2, 0.1);
  EXPECT_FALSE(report.deadlock.has_value());
  EXPECT_EQ(report.tasksRun, 7u);
  EXPECT_DOUBLE_EQ(report.makespanMicros, 6.0);
  // One worker: it claims each producer before its first consumer.
  SimulationReport one = simulate(scheduledChain(1, true), 1, 0.1);
  EXPECT_FALSE(one.deadlock.has_value());
  EXPECT_DOUBLE_EQ(one.makespanMicros, 11.0);
}

TEST(TaskGraphTest, SimulationReportsADeadlockedQueue) {
  TaskGraph graph = scheduledChain(1);
  // One worker whose queue puts a consumer before the producers.
  std::vector<uint32_t> &queue = graph.queues[0];
  ASSERT_EQ(queue.size(), 7u);
  std::rotate(queue.begin(), queue.begin() + 4, queue.end());
  SimulationReport report = simulate(graph, 1, 0.1);
  ASSERT_TRUE(report.deadlock.has_value());
  EXPECT_EQ(report.deadlock->task, 4u);
  EXPECT_EQ(report.deadlock->worker, 0u);
  EXPECT_EQ(report.deadlock->triggered, 0u);
  EXPECT_EQ(report.deadlock->needed, 4u);
  EXPECT_EQ(report.tasksRun, 0u);
}

TEST(TaskGraphTest, TheCompilerIsDeterministic) {
  auto build = [] {
    TaskGraph graph = scheduledChain(3);
    return std::make_tuple(graph.numEvents, graph.queues, graph.eventTasks);
  };
  EXPECT_EQ(build(), build());
}

} // namespace
