//===- Equivalence.cpp - Probabilistic equivalence of kernel graphs -------===//
//
// Part of the Mirage MLIR project. See Equivalence.h for the method.
//
//===----------------------------------------------------------------------===//

#include "mirage/Verify/Equivalence.h"

#include "mirage/Dialect/Kernel/IR/Kernel.h"
#include "mirage/Dialect/Task/IR/Task.h"
#include "mirage/Dialect/Thread/IR/Thread.h"
#include "mirage/IR/GraphUtils.h"
#include "mirage/Interpreter/Interpreter.h"
#include "mirage/Interpreter/TaskGraphProgram.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <chrono>
#include <cmath>

using namespace mlir;
using namespace mirage;

llvm::StringRef mirage::stringifyVerdict(Verdict verdict) {
  switch (verdict) {
  case Verdict::Proven:
    return "proven";
  case Verdict::Tested:
    return "tested, not proven";
  case Verdict::NotEquivalent:
    return "not equivalent";
  case Verdict::Unstable:
    return "numerically unstable";
  case Verdict::Inconclusive:
    return "inconclusive";
  }
  llvm_unreachable("unknown verdict");
}

namespace {

std::string formatIndex(ArrayRef<int64_t> index) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << '[';
  llvm::interleaveComma(index, os);
  os << ']';
  return text;
}

//===----------------------------------------------------------------------===//
// Static facts: the Lax fragment, degrees, oracle calls
//===----------------------------------------------------------------------===//

/// What a program's structure says about its fingerprint.
struct ProgramFacts {
  std::optional<std::string> outsideOp; // an op with no fingerprint
  std::optional<std::string> secondExp; // an op putting 2 exps on a path
  bool usesSqrt = false;
  SmallVector<Degree> outputDegrees;
  /// Elements evaluated by exp/sqrt oracles in one run, and the largest
  /// degree of their arguments.
  double oracleCalls = 0;
  uint64_t oracleArgumentDegree = 0;
  bool oracleArgumentWithoutQ = false;
};

class FactCollector {
public:
  ProgramFacts collect(func::FuncOp function) {
    Block &body = function.getBody().front();
    for (BlockArgument arg : body.getArguments())
      degree[arg] = Degree{1, 0};
    walk(body, /*multiplicity=*/1.0, /*loopRange=*/1);
    for (Value result : body.getTerminator()->getOperands())
      facts.outputDegrees.push_back(degree.lookup(result));
    return facts;
  }

  /// A task graph: its kernels in order, with values flowing through the
  /// buffers (a view is its storage).
  ProgramFacts collect(tg::GraphOp graph) {
    llvm::DenseMap<Value, Value> storage;
    SmallVector<std::pair<int64_t, Value>> outputs;
    for (Operation &op : graph.getBodyBlock()) {
      if (auto buffer = dyn_cast<tg::BufferOp>(op)) {
        storage[buffer.getBuffer()] = buffer.getBuffer();
        if (buffer.getRole() == tg::BufferRole::Input)
          degree[buffer.getBuffer()] = Degree{1, 0};
        if (buffer.getRole() == tg::BufferRole::Output)
          outputs.push_back(
              {static_cast<int64_t>(*buffer.getIndex()), buffer.getBuffer()});
      } else if (auto view = dyn_cast<tg::ViewOp>(op)) {
        storage[view.getView()] = storage.lookup(view.getSource());
      } else if (auto kernel = dyn_cast<tg::KernelOp>(op)) {
        auto blockGraph = cast<tb::GraphOp>(kernel.getBlockGraph());
        Block &inner = blockGraph.getBodyBlock();
        SmallVector<Value> inputs, results;
        for (Value input : kernel.getInputs()) {
          auto concat = input.getDefiningOp<tg::ConcatOp>();
          if (!concat) {
            inputs.push_back(storage.lookup(input));
            continue;
          }
          // A concatenation holds what its parts hold now.
          SmallVector<Degree> parts;
          SmallVector<ArrayRef<int64_t>> shapes;
          unsigned depth = 0;
          for (Value part : concat.getParts()) {
            parts.push_back(degree.lookup(storage.lookup(part)));
            shapes.push_back(cast<MemRefType>(part.getType()).getShape());
            depth = std::max(depth, exps.lookup(storage.lookup(part)));
          }
          OpParams params;
          params.dim = static_cast<int64_t>(concat.getDim());
          degree[input] = getDegree(OpKind::Concat, parts, shapes, params);
          exps[input] = depth;
          inputs.push_back(input);
        }
        for (Value output : kernel.getOutputs())
          results.push_back(storage.lookup(output));
        bind(inner, inputs);
        int64_t range = static_cast<int64_t>(blockGraph.getForloopRange());
        walk(inner, getNumElements(blockGraph.getGrid()) * range, range);
        unbind(inner, results);
      }
    }
    llvm::sort(outputs, [](auto &a, auto &b) { return a.first < b.first; });
    for (auto &[index, buffer] : outputs)
      facts.outputDegrees.push_back(degree.lookup(buffer));
    return facts;
  }

private:
  void bind(Block &body, ValueRange operands) {
    for (auto [arg, operand] : llvm::zip(body.getArguments(), operands)) {
      exps[arg] = exps.lookup(operand);
      degree[arg] = degree.lookup(operand);
    }
  }
  void unbind(Block &body, ValueRange results) {
    for (auto [result, yielded] :
         llvm::zip(results, body.getTerminator()->getOperands())) {
      exps[result] = exps.lookup(yielded);
      degree[result] = degree.lookup(yielded);
    }
  }

