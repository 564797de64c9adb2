//===- Superoptimize.cpp - The mirage-superoptimize pass ------------------===//
//
// Splits functions into Lax subprograms, searches each (lib/Search),
// verifies the best candidates with the equivalence verifier and replaces
// the subprogram by the best verified one.
//
//===----------------------------------------------------------------------===//

#include "mirage/Search/Passes.h"

#include "mirage/Conversion/Frontend/Guard.h"
#include "mirage/Dialect/Block/IR/Block.h"
#include "mirage/Dialect/Kernel/IR/Kernel.h"
#include "mirage/Dialect/Thread/IR/Thread.h"
#include "mirage/IR/OptionChecks.h"
#include "mirage/Search/MuGraphIO.h"
#include "mirage/Search/SearchReport.h"
#include "mirage/Semantics/Parallel.h"
#include "mirage/Verify/Equivalence.h"

#include "mlir/IR/Verifier.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/ToolOutputFile.h"

namespace mirage {
#define GEN_PASS_DEF_MIRAGESUPEROPTIMIZE
#include "mirage/Search/Passes.h.inc"
} // namespace mirage

using namespace mlir;
using namespace mirage;
using namespace mirage::search;

namespace {

/// Measured microseconds per function name, from a GPU run's results.json
/// (rows with `name`, `ours_us` and `pass`) or a plain {name: us} object.
FailureOr<llvm::StringMap<double>> readTimings(StringRef path,
                                               Location loc) {
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    return emitError(loc) << "cannot read timings '" << path
                          << "': " << buffer.getError().message();
  auto parsed = llvm::json::parse((*buffer)->getBuffer());
  if (!parsed)
    return emitError(loc) << "timings '" << path << "' are not JSON: "
                          << llvm::toString(parsed.takeError());
  llvm::StringMap<double> timings;
  llvm::json::Object *object = parsed->getAsObject();
  if (!object)
    return emitError(loc) << "timings '" << path << "' are not a JSON object";
  if (llvm::json::Array *rows = object->getArray("results")) {
    for (llvm::json::Value &row : *rows) {
      llvm::json::Object *r = row.getAsObject();
      if (!r)
        continue;
      std::optional<StringRef> name = r->getString("name");
      std::optional<double> us = r->getNumber("ours_us");
      // Only runs whose outputs matched the reference count.
      if (name && us && r->getBoolean("pass").value_or(false))
        timings[*name] = *us;
    }
    return timings;
  }
  for (auto &[name, value] : *object)
    if (std::optional<double> us = value.getAsNumber())
      timings[name] = *us;
  return timings;
}

/// Reasons for candidates turned away during a search kept for the report.
constexpr unsigned kReportedReasons = 10;

struct Verified {
  const Candidate *candidate;
  unsigned rank;
  std::string verdict, briefVerdict;
  func::FuncOp function;
};

struct Superoptimize
    : public mirage::impl::MirageSuperoptimizeBase<Superoptimize> {
  using Base::Base;

  std::optional<std::string> checkOptions() const {
    if (auto error = checkOptionValue("mirage-superoptimize", "device", device,
                                      DeviceModel::getNames()))
      return error;
    if (topK == 0)
      return std::string("mirage-superoptimize: top-k must be at least 1");
    if (timeBudget < 0 || progressInterval < 0)
      return std::string("mirage-superoptimize: time-budget and progress "
                         "must be 0 (none) or positive");
    return std::nullopt;
  }
  MIRAGE_CHECK_PASS_OPTIONS_AT_PARSE

  void runOnOperation() override {
    ModuleOp module = getOperation();
    // checkOptions() passed in initialize().
    std::optional<DeviceModel> model = DeviceModel::get(device);
    if (!timings.empty()) {
      auto read = readTimings(timings, module.getLoc());
      if (failed(read))
        return signalPassFailure();
      measured = std::move(*read);
    }
    if (searchThreads)
      setParallelism(searchThreads);
    deviceModel = *model;
    OwningOpRef<ModuleOp> topK;
    if (!topKFile.empty())
      topK = ModuleOp::create(module.getLoc());
    topModule = topK ? *topK : nullptr;

    SmallVector<func::FuncOp> functions;
    for (auto function : module.getOps<func::FuncOp>())
      if (failed(checkNoFrontendOps(function, getArgument())))
        return signalPassFailure();
    for (auto function : module.getOps<func::FuncOp>())
      if (!function.isDeclaration() &&
          !function->hasAttr(kn::KernelDialect::getReferenceAttrName()))
        functions.push_back(function);
    for (func::FuncOp function : functions) {
      SmallVector<Subprogram> subprograms =
          splitIntoSubprograms(function, maxSubprogramOps);
      for (auto [index, subprogram] : llvm::enumerate(subprograms)) {
        // A later subprogram may read what an earlier one computed; once
        // the earlier one is replaced, its ops read the replacement.
        subprogram.collectInputs();
        if (failed(optimize(function, index + 1, subprogram)))
          return signalPassFailure();
      }
    }

    if (topModule && failed(writeTopK(module.getLoc())))
      return signalPassFailure();
    if (!report.empty() && failed(writeReport(module.getLoc())))
      return signalPassFailure();
  }

private:
  SearchOptions getSearchOptions(StringRef checkpointName) {
    SearchOptions options;
    options.maxKernelOps = maxKernelOps;
    options.maxBlockOps = maxBlockOps;
    options.maxCustomOps = maxCustomOps;
    options.maxCustomInputs = maxCustomInputs;
    options.maxBlockOutputs = maxBlockOutputs;
    options.threads = searchThreads;
    options.timeBudget = timeBudget;
    options.maxBlockGraphs = maxBlockGraphs;
    options.abstractExprPruning = pruning;
    options.threadsPerBlock = threadsPerBlock;
    options.device = deviceModel;
    options.keep = std::max<unsigned>(16, 4 * topK);
    if (progressInterval > 0) {
      options.progress = &llvm::errs();
      options.progressInterval = progressInterval;
    }
    if (!checkpointDir.empty()) {
      llvm::SmallString<128> path(checkpointDir);
      llvm::sys::path::append(path, checkpointName + ".json");
      options.checkpointPath = path.str().str();
    }
    return options;
  }

  /// Searches `subprogram` and replaces it by the chosen candidate, if any.
  LogicalResult optimize(func::FuncOp function, unsigned index,
                         Subprogram &subprogram) {
    Location loc = subprogram.ops.front()->getLoc();
    std::string label = llvm::formatv("{0}_sub{1}", function.getSymName(),
                                      index)
                            .str();
    // A subprogram that cannot be searched stays as it is; the rest of the
    // program is still searched.
    auto leaveAsIs = [&](StringRef why, llvm::Error error) {
      emitRemark(loc) << "superoptimize: @" << function.getSymName()
                      << " subprogram #" << index
                      << " is left as it is: " << why << " ("
                      << llvm::toString(std::move(error)) << ")";
      return success();
    };
    ExprContext exprs;
    llvm::Expected<Problem> problem = importSubprogram(subprogram, exprs);
    if (!problem)
      return leaveAsIs("the search cannot take it", problem.takeError());
    if (!checkpointDir.empty())
      if (std::error_code error =
              llvm::sys::fs::create_directories(checkpointDir))
        return emitError(loc) << "cannot create checkpoint directory '"
                              << checkpointDir << "': " << error.message();
    if (progressInterval > 0)
      llvm::errs() << "[mirage-superoptimize] @" << function.getSymName()
                   << " subprogram #" << index << ": "
                   << subprogram.ops.size() << " ops, "
                   << subprogram.inputs.size() << " inputs\n";
    // Candidates are built and verified for the function's target, whose
    // shared memory also bounds the search's tiles.
    auto target = tb::TargetAttr::lookup(function);
    bool explicitTarget = target != tb::TargetAttr::getDefault(&getContext());
    SearchOptions options = getSearchOptions(label);
    options.device.smemPerBlock =
        std::min(options.device.smemPerBlock, target.getSmemPerBlock());
    OwningOpRef<ModuleOp> scratch = ModuleOp::create(loc);
    if (explicitTarget)
      (*scratch)->setAttr(tb::BlockDialect::getTargetAttrName(), target);
    OpBuilder builder = OpBuilder::atBlockEnd(scratch->getBody());
    func::FuncOp reference = cloneSubprogram(builder, subprogram, label);
    EquivalenceOptions equivalence;
    equivalence.seed = seed;
    equivalence.maxElements = maxElements;

    unsigned rejected = 0;
    std::string firstRejection;
    SubprogramReport subprogramReport;
    bool searching = true;
    auto reject = [&](const Twine &why) {
      if (rejected++ == 0)
        firstRejection = why.str();
      if (searching && ++subprogramReport.turnedAway <= kReportedReasons)
        subprogramReport.turnedAwayReasons.push_back(why.str());
    };
    // A candidate as a function, or null (and a rejection) for invalid IR.
    auto build = [&](const Candidate &candidate,
                     StringRef name) -> func::FuncOp {
      func::FuncOp function = buildFunction(
          builder, loc, name, reference.getFunctionType(), candidate.graph);
      std::string diagnostics;
      LogicalResult valid = success();
      {
        ScopedDiagnosticHandler handler(&getContext(), [&](Diagnostic &d) {
          diagnostics += d.str();
          return success();
        });
        valid = verify(function);
      }
      if (succeeded(valid))
        return function;
      reject("invalid IR: " + diagnostics);
      function.erase();
      return nullptr;
    };

    // During the search: the float64 screen, so that candidates that only
    // abstract expressions equate (they ignore indices) neither rank nor
    // tighten the cost bound. It runs on the search's worker threads, one
    // call at a time while this thread waits, so only one thread touches
    // the context.
    auto screen = FloatScreen::create(reference, equivalence);
    if (!screen)
      return leaveAsIs("the verifier cannot evaluate it", screen.takeError());
    options.acceptCandidate = [&](const Candidate &candidate) {
      func::FuncOp function = build(candidate, label + "_screened");
      if (!function)
        return false;
      auto mismatch = screen->check(function);
      function.erase();
      if (!mismatch) {
        reject("could not be evaluated: " +
               llvm::toString(mismatch.takeError()));
        return false;
      }
      if (*mismatch) {
        reject(llvm::formatv("differs from the subprogram in float64 at "
                             "output {0} [{1}]: {2} vs {3}",
                             (*mismatch)->output,
                             llvm::join(llvm::map_range(
                                            (*mismatch)->index,
                                            [](int64_t i) {
                                              return std::to_string(i);
                                            }),
                                        ", "),
                             (*mismatch)->candidate, (*mismatch)->reference));
        return false;
      }
      return true;
    };
    auto result = superoptimize(*problem, exprs, options);
    searching = false;
    if (!result)
      return emitError(loc) << "superoptimize: "
                            << llvm::toString(result.takeError());

    // The full check, in rank order until top-k candidates pass.
    SmallVector<Verified> verified;
    // Per ranked candidate, what the check said (empty: not checked).
    std::vector<std::string> verdicts(result->candidates.size());
    for (auto [rank, candidate] : llvm::enumerate(result->candidates)) {
      if (verified.size() == topK)
        break;
      std::string name = llvm::formatv("{0}_top{1}", label,
                                       verified.size() + 1)
                             .str();
      func::FuncOp function = build(candidate, name);
      if (!function) {
        verdicts[rank] = "rejected: invalid IR";
        continue;
      }
      auto checked = checkEquivalence(function, reference, equivalence);
      if (!checked || (checked->verdict != Verdict::Proven &&
                       checked->verdict != Verdict::Tested)) {
        std::string why = checked ? describe(*checked, label)
                                  : "could not be checked: " +
                                        llvm::toString(checked.takeError());
        verdicts[rank] = "rejected: " + why;
        reject("#" + Twine(rank + 1) + " " + why);
        function.erase();
        continue;
      }
      function->setAttr(kn::KernelDialect::getReferenceAttrName(),
                        FlatSymbolRefAttr::get(&getContext(), label));
      function->setAttr("mirage.estimated_us",
                        builder.getF64FloatAttr(candidate.cost));
      verdicts[rank] = stringifyVerdict(checked->verdict).str();
      verified.push_back({&candidate, static_cast<unsigned>(rank),
                          describe(*checked, label), describeBriefly(*checked),
                          function});
    }

    double referenceCost = estimateCost(problem->reference,
                                        problem->elementBytes, deviceModel);
    reference->setAttr("mirage.estimated_us",
                       builder.getF64FloatAttr(referenceCost));
    const Verified *chosen = choose(verified, label, referenceCost);

    InFlightDiagnostic remark = emitRemark(loc);
    const SearchStats &stats = result->stats;
    remark << llvm::formatv("@{0} subprogram #{1} ({2} ops): searched in "
                            "{3:f1} s",
                            function.getSymName(), index, subprogram.ops.size(),
                            stats.seconds);
    if (details)
      remark << llvm::formatv(
          " ({0} kernel graphs, {1} block graphs, {2} complete, {3} "
          "schedules; Z3 {4} queries, {5} cached)",
          stats.kernelGraphs, stats.blockGraphs, stats.completeGraphs,
          stats.schedules, stats.subexpr.queries, stats.subexpr.cacheHits);
    remark << llvm::formatv(
        "{0}; {1} candidates screened in float64, {2} verified, {3} rejected",
        result->incomplete.empty() ? "" : "; incomplete: " + result->incomplete,
        stats.testedCandidates, verified.size(), rejected);
    if (!firstRejection.empty())
      remark << (details ? " (first: " + firstRejection + ")"
                         : std::string(" (details=true or report= says why)"));
    if (chosen) {
      const MuGraph &graph = chosen->candidate->graph;
      remark << llvm::formatv(
          "; chose #{0}: {1} kernel{7} ({2} graph-defined), estimated {3:f1} "
          "us "
          "against {4:f1} us for the program{5}; {6}",
          chosen->rank + 1, graph.ops.size(), graph.getNumCustomOps(),
          chosen->candidate->cost, referenceCost,
          measured.empty() ? "" : " (chosen by measured time)",
          details ? chosen->verdict : chosen->briefVerdict,
          graph.ops.size() == 1 ? "" : "s");
    } else {
      remark << llvm::formatv("; kept the program (estimated {0:f1} us{1})",
                              referenceCost,
                              verified.empty() ? ", nothing verified"
                                               : ", no faster candidate");
    }
    remark.report();
    if (!report.empty()) {
      subprogramReport.title =
          llvm::formatv("@{0} subprogram #{1} ({2} ops)", function.getSymName(),
                        index, subprogram.ops.size());
      subprogramReport.summary = llvm::formatv(
          "searched in {0:f1} s: {1} kernel graphs, {2} block graphs, {3} "
          "complete; {4} candidates ranked, {5} verified",
          stats.seconds, stats.kernelGraphs, stats.blockGraphs,
          stats.completeGraphs, result->candidates.size(), verified.size());
      auto measuredUs = [&](StringRef name) -> std::optional<double> {
        auto it = measured.find(name);
        return it == measured.end() ? std::nullopt
                                    : std::optional<double>(it->second);
      };
      subprogramReport.rows.push_back(
          {"program", summarizeMuGraph(problem->reference),
           printMuGraph(problem->reference), referenceCost, measuredUs(label),
           "as written", chosen == nullptr});
      for (auto [rank, candidate] : llvm::enumerate(result->candidates)) {
        ReportRow row{"#" + std::to_string(rank + 1),
                      summarizeMuGraph(candidate.graph),
                      candidate.text,
                      candidate.cost,
                      std::nullopt,
                      verdicts[rank].empty() ? "not checked (top-k reached)"
                                             : verdicts[rank],
                      false};
        for (const Verified &v : verified)
          if (v.rank == rank) {
            func::FuncOp verifiedFunction = v.function;
            row.measuredUs = measuredUs(verifiedFunction.getSymName());
            row.chosen = chosen == &v;
          }
        subprogramReport.rows.push_back(std::move(row));
      }
      printReportTable(llvm::errs(), subprogramReport);
      reports.push_back(std::move(subprogramReport));
    }

    if (topModule) {
      OpBuilder top = OpBuilder::atBlockEnd(topModule.getBody());
      SmallVector<Operation *> written = {top.clone(*reference)};
      for (const Verified &v : verified)
        written.push_back(top.clone(*v.function));
      if (explicitTarget)
        for (Operation *op : written)
          op->setAttr(tb::BlockDialect::getTargetAttrName(), target);
    }
    if (!chosen)
      return success();

    OpBuilder rewriter(subprogram.ops.front());
    Type elementType =
        cast<RankedTensorType>(subprogram.inputs.front().getType())
            .getElementType();
    SmallVector<Value> values =
        buildMuGraph(rewriter, loc, chosen->candidate->graph,
                     subprogram.inputs, elementType);
    for (auto [old, replacement] : llvm::zip(subprogram.outputs, values))
      old.replaceAllUsesWith(replacement);
    for (Operation *op : llvm::reverse(subprogram.ops))
      op->erase();
    return success();
  }

  /// The verified candidate to use, or null to keep the program: the best
  /// measured one when timings are given, else the best estimated one if
  /// it beats the program's estimate.
  const Verified *choose(ArrayRef<Verified> verified, StringRef label,
                         double referenceCost) {
    if (verified.empty())
      return nullptr;
    if (!measured.empty()) {
      const Verified *best = nullptr;
      double bestUs = measured.lookup(label);
      for (const Verified &v : verified) {
        func::FuncOp function = v.function;
        auto it = measured.find(function.getSymName());
        if (it != measured.end() && (bestUs == 0 || it->second < bestUs)) {
          best = &v;
          bestUs = it->second;
        }
      }
      if (best || measured.count(label))
        return best;
    }
    return verified.front().candidate->cost < referenceCost ? &verified.front()
                                                            : nullptr;
  }

  LogicalResult writeTopK(Location loc) {
    std::string error;
    auto file = mlir::openOutputFile(topKFile, &error);
    if (!file)
      return emitError(loc) << "cannot write '" << topKFile << "': " << error;
    topModule.print(file->os());
    file->keep();
    return success();
  }

  LogicalResult writeReport(Location loc) {
    std::string error;
    auto file = mlir::openOutputFile(report, &error);
    if (!file)
      return emitError(loc) << "cannot write '" << report << "': " << error;
    writeReportHtml(file->os(), reports);
    file->keep();
    return success();
  }

  DeviceModel deviceModel;
  llvm::StringMap<double> measured;
  /// The report's subprograms, in search order.
  std::vector<SubprogramReport> reports;
  /// Collects the top-k file's functions when one is asked for.
  ModuleOp topModule;
};

} // namespace
