//===- Tables.cpp - A task graph's mega-kernel tables ---------------------===//
//
// Part of the Mirage MLIR project. See MegaKernel.h.
//
//===----------------------------------------------------------------------===//

#include "mirage/Conversion/MegaKernel.h"

#include "mirage/Dialect/Block/IR/Block.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OperationSupport.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringMap.h"

using namespace mlir;
using namespace mirage;
using namespace mirage::megakernel;

namespace {
/// What makes two kernels share a body: their block graph, printed, and
/// their buffers' types.
std::string getBodyKey(tg::KernelOp kernel) {
  std::string key;
  llvm::raw_string_ostream os(key);
  kernel.getBlockGraph()->print(
      os, OpPrintingFlags().printGenericOpForm().useLocalScope());
  for (Type type : kernel->getOperandTypes())
    os << type;
  return key;
}
} // namespace

FailureOr<Tables> megakernel::buildTables(tg::GraphOp graph, bool dynamic) {
  if (!graph.getLinearized() || !graph.getWorkers())
    return graph.emitOpError()
           << "must be linearized and scheduled to become a mega-kernel; run "
              "mirage-to-task-graph (or tg-normalize, tg-linearize and "
              "tg-schedule) first";
  Tables tables;
  tables.workers = static_cast<int64_t>(*graph.getWorkers());
  tables.dynamic = dynamic;

  // Buffers, and the storage of views.
  llvm::DenseMap<Value, int32_t> bufferIndex;
  for (Operation &op : graph.getBodyBlock()) {
    Value value;
    int32_t storage = static_cast<int32_t>(tables.buffers.size());
    if (auto buffer = dyn_cast<tg::BufferOp>(op)) {
      value = buffer.getBuffer();
    } else if (auto view = dyn_cast<tg::ViewOp>(op)) {
      value = view.getView();
      storage = tables.storage[bufferIndex.lookup(view.getSource())];
    } else {
      continue;
    }
    bufferIndex[value] = static_cast<int32_t>(tables.buffers.size());
    tables.buffers.push_back(value);
    tables.storage.push_back(storage);
  }

  // Kernels: their buffers in the operand table, and their bodies.
  llvm::StringMap<int32_t> kernelIndex, bodyIndex;
  SmallVector<int32_t> kernelBody, kernelOperands;
  for (auto kernel : graph.getBodyBlock().getOps<tg::KernelOp>()) {
    auto blockGraph = cast<tb::GraphOp>(kernel.getBlockGraph());
    int64_t threads = static_cast<int64_t>(blockGraph.getThreads());
    if (tables.threads && threads != tables.threads)
      return kernel.emitOpError()
             << "runs " << threads << " threads per block but other kernels "
             << "of the graph run " << tables.threads
             << "; a mega-kernel runs one block size";
    tables.threads = threads;
    kernelIndex[kernel.getSymName()] = static_cast<int32_t>(kernelBody.size());
    kernelOperands.push_back(static_cast<int32_t>(tables.operands.size()));
    for (Value buffer : kernel->getOperands())
      tables.operands.push_back(bufferIndex.lookup(buffer));
    auto [it, inserted] = bodyIndex.try_emplace(
        getBodyKey(kernel), static_cast<int32_t>(tables.bodies.size()));
    if (inserted)
      tables.bodies.push_back(kernel);
    kernelBody.push_back(it->second);
  }

  // Inputs that no kernel writes, per body: read-only in all its kernels.
  llvm::DenseSet<int32_t> written;
  for (auto kernel : graph.getBodyBlock().getOps<tg::KernelOp>())
    for (Value output : kernel.getOutputs())
      written.insert(tables.storage[bufferIndex.lookup(output)]);
  SmallVector<SmallVector<bool>> readOnly(tables.bodies.size());
  for (auto [index, kernel] :
       llvm::enumerate(graph.getBodyBlock().getOps<tg::KernelOp>())) {
    SmallVector<bool> &flags = readOnly[kernelBody[index]];
    flags.resize(kernel.getInputs().size(), true);
    for (auto [position, input] : llvm::enumerate(kernel.getInputs()))
      if (written.contains(tables.storage[bufferIndex.lookup(input)]))
        flags[position] = false;
  }
  for (const SmallVector<bool> &flags : readOnly) {
    SmallVector<unsigned> &positions = tables.readOnlyInputs.emplace_back();
    for (auto [position, flag] : llvm::enumerate(flags))
      if (flag)
        positions.push_back(static_cast<unsigned>(position));
  }

  // Events.
  llvm::DenseMap<Value, int32_t> eventIndex;
  for (auto event : graph.getBodyBlock().getOps<tg::EventOp>()) {
    eventIndex[event.getEvent()] = static_cast<int32_t>(tables.needed.size());
    tables.needed.push_back(static_cast<int32_t>(event.getTriggers()));
  }

  if (!tables.threads)
    return graph.emitOpError() << "has no kernels: nothing to run";

  // Queues: each task's worker and position.
  SmallVector<tg::TaskOp> tasks(graph.getBodyBlock().getOps<tg::TaskOp>());
  SmallVector<int64_t> workerOf(tasks.size(), -1), position(tasks.size(), 0);
  SmallVector<SmallVector<int64_t>> queues(tables.workers);
  for (auto queue : graph.getBodyBlock().getOps<tg::QueueOp>())
    queues[static_cast<int64_t>(queue.getWorker())].assign(
        queue.getTasks().begin(), queue.getTasks().end());
  for (auto [worker, queue] : llvm::enumerate(queues)) {
    tables.queueStarts.push_back(static_cast<int32_t>(tables.queues.size()));
    for (auto [at, task] : llvm::enumerate(queue)) {
      workerOf[task] = static_cast<int64_t>(worker);
      position[task] = static_cast<int64_t>(at);
      tables.queues.push_back(static_cast<int32_t>(task));
    }
  }
  tables.queueStarts.push_back(static_cast<int32_t>(tables.queues.size()));

  // Which tasks trigger each event.
  SmallVector<SmallVector<int64_t>> triggering(tables.needed.size());
  for (auto [index, task] : llvm::enumerate(tasks)) {
    if (task.getLaunch() != tg::LaunchMode::AOT)
      return task.emitOpError()
             << "is dispatched just in time; the mega-kernel runs "
                "ahead-of-time queues only";
    for (Value event : task.getTriggered())
      triggering[eventIndex.lookup(event)].push_back(index);
  }

  // A wait is a same-SM hand-off when every triggering task ran earlier on
  // the same worker: the worker's own order (and the barrier after each
  // task) already gives it. An event needs a signal only if some task waits
  // on it through the counter.
  SmallVector<bool> signalled(tables.needed.size(), false);
  SmallVector<int32_t> waits(tasks.size(), -1);
  for (auto [index, task] : llvm::enumerate(tasks)) {
    int32_t event = eventIndex.lookup(task.getWaits()[0]);
    if (tables.needed[event] == 0)
      continue;
    int64_t worker = workerOf[index], at = position[index];
    bool local =
        !dynamic && llvm::all_of(triggering[event], [&](int64_t producer) {
          return workerOf[producer] == worker && position[producer] < at;
        });
    if (local) {
      ++tables.localWaits;
      continue;
    }
    ++tables.counterWaits;
    waits[index] = event;
    signalled[event] = true;
  }

  for (auto [index, task] : llvm::enumerate(tasks)) {
    int32_t trigger = -1;
    if (!task.getTriggered().empty()) {
      int32_t event = eventIndex.lookup(task.getTriggered()[0]);
      if (signalled[event])
        trigger = event;
    }
    int32_t kernel = -1, body = 0, operands = 0;
    std::array<int32_t, 3> block = {0, 0, 0};
    if (task.getKind() == tg::TaskKind::Compute) {
      kernel = kernelIndex.lookup(*task.getKernel());
      body = kernelBody[kernel];
      operands = kernelOperands[kernel];
      for (auto [g, coordinate] : llvm::enumerate(*task.getBlock()))
        block[g] = static_cast<int32_t>(coordinate);
    }
    tables.tasks.append({kernel < 0 ? -1 : body, kernel, block[0], block[1],
                         block[2], waits[index], trigger, operands});
  }
  return tables;
}

