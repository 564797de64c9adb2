//===- TaskGraphIO.cpp - tg IR to and from the compact task graph ---------===//
//
// Part of the Mirage MLIR project. See TaskGraphIO.h.
//
//===----------------------------------------------------------------------===//

#include "mirage/Dialect/Task/Transforms/TaskGraphIO.h"

#include "mirage/Dialect/Kernel/Transforms/BlockGraphBuilder.h"

#include "mirage/Dialect/Block/IR/Block.h"
#include "mirage/IR/GraphUtils.h"
#include "mirage/IR/SemanticsOpInterface.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"

#include <algorithm>

using namespace mlir;
using namespace mirage;
using namespace mirage::tg;
namespace tgc = mirage::taskgraph;

std::optional<DeviceModel> tg::findDeviceModel(Operation *op, StringRef name) {
  std::optional<DeviceModel> device = DeviceModel::get(name);
  if (device)
    device->sms = tb::TargetAttr::lookup(op).getSms();
  return device;
}

FailureOr<DeviceModel> tg::getDeviceModel(Operation *op, StringRef name) {
  if (std::optional<DeviceModel> device = findDeviceModel(op, name))
    return *device;
  return op->emitError() << "unknown device '" << name
                         << "'; expected h100 or h200";
}

TaskEstimate tg::estimateTask(tb::GraphOp graph, const DeviceModel &device) {
  // A task's fixed cost: its description, its wait and its signal.
  constexpr double kTaskMicros = 0.5;
  // One block of a persistent kernel, as kn-fuse{persistent} costs it: its
  // critical path, or its round's share of the kernel's memory and
  // arithmetic when all workers stream together.
  DeviceModel persistent = device.forPersistentTasks();
  TaskEstimate estimate;
  estimate.profile = kn::getKernelProfile(graph, persistent);
  estimate.time = estimateKernel(estimate.profile, persistent,
                                 /*launch=*/false);
  const KernelTimeBreakdown &time = estimate.time;
  double waves = std::max(1.0, time.waves);
  estimate.bodyMicros =
      std::max({time.blockUs, time.memoryUs / waves, time.computeUs / waves});
  estimate.micros = kTaskMicros + estimate.bodyMicros;
  return estimate;
}

ImportedGraph tg::importGraph(GraphOp op, const DeviceModel &device) {
  ImportedGraph imported;
  tgc::TaskGraph &graph = imported.graph;
  llvm::DenseMap<Value, uint32_t> bufferIndex, eventIndex;
  llvm::DenseMap<StringRef, uint32_t> kernelIndex;
  uint64_t temps = 0;
  auto addBuffer = [&](Value value, int32_t base, std::string name) {
    bufferIndex[value] = graph.buffers.size();
    graph.buffers.push_back(
        {Shape(cast<MemRefType>(value.getType()).getShape()), base, name});
    imported.buffers.push_back(value);
  };
  for (Operation &child : op.getBodyBlock()) {
    if (auto buffer = dyn_cast<BufferOp>(child)) {
      // Inputs and outputs by their index, temporaries in order.
      std::string name =
          stringifyBufferRole(buffer.getRole()).str() + " " +
          std::to_string(buffer.getIndex() ? *buffer.getIndex() : temps++);
      addBuffer(buffer.getBuffer(), -1, name);
    } else if (auto view = dyn_cast<ViewOp>(child)) {
      uint32_t base = bufferIndex.lookup(view.getSource());
      addBuffer(view.getView(), static_cast<int32_t>(base),
                "view of " + graph.buffers[base].name);
    } else if (auto concat = dyn_cast<ConcatOp>(child)) {
      std::string name = "concatenation of";
      std::vector<uint32_t> parts;
      for (Value part : concat.getParts()) {
        parts.push_back(bufferIndex.lookup(part));
        name +=
            (parts.size() > 1 ? ", " : " ") + graph.buffers[parts.back()].name;
      }
      addBuffer(concat.getView(), -1, name);
      graph.buffers.back().parts = std::move(parts);
      graph.buffers.back().concatDim = static_cast<int64_t>(concat.getDim());
    } else if (auto kernel = dyn_cast<KernelOp>(child)) {
      auto blockGraph = cast<tb::GraphOp>(kernel.getBlockGraph());
      kernelIndex[kernel.getSymName()] = graph.kernels.size();
      graph.kernels.push_back({kernel.getSymName().str(),
                               kernel.getDataDependent(),
                               estimateTask(blockGraph, device).micros,
                               getNumElements(blockGraph.getGrid())});
      imported.kernels.push_back(kernel);
    } else if (auto event = dyn_cast<EventOp>(child)) {
      eventIndex[event.getEvent()] = graph.addEvent();
      graph.eventTasks.push_back(std::nullopt);
      if (event.getFirstTask())
        graph.eventTasks.back() = {static_cast<uint32_t>(*event.getFirstTask()),
                                   static_cast<uint32_t>(*event.getLastTask())};
    }
  }
  for (TaskOp task : op.getBodyBlock().getOps<TaskOp>()) {
    tgc::Task &t = graph.tasks.emplace_back();
    t.launch = task.getLaunch() == LaunchMode::JIT ? tgc::LaunchMode::JIT
                                                   : tgc::LaunchMode::AOT;
    for (Value event : task.getWaits())
      t.waits.push_back(eventIndex.lookup(event));
    for (Value event : task.getTriggered())
      t.triggers.push_back(eventIndex.lookup(event));
    if (task.getKind() == TaskKind::Empty)
      continue;
    t.kind = tgc::TaskKind::Compute;
    t.kernel = static_cast<int32_t>(kernelIndex.lookup(*task.getKernel()));
    t.block = Shape(*task.getBlock());
    KernelOp kernel = imported.kernels[t.kernel];
    auto toAccess = [&](Value buffer, Attribute attr) {
      auto box = cast<BoxAttr>(attr);
      return tgc::Access{
          bufferIndex.lookup(buffer),
          tgc::Box{Shape(box.getOffsets()), Shape(box.getSizes())}};
    };
    for (auto [buffer, box] : llvm::zip(kernel.getInputs(), *task.getReads()))
      t.reads.push_back(toAccess(buffer, box));
    for (auto [buffer, box] : llvm::zip(kernel.getOutputs(), *task.getWrites()))
      t.writes.push_back(toAccess(buffer, box));
  }
  if (!op.getLinearized())
    graph.eventTasks.clear();
  for (QueueOp queue : op.getBodyBlock().getOps<QueueOp>()) {
    size_t worker = static_cast<size_t>(queue.getWorker());
    if (graph.queues.size() <= worker)
      graph.queues.resize(worker + 1);
    for (int64_t task : queue.getTasks())
      graph.queues[worker].push_back(static_cast<uint32_t>(task));
  }
  if (op.getWorkers())
    graph.queues.resize(static_cast<size_t>(*op.getWorkers()));
  return imported;
}

