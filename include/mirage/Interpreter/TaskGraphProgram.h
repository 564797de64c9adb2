//===- TaskGraphProgram.h - Running task graphs on the CPU ------*- C++ -*-===//
//
// A task graph (`tg.graph`) executed by the reference interpreter task by
// task: each compute task evaluates its kernel's block graph for its one
// block, on the graph's buffers, in an order drawn at random among those
// the events allow (a new order for every run). Outputs and temporaries are
// poisoned beforehand, and every access is checked against what has been
// written, so that a missing dependency, a task writing outside its tile or
// over another task's element, an element nobody writes, or tasks that can
// never run, fail the run with a TaskGraphError naming the task and the
// element, in float64 and in the finite fields alike. Runs may instead
// follow a mega-kernel's worker queues and counters, so that what the GPU
// will run is what is checked.
//
//===----------------------------------------------------------------------===//

#ifndef MIRAGE_INTERPRETER_TASKGRAPHPROGRAM_H
#define MIRAGE_INTERPRETER_TASKGRAPHPROGRAM_H

#include "mirage/Interpreter/Interpreter.h"

#include <atomic>

namespace mirage {

namespace tg {
class GraphOp;
} // namespace tg

/// What makes a task graph wrong, found while running it.
class TaskGraphError : public llvm::ErrorInfo<TaskGraphError> {
public:
  static char ID;
  explicit TaskGraphError(std::string reason) : reason(std::move(reason)) {}
  void log(llvm::raw_ostream &os) const override { os << reason; }
  std::error_code convertToErrorCode() const override {
    return llvm::inconvertibleErrorCode();
  }
  const std::string &getReason() const { return reason; }

private:
  std::string reason;
};

struct TaskGraphState;

/// How a mega-kernel dispatches a graph's tasks (its tables): per worker,
/// the graph's tasks it runs in order; per task of the graph, the counters
/// it waits on (none for an event whose triggering tasks ran earlier on its
/// worker, or that has none) and those it signals (a counter twice when it
/// counts twice); per counter, the signals that complete it. An empty task
/// may be in no queue (the kernel leaves it out; its neighbours' lists
/// carry its events), with no waits or signals.
struct WorkerQueues {
  std::vector<std::vector<uint32_t>> queues;
  /// The just-in-time tasks, in the graph's order, which workers claim one
  /// at a time from a shared counter: a worker runs the task it holds
  /// before the next task of its queue when the held one comes earlier in
  /// the graph's order (or its queue is done), then claims another.
  std::vector<uint32_t> jit;
  std::vector<llvm::SmallVector<int32_t, 1>> waits, signals;
  std::vector<uint32_t> needed;
};

class TaskGraphProgram : public Evaluator {
public:
  /// Compiles `graph`; `seed` draws the task orders of its runs: among
  /// those its events allow or, given `queues`, those the mega-kernel's
  /// workers can take (a worker stuck on a counter that never completes is
  /// a TaskGraphError). Fails when the buffers hold more than `maxElements`
  /// elements, a block graph cannot be interpreted, or `queues` does not
  /// hold every task once.
  static llvm::Expected<TaskGraphProgram>
  compile(tg::GraphOp graph, uint64_t seed,
          int64_t maxElements = kDefaultMaxElements,
          std::optional<WorkerQueues> queues = std::nullopt);

  TaskGraphProgram(TaskGraphProgram &&);
  TaskGraphProgram &operator=(TaskGraphProgram &&);
  ~TaskGraphProgram() override;

  llvm::ArrayRef<Shape> getInputShapes() const override;
  llvm::ArrayRef<Shape> getOutputShapes() const override;

  llvm::Expected<std::vector<F64Tensor>>
  run(llvm::ArrayRef<F64Tensor> inputs) const;
  llvm::Expected<std::vector<BoundedTensor>>
  run(llvm::ArrayRef<BoundedTensor> inputs,
      StabilityMonitor *monitor = nullptr) const override;
  llvm::Expected<std::vector<FFTensor>>
  run(llvm::ArrayRef<FFTensor> inputs,
      const Fingerprinter &fingerprinter) const override;

  /// Runs so far (each drew its own order).
  uint64_t getRunCount() const { return *runs; }

private:
  TaskGraphProgram();
  template <typename Domain>
  llvm::Expected<std::vector<typename Domain::Tensor>>
  execute(const Domain &domain,
          llvm::ArrayRef<typename Domain::Tensor> inputs) const;

  std::unique_ptr<TaskGraphState> state;
  uint64_t seed = 0;
  std::unique_ptr<std::atomic<uint64_t>> runs;
};

} // namespace mirage

#endif // MIRAGE_INTERPRETER_TASKGRAPHPROGRAM_H
