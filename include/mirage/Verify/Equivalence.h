//===- Equivalence.h - Probabilistic equivalence of kernel graphs -*- C++ -*-===//
//
// Decides whether a candidate kernel graph computes the same function as a
// reference, with three checks:
//
//  1. Uninterpreted fingerprints: both programs on random residues mod
//     p ~ 2^61, exp and sqrt as keyed random oracles. For programs in the
//     Lax fragment, agreement in T trials proves equivalence except with
//     probability at most eps^T, eps = (d + oracle collisions) / p, d the
//     degree of the rational functions compared (Schwartz-Zippel).
//  2. Homomorphic fingerprints (Mirage v3 section 5), when the uninterpreted
//     ones differ and the programs take no square roots: exp(x) = w^(x_q)
//     for a random q-th root of unity w. Equivalent Lax programs always
//     agree, so a disagreement refutes equivalence; agreement means the
//     candidate relies on exp(a) exp(b) = exp(a + b), which is not proven.
//     (Programs with square roots skip this check: field roots exist only
//     for residues, and programs taking many roots almost never draw
//     residues for all of them; the float64 check decides.)
//  3. Float64 on seeded inputs in two regimes ([-1, 1) and magnitudes
//     2^-10 to 2^10 of both signs, narrowed where the reference overflows
//     float64), with running error analysis: the
//     candidate and the reference must agree within twice the sum of their
//     rounding bounds, element by element, and every candidate value on the
//     [-1, 1) inputs must stay inside its element type's range. Programs
//     outside the Lax fragment rest on this check alone and are reported as
//     tested, not proven.
//
//===----------------------------------------------------------------------===//

#ifndef MIRAGE_VERIFY_EQUIVALENCE_H
#define MIRAGE_VERIFY_EQUIVALENCE_H

#include "mirage/Interpreter/Interpreter.h"
#include "mirage/Interpreter/TaskGraphProgram.h"
#include "mirage/Semantics/OpSemantics.h"
#include "mirage/Semantics/Tensor.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <functional>
#include <optional>
#include <string>

namespace mirage {

namespace tg {
class GraphOp;
} // namespace tg

struct EquivalenceOptions {
  /// Independent fingerprint trials.
  unsigned trials = 3;
  uint64_t seed = 1;
  /// The interpreter's limit on the elements of a program's tensors.
  int64_t maxElements = kDefaultMaxElements;
  /// Task graphs: random task orders run on the same inputs before the
  /// checks (which run more), each checked and compared with the first.
  unsigned taskOrders = 4;
  /// New inputs to draw when a trial hits a zero divisor or non-residue.
  unsigned maxResamples = 8;
  /// Told which check starts ("finite-field trial 2 of 3 (uninterpreted)",
  /// "float64, [-1, 1) inputs", "task order 3 of 4"), when set.
  std::function<void(llvm::StringRef)> progress;
};

enum class Verdict {
  /// Agreement proven in the Lax fragment, with the reported bound.
  Proven,
  /// Agreement observed but not proven (outside the fragment, or only with
  /// exp/sqrt identities).
  Tested,
  NotEquivalent,
  /// Equal functions, but the candidate overflows its element type or
  /// disagrees numerically.
  Unstable,
  /// No inputs avoided a zero divisor.
  Inconclusive,
};

llvm::StringRef stringifyVerdict(Verdict verdict);

/// Where the candidate and the reference first differ.
struct Mismatch {
  unsigned output = 0;
  Shape index;
  std::string candidate, reference;
  /// Which check saw it: "finite field (homomorphic), trial 2", "float64".
  std::string check;
};

struct EquivalenceResult {
  Verdict verdict = Verdict::Inconclusive;
  /// Why the programs are or are not in the Lax fragment.
  std::string fragment;
  /// One sentence on how the verdict was reached.
  std::string explanation;
  std::optional<Mismatch> mismatch;
  unsigned trials = 0;
  unsigned resamples = 0;
  /// Proven: the false-accept bound over all trials, and per trial.
  double bound = 1.0, boundPerTrial = 1.0;
  /// The degree bound d behind it.
  uint64_t degree = 0;
  /// The float64 check: the largest |c - r| relative to the allowed
  /// difference (2 (error bound of c + error bound of r)), the widest
  /// allowed difference relative to its output's scale, and the elements
  /// compared and left out (no finite reference value or bound).
  double floatRatio = 0.0, floatBound = 0.0;
  int64_t floatCompared = 0, floatUncompared = 0;
  /// The input regimes compared ("[-1, 1)", "+-2^[-10, 10]").
  llvm::SmallVector<std::string, 2> floatRegimes;
  int64_t outputElements = 0;
  /// Task graphs: the task orders tried (one per run), and whether they
  /// were the mega-kernel's worker orders.
  uint64_t orders = 0;
  bool workerOrders = false;
  double seconds = 0.0;
};

/// Checks `candidate` against `reference` (same function type).
llvm::Expected<EquivalenceResult>
checkEquivalence(mlir::func::FuncOp candidate, mlir::func::FuncOp reference,
                 const EquivalenceOptions &options);

/// Checks a task graph against the function it claims to compute: every
/// run of the task graph (each trial and float64 regime) executes its tasks
/// in a new order drawn at random among those its events allow. A task graph
/// that runs wrongly (a task reading an element not written yet, writing
/// outside its tile or over another task's element, an element nobody
/// writes, tasks that never run) is `not equivalent`, with the task and
/// element named. Given `queues` (a mega-kernel's dispatch), the orders are
/// drawn among those its workers can run instead, so that a table that lets
/// a task read early, or a worker wait forever, is `not equivalent`.
llvm::Expected<EquivalenceResult>
checkEquivalence(mirage::tg::GraphOp candidate, mlir::func::FuncOp reference,
                 const EquivalenceOptions &options,
                 std::optional<WorkerQueues> queues = std::nullopt);

/// A quick necessary condition for equivalence, for screening many
/// candidates against one reference: the float64 check of checkEquivalence
/// in its [-1, 1) regime alone, with the reference's outputs computed once.
/// Passing it proves nothing; failing it refutes.
class FloatScreen {
public:
  static llvm::Expected<FloatScreen> create(mlir::func::FuncOp reference,
                                            const EquivalenceOptions &options);
  /// Where the candidate first differs, or nullopt when it agrees.
  llvm::Expected<std::optional<Mismatch>> check(mlir::func::FuncOp candidate);

private:
  FloatScreen() = default;
  int64_t maxElements = 0;
  mlir::FunctionType type;
  std::vector<BoundedTensor> inputs, outputs;
};

/// The result as one line: verdict, trials, bound, float error, mismatch.
std::string describe(const EquivalenceResult &result,
                     llvm::StringRef referenceName);

/// The verdict and its strength only, for remarks read by people: "proven
/// (false-accept probability <= 2^-156)", "tested", "not equivalent (first
/// mismatch at output #0 element [0, 3])".
std::string describeBriefly(const EquivalenceResult &result);

} // namespace mirage

#endif // MIRAGE_VERIFY_EQUIVALENCE_H