void tg::exportGraph(GraphOp op, const tgc::TaskGraph &graph) {
  Block &body = op.getBodyBlock();
  llvm::StringMap<KernelOp> kernels;
  for (Operation &child : llvm::make_early_inc_range(body)) {
    if (auto kernel = dyn_cast<KernelOp>(child))
      kernels[kernel.getSymName()] = kernel;
    // Tasks use events: drop the uses first.
    if (isa<TaskOp>(child))
      child.dropAllReferences();
  }
  for (Operation &child : llvm::make_early_inc_range(body))
    if (isa<TaskOp, EventOp, QueueOp>(child))
      child.erase();

  OpBuilder b = OpBuilder::atBlockEnd(&body);
  MLIRContext *context = op.getContext();
  Location loc = op.getLoc();
  bool linearized = !graph.eventTasks.empty();
  std::vector<uint32_t> counts = graph.getTriggerCounts();
  SmallVector<Value> events;
  SmallVector<EventOp> eventOps;
  for (uint32_t e = 0; e < graph.numEvents; ++e) {
    IntegerAttr first, last;
    if (linearized && graph.eventTasks[e]) {
      first = b.getI64IntegerAttr(graph.eventTasks[e]->first);
      last = b.getI64IntegerAttr(graph.eventTasks[e]->second);
    }
    auto event = EventOp::create(b, loc, EventType::get(context),
                                 b.getI64IntegerAttr(counts[e]), first, last);
    eventOps.push_back(event);
    events.push_back(event.getEvent());
  }

  auto boxes = [&](ArrayRef<tgc::Access> accesses) {
    SmallVector<Attribute> attrs;
    for (const tgc::Access &access : accesses)
      attrs.push_back(
          BoxAttr::get(context, access.box.offsets, access.box.sizes));
    return b.getArrayAttr(attrs);
  };
  SmallVector<TaskOp> taskOps;
  for (const tgc::Task &task : graph.tasks) {
    SmallVector<Value> waits, triggers;
    for (uint32_t event : task.waits)
      waits.push_back(events[event]);
    for (uint32_t event : task.triggers)
      triggers.push_back(events[event]);
    LaunchMode launch =
        task.launch == tgc::LaunchMode::JIT ? LaunchMode::JIT : LaunchMode::AOT;
    if (task.kind == tgc::TaskKind::Empty) {
      taskOps.push_back(TaskOp::create(b, loc, TaskKind::Empty, nullptr,
                                       nullptr, nullptr, nullptr, launch, waits,
                                       triggers));
      continue;
    }
    KernelOp kernel = kernels.lookup(graph.kernels[task.kernel].name);
    taskOps.push_back(
        TaskOp::create(b, kernel.getLoc(), TaskKind::Compute,
                       FlatSymbolRefAttr::get(kernel.getSymNameAttr()),
                       b.getDenseI64ArrayAttr(task.block), boxes(task.reads),
                       boxes(task.writes), launch, waits, triggers));
  }

  // Linearized graphs read best with each event just before the tasks
  // waiting on it; the tasks keep their order either way.
  if (linearized) {
    for (uint32_t e = 0; e < graph.numEvents; ++e)
      if (graph.eventTasks[e])
        eventOps[e]->moveBefore(taskOps[graph.eventTasks[e]->first]);
  }
  for (auto [worker, queue] : llvm::enumerate(graph.queues)) {
    SmallVector<int64_t> tasks(queue.begin(), queue.end());
    QueueOp::create(b, loc, b.getI64IntegerAttr(worker),
                    b.getDenseI64ArrayAttr(tasks));
  }
  op.setLinearized(linearized);
  if (!graph.queues.empty())
    op.setWorkersAttr(b.getI64IntegerAttr(graph.queues.size()));
}
