//===- TaskGraphMutantsTest.cpp - Wrong task graphs are caught ------------===//
//
// A task graph built from a small program, then broken on purpose: a
// dropped event, a wrong trigger count, a task writing outside its tile,
// two tasks running one block, a queue order that deadlocks. Each must be
// rejected by the check whose job it is (the IR verifier, the equivalence
// check running random task orders, the schedule check), naming the task.
//
//===----------------------------------------------------------------------===//

#include "mirage/Conversion/Passes.h"
#include "mirage/Conversion/TaskGraphPipeline.h"
#include "mirage/Dialect/Kernel/Transforms/Passes.h"
#include "mirage/Dialect/Task/IR/Task.h"
#include "mirage/Dialect/Task/Transforms/Passes.h"
#include "mirage/Dialect/Task/Transforms/TaskGraphIO.h"
#include "mirage/InitAllDialects.h"
#include "mirage/InitAllExtensions.h"
#include "mirage/Interpreter/TaskGraphProgram.h"
#include "mirage/Verify/Equivalence.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mirage;

namespace {

/// RMSNorm, a projection cut into 4 column tiles, an activation cut into 2
/// and a second projection: consumers of several producers, and producers
/// feeding several consumers.
const char *kProgram = R"mlir(
  func.func @f(%x: tensor<2x64xf32>, %g: tensor<64xf32>, %w: tensor<64x64xf32>,
               %v: tensor<64x32xf32>) -> tensor<2x32xf32> {
    %n = kn.rms_norm %x weight %g {eps = 1.0e-6 : f64} : tensor<2x64xf32>, tensor<64xf32>
    %h = kn.matmul %n, %w {kn.partition = array<i64: 1, 4>} : tensor<2x64xf32>, tensor<64x64xf32>
    %a = kn.silu %h {kn.partition = array<i64: 1, 2>} : tensor<2x64xf32>
    %y = kn.matmul %a, %v {kn.partition = array<i64: 1, 2>} : tensor<2x64xf32>, tensor<64x32xf32>
    return %y : tensor<2x32xf32>
  })mlir";