  /// `multiplicity`: how many times a loop-body op of this block runs per
  /// run of the program, counting workers; `loopRange` the block's loop.
  void walk(Block &body, double multiplicity, int64_t loopRange) {
    llvm::DenseSet<Operation *> postLoop = getPostLoopOps(body);
    for (Operation &op : body.without_terminator()) {
      double times = postLoop.contains(&op) ? multiplicity / loopRange
                                            : multiplicity;
      if (auto kernel = dyn_cast<kn::KernelOp>(op)) {
        tb::GraphOp graph = kernel.getBlockGraph();
        Block &inner = graph.getBodyBlock();
        bind(inner, kernel.getInputs());
        int64_t range = static_cast<int64_t>(graph.getForloopRange());
        walk(inner, times * getNumElements(graph.getGrid()) * range, range);
        unbind(inner, kernel.getResults());
        continue;
      }
      if (auto thread = dyn_cast<th::GraphOp>(op)) {
        Block &inner = thread.getBodyBlock();
        bind(inner, thread.getInputs());
        int64_t range = static_cast<int64_t>(thread.getForloopRange());
        walk(inner, times * getNumElements(thread.getThreads()) * range, range);
        unbind(inner, thread.getResults());
        continue;
      }
      visit(cast<SemanticsOpInterface>(op), times);
    }
  }

  void visit(SemanticsOpInterface semantics, double times) {
    Operation *op = semantics.getOperation();
    OpKind kind = semantics.getOpKind();
    OpParams params = semantics.getOpParams();
    FingerprintClass cls = getOpInfo(kind).fingerprint;

    unsigned depth = 0;
    SmallVector<Degree> operandDegrees;
    SmallVector<ArrayRef<int64_t>> operandShapes;
    for (Value operand : op->getOperands()) {
      depth = std::max(depth, exps.lookup(operand));
      operandDegrees.push_back(degree.lookup(operand));
      operandShapes.push_back(cast<ShapedType>(operand.getType()).getShape());
    }
    if (cls == FingerprintClass::Outside && !facts.outsideOp)
      facts.outsideOp = describeOp(op);
    if (cls == FingerprintClass::Exponential && ++depth > 1 &&
        !facts.secondExp)
      facts.secondExp = describeOp(op);
    if (cls == FingerprintClass::SquareRoot)
      facts.usesSqrt = true;

    Degree result;
    if (op->hasTrait<mirage::OpTrait::IsAccumulator>())
      result = getAccumulatorDegree(kind, operandDegrees[0], params);
    else
      result = getDegree(kind, operandDegrees, operandShapes, params);

    if (cls == FingerprintClass::Exponential ||
        cls == FingerprintClass::SquareRoot) {
      // rms_norm takes one root per row; exp, silu and sqrt one per element.
      auto shape = cast<ShapedType>(op->getResult(0).getType()).getShape();
      double calls = getNumElements(shape);
      uint64_t argument = operandDegrees[0].num + operandDegrees[0].den;
      if (kind == OpKind::RmsNorm) {
        calls /= shape.back();
        argument = 2 * argument + 1; // mean of squares plus eps
      }
      facts.oracleCalls += calls * times;
      facts.oracleArgumentDegree =
          std::max(facts.oracleArgumentDegree, std::max<uint64_t>(argument, 1));
      facts.oracleArgumentWithoutQ |= depth > (cls == FingerprintClass::Exponential);
    }
    for (Value value : op->getResults()) {
      exps[value] = depth;
      degree[value] = result;
    }
  }