FailureOr<WorkerQueues> megakernel::readWorkerQueues(tg::GraphOp graph) {
  auto info = graph->getAttrOfType<DictionaryAttr>(kMegaKernelAttrName);
  auto tables = info ? info.getAs<DictionaryAttr>("tables") : nullptr;
  if (!tables)
    return graph.emitOpError()
           << "has no mega-kernel tables (" << kMegaKernelAttrName << "); run "
           << "convert-tg-to-gpu first";
  auto module = graph->getParentOfType<ModuleOp>();
  auto read = [&](StringRef name) -> FailureOr<SmallVector<int32_t>> {
    auto symbol = tables.getAs<FlatSymbolRefAttr>(name);
    auto global = symbol && module
                      ? module.lookupSymbol<memref::GlobalOp>(symbol.getValue())
                      : memref::GlobalOp();
    auto values = global ? dyn_cast_if_present<DenseIntElementsAttr>(
                               global.getInitialValueAttr())
                         : DenseIntElementsAttr();
    if (!values)
      return graph.emitOpError() << "names no constant " << name << " table";
    SmallVector<int32_t> table;
    for (const APInt &value : values.getValues<APInt>())
      table.push_back(static_cast<int32_t>(value.getSExtValue()));
    return table;
  };
  auto tasks = read(kTaskTable), starts = read(kQueueStartsTable),
       queues = read(kQueuesTable), needed = read(kNeededTable);
  if (failed(tasks) || failed(starts) || failed(queues) || failed(needed))
    return failure();
  if (tasks->size() % kTaskFields != 0 || starts->empty() ||
      starts->back() != static_cast<int32_t>(queues->size()))
    return graph.emitOpError() << "has malformed mega-kernel tables";

  WorkerQueues result;
  for (size_t task = 0; task < tasks->size() / kTaskFields; ++task) {
    result.waits.push_back((*tasks)[task * kTaskFields + Wait]);
    result.signals.push_back((*tasks)[task * kTaskFields + Trigger]);
  }
  for (int32_t count : *needed)
    result.needed.push_back(static_cast<uint32_t>(count));
  // Dynamic dispatch: any worker may take any task once its counter is
  // complete, as if each task had a worker of its own.
  if (auto dynamic = info.getAs<BoolAttr>(kDynamicDispatchAttrName);
      dynamic && dynamic.getValue()) {
    for (uint32_t task = 0; task < result.waits.size(); ++task)
      result.queues.push_back({task});
    return result;
  }
  for (size_t worker = 0; worker + 1 < starts->size(); ++worker) {
    int32_t begin = (*starts)[worker], end = (*starts)[worker + 1];
    if (begin < 0 || begin > end)
      return graph.emitOpError() << "has malformed mega-kernel queue starts";
    result.queues.emplace_back(queues->begin() + begin, queues->begin() + end);
  }
  return result;
}
