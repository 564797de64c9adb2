//===- Pipeline.cpp - mirage-to-task-graph --------------------------------===//
//
// Part of the Mirage MLIR project. See TaskGraphPipeline.h.
//
//===----------------------------------------------------------------------===//

#include "mirage/Conversion/TaskGraphPipeline.h"

#include "mirage/Conversion/Passes.h"
#include "mirage/CostModel/CostModel.h"
#include "mirage/Dialect/Kernel/Transforms/Passes.h"
#include "mirage/Dialect/Task/Transforms/Passes.h"
#include "mirage/IR/OptionChecks.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

using namespace mlir;
using namespace mirage;

void mirage::buildMirageToTaskGraphPipeline(
    OpPassManager &pm, const MirageToTaskGraphOptions &options) {
  kn::KnFuseOptions fusion;
  fusion.persistent = true;
  fusion.workers = options.workers;
  fusion.device = options.device;
  fusion.foldNorms = options.foldNorms;
  pm.addNestedPass<func::FuncOp>(kn::createKnFuse(fusion));
  kn::KnDefaultBlockGraphsOptions partition;
  partition.persistent = true;
  partition.workers = options.workers;
  pm.addNestedPass<func::FuncOp>(kn::createKnDefaultBlockGraphs(partition));
  BuildTaskGraphOptions build;
  build.pairwiseEvents = options.pairwiseEvents;
  pm.addPass(createBuildTaskGraph(build));
  OpPassManager &graph = pm.nest<tg::GraphOp>();
  graph.addPass(tg::createTgFuseEvents());
  graph.addPass(tg::createTgNormalize());
  graph.addPass(tg::createTgLinearize());
  graph.addPass(tg::createTgLabelLaunch());
  tg::TgScheduleOptions schedule;
  schedule.workers = options.workers;
  schedule.device = options.device;
  graph.addPass(tg::createTgSchedule(schedule));
  tg::TgCheckScheduleOptions check;
  check.device = options.device;
  graph.addPass(tg::createTgCheckSchedule(check));
}

void mirage::registerMirageToTaskGraphPipeline() {
  registerCheckedPassPipeline<MirageToTaskGraphOptions>(
      "mirage-to-task-graph",
      "Compile kernel graphs into scheduled task graphs: kn-fuse{persistent}, "
      "kn-default-block-graphs{persistent}, mirage-build-task-graph, then on "
      "each tg.graph tg-fuse-events, tg-normalize, tg-linearize, "
      "tg-label-launch, tg-schedule and tg-check-schedule.",
      [](OpPassManager &pm, const MirageToTaskGraphOptions &options) {
        buildMirageToTaskGraphPipeline(pm, options);
      },
      [](const MirageToTaskGraphOptions &options)
          -> std::optional<std::string> {
        if (options.workers < 0)
          return std::string("mirage-to-task-graph: workers must be 0 (the "
                             "device's SMs) or positive");
        return checkOptionValue("mirage-to-task-graph", "device",
                                options.device, DeviceModel::getNames());
      });
}