  ProgramFacts facts;
  llvm::DenseMap<Value, unsigned> exps; // exponentials on the longest path
  llvm::DenseMap<Value, Degree> degree;
};

//===----------------------------------------------------------------------===//
// Inputs and comparisons
//===----------------------------------------------------------------------===//

std::optional<Mismatch> compareFingerprints(ArrayRef<FFTensor> candidate,
                                            ArrayRef<FFTensor> reference,
                                            llvm::StringRef check) {
  for (size_t o = 0; o < candidate.size(); ++o) {
    const FFTensor &c = candidate[o], &r = reference[o];
    bool compareQ = c.hasQ() && r.hasQ();
    for (int64_t i = 0; i < c.size(); ++i) {
      if (c.p[i] == r.p[i] && (!compareQ || c.q[i] == r.q[i]))
        continue;
      Mismatch mismatch;
      mismatch.output = o;
      mismatch.index = unflattenIndex(i, c.shape);
      auto value = [&](const FFTensor &t) {
        return compareQ ? llvm::formatv("{0} mod p, {1} mod q", t.p[i], t.q[i])
                              .str()
                        : llvm::formatv("{0} mod p", t.p[i]).str();
      };
      mismatch.candidate = value(c);
      mismatch.reference = value(r);
      mismatch.check = check.str();
      return mismatch;
    }
  }
  return std::nullopt;
}

/// Two float64 results agree when they differ by at most this many times
/// the sum of their error bounds: the bounds are first-order (products of
/// two errors are dropped where they are negligible) and rounded
/// themselves, which a factor of 2 covers with a wide margin.
constexpr double kBoundSlack = 2.0;

/// The float64 check of one input regime against the rounding bounds.
struct FloatComparison {
  std::optional<Mismatch> mismatch;
  /// Largest |c - r| / allowed over the compared elements.
  double worstRatio = 0.0;
  /// Largest allowed difference relative to its output's scale.
  double widestBound = 0.0;
  int64_t compared = 0;
  /// Elements without a finite reference value or bound.
  int64_t uncompared = 0;
};

FloatComparison compareBounded(ArrayRef<BoundedTensor> candidate,
                               ArrayRef<BoundedTensor> reference,
                               llvm::StringRef regime) {
  FloatComparison result;
  for (size_t o = 0; o < candidate.size(); ++o) {
    const BoundedTensor &c = candidate[o], &r = reference[o];
    double scale = std::numeric_limits<double>::min();
    for (double v : r.value.data)
      if (std::isfinite(v))
        scale = std::max(scale, std::fabs(v));
    for (int64_t i = 0; i < c.size(); ++i) {
      double cv = c.value.data[i], rv = r.value.data[i];
      double allowed =
          kBoundSlack * (c.error.data[i] + r.error.data[i]) +
          std::numeric_limits<double>::min();
      bool usable = std::isfinite(rv) && std::isfinite(r.error.data[i]);
      bool bad = usable && !std::isfinite(cv);
      if (usable && !bad) {
        if (!std::isfinite(allowed)) {
          ++result.uncompared;
          continue;
        }
        double difference = std::fabs(cv - rv);
        ++result.compared;
        result.worstRatio = std::max(result.worstRatio, difference / allowed);
        result.widestBound = std::max(result.widestBound, allowed / scale);
        bad = difference > allowed;
      } else if (!usable) {
        ++result.uncompared;
      }
      if (bad && !result.mismatch) {
        Mismatch &m = result.mismatch.emplace();
        m.output = o;
        m.index = unflattenIndex(i, c.value.shape);
        m.candidate = llvm::formatv("{0:e}", cv).str();
        m.reference = llvm::formatv("{0:e} (+-{1:e})", rv, allowed).str();
        m.check = ("float64, " + regime + " inputs").str();
      }
    }
  }
  return result;
}

