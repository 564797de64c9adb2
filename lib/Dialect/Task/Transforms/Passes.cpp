//===- Passes.cpp - Fusion, normalization, linearization, schedules -------===//
//
// Each pass reads its tg.graph into the compact task graph, runs one of the
// algorithms of mirage/TaskGraph on it and writes it back.
//
//===----------------------------------------------------------------------===//

#include "mirage/Dialect/Task/Transforms/Passes.h"

#include "mirage/Conversion/KernelToGPU.h"
#include "mirage/Dialect/Block/IR/Block.h"
#include "mirage/Dialect/Task/Transforms/TaskGraphIO.h"
#include "mirage/IR/OptionChecks.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <numeric>

namespace mirage::tg {
#define GEN_PASS_DEF_TGFUSEEVENTS
#define GEN_PASS_DEF_TGNORMALIZE
#define GEN_PASS_DEF_TGLINEARIZE
#define GEN_PASS_DEF_TGLABELLAUNCH
#define GEN_PASS_DEF_TGSCHEDULE
#define GEN_PASS_DEF_TGCHECKSCHEDULE
#include "mirage/Dialect/Task/Transforms/Passes.h.inc"
} // namespace mirage::tg

using namespace mlir;
using namespace mirage;
using namespace mirage::tg;
namespace tgc = mirage::taskgraph;

