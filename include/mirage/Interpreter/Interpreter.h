//===- Interpreter.h - Reference interpreter for kn, tb and th --*- C++ -*-===//
//
// Evaluates a kernel graph (a func.func of kn ops, graph-defined kernels with
// their block and thread graphs included) on concrete tensors, in float64 or
// as finite-field fingerprints. Every operator's meaning comes from its
// record in mirage/Semantics; the interpreter supplies the block-graph
// structure: workers over the grid (or the thread layout), the for-loop,
// iterators, accumulators, post-loop ops and savers (docs/Dialects.md).
//
// A function is compiled once into a Program and can then be run many times.
// Blocks of a graph-defined kernel run in parallel.
//
//===----------------------------------------------------------------------===//

#ifndef MIRAGE_INTERPRETER_INTERPRETER_H
#define MIRAGE_INTERPRETER_INTERPRETER_H

#include "mirage/Semantics/Evaluation.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace mirage {

namespace detail {
struct GraphPlan;
} // namespace detail

/// Records the first value a float64 run produces that is not finite or
/// exceeds the range of the element type it is stored in (f16: 65504), the
/// mark of a numerically unstable program.
class StabilityMonitor {
public:
  void observe(mlir::Operation *op, const F64Tensor &value, double limit);
  bool isStable() const { return !firstViolation.has_value(); }
  /// A description of the first violation: the op and the value.
  std::string describe() const;

private:
  mutable std::mutex mutex;
  std::optional<std::pair<mlir::Operation *, double>> firstViolation;
  double violatedLimit = 0.0;
};

/// The default limit on the elements of a program's tensors (arguments and
/// results of its top-level ops together): 2^29, 4 GiB in float64.
constexpr int64_t kDefaultMaxElements = int64_t(1) << 29;

/// Called before each top-level op of a float64 run with its index, the
/// number of top-level ops and the op, so that a long run can show progress.
using StepCallback =
    std::function<void(size_t index, size_t count, mlir::Operation *op)>;

/// What the equivalence verifier runs on its inputs: a function (Program)
/// or a task graph (TaskGraphProgram).
class Evaluator {
public:
  virtual ~Evaluator() = default;
  virtual llvm::ArrayRef<Shape> getInputShapes() const = 0;
  virtual llvm::ArrayRef<Shape> getOutputShapes() const = 0;
  /// Float64 with running error analysis; `monitor`, when given, watches
  /// every value against its element type's range.
  virtual llvm::Expected<std::vector<BoundedTensor>>
  run(llvm::ArrayRef<BoundedTensor> inputs,
      StabilityMonitor *monitor = nullptr) const = 0;
  /// Fingerprints. Fails with a ResampleError when the inputs hit a zero
  /// divisor or a non-residue.
  virtual llvm::Expected<std::vector<FFTensor>>
  run(llvm::ArrayRef<FFTensor> inputs,
      const Fingerprinter &fingerprinter) const = 0;
};

/// A kernel-graph function compiled for evaluation.
class Program : public Evaluator {
public:
  /// Compiles `function`; fails with a message naming the first op the
  /// interpreter cannot run, or, when its tensors hold more than
  /// `maxElements` elements, one naming the size, the largest tensor and
  /// the limit.
  static llvm::Expected<Program>
  compile(mlir::func::FuncOp function,
          int64_t maxElements = kDefaultMaxElements);

  Program(Program &&);
  Program &operator=(Program &&);
  ~Program() override;

  llvm::ArrayRef<Shape> getInputShapes() const override { return inputShapes; }
  llvm::ArrayRef<Shape> getOutputShapes() const override {
    return outputShapes;
  }

  /// Runs the program in float64. `monitor`, when given, watches every
  /// value against its element type's range; `onStep`, when given, hears of
  /// each top-level op before it runs.
  llvm::Expected<std::vector<F64Tensor>>
  run(llvm::ArrayRef<F64Tensor> inputs, StabilityMonitor *monitor = nullptr,
      const StepCallback *onStep = nullptr) const;

  /// Runs the program in float64 with running error analysis: every output
  /// element comes with a bound on its distance from the exact real result
  /// (the inputs are taken as exact).
  llvm::Expected<std::vector<BoundedTensor>>
  run(llvm::ArrayRef<BoundedTensor> inputs,
      StabilityMonitor *monitor = nullptr) const override;

  /// Fingerprints the program. Fails with a ResampleError when the inputs hit
  /// a zero divisor or a non-residue.
  llvm::Expected<std::vector<FFTensor>>
  run(llvm::ArrayRef<FFTensor> inputs,
      const Fingerprinter &fingerprinter) const override;

private:
  Program();
  std::unique_ptr<detail::GraphPlan> plan;
  llvm::SmallVector<Shape> inputShapes, outputShapes;
};

} // namespace mirage

#endif // MIRAGE_INTERPRETER_INTERPRETER_H