/// The input regimes of the float64 check, each with its own seed: the
/// unit regime ([-1, 1)), where element types' ranges are watched, and the
/// wide one (magnitudes 2^-10 to 2^10 of both signs), whose largest
/// magnitude is reduced (2^10, 2^5, 2^2) until the reference has a finite
/// value and bound in at least half of its output elements: a softmax over
/// scores of 10^7 overflows float64 and compares nothing.
struct Regime {
  std::optional<int> maxExponent;
  std::string name;
};
Regime unitRegime() { return {std::nullopt, "[-1, 1)"}; }
constexpr int kWideExponents[] = {10, 5, 2};
Regime wideRegime(int maxExponent) {
  return {maxExponent,
          llvm::formatv("+-2^[-10, {0}]", maxExponent).str()};
}

std::vector<BoundedTensor> drawBounded(ArrayRef<Shape> shapes, uint64_t seed,
                                       std::optional<int> maxExponent) {
  std::vector<BoundedTensor> inputs;
  for (F64Tensor &tensor : drawReals(shapes, seed, maxExponent))
    inputs.emplace_back(std::move(tensor));
  return inputs;
}

/// Output elements with a finite value and bound.
int64_t countComparable(ArrayRef<BoundedTensor> outputs, int64_t &total) {
  int64_t comparable = 0;
  total = 0;
  for (const BoundedTensor &t : outputs)
    for (int64_t i = 0; i < t.size(); ++i) {
      ++total;
      comparable += std::isfinite(t.value.data[i]) &&
                    std::isfinite(t.error.data[i]);
    }
  return comparable;
}

/// The outcome of the fingerprint trials in one semantics.
struct TrialsOutcome {
  std::optional<Mismatch> mismatch;
  bool inconclusive = false;
  unsigned trials = 0;
  unsigned resamples = 0;
};

llvm::Expected<TrialsOutcome> runTrials(const Evaluator &candidate,
                                        const Evaluator &reference,
                                        FingerprintMode mode,
                                        const EquivalenceOptions &options) {
  TrialsOutcome outcome;
  const char *modeName =
      mode == FingerprintMode::Homomorphic ? "homomorphic" : "uninterpreted";
  for (unsigned trial = 0; trial < options.trials; ++trial) {
    if (options.progress)
      options.progress(llvm::formatv("finite-field trial {0} of {1} ({2})",
                                     trial + 1, options.trials, modeName)
                           .str());
    bool done = false;
    for (unsigned attempt = 0; attempt <= options.maxResamples && !done;
         ++attempt) {
      uint64_t state = options.seed * 0x9E3779B97F4A7C15ULL +
                       (static_cast<uint64_t>(mode) << 48) +
                       (static_cast<uint64_t>(trial) << 24) + attempt;
      uint64_t seed = splitMix64(state);
      Fingerprinter fingerprinter(mode, seed);
      std::vector<FFTensor> inputs =
          drawResidues(reference.getInputShapes(), seed);
      std::vector<FFTensor> outputs[2];
      llvm::Error error = llvm::Error::success();
      for (auto [program, out] :
           {std::make_pair(&candidate, &outputs[0]),
            std::make_pair(&reference, &outputs[1])}) {
        auto run = program->run(inputs, fingerprinter);
        if (!run) {
          error = run.takeError();
          break;
        }
        *out = std::move(*run);
      }
      if (error) {
        if (!error.isA<ResampleError>())
          return std::move(error);
        llvm::consumeError(std::move(error));
        ++outcome.resamples;
        continue;
      }
      done = true;
      ++outcome.trials;
      outcome.mismatch = compareFingerprints(
          outputs[0], outputs[1],
          llvm::formatv("finite field ({0}), trial {1}", modeName, trial + 1)
              .str());
      if (outcome.mismatch)
        return outcome;
    }
    if (!done) {
      outcome.inconclusive = true;
      return outcome;
    }
  }
  return outcome;
}

