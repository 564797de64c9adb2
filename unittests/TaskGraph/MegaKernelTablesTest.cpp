//===- MegaKernelTablesTest.cpp - The mega-kernel's dispatch is checked ---===//
//
// A small program lowered by convert-tg-to-gpu; its tables read back as the
// workers' dispatch run on the CPU in the orders the workers can take, then
// broken on purpose: a cross-worker wait made local, a dropped signal, a
// task left out of every queue. Each must be caught, with the task named.
//
//===----------------------------------------------------------------------===//

#include "mirage/Conversion/MegaKernel.h"
#include "mirage/Conversion/Passes.h"
#include "mirage/Conversion/TaskGraphPipeline.h"
#include "mirage/InitAllDialects.h"
#include "mirage/InitAllExtensions.h"
#include "mirage/Interpreter/TaskGraphProgram.h"
#include "mirage/Verify/Equivalence.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mirage;

namespace {

/// A projection cut into 4 column tiles feeding an activation cut into 2 and
/// a second projection: every consumer reads several producers' tiles.
const char *kProgram = R"mlir(
  func.func @f(%x: tensor<2x64xf32>, %w: tensor<64x64xf32>,
               %v: tensor<64x32xf32>) -> tensor<2x32xf32> {
    %h = kn.matmul %x, %w {kn.partition = array<i64: 1, 4>} : tensor<2x64xf32>, tensor<64x64xf32>
    %a = kn.silu %h {kn.partition = array<i64: 1, 2>} : tensor<2x64xf32>
    %y = kn.matmul %a, %v {kn.partition = array<i64: 1, 2>} : tensor<2x64xf32>, tensor<64x32xf32>
    return %y : tensor<2x32xf32>
  })mlir";

/// Tiles of one projection read by an activation cut into 2 and an
/// exponential left whole, whose tile is read by both halves of a sum:
/// normalization forks the projection's events and the exponential's with
/// 6 empty tasks.
const char *kForkingProgram = R"mlir(
  func.func @f(%x: tensor<2x64xf32>, %w: tensor<64x64xf32>,
               %v: tensor<64x32xf32>) -> tensor<2x32xf32> {
    %h = kn.matmul %x, %w {kn.partition = array<i64: 1, 4>} : tensor<2x64xf32>, tensor<64x64xf32>
    %a = kn.silu %h {kn.partition = array<i64: 1, 2>} : tensor<2x64xf32>
    %b = kn.exp %h {kn.partition = array<i64: 1, 1>} : tensor<2x64xf32>
    %c = kn.add %a, %b {kn.partition = array<i64: 1, 2>} : tensor<2x64xf32>, tensor<2x64xf32>
    %y = kn.matmul %c, %v {kn.partition = array<i64: 1, 2>} : tensor<2x64xf32>, tensor<64x32xf32>
    return %y : tensor<2x32xf32>
  })mlir";

/// kProgram with a data-dependent activation: its 2 tasks are dispatched
/// just in time (the second projection reads all of it: a barrier).
const char *kJitProgram = R"mlir(
  func.func @f(%x: tensor<2x64xf32>, %w: tensor<64x64xf32>,
               %v: tensor<64x32xf32>) -> tensor<2x32xf32> {
    %h = kn.matmul %x, %w {kn.partition = array<i64: 1, 4>} : tensor<2x64xf32>, tensor<64x64xf32>
    %a = kn.silu %h {kn.partition = array<i64: 1, 2>, kn.data_dependent} : tensor<2x64xf32>
    %y = kn.matmul %a, %v {kn.partition = array<i64: 1, 2>} : tensor<2x64xf32>, tensor<64x32xf32>
    return %y : tensor<2x32xf32>
  })mlir";

/// A cache of 6 rows and 2 new ones (a projection's 4 column tiles) read
/// in place by an exponential cut into 4 row tiles: only the tile of the
/// new rows waits for the projection.
const char *kViewProgram = R"mlir(
  func.func @f(%x: tensor<2x64xf32>, %w: tensor<64x64xf32>,
               %cache: tensor<6x64xf32>) -> tensor<8x64xf32> {
    %r = kn.matmul %x, %w {kn.partition = array<i64: 1, 4>} : tensor<2x64xf32>, tensor<64x64xf32>
    %k = kn.concat %cache, %r dim 0 {kn.view} : tensor<6x64xf32>, tensor<2x64xf32>
    %y = kn.exp %k {kn.partition = array<i64: 4, 1>} : tensor<8x64xf32>
    return %y : tensor<8x64xf32>
  })mlir";