namespace {

/// The estimates of passes that need none.
DeviceModel defaultDevice(Operation *op) {
  DeviceModel device = *DeviceModel::get("h100");
  device.sms = tb::TargetAttr::lookup(op).getSms();
  return device;
}

struct FuseEvents : public tg::impl::TgFuseEventsBase<FuseEvents> {
  void runOnOperation() override {
    GraphOp op = getOperation();
    ImportedGraph imported = importGraph(op, defaultDevice(op));
    unsigned removed = tgc::fuseEvents(imported.graph);
    exportGraph(op, imported.graph);
    op.emitRemark() << "fused away " << removed << " events; "
                    << imported.graph.numEvents << " remain";
  }
};

struct Normalize : public tg::impl::TgNormalizeBase<Normalize> {
  void runOnOperation() override {
    GraphOp op = getOperation();
    ImportedGraph imported = importGraph(op, defaultDevice(op));
    size_t before = imported.graph.tasks.size();
    unsigned eventsBefore = imported.graph.numEvents;
    tgc::NormalizationStats stats = tgc::normalize(imported.graph);
    exportGraph(op, imported.graph);
    op.emitRemark() << llvm::formatv(
        "normalized: added {0} empty tasks ({1:P2} of {2}) and {3} events "
        "({4:P2} of {5})",
        stats.emptyTasks,
        static_cast<double>(stats.emptyTasks) / std::max<size_t>(before, 1),
        before, stats.events,
        static_cast<double>(stats.events) / std::max(eventsBefore, 1u),
        eventsBefore);
  }
};

struct Linearize : public tg::impl::TgLinearizeBase<Linearize> {
  void runOnOperation() override {
    GraphOp op = getOperation();
    ImportedGraph imported = importGraph(op, defaultDevice(op));
    if (llvm::Error error = tgc::linearize(imported.graph)) {
      op.emitError() << "cannot linearize: "
                     << llvm::toString(std::move(error));
      return signalPassFailure();
    }
    exportGraph(op, imported.graph);
  }
};

struct LabelLaunch : public tg::impl::TgLabelLaunchBase<LabelLaunch> {
  void runOnOperation() override {
    GraphOp op = getOperation();
    ImportedGraph imported = importGraph(op, defaultDevice(op));
    unsigned jit = tgc::labelLaunchModes(imported.graph);
    // Queues no longer match the labels.
    imported.graph.queues.clear();
    exportGraph(op, imported.graph);
    op.emitRemark() << jit << " of " << imported.graph.tasks.size()
                    << " tasks are dispatched just in time";
  }
};

/// Worker CTAs per SM when the worker count is left to tg-schedule: as many
/// as the largest task body's shared memory (planned as the lowering plans
/// it: one task at a time per worker) and its threads let an SM hold, at
/// most kMaxWorkersPerSM, so that one worker's loads overlap another's
/// waits and arithmetic. The mega-kernel's lowering limits registers to
/// match (nvvm.minctasm). 1 where a body cannot be planned (the lowering
/// reports why).
static constexpr int64_t kMaxWorkersPerSM = 4;
/// Shared memory the driver reserves per block, plus the kernel's own.
static constexpr int64_t kReservedSharedPerWorker = 2048;

static int64_t getWorkersPerSM(GraphOp graph, const DeviceModel &device) {
  int64_t shared = 0, threads = 32;
  bool planned = true;
  ScopedDiagnosticHandler quiet(graph.getContext(),
                                [](Diagnostic &) { return success(); });
  graph.walk([&](tb::GraphOp body) {
    FailureOr<int64_t> bytes = planBlockGraphSharedMemory(
        body, device.smemPerBlock, /*requirePipeline=*/false,
        /*residentBlocks=*/1);
    if (failed(bytes)) {
      planned = false;
      return WalkResult::interrupt();
    }
    shared = std::max(shared, *bytes);
    threads = std::max<int64_t>(threads, body.getThreads());
    return WalkResult::advance();
  });
  if (!planned)
    return 1;
  return std::max<int64_t>(
      1, std::min({device.smemPerSM / (shared + kReservedSharedPerWorker),
                   device.maxThreadsPerSM / threads, kMaxWorkersPerSM}));
}

struct Schedule : public tg::impl::TgScheduleBase<Schedule> {
  using Base::Base;
  std::optional<std::string> checkOptions() const {
    if (auto error = checkOptionValue("tg-schedule", "device", device,
                                      DeviceModel::getNames()))
      return error;
    if (workers < 0)
      return "tg-schedule: workers must be 0 or positive, got " +
             std::to_string(static_cast<int64_t>(workers));
    return std::nullopt;
  }
  MIRAGE_CHECK_PASS_OPTIONS_AT_PARSE
  void runOnOperation() override {
    GraphOp op = getOperation();
    if (!op.getLinearized()) {
      op.emitError() << "tg-schedule needs a linearized task graph; run "
                        "tg-normalize and tg-linearize first";
      return signalPassFailure();
    }
    FailureOr<DeviceModel> device = getDeviceModel(op, this->device);
    if (failed(device))
      return signalPassFailure();
    unsigned count =
        workers
            ? static_cast<unsigned>(workers)
            : static_cast<unsigned>(device->sms * getWorkersPerSM(op, *device));
    ImportedGraph imported = importGraph(op, *device);
    tgc::scheduleAheadOfTime(imported.graph, count, kEmptyTaskMicros);
    exportGraph(op, imported.graph);
  }
};

struct CheckSchedule : public tg::impl::TgCheckScheduleBase<CheckSchedule> {
  using Base::Base;
  std::optional<std::string> checkOptions() const {
    return checkOptionValue("tg-check-schedule", "device", device,
                            DeviceModel::getNames());
  }
  MIRAGE_CHECK_PASS_OPTIONS_AT_PARSE
  void runOnOperation() override {
    GraphOp op = getOperation();
    if (!op.getWorkers()) {
      op.emitError() << "tg-check-schedule needs a scheduled task graph; run "
                        "tg-schedule first";
      return signalPassFailure();
    }
    FailureOr<DeviceModel> device = getDeviceModel(op, this->device);
    if (failed(device))
      return signalPassFailure();
    ImportedGraph imported = importGraph(op, *device);
    const tgc::TaskGraph &graph = imported.graph;
    unsigned workers = static_cast<unsigned>(*op.getWorkers());
    tgc::SimulationReport report =
        tgc::simulate(graph, workers, kEmptyTaskMicros);
    if (report.deadlock) {
      const tgc::Deadlock &d = *report.deadlock;
      InFlightDiagnostic diag = op.emitError() << "the schedule deadlocks: ";
      if (d.worker < workers)
        diag << "worker " << d.worker
             << " waits at the head of its queue with ";
      diag << graph.describeTask(d.task) << ", which waits on event " << d.event
           << " (" << d.triggered << " of " << d.needed
           << " triggers arrived); " << report.tasksRun << " of "
           << graph.tasks.size() << " tasks ran";
      return signalPassFailure();
    }

    // One kernel launch per operator: a launch plus its blocks in waves
    // over the whole chip.
    double perOperator = 0;
    for (const tgc::Kernel &kernel : graph.kernels)
      perOperator += device->launchUs +
                     std::ceil(static_cast<double>(kernel.blocks) / workers) *
                         kernel.taskMicros;
    unsigned empty = llvm::count_if(graph.tasks, [](const tgc::Task &task) {
      return task.kind == tgc::TaskKind::Empty;
    });
    std::vector<double> idle = report.idleMicros;
    llvm::sort(idle);
    double idleTotal = std::accumulate(idle.begin(), idle.end(), 0.0);
    op.emitRemark() << llvm::formatv(
        "schedule: {0} tasks ({1} empty, {2:P2}) and {3} events on {4} "
        "workers; estimated makespan {5:F1} us against {6:F1} us for one "
        "kernel per operator ({7:F2}x); critical path {8:F1} us over {9} "
        "tasks; workers idle {10:P1} of the time (least {11:F1} us, median "
        "{12:F1} us, most {13:F1} us)",
        graph.tasks.size(), empty,
        static_cast<double>(empty) / std::max<size_t>(graph.tasks.size(), 1),
        graph.numEvents, workers, report.makespanMicros, perOperator,
        perOperator / std::max(report.makespanMicros, 1e-9),
        report.criticalPathMicros, report.criticalPathTasks,
        idleTotal / std::max(report.makespanMicros * workers, 1e-9),
        idle.front(), idle[idle.size() / 2], idle.back());
    markAllAnalysesPreserved();
  }
};

} // namespace