uint64_t getFloatSeed(const EquivalenceOptions &options,
                      const Regime &regime) {
  return (options.seed ^ 0xF10A7F10A7ULL) +
         0x9E3779B97F4A7C15ULL * static_cast<uint64_t>(regime.maxExponent
                                                           ? 1 + *regime.maxExponent
                                                           : 0);
}

/// Largest per-trial false-accept bound for which agreement counts as proof.
constexpr double kProofThreshold = 0x1.0p-40;

/// The checks on two compiled programs and their structural facts.
llvm::Expected<EquivalenceResult>
checkPrograms(const Evaluator &candidate, const ProgramFacts &c,
              const Evaluator &reference, const ProgramFacts &r,
              const EquivalenceOptions &options,
              std::chrono::steady_clock::time_point start) {
  const Evaluator *candidateProgram = &candidate;
  const Evaluator *referenceProgram = &reference;
  EquivalenceResult result;
  for (const Shape &shape : referenceProgram->getOutputShapes())
    result.outputElements += getNumElements(shape);

  // Which checks apply.
  std::optional<std::string> outside =
      c.outsideOp ? c.outsideOp : r.outsideOp;
  std::optional<std::string> secondExp =
      c.secondExp ? c.secondExp : r.secondExp;
  bool lax = !outside && !secondExp;
  if (outside)
    result.fragment = "outside the Lax fragment: " + *outside +
                      " has no finite-field semantics";
  else if (secondExp)
    result.fragment = "outside the Lax fragment: " + *secondExp +
                      " is a second exponential on a path";
  else
    result.fragment = "in the Lax fragment";

  // The float64 check, in both input regimes: always, for stability and
  // for programs outside Lax.
  StabilityMonitor monitor;
  std::optional<Mismatch> floatMismatch;
  auto checkRegime = [&](const Regime &regime,
                         bool wide) -> llvm::Expected<bool> {
    if (options.progress)
      options.progress("float64, " + regime.name + " inputs");
    std::vector<BoundedTensor> inputs =
        drawBounded(referenceProgram->getInputShapes(),
                    getFloatSeed(options, regime), regime.maxExponent);
    auto referenceReals = referenceProgram->run(inputs);
    if (!referenceReals)
      return referenceReals.takeError();
    int64_t total = 0;
    if (wide && 2 * countComparable(*referenceReals, total) < total)
      return false;
    auto candidateReals =
        candidateProgram->run(inputs, wide ? nullptr : &monitor);
    if (!candidateReals)
      return candidateReals.takeError();
    FloatComparison comparison =
        compareBounded(*candidateReals, *referenceReals, regime.name);
    result.floatRatio = std::max(result.floatRatio, comparison.worstRatio);
    result.floatBound = std::max(result.floatBound, comparison.widestBound);
    result.floatCompared += comparison.compared;
    result.floatUncompared += comparison.uncompared;
    result.floatRegimes.push_back(regime.name);
    if (comparison.mismatch && !floatMismatch)
      floatMismatch = comparison.mismatch;
    return true;
  };
  if (auto checked = checkRegime(unitRegime(), /*wide=*/false); !checked)
    return checked.takeError();
  for (int exponent : kWideExponents) {
    auto checked = checkRegime(wideRegime(exponent), /*wide=*/true);
    if (!checked)
      return checked.takeError();
    if (*checked)
      break;
  }

  auto finish = [&](Verdict verdict, std::string explanation) {
    result.verdict = verdict;
    result.explanation = std::move(explanation);
    result.seconds = std::chrono::duration<double>(
                         std::chrono::steady_clock::now() - start)
                         .count();
    return result;
  };
  auto floatFailure = [&](std::string why) {
    result.mismatch = floatMismatch;
    return finish(Verdict::NotEquivalent, std::move(why));
  };

  // Where the float64 check is what accepts, it must have compared
  // something and stayed in range.
  auto acceptByFloat = [&](std::string why) {
    if (result.floatCompared == 0)
      return finish(Verdict::Inconclusive,
                    "no output element has a finite float64 value and "
                    "rounding bound in any input regime");
    if (!monitor.isStable())
      return finish(Verdict::Unstable, monitor.describe());
    return finish(Verdict::Tested, std::move(why));
  };

  if (result.outputElements == 0)
    return finish(Verdict::Inconclusive,
                  "the programs have no output elements; agreeing on none "
                  "proves nothing");

  if (!lax) {
    if (floatMismatch)
      return floatFailure("the float64 check differs beyond the rounding "
                          "bounds");
    return acceptByFloat("the float64 check agrees on seeded inputs; no "
                         "finite-field proof covers these programs");
  }

  // Uninterpreted fingerprints: agreement is a proof.
  auto uninterpreted =
      runTrials(candidate, reference, FingerprintMode::Uninterpreted, options);
  if (!uninterpreted)
    return uninterpreted.takeError();
  result.resamples += uninterpreted->resamples;
  if (uninterpreted->inconclusive)
    return finish(Verdict::Inconclusive,
                  "every draw of inputs hit a zero divisor");
  if (!uninterpreted->mismatch) {
    result.trials = uninterpreted->trials;
    // Schwartz-Zippel on the compared rational functions, plus collisions
    // between distinct oracle arguments.
    uint64_t degree = 0;
    for (auto [cd, rd] : llvm::zip(c.outputDegrees, r.outputDegrees))
      degree = std::max({degree, cd.num + rd.den, rd.num + cd.den});
    double calls = c.oracleCalls + r.oracleCalls;
    double argument = static_cast<double>(
        std::max(c.oracleArgumentDegree, r.oracleArgumentDegree));
    bool withoutQ = c.oracleArgumentWithoutQ || r.oracleArgumentWithoutQ;
    const double p = static_cast<double>(kFingerprintP);
    const double q = static_cast<double>(kFingerprintQ);
    double collisions = withoutQ ? calls * calls * argument / p
                                 : calls * calls * argument * argument / (p * q);
    result.degree = degree;
    result.boundPerTrial =
        std::min(1.0, static_cast<double>(degree) / p + collisions);
    result.bound = std::pow(result.boundPerTrial, result.trials);
    if (floatMismatch || !monitor.isStable()) {
      result.mismatch = floatMismatch;
      return finish(Verdict::Unstable,
                    floatMismatch
                        ? "the functions are equal but the float64 check "
                          "differs beyond the rounding bounds"
                        : monitor.describe());
    }
    if (result.boundPerTrial > kProofThreshold)
      return finish(Verdict::Tested,
                    "the fingerprints agree but the degree bound is too "
                    "large for a useful proof");
    return finish(Verdict::Proven,
                  "the fingerprints agree with exp and sqrt uninterpreted");
  }

  // The fingerprints differ with exp and sqrt uninterpreted: either the
  // programs differ, or the candidate relies on an identity of exp or sqrt.
  if (c.usesSqrt || r.usesSqrt) {
    // Field square roots exist only for residues, and programs that take
    // many roots almost never draw residues for all; roots of equal values
    // are also the only ones the fingerprint can equate. The float64 check
    // decides.
    if (floatMismatch)
      return floatFailure("the fingerprints (exp and sqrt uninterpreted) and "
                          "the float64 check both differ");
    return acceptByFloat("the fingerprints differ with sqrt uninterpreted but "
                         "the float64 check agrees: the candidate relies on "
                         "an identity of exp or sqrt, which is not proven");
  }

  // Homomorphic fingerprints (exp(x) = w^x): equivalent Lax programs always
  // agree, so a disagreement refutes equivalence.
  auto homomorphic =
      runTrials(candidate, reference, FingerprintMode::Homomorphic, options);
  if (!homomorphic)
    return homomorphic.takeError();
  result.resamples += homomorphic->resamples;
  result.trials = homomorphic->trials;
  if (homomorphic->mismatch) {
    result.mismatch = homomorphic->mismatch;
    return finish(Verdict::NotEquivalent,
                  "the finite-field fingerprints differ, which equivalent "
                  "Lax programs never do");
  }
  if (floatMismatch)
    return floatFailure("the float64 check differs beyond the rounding "
                        "bounds");
  if (homomorphic->inconclusive)
    return finish(Verdict::Inconclusive,
                  "every draw of inputs hit a zero divisor");
  return acceptByFloat("the fingerprints agree only with exp(a) exp(b) = "
                       "exp(a + b), for which no useful bound is computed; "
                       "the float64 check agrees");
}

} // namespace