class MegaKernelTablesTest : public ::testing::Test {
protected:
  MegaKernelTablesTest() {
    DialectRegistry registry;
    registerAllDialects(registry);
    registerAllExtensions(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  /// The program as a mega-kernel of `workers` workers (device code not
  /// lowered further).
  OwningOpRef<ModuleOp> lower(int64_t workers, bool dynamic = false,
                              const char *program = kProgram) {
    OwningOpRef<ModuleOp> module =
        parseSourceString<ModuleOp>(program, &context);
    EXPECT_TRUE(module);
    PassManager pm(&context);
    MirageToTaskGraphOptions options;
    options.workers = workers;
    buildMirageToTaskGraphPipeline(pm, options);
    ConvertTaskToGPUOptions lowering;
    lowering.dynamicDispatch = dynamic;
    pm.addPass(createConvertTaskToGPU(lowering));
    ScopedDiagnosticHandler quiet(&context, [](Diagnostic &diagnostic) {
      return success(diagnostic.getSeverity() == DiagnosticSeverity::Remark);
    });
    EXPECT_TRUE(succeeded(pm.run(*module)));
    return module;
  }

  static tg::GraphOp graphOf(ModuleOp module) {
    return *module.getOps<tg::GraphOp>().begin();
  }

  /// The verdict of the graph against @f when run in `queues`' orders.
  EquivalenceResult check(ModuleOp module, WorkerQueues queues) {
    auto result = checkEquivalence(graphOf(module),
                                   module.lookupSymbol<func::FuncOp>("f"),
                                   EquivalenceOptions(), std::move(queues));
    EXPECT_TRUE(bool(result)) << llvm::toString(result.takeError());
    return result ? *result : EquivalenceResult();
  }

  /// The error of the first of `runs` runs in `queues`' orders that fails,
  /// or "" when none does.
  std::string firstFailure(ModuleOp module, WorkerQueues queues,
                           unsigned runs = 32) {
    auto program = TaskGraphProgram::compile(
        graphOf(module), /*seed=*/7, kDefaultMaxElements, std::move(queues));
    if (!program)
      return llvm::toString(program.takeError());
    std::vector<F64Tensor> inputs;
    for (const Shape &shape : program->getInputShapes())
      inputs.emplace_back(shape, 0.5);
    for (unsigned run = 0; run < runs; ++run)
      if (auto outputs = program->run(inputs); !outputs)
        return llvm::toString(outputs.takeError());
    return "";
  }

  /// A task that waits on a counter and the worker it runs on.
  static std::pair<uint32_t, size_t> findCounterWait(const WorkerQueues &q) {
    for (auto [worker, queue] : llvm::enumerate(q.queues))
      for (uint32_t task : queue)
        if (!q.waits[task].empty())
          return {task, worker};
    ADD_FAILURE() << "no task waits on a counter";
    return {0, 0};
  }

  MLIRContext context;
};

TEST_F(MegaKernelTablesTest, TheWorkersOrdersAreProven) {
  OwningOpRef<ModuleOp> module = lower(4);
  FailureOr<WorkerQueues> queues =
      megakernel::readWorkerQueues(graphOf(*module));
  ASSERT_TRUE(succeeded(queues));
  EXPECT_EQ(queues->queues.size(), 4u);
  EquivalenceResult result = check(*module, *queues);
  EXPECT_EQ(result.verdict, Verdict::Proven) << describe(result, "f");
  EXPECT_TRUE(result.workerOrders);
  EXPECT_GE(result.orders, 4u);
}

TEST_F(MegaKernelTablesTest, OneWorkerNeedsNoCounters) {
  // Every producer runs earlier on the only worker: every edge is a same-SM
  // hand-off, and nothing is signalled.
  OwningOpRef<ModuleOp> module = lower(1);
  FailureOr<megakernel::Tables> tables =
      megakernel::buildTables(graphOf(*module));
  ASSERT_TRUE(succeeded(tables));
  EXPECT_EQ(tables->counterWaits, 0u);
  EXPECT_GT(tables->localWaits, 0u);
  FailureOr<WorkerQueues> queues =
      megakernel::readWorkerQueues(graphOf(*module));
  ASSERT_TRUE(succeeded(queues));
  EXPECT_TRUE(llvm::all_of(
      queues->signals, [](const auto &signals) { return signals.empty(); }));
  EXPECT_EQ(check(*module, *queues).verdict, Verdict::Proven);
}

TEST_F(MegaKernelTablesTest, DynamicDispatchWaitsOnEveryCounter) {
  // Any worker may claim any task: every wait with triggers goes through
  // its counter, and the executor runs every order the events allow.
  OwningOpRef<ModuleOp> module = lower(4, /*dynamic=*/true);
  FailureOr<megakernel::Tables> tables =
      megakernel::buildTables(graphOf(*module), /*dynamic=*/true);
  ASSERT_TRUE(succeeded(tables));
  EXPECT_EQ(tables->localWaits, 0u);
  EXPECT_GT(tables->counterWaits, 0u);
  FailureOr<WorkerQueues> queues =
      megakernel::readWorkerQueues(graphOf(*module));
  ASSERT_TRUE(succeeded(queues));
  EXPECT_EQ(queues->queues.size(),
            tables->tasks.size() / megakernel::kTaskFields);
  EquivalenceResult result = check(*module, *queues);
  EXPECT_EQ(result.verdict, Verdict::Proven) << describe(result, "f");
  // Dropping a wait is caught in some order.
  auto [task, worker] = findCounterWait(*queues);
  queues->waits[task].clear();
  std::string failure = firstFailure(*module, *queues);
  EXPECT_NE(failure.find("before any task wrote it"), std::string::npos)
      << failure;
}

TEST_F(MegaKernelTablesTest, EmptyTasksAreLeftOut) {
  // Every empty task's events move into its neighbours' lists: the
  // exponential waits on both projection events (the activation's forks
  // are gone) and signals both halves of the sum.
  for (bool dynamic : {false, true}) {
    OwningOpRef<ModuleOp> module = lower(4, dynamic, kForkingProgram);
    tg::GraphOp graph = graphOf(*module);
    FailureOr<megakernel::Tables> tables =
        megakernel::buildTables(graph, dynamic);
    ASSERT_TRUE(succeeded(tables));
    EXPECT_EQ(tables->elidedTasks, 6u);
    EXPECT_EQ(tables->tasks.size() / megakernel::kTaskFields, 11u);
    EXPECT_EQ(tables->graphTasks.size(), 11u);
    FailureOr<WorkerQueues> queues = megakernel::readWorkerQueues(graph);
    ASSERT_TRUE(succeeded(queues));
    size_t queued = 0;
    for (const std::vector<uint32_t> &queue : queues->queues)
      queued += queue.size();
    EXPECT_EQ(queued, 11u);
    if (dynamic) {
      // Every wait goes through a counter: the exponential's lists show.
      EXPECT_TRUE(llvm::any_of(
          queues->waits, [](const auto &waits) { return waits.size() == 2; }));
      EXPECT_TRUE(llvm::any_of(queues->signals, [](const auto &signals) {
        return signals.size() == 2;
      }));
    }
    EquivalenceResult result = check(*module, *queues);
    EXPECT_EQ(result.verdict, Verdict::Proven) << describe(result, "f");
  }
}

TEST_F(MegaKernelTablesTest, ALostListEntryIsCaught) {
  // The exponential's second wait dropped: it may read a projection tile
  // before it is written.
  OwningOpRef<ModuleOp> module = lower(4, /*dynamic=*/true, kForkingProgram);
  FailureOr<WorkerQueues> queues =
      megakernel::readWorkerQueues(graphOf(*module));
  ASSERT_TRUE(succeeded(queues));
  auto joined = llvm::find_if(
      queues->waits, [](const auto &waits) { return waits.size() == 2; });
  ASSERT_NE(joined, queues->waits.end());
  joined->pop_back();
  std::string failure = firstFailure(*module, *queues);
  EXPECT_NE(failure.find("before any task wrote it"), std::string::npos)
      << failure;
}

TEST_F(MegaKernelTablesTest, ACrossWorkerWaitMadeLocalReadsEarly) {
  OwningOpRef<ModuleOp> module = lower(4);
  FailureOr<WorkerQueues> queues =
      megakernel::readWorkerQueues(graphOf(*module));
  ASSERT_TRUE(succeeded(queues));
  auto [task, worker] = findCounterWait(*queues);
  queues->waits[task].clear();
  std::string failure = firstFailure(*module, *queues);
  EXPECT_NE(failure.find("before any task wrote it"), std::string::npos)
      << failure;
}

TEST_F(MegaKernelTablesTest, ADroppedSignalDeadlocksAWorker) {
  OwningOpRef<ModuleOp> module = lower(4);
  FailureOr<WorkerQueues> queues =
      megakernel::readWorkerQueues(graphOf(*module));
  ASSERT_TRUE(succeeded(queues));
  auto [task, worker] = findCounterWait(*queues);
  int32_t counter = queues->waits[task].front();
  for (auto &signals : queues->signals)
    if (auto it = llvm::find(signals, counter); it != signals.end()) {
      signals.erase(it);
      break;
    }
  std::string failure = firstFailure(*module, *queues, 1);
  EXPECT_NE(failure.find("the mega-kernel deadlocks after"), std::string::npos)
      << failure;
  EXPECT_NE(failure.find("on counter " + std::to_string(counter) +
                         ", which received"),
            std::string::npos)
      << failure;
}

TEST_F(MegaKernelTablesTest, ATaskInNoQueueIsRejected) {
  OwningOpRef<ModuleOp> module = lower(4);
  FailureOr<WorkerQueues> queues =
      megakernel::readWorkerQueues(graphOf(*module));
  ASSERT_TRUE(succeeded(queues));
  std::vector<uint32_t> &queue = queues->queues.back();
  ASSERT_FALSE(queue.empty());
  uint32_t dropped = queue.back();
  queue.pop_back();
  EXPECT_EQ(firstFailure(*module, *queues), "invalid worker queues: task " +
                                                std::to_string(dropped) +
                                                " is in no queue");
}

/// The byte ranges [start, end) of `box` in a row-major buffer of `shape`
/// with `elementBytes`-byte elements, merged where they touch.
std::vector<std::pair<int64_t, int64_t>> getBoxBytes(ArrayRef<int64_t> shape,
                                                     int64_t elementBytes,
                                                     ArrayRef<int64_t> offsets,
                                                     ArrayRef<int64_t> sizes) {
  std::vector<std::pair<int64_t, int64_t>> ranges;
  SmallVector<int64_t> index(shape.size(), 0);
  int64_t innermost = sizes.back() * elementBytes;
  while (true) {
    int64_t start = 0;
    for (size_t d = 0; d < shape.size(); ++d)
      start = start * shape[d] + offsets[d] + index[d];
    start *= elementBytes;
    if (!ranges.empty() && ranges.back().second == start)
      ranges.back().second += innermost;
    else
      ranges.emplace_back(start, start + innermost);
    // The next index over every dim but the innermost.
    size_t d = shape.size() - 1;
    while (d-- > 0 && ++index[d] == sizes[d])
      index[d] = 0;
    if (d == static_cast<size_t>(-1))
      return ranges;
  }
}

TEST_F(MegaKernelTablesTest, WeightsAreTheReadOnlyInputs) {
  // Per body: the first projection reads x and w, which only the host
  // writes; the activation reads h; the second projection a (written) and
  // v.
  OwningOpRef<ModuleOp> module = lower(4);
  FailureOr<megakernel::Tables> tables =
      megakernel::buildTables(graphOf(*module));
  ASSERT_TRUE(succeeded(tables));
  ASSERT_EQ(tables->readOnlyInputs.size(), 3u);
  EXPECT_EQ(tables->readOnlyInputs[0], (SmallVector<unsigned>{0, 1}));
  EXPECT_EQ(tables->readOnlyInputs[1], SmallVector<unsigned>{});
  EXPECT_EQ(tables->readOnlyInputs[2], SmallVector<unsigned>{1});
}

TEST_F(MegaKernelTablesTest, ConcatenationViewsAreReadInPlace) {
  OwningOpRef<ModuleOp> module = lower(4, /*dynamic=*/false, kViewProgram);
  tg::GraphOp graph = graphOf(*module);
  auto concats = llvm::to_vector(graph.getBodyBlock().getOps<tg::ConcatOp>());
  ASSERT_EQ(concats.size(), 1u);
  // The exponential's tasks: the three reading cached rows wait only on the
  // start event.
  unsigned exps = 0, waiting = 0;
  for (auto task : graph.getBodyBlock().getOps<tg::TaskOp>()) {
    if (!task.getKernel() || !task.getKernel()->ends_with("exp"))
      continue;
    ++exps;
    waiting += llvm::any_of(task.getWaits(), [](Value event) {
      return event.getDefiningOp<tg::EventOp>().getTriggers() > 0;
    });
  }
  EXPECT_EQ(exps, 4u);
  EXPECT_EQ(waiting, 1u);
  // The exponential's operands: the cache in the input's place, its output,
  // then the new rows; the concatenation is not read-only.
  FailureOr<megakernel::Tables> tables = megakernel::buildTables(graph);
  ASSERT_TRUE(succeeded(tables));
  ASSERT_EQ(tables->bodies.size(), 2u);
  tg::KernelOp exp = tables->bodies[1];
  SmallVector<Value> operands = exp.getBodyOperands();
  ASSERT_EQ(operands.size(), 3u);
  EXPECT_EQ(operands[0], concats[0].getParts()[0]);
  EXPECT_EQ(operands[1], exp.getOutputs()[0]);
  EXPECT_EQ(operands[2], concats[0].getParts()[1]);
  EXPECT_TRUE(tables->readOnlyInputs[1].empty());
  // Run on the CPU in the workers' orders, it computes @f.
  FailureOr<WorkerQueues> queues = megakernel::readWorkerQueues(graph);
  ASSERT_TRUE(succeeded(queues));
  EquivalenceResult result = check(*module, *queues);
  EXPECT_EQ(result.verdict, Verdict::Proven) << describe(result, "f");
  // Without its wait, the tile of the new rows reads them too early.
  for (auto &waits : queues->waits)
    waits.clear();
  std::string failure = firstFailure(*module, *queues);
  EXPECT_NE(failure.find("before any task wrote it"), std::string::npos)
      << failure;
}

TEST_F(MegaKernelTablesTest, PrefetchRegionsAreTheTasksReads) {
  // Uncut, the bytes a task prefetches of an input are exactly the box its
  // tg.task says it reads, for every task and input.
  OwningOpRef<ModuleOp> module = lower(4);
  tg::GraphOp graph = graphOf(*module);
  unsigned checked = 0;
  for (auto task : graph.getBodyBlock().getOps<tg::TaskOp>()) {
    if (task.getKind() != tg::TaskKind::Compute)
      continue;
    auto kernel = cast<tg::KernelOp>(
        SymbolTable::lookupSymbolIn(graph, *task.getKernel()));
    auto blockGraph = cast<tb::GraphOp>(kernel.getBlockGraph());
    for (auto [input, attr] : llvm::enumerate(*task.getReads())) {
      auto box = cast<tg::BoxAttr>(attr);
      auto type = cast<MemRefType>(kernel.getInputs()[input].getType());
      std::optional<megakernel::PrefetchRegion> region =
          megakernel::getPrefetchRegion(blockGraph, input,
                                        megakernel::kMaxPrefetchBytes);
      ASSERT_TRUE(region);
      std::vector<std::pair<int64_t, int64_t>> prefetched;
      for (int64_t run = 0; run < region->runs; ++run) {
        int64_t start = region->getRunStart(*task.getBlock(), run);
        if (!prefetched.empty() && prefetched.back().second == start)
          prefetched.back().second += region->runBytes;
        else
          prefetched.emplace_back(start, start + region->runBytes);
      }
      EXPECT_EQ(prefetched,
                getBoxBytes(type.getShape(), type.getElementTypeBitWidth() / 8,
                            box.getOffsets(), box.getSizes()))
          << "task block " << task.getBlock()->front() << ", input " << input;
      ++checked;
    }
  }
  EXPECT_GE(checked, 12u);
}

TEST_F(MegaKernelTablesTest, PrefetchRegionsAreCutToTheBudget) {
  // The first projection's weight tile: 64 rows of 16 f32 (64 bytes each).
  OwningOpRef<ModuleOp> module = lower(4);
  auto kernel = *graphOf(*module).getBodyBlock().getOps<tg::KernelOp>().begin();
  auto blockGraph = cast<tb::GraphOp>(kernel.getBlockGraph());
  auto whole = megakernel::getPrefetchRegion(blockGraph, 1, 1 << 20);
  ASSERT_TRUE(whole);
  EXPECT_EQ(whole->runs, 64);
  EXPECT_EQ(whole->runBytes, 64);
  auto some = megakernel::getPrefetchRegion(blockGraph, 1, 1000);
  EXPECT_EQ(some->runs, 15);
  EXPECT_EQ(some->runBytes, 64);
  auto part = megakernel::getPrefetchRegion(blockGraph, 1, 40);
  EXPECT_EQ(part->runs, 1);
  EXPECT_EQ(part->runBytes, 40);
  EXPECT_EQ(megakernel::checkPrefetchOptions("here", -1, 1),
            "here: prefetch-bytes is -1; expected 0 to 1073741824");
  EXPECT_EQ(megakernel::checkPrefetchOptions("here", 0, 1025),
            "here: prefetch-ahead is 1025; expected 0 to 1024");
  EXPECT_EQ(megakernel::checkPrefetchOptions("here", 0, 1), std::nullopt);
}

} // namespace

TEST_F(MegaKernelTablesTest, JustInTimeTasksAreClaimedAsWorkersGo) {
  for (int64_t workers : {1, 4}) {
    OwningOpRef<ModuleOp> module = lower(workers, false, kJitProgram);
    tg::GraphOp graph = graphOf(*module);
    FailureOr<megakernel::Tables> tables = megakernel::buildTables(graph);
    ASSERT_TRUE(succeeded(tables));
    EXPECT_EQ(tables->jitTasks, 2);
    // A last span after the workers' queues lists them.
    EXPECT_EQ(tables->queueStarts.size(), size_t(workers) + 2);
    FailureOr<WorkerQueues> queues = megakernel::readWorkerQueues(graph);
    ASSERT_TRUE(succeeded(queues));
    ASSERT_EQ(queues->jit.size(), 2u);
    EXPECT_LT(queues->jit[0], queues->jit[1]);
    for (const std::vector<uint32_t> &queue : queues->queues)
      for (uint32_t task : queue)
        EXPECT_FALSE(llvm::is_contained(queues->jit, task));
    // No worker knows it runs them ahead: their waits go through counters
    // even on one worker.
    for (uint32_t task : queues->jit)
      EXPECT_FALSE(queues->waits[task].empty());
    EquivalenceResult result = check(*module, *queues);
    EXPECT_EQ(result.verdict, Verdict::Proven) << describe(result, "f");
    EXPECT_TRUE(result.workerOrders);
    // Without its wait, a claimed task reads its input early in some order
    // (on one worker, it runs after the projection anyway).
    if (workers == 1)
      continue;
    queues->waits[queues->jit[0]].clear();
    std::string failure = firstFailure(*module, *queues);
    EXPECT_NE(failure.find("before any task wrote it"), std::string::npos)
        << failure;
  }
}

TEST_F(MegaKernelTablesTest, DynamicDispatchClaimsJustInTimeTasksToo) {
  OwningOpRef<ModuleOp> module = lower(4, /*dynamic=*/true, kJitProgram);
  FailureOr<megakernel::Tables> tables =
      megakernel::buildTables(graphOf(*module), /*dynamic=*/true);
  ASSERT_TRUE(succeeded(tables));
  // Listed as with static queues (every task is in some span), though no
  // worker reads them.
  EXPECT_EQ(tables->jitTasks, 2);
  EXPECT_EQ(tables->queueStarts.size(), 6u);
  FailureOr<WorkerQueues> queues =
      megakernel::readWorkerQueues(graphOf(*module));
  ASSERT_TRUE(succeeded(queues));
  EXPECT_EQ(check(*module, *queues).verdict, Verdict::Proven);
}