class TaskGraphMutantsTest : public ::testing::Test {
protected:
  TaskGraphMutantsTest() {
    DialectRegistry registry;
    registerAllDialects(registry);
    registerAllExtensions(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  /// The program's tasks and fused events, not normalized: one wait per
  /// consumer.
  static void addBuild(PassManager &pm) {
    pm.addNestedPass<func::FuncOp>(kn::createKnDefaultBlockGraphs());
    pm.addPass(createBuildTaskGraph());
    pm.nest<tg::GraphOp>().addPass(tg::createTgFuseEvents());
  }

  /// The program compiled by the passes `add` adds.
  OwningOpRef<ModuleOp> build(llvm::function_ref<void(PassManager &)> add) {
    OwningOpRef<ModuleOp> module =
        parseSourceString<ModuleOp>(kProgram, &context);
    EXPECT_TRUE(module);
    PassManager pm(&context);
    add(pm);
    // Remarks (fusion and schedule reports) are not failures.
    ScopedDiagnosticHandler quiet(&context, [](Diagnostic &diagnostic) {
      return success(diagnostic.getSeverity() == DiagnosticSeverity::Remark);
    });
    EXPECT_TRUE(succeeded(pm.run(*module)));
    return module;
  }

  /// The verdict of the task graph against @f.
  EquivalenceResult check(ModuleOp module) {
    auto graph = *module.getOps<tg::GraphOp>().begin();
    auto result = checkEquivalence(
        graph, module.lookupSymbol<func::FuncOp>("f"), EquivalenceOptions());
    EXPECT_TRUE(bool(result)) << llvm::toString(result.takeError());
    return result ? *result : EquivalenceResult();
  }

  /// The diagnostic the IR verifier gives, or "" when it accepts.
  std::string verifierMessage(ModuleOp module) {
    std::string message;
    ScopedDiagnosticHandler capture(&context, [&](Diagnostic &diagnostic) {
      if (message.empty())
        message = diagnostic.str();
      return success();
    });
    if (succeeded(verify(module)))
      return "";
    return message;
  }

  static SmallVector<tg::TaskOp> tasksOf(ModuleOp module, StringRef kernel) {
    SmallVector<tg::TaskOp> tasks;
    module.walk([&](tg::TaskOp task) {
      if (task.getKernel() && *task.getKernel() == kernel)
        tasks.push_back(task);
    });
    return tasks;
  }

  MLIRContext context;
};

TEST_F(TaskGraphMutantsTest, TheBuiltGraphIsEquivalent) {
  OwningOpRef<ModuleOp> module = build(addBuild);
  EquivalenceResult result = check(*module);
  EXPECT_EQ(result.verdict, Verdict::Proven) << describe(result, "f");
  // Orders first, then the float64 regimes and fingerprint trials.
  EXPECT_GE(result.orders, 4u);
}

TEST_F(TaskGraphMutantsTest, ADroppedEventIsCaughtInSomeOrder) {
  OwningOpRef<ModuleOp> module = build(addBuild);
  // The activation's first task no longer waits for the projection.
  tg::TaskOp consumer = tasksOf(*module, "k2_silu").front();
  ASSERT_EQ(consumer.getWaits().size(), 1u);
  Value event = consumer.getWaits()[0];
  consumer.getWaitsMutable().clear();
  // The event now has no waiter; the graph stays valid IR.
  (void)event;
  ASSERT_EQ(verifierMessage(*module), "");
  EquivalenceResult result = check(*module);
  EXPECT_EQ(result.verdict, Verdict::NotEquivalent);
  EXPECT_NE(result.explanation.find("task 5 (k2_silu, block [0]) reads "
                                    "element"),
            std::string::npos)
      << result.explanation;
  EXPECT_NE(result.explanation.find("before any task wrote it (task "),
            std::string::npos)
      << result.explanation;
}

TEST_F(TaskGraphMutantsTest, AWrongTriggerCountIsRejectedByTheVerifier) {
  OwningOpRef<ModuleOp> module = build(addBuild);
  tg::EventOp event = *module->getOps<tg::GraphOp>()
                           .begin()
                           .
                           operator*()
                           .getBodyBlock()
                           .getOps<tg::EventOp>()
                           .begin();
  int64_t count = static_cast<int64_t>(event.getTriggers());
  event.setTriggersAttr(
      IntegerAttr::get(IntegerType::get(&context, 64), count + 1));
  std::string message = verifierMessage(*module);
  EXPECT_NE(message.find("expects " + std::to_string(count + 1) +
                         " trigger(s) but " + std::to_string(count) +
                         " task(s) trigger it"),
            std::string::npos)
      << message;
}

TEST_F(TaskGraphMutantsTest, AWriteOutsideItsTileIsCaught) {
  OwningOpRef<ModuleOp> module = build(addBuild);
  // The first projection task claims half of its columns only.
  tg::TaskOp task = tasksOf(*module, "k1_matmul").front();
  auto box = cast<tg::BoxAttr>((*task.getWrites())[0]);
  SmallVector<int64_t> sizes(box.getSizes());
  sizes.back() /= 2;
  task.setWritesAttr(ArrayAttr::get(
      &context, {tg::BoxAttr::get(&context, box.getOffsets(), sizes)}));
  ASSERT_EQ(verifierMessage(*module), "");
  EquivalenceResult result = check(*module);
  EXPECT_EQ(result.verdict, Verdict::NotEquivalent);
  EXPECT_NE(result.explanation.find("task 1 (k1_matmul, block [0]) writes "
                                    "element [0, 8] of temp 1, outside its "
                                    "tile [0, 0] sizes [2, 8]"),
            std::string::npos)
      << result.explanation;
}

TEST_F(TaskGraphMutantsTest, TwoTasksOnOneBlockAreRejectedByTheVerifier) {
  OwningOpRef<ModuleOp> module = build(addBuild);
  SmallVector<tg::TaskOp> tasks = tasksOf(*module, "k1_matmul");
  tasks[1].setBlock(tasks[0].getBlock());
  std::string message = verifierMessage(*module);
  EXPECT_NE(message.find("runs the same block of @k1_matmul as task 1"),
            std::string::npos)
      << message;
}

TEST_F(TaskGraphMutantsTest, AQueueOrderThatDeadlocksIsReported) {
  OwningOpRef<ModuleOp> module = build([](PassManager &pm) {
    MirageToTaskGraphOptions options;
    options.workers = 1;
    buildMirageToTaskGraphPipeline(pm, options);
  });
  tg::GraphOp graph = *module->getOps<tg::GraphOp>().begin();
  tg::QueueOp queue = *graph.getBodyBlock().getOps<tg::QueueOp>().begin();
  // The last task first.
  SmallVector<int64_t> order(queue.getTasks());
  std::rotate(order.begin(), order.end() - 1, order.end());
  queue.setTasks(order);
  ASSERT_EQ(verifierMessage(*module), "");
  DeviceModel device = *DeviceModel::get("h100");
  tg::ImportedGraph imported = tg::importGraph(graph, device);
  taskgraph::SimulationReport report =
      taskgraph::simulate(imported.graph, 1, tg::kEmptyTaskMicros);
  ASSERT_TRUE(report.deadlock.has_value());
  EXPECT_EQ(report.deadlock->task, order.front());
  EXPECT_EQ(report.tasksRun, 0u);
}

} // namespace
