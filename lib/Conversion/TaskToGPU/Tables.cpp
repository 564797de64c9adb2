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
/// What makes two kernels share a body: their block graph, printed, their
/// buffers' types and which inputs are concatenations along which dim.
std::string getBodyKey(tg::KernelOp kernel) {
  std::string key;
  llvm::raw_string_ostream os(key);
  kernel.getBlockGraph()->print(
      os, OpPrintingFlags().printGenericOpForm().useLocalScope());
  for (Value buffer : kernel.getBodyOperands())
    os << buffer.getType();
  for (Value input : kernel.getInputs())
    if (auto concat = input.getDefiningOp<tg::ConcatOp>())
      os << "concat" << concat.getDim() << input.getType();
    else
      os << "buffer";
  return key;
}

/// The most events elision makes one task wait on or signal: a longer list
/// would cost its worker more than the empty task it saves.
constexpr size_t kMaxEventList = 32;

/// The tasks' events as the kernel runs them: per task the events it waits
/// on and those it signals (an event twice when it counts twice), per event
/// the tasks signalling it (its trigger count is their number) and those
/// waiting on it.
struct EventLists {
  SmallVector<SmallVector<int32_t, 1>> waits, triggers;
  SmallVector<SmallVector<int32_t, 2>> producers, consumers;
  SmallVector<bool> elided;

  EventLists(size_t tasks, size_t events)
      : waits(tasks), triggers(tasks), producers(events), consumers(events),
        elided(tasks, false) {}

  void addWait(int32_t task, int32_t event) {
    if (llvm::is_contained(waits[task], event))
      return;
    waits[task].push_back(event);
    consumers[event].push_back(task);
  }
  void addTrigger(int32_t task, int32_t event) {
    triggers[task].push_back(event);
    producers[event].push_back(task);
  }