llvm::Expected<EquivalenceResult>
mirage::checkEquivalence(func::FuncOp candidate, func::FuncOp reference,
                         const EquivalenceOptions &options) {
  auto start = std::chrono::steady_clock::now();
  if (candidate.getFunctionType() != reference.getFunctionType())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "the candidate and the reference have "
                                   "different function types");
  auto candidateProgram = Program::compile(candidate, options.maxElements);
  if (!candidateProgram)
    return candidateProgram.takeError();
  auto referenceProgram = Program::compile(reference, options.maxElements);
  if (!referenceProgram)
    return referenceProgram.takeError();
  return checkPrograms(*candidateProgram, FactCollector().collect(candidate),
                       *referenceProgram, FactCollector().collect(reference),
                       options, start);
}

llvm::Expected<EquivalenceResult>
mirage::checkEquivalence(tg::GraphOp candidate, func::FuncOp reference,
                         const EquivalenceOptions &options,
                         std::optional<WorkerQueues> queues) {
  auto start = std::chrono::steady_clock::now();
  bool workerOrders = queues.has_value();
  auto candidateProgram = TaskGraphProgram::compile(
      candidate, options.seed, options.maxElements, std::move(queues));
  if (!candidateProgram)
    return candidateProgram.takeError();
  auto referenceProgram = Program::compile(reference, options.maxElements);
  if (!referenceProgram)
    return referenceProgram.takeError();
  if (candidateProgram->getInputShapes() !=
          referenceProgram->getInputShapes() ||
      candidateProgram->getOutputShapes() !=
          referenceProgram->getOutputShapes())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "the task graph's inputs and outputs do "
                                   "not have the shapes of the function's");
  // Extra orders first: each must run cleanly and give the same outputs,
  // bit for bit, as the first.
  auto result = [&]() -> llvm::Expected<EquivalenceResult> {
    std::vector<F64Tensor> inputs =
        drawReals(candidateProgram->getInputShapes(),
                  getFloatSeed(options, unitRegime()));
    std::optional<std::vector<F64Tensor>> first;
    for (unsigned order = 0; order < options.taskOrders; ++order) {
      if (options.progress)
        options.progress(llvm::formatv("task order {0} of {1}", order + 1,
                                       options.taskOrders)
                             .str());
      auto outputs = candidateProgram->run(inputs);
      if (!outputs)
        return outputs.takeError();
      if (!first) {
        first = std::move(*outputs);
        continue;
      }
      for (auto [index, a, b] : llvm::enumerate(*first, *outputs))
        for (int64_t i = 0; i < a.size(); ++i)
          if (!(a.data[i] == b.data[i]) &&
              !(std::isnan(a.data[i]) && std::isnan(b.data[i])))
            return llvm::make_error<TaskGraphError>(
                llvm::formatv("the outputs depend on the order the tasks run "
                              "in: element {0} of output #{1} is {2:e} in one "
                              "order and {3:e} in another",
                              formatIndex(unflattenIndex(i, a.shape)), index,
                              a.data[i], b.data[i])
                    .str());
    }
    return checkPrograms(*candidateProgram, FactCollector().collect(candidate),
                         *referenceProgram, FactCollector().collect(reference),
                         options, start);
  }();
  if (result) {
    result->orders = candidateProgram->getRunCount();
    result->workerOrders = workerOrders;
    return result;
  }
  // A task graph that runs wrongly is not equivalent, whatever it computes.
  EquivalenceResult failed;
  llvm::Error rest =
      llvm::handleErrors(result.takeError(), [&](const TaskGraphError &error) {
        failed.verdict = Verdict::NotEquivalent;
        failed.fragment = "a task graph";
        failed.explanation =
            (workerOrders ? "running the tasks in a random order the "
                            "mega-kernel's workers can take: "
                          : "running the tasks in a random order the "
                            "events allow: ") +
            error.getReason();
      });
  if (rest)
    return std::move(rest);
  failed.orders = candidateProgram->getRunCount();
  failed.workerOrders = workerOrders;
  failed.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  return failed;
}