  /// Leaves out the empty tasks normalization added to join or fork events,
  /// in order: a task waiting on one event has that event's producers
  /// signal its events instead, a task signalling one event has that
  /// event's consumers wait on its events instead, whichever adds fewer
  /// list entries. No task runs earlier than before: the events it waits on
  /// are active only once what the empty task waited for has finished
  /// (signalled by those producers now), or it waits on those events
  /// itself. Returns how many tasks were left out.
  unsigned elideEmptyTasks(ArrayRef<bool> empty) {
    unsigned count = 0;
    for (int32_t task = 0; task < static_cast<int32_t>(empty.size()); ++task) {
      if (!empty[task])
        continue;
      size_t upCost = SIZE_MAX, downCost = SIZE_MAX;
      if (waits[task].size() == 1 &&
          llvm::all_of(producers[waits[task][0]], [&](int32_t producer) {
            return triggers[producer].size() + triggers[task].size() <=
                   kMaxEventList;
          }))
        upCost = producers[waits[task][0]].size() * triggers[task].size();
      if (triggers[task].size() == 1 &&
          llvm::all_of(consumers[triggers[task][0]], [&](int32_t consumer) {
            return waits[consumer].size() + waits[task].size() <= kMaxEventList;
          }))
        downCost = consumers[triggers[task][0]].size() * waits[task].size();
      if (triggers[task].empty()) {
        // Nothing waits for it.
      } else if (upCost == SIZE_MAX && downCost == SIZE_MAX) {
        continue;
      } else if (upCost <= downCost) {
        for (int32_t producer : producers[waits[task][0]])
          for (int32_t event : triggers[task])
            addTrigger(producer, event);
      } else {
        for (int32_t consumer : consumers[triggers[task][0]])
          for (int32_t event : waits[task])
            addWait(consumer, event);
      }
      for (int32_t event : waits[task])
        llvm::erase(consumers[event], task);
      for (int32_t event : triggers[task])
        llvm::erase(producers[event], task);
      waits[task].clear();
      triggers[task].clear();
      elided[task] = true;
      ++count;
    }
    return count;
  }
};
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

  // Buffers, and per buffer (in graph order) the one holding its storage
  // (itself unless a view).
  llvm::DenseMap<Value, int32_t> bufferIndex;
  SmallVector<int32_t> storageOf;
  for (Operation &op : graph.getBodyBlock()) {
    Value value;
    int32_t storage = static_cast<int32_t>(storageOf.size());
    if (auto buffer = dyn_cast<tg::BufferOp>(op)) {
      value = buffer.getBuffer();
    } else if (auto view = dyn_cast<tg::ViewOp>(op)) {
      value = view.getView();
      storage = storageOf[bufferIndex.lookup(view.getSource())];
    } else {
      continue;
    }
    bufferIndex[value] = static_cast<int32_t>(storageOf.size());
    storageOf.push_back(storage);
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
    for (Value buffer : kernel.getBodyOperands())
      tables.operands.push_back(bufferIndex.lookup(buffer));
    auto [it, inserted] = bodyIndex.try_emplace(
        getBodyKey(kernel), static_cast<int32_t>(tables.bodies.size()));
    if (inserted)
      tables.bodies.push_back(kernel);
    kernelBody.push_back(it->second);
  }

  // Inputs that no kernel writes, per body: read-only in all its kernels.
  // A concatenation counts as written (its tiles are copied part by part).
  llvm::DenseSet<int32_t> written;
  for (auto kernel : graph.getBodyBlock().getOps<tg::KernelOp>())
    for (Value output : kernel.getOutputs())
      written.insert(storageOf[bufferIndex.lookup(output)]);
  SmallVector<SmallVector<bool>> readOnly(tables.bodies.size());
  for (auto [index, kernel] :
       llvm::enumerate(graph.getBodyBlock().getOps<tg::KernelOp>())) {
    SmallVector<bool> &flags = readOnly[kernelBody[index]];
    flags.resize(kernel.getInputs().size(), true);
    for (auto [position, input] : llvm::enumerate(kernel.getInputs()))
      if (input.getDefiningOp<tg::ConcatOp>() ||
          written.contains(storageOf[bufferIndex.lookup(input)]))
        flags[position] = false;
  }
  for (const SmallVector<bool> &flags : readOnly) {
    SmallVector<unsigned> &positions = tables.readOnlyInputs.emplace_back();
    for (auto [position, flag] : llvm::enumerate(flags))
      if (flag)
        positions.push_back(static_cast<unsigned>(position));
  }

  // Events (their trigger counts follow from the lists below).
  llvm::DenseMap<Value, int32_t> eventIndex;
  for (auto event : graph.getBodyBlock().getOps<tg::EventOp>())
    eventIndex.try_emplace(event.getEvent(),
                           static_cast<int32_t>(eventIndex.size()));

  if (!tables.threads)
    return graph.emitOpError() << "has no kernels: nothing to run";

  // Queues: each task's worker and position.
  SmallVector<tg::TaskOp> tasks(graph.getBodyBlock().getOps<tg::TaskOp>());
  SmallVector<int64_t> workerOf(tasks.size(), -1), position(tasks.size(), 0);
  SmallVector<SmallVector<int64_t>> queues(tables.workers);
  for (auto queue : graph.getBodyBlock().getOps<tg::QueueOp>()) {
    // Claimed just-in-time tasks run before the first queued task that
    // comes later in the graph's order, and a worker never waits on a
    // queued task while holding an earlier claim: sound only when each
    // queue is in that order (tg-schedule makes them so).
    ArrayRef<int64_t> order = queue.getTasks();
    for (size_t i = 1; i < order.size(); ++i)
      if (order[i] <= order[i - 1])
        return queue.emitOpError()
               << "runs task " << order[i] << " after task " << order[i - 1]
               << "; a mega-kernel runs each queue in the graph's order";
    queues[static_cast<int64_t>(queue.getWorker())].assign(order.begin(),
                                                           order.end());
  }
  for (auto [worker, queue] : llvm::enumerate(queues))
    for (auto [at, task] : llvm::enumerate(queue)) {
      workerOf[task] = static_cast<int64_t>(worker);
      position[task] = static_cast<int64_t>(at);
    }

  // Each task's events, and the empty tasks the lists make unnecessary.
  EventLists lists(tasks.size(), eventIndex.size());
  SmallVector<bool> empty;
  for (auto [index, task] : llvm::enumerate(tasks)) {
    if (task.getLaunch() == tg::LaunchMode::AOT && workerOf[index] < 0)
      return task.emitOpError()
             << "is ahead of time but in no worker's queue: it would never "
                "run";
    for (Value event : task.getWaits())
      lists.addWait(index, eventIndex.lookup(event));
    for (Value event : task.getTriggered())
      lists.addTrigger(index, eventIndex.lookup(event));
    empty.push_back(task.getKind() == tg::TaskKind::Empty);
  }
  tables.elidedTasks = lists.elideEmptyTasks(empty);
  for (const SmallVector<int32_t, 2> &producers : lists.producers)
    tables.needed.push_back(static_cast<int32_t>(producers.size()));

  // A wait is a same-SM hand-off when every triggering task ran earlier on
  // the same worker: the worker's own order (and the barrier after each
  // task) already gives it. An event needs a signal only if some task waits
  // on it through the counter.
  SmallVector<bool> signalled(tables.needed.size(), false);
  SmallVector<SmallVector<int32_t, 1>> counterWaits(tasks.size());
  for (auto [index, waits] : llvm::enumerate(lists.waits)) {
    if (lists.elided[index])
      continue;
    int64_t worker = workerOf[index], at = position[index];
    for (int32_t event : waits) {
      if (tables.needed[event] == 0)
        continue;
      // A just-in-time task's worker is known only when it runs.
      bool local =
          !dynamic && worker >= 0 &&
          llvm::all_of(lists.producers[event], [&](int64_t producer) {
            return workerOf[producer] == worker && position[producer] < at;
          });
      if (local) {
        ++tables.localWaits;
        continue;
      }
      ++tables.counterWaits;
      counterWaits[index].push_back(event);
      signalled[event] = true;
    }
  }

  // The records, renumbered without the elided tasks.
  SmallVector<int32_t> tableIndex(tasks.size(), -1);
  for (auto [index, task] : llvm::enumerate(tasks)) {
    if (lists.elided[index])
      continue;
    tableIndex[index] = static_cast<int32_t>(tables.graphTasks.size());
    tables.graphTasks.push_back(static_cast<int32_t>(index));
    int32_t kernel = -1, body = 0, operands = 0;
    std::array<int32_t, 3> block = {0, 0, 0};
    if (task.getKind() == tg::TaskKind::Compute) {
      kernel = kernelIndex.lookup(*task.getKernel());
      body = kernelBody[kernel];
      operands = kernelOperands[kernel];
      for (auto [g, coordinate] : llvm::enumerate(*task.getBlock()))
        block[g] = static_cast<int32_t>(coordinate);
    }
    SmallVector<int32_t, 1> signals;
    for (int32_t event : lists.triggers[index])
      if (signalled[event])
        signals.push_back(event);
    tables.tasks.append(
        {kernel < 0 ? -1 : body, kernel, block[0], block[1], block[2]});
    for (ArrayRef<int32_t> events :
         {ArrayRef(counterWaits[index]), ArrayRef(signals)}) {
      tables.tasks.append({static_cast<int32_t>(events.size()),
                           events.empty() ? -1 : events.front(),
                           static_cast<int32_t>(tables.eventLists.size())});
      if (!events.empty())
        llvm::append_range(tables.eventLists, events.drop_front());
    }
    tables.tasks.push_back(operands);
  }
  for (auto [worker, queue] : llvm::enumerate(queues)) {
    tables.queueStarts.push_back(static_cast<int32_t>(tables.queues.size()));
    for (int64_t task : queue)
      if (!lists.elided[task])
        tables.queues.push_back(tableIndex[task]);
  }
  tables.queueStarts.push_back(static_cast<int32_t>(tables.queues.size()));
  // The just-in-time tasks, in the graph's order, as a last span (dynamic
  // dispatch claims every task in that order, and reads no queue).
  for (auto [index, task] : llvm::enumerate(tasks))
    if (task.getLaunch() == tg::LaunchMode::JIT && !lists.elided[index])
      tables.queues.push_back(tableIndex[index]);
  tables.jitTasks =
      static_cast<int64_t>(tables.queues.size()) - tables.queueStarts.back();
  if (tables.jitTasks)
    tables.queueStarts.push_back(static_cast<int32_t>(tables.queues.size()));
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
       queues = read(kQueuesTable), needed = read(kNeededTable),
       lists = read(kEventListsTable), graphTasks = read(kGraphTasksTable);
  if (failed(tasks) || failed(starts) || failed(queues) || failed(needed) ||
      failed(lists) || failed(graphTasks))
    return failure();
  size_t graphTaskCount =
      llvm::range_size(graph.getBodyBlock().getOps<tg::TaskOp>());
  auto malformed = [&]() {
    return graph.emitOpError() << "has malformed mega-kernel tables";
  };
  if (tasks->size() % kTaskFields != 0 || starts->empty() ||
      starts->back() != static_cast<int32_t>(queues->size()) ||
      graphTasks->size() != tasks->size() / kTaskFields)
    return malformed();
  for (int32_t task : *graphTasks)
    if (task < 0 || static_cast<size_t>(task) >= graphTaskCount)
      return malformed();

  // Indexed by the graph's tasks: those the tables leave out wait on and
  // signal nothing, and are in no queue.
  WorkerQueues result;
  result.waits.resize(graphTaskCount);
  result.signals.resize(graphTaskCount);
  for (auto [index, task] : llvm::enumerate(*graphTasks)) {
    const int32_t *record = tasks->data() + index * kTaskFields;
    for (auto [count, first, more, events] :
         {std::tuple(record[Waits], record[Wait], record[MoreWaits],
                     &result.waits[task]),
          std::tuple(record[Triggers], record[Trigger], record[MoreTriggers],
                     &result.signals[task])}) {
      if (count < 0 || more < 0 ||
          more + std::max(count - 1, 0) > static_cast<int32_t>(lists->size()))
        return malformed();
      if (count == 0)
        continue;
      events->push_back(first);
      events->append(lists->begin() + more, lists->begin() + more + count - 1);
    }
  }
  for (int32_t count : *needed)
    result.needed.push_back(static_cast<uint32_t>(count));
  // Dynamic dispatch: any worker may take any task once its counters are
  // complete, as if each task had a worker of its own.
  if (auto dynamic = info.getAs<BoolAttr>(kDynamicDispatchAttrName);
      dynamic && dynamic.getValue()) {
    for (int32_t task : *graphTasks)
      result.queues.push_back({static_cast<uint32_t>(task)});
    return result;
  }
  // One span per worker, then (where the graph has any) the just-in-time
  // tasks.
  size_t workers = graph.getWorkers() ? *graph.getWorkers() : 0;
  if (starts->size() != workers + 1 && starts->size() != workers + 2)
    return graph.emitOpError() << "has malformed mega-kernel queue starts";
  for (size_t span = 0; span + 1 < starts->size(); ++span) {
    int32_t begin = (*starts)[span], end = (*starts)[span + 1];
    if (begin < 0 || begin > end || end > static_cast<int32_t>(queues->size()))
      return graph.emitOpError() << "has malformed mega-kernel queue starts";
    std::vector<uint32_t> &queue =
        span < workers ? result.queues.emplace_back() : result.jit;
    for (int32_t task : llvm::ArrayRef(*queues).slice(begin, end - begin)) {
      if (task < 0 || static_cast<size_t>(task) >= graphTasks->size())
        return malformed();
      queue.push_back(static_cast<uint32_t>((*graphTasks)[task]));
    }
  }
  return result;
}