llvm::Expected<FloatScreen>
FloatScreen::create(func::FuncOp reference,
                    const EquivalenceOptions &options) {
  auto program = Program::compile(reference, options.maxElements);
  if (!program)
    return program.takeError();
  FloatScreen screen;
  screen.maxElements = options.maxElements;
  screen.type = reference.getFunctionType();
  Regime unit = unitRegime();
  screen.inputs = drawBounded(program->getInputShapes(),
                              getFloatSeed(options, unit), unit.maxExponent);
  auto outputs = program->run(screen.inputs);
  if (!outputs)
    return outputs.takeError();
  screen.outputs = std::move(*outputs);
  return screen;
}

llvm::Expected<std::optional<Mismatch>>
FloatScreen::check(func::FuncOp candidate) {
  if (candidate.getFunctionType() != type)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "the candidate and the reference have "
                                   "different function types");
  auto program = Program::compile(candidate, maxElements);
  if (!program)
    return program.takeError();
  auto outputs = program->run(inputs);
  if (!outputs)
    return outputs.takeError();
  return compareBounded(*outputs, this->outputs, unitRegime().name).mismatch;
}

std::string mirage::describe(const EquivalenceResult &result,
                             llvm::StringRef referenceName) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << stringifyVerdict(result.verdict) << ": ";
  switch (result.verdict) {
  case Verdict::Proven:
    os << "equivalent to @" << referenceName << " (" << result.fragment
       << "); " << result.trials << " finite-field trials agree on all "
       << result.outputElements << " output elements; false-accept "
       << "probability <= 2^"
       << llvm::formatv("{0:F0}", std::log2(result.bound)) << " (2^"
       << llvm::formatv("{0:F0}", std::log2(result.boundPerTrial))
       << " per trial, degree " << result.degree << ")";
    break;
  case Verdict::Tested:
    os << "agrees with @" << referenceName << " (" << result.fragment << "); "
       << result.explanation;
    break;
  case Verdict::NotEquivalent:
    os << "differs from @" << referenceName << ": " << result.explanation;
    break;
  case Verdict::Unstable:
  case Verdict::Inconclusive:
    os << "against @" << referenceName << ": " << result.explanation;
    break;
  }
  if (result.mismatch) {
    const Mismatch &m = *result.mismatch;
    os << "; first mismatch at output #" << m.output << " element [";
    llvm::interleaveComma(m.index, os);
    os << "] (" << m.check << "): candidate " << m.candidate
       << ", reference " << m.reference;
  }
  if (result.floatCompared)
    os << llvm::formatv("; float64 on inputs in {0}: differences at most "
                        "{1:e1} of the rounding bound (widest bound {2:e} of "
                        "the output scale)",
                        llvm::join(result.floatRegimes, " and "),
                        result.floatRatio, result.floatBound);
  if (result.floatUncompared)
    os << "; " << result.floatUncompared
       << " float64 elements without a finite value or bound not compared";
  if (result.resamples)
    os << "; " << result.resamples << " input draws redone";
  if (result.orders)
    os << "; " << result.orders
       << (result.workerOrders ? " mega-kernel worker orders" : " task orders");
  os << llvm::formatv("; {0:F2} s", result.seconds);
  return text;
}

std::string mirage::describeBriefly(const EquivalenceResult &result) {
  std::string text = stringifyVerdict(result.verdict).str();
  llvm::raw_string_ostream os(text);
  if (result.verdict == Verdict::Proven)
    os << llvm::formatv(" (false-accept probability <= 2^{0:F0})",
                        std::log2(result.bound));
  if (result.mismatch) {
    os << " (first mismatch at output #" << result.mismatch->output
       << " element [";
    llvm::interleaveComma(result.mismatch->index, os);
    os << "])";
  }
  return text;
}
