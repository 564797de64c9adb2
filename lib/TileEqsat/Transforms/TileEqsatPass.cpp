//===- TileEqsatPass.cpp - The mirage-tile-eqsat pass ---------------------===//
//
// Part of the Mirage MLIR project.
//
// Converts each kernel-graph function to a tile program, saturates it with
// Trinity's rules, extracts ranked candidates, builds them as graph-defined
// kernels in rank order and replaces the function by the first one the
// equivalence verifier accepts.
//
//===----------------------------------------------------------------------===//

#include "mirage/TileEqsat/Passes.h"

#include "mirage/Conversion/Frontend/Guard.h"
#include "mirage/Conversion/Pipelines.h"
#include "mirage/Dialect/Block/IR/Block.h"
#include "mirage/Dialect/Kernel/IR/Kernel.h"
#include "mirage/Dialect/Kernel/Transforms/BlockGraphBuilder.h"
#include "mirage/IR/OptionChecks.h"
#include "mirage/TileEqsat/Extraction.h"
#include "mirage/TileEqsat/KernelToTile.h"
#include "mirage/TileEqsat/Materialize.h"
#include "mirage/TileEqsat/Saturation.h"
#include "mirage/Verify/Equivalence.h"

#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"

#include <unordered_map>

namespace mirage {
#define GEN_PASS_DEF_MIRAGETILEEQSAT
#include "mirage/TileEqsat/Passes.h.inc"
} // namespace mirage

using namespace mlir;
using namespace mirage;
using namespace mirage::tile;

namespace {

struct TileEqsatPass : public mirage::impl::MirageTileEqsatBase<TileEqsatPass> {
  using Base::Base;

  std::optional<std::string> checkOptions() const {
    if (auto error = checkOptionValue("mirage-tile-eqsat", "device", device,
                                      DeviceModel::getNames()))
      return error;
    if (auto error = checkOptionValue("mirage-tile-eqsat", "baseline", baseline,
                                      {"fused", "program"}))
      return error;
    auto sets = RuleSets::parse(rules);
    if (!sets)
      return "mirage-tile-eqsat: " + llvm::toString(sets.takeError());
    if (topK == 0)
      return std::string("mirage-tile-eqsat: top-k must be at least 1");
    if (tileSize <= 0)
      return "mirage-tile-eqsat: tile-size must be positive (got " +
             std::to_string(static_cast<int64_t>(tileSize)) + ")";
    if (fullThreshold < 0)
      return "mirage-tile-eqsat: full-threshold must not be negative (got " +
             std::to_string(static_cast<int64_t>(fullThreshold)) + ")";
    if (!(timeLimit > 0))
      return "mirage-tile-eqsat: time-limit must be a positive number of "
             "seconds (got " +
             llvm::formatv("{0}", static_cast<double>(timeLimit)).str() + ")";
    return std::nullopt;
  }
  MIRAGE_CHECK_PASS_OPTIONS_AT_PARSE

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(checkNoFrontendOps(module, "mirage-tile-eqsat")))
      return signalPassFailure();
    // checkOptions() passed in initialize().
    deviceModel = *DeviceModel::get(device);
    ruleSets = cantFail(RuleSets::parse(rules));
    SmallVector<func::FuncOp> functions;
    for (auto function : module.getOps<func::FuncOp>()) {
      if (function.isDeclaration())
        continue;
      if (function->hasAttr(kn::KernelDialect::getReferenceAttrName())) {
        emitRemark(function.getLoc())
            << "@" << function.getSymName()
            << ": kept, it names a reference (kn.reference): it is a "
               "candidate for the equivalence verifier, not a program to "
               "rewrite";
        continue;
      }
      functions.push_back(function);
    }
    for (func::FuncOp function : functions) {
      candidateEstimates.clear();
      optimize(function);
    }
  }

private:
  void optimize(func::FuncOp function) {
    Location loc = function.getLoc();
    StringRef name = function.getSymName();
    KernelToTileOptions conversion;
    conversion.fullThreshold = fullThreshold;
    auto program = convertToTileProgram(function, conversion);
    if (!program) {
      emitRemark(loc) << "@" << name << ": kept, no tile program: "
                      << llvm::toString(program.takeError());
      return;
    }
    if (showsProgress(progress))
      llvm::errs() << "[mirage-tile-eqsat] @" << name << ": "
                   << getSequence(*program->context, program->term,
                                  program->term.getRoot())
                          .size()
                   << " statements, " << program->vars.size()
                   << " loop variables\n";

    TileEGraph egraph(*program->context);
    egraph.addProgram(program->term);
    SaturationOptions saturation;
    saturation.iterations = iterations;
    saturation.nodeLimit = nodeLimit;
    saturation.timeLimitSeconds = timeLimit;
    saturation.rules = ruleSets;
    saturation.fission = fission;
    saturation.propagation = propagation;
    saturation.progress = showsProgress(progress) ? &llvm::errs() : nullptr;
    SaturationStats stats = egraph.saturate(saturation);
    if (getenv("MIRAGE_TILE_EQSAT_DEBUG") && egraph.getRunner())
      egraph.getRunner()->printReport(llvm::errs());

    ExtractionOptions extraction;
    extraction.topK = topK;
    extraction.cost.device = deviceModel;
    extraction.cost.sizes.defaultSize = tileSize;
    extraction.cost.elementBytes =
        std::max(1u, program->elementType.getIntOrFloatBitWidth() / 8);
    // Trinity's extraction, and the one for block graphs (kernels with at
    // most one sequential loop), whose candidates are built.
    ExtractionResult unconstrained = extractCandidates(egraph, extraction);
    extraction.blockGraphs = true;
    ExtractionResult result = extractCandidates(egraph, extraction);
    ProgramEstimate own =
        estimateProgram(*program->context, program->term, extraction.cost);
    if (showsProgress(progress))
      llvm::errs() << llvm::formatv(
          "[mirage-tile-eqsat] @{0}: {1} loop structures (kernel limit {2}), "
          "{3} candidates in {4:f2} s; for block graphs {5} structures, {6} "
          "candidates in {7:f2} s\n",
          name, unconstrained.structures, unconstrained.kernelLimit,
          unconstrained.candidates.size(),
          unconstrained.structureSeconds + unconstrained.completionSeconds,
          result.structures, result.candidates.size(),
          result.structureSeconds + result.completionSeconds);

    // Build and verify in rank order.
    OwningOpRef<ModuleOp> scratch = ModuleOp::create(loc);
    OpBuilder builder = OpBuilder::atBlockEnd(scratch->getBody());
    auto reference = cast<func::FuncOp>(builder.clone(*function));
    reference.setSymName((name + "_tile_reference").str());
    MaterializeOptions materialize;
    materialize.sizes.defaultSize = tileSize;
    EquivalenceOptions equivalence;
    equivalence.seed = seed;
    equivalence.maxElements = maxElements;
    std::string bestReason, firstRejection;
    // Why Trinity's best (by the cost model) has no block graphs, if so.
    if (!unconstrained.candidates.empty()) {
      auto fn = materializeProgram(
          builder, loc, (name + "_tile_best").str(), function.getFunctionType(),
          *program, unconstrained.candidates.front().term, materialize);
      if (fn)
        fn->erase();
      else
        bestReason = llvm::toString(fn.takeError());
    }
    // With baseline=fused, a candidate is checked for equivalence only when
    // the speed model has it at least 1% faster than kn-fuse's kernels: one
    // that ties them is most often the same kernel found again, and a
    // replacement that gains nothing still costs the proof.
    std::optional<double> fusedUs;
    std::string baselineError;
    if (baseline == "fused") {
      auto us = estimateDefaultPath(function, /*fuse=*/true);
      if (us)
        fusedUs = *us;
      else
        baselineError = llvm::toString(us.takeError());
    }
    std::optional<double> chosenUs, fastestSlowerUs;
    unsigned built = 0, rejected = 0, inexpressible = 0, slower = 0;
    std::string firstInexpressible;
    std::optional<unsigned> chosenRank;
    func::FuncOp chosen;
    std::string verdict;
    // The candidates kept beside the function (keep-candidates), in rank
    // order.
    SmallVector<func::FuncOp> kept;
    // Candidates the loop reached.
    size_t tried = 0;
    // Candidates of both extractions, split where block graphs need it,
    // ranked by the estimate of what is built.
    struct Buildable {
      Term term;
      ProgramEstimate estimate;
    };
    std::vector<Buildable> buildables;
    // A concatenation whose result and operands cannot share a block's
    // shared memory gets a kernel of its own.
    int64_t concatCopyElements =
        deviceModel.smemPerBlock /
        (2 * std::max<int64_t>(1, program->elementType.getIntOrFloatBitWidth() /
                                      8));
    llvm::StringSet<> seenTerms;
    for (const ExtractionResult *list : {&result, &unconstrained})
      for (const Candidate &c : list->candidates) {
        Term split =
            splitForBlockGraphs(*program->context, c.term, concatCopyElements);
        if (!seenTerms.insert(program->context->toString(split)).second)
          continue;
        ProgramEstimate estimate =
            estimateProgram(*program->context, split, extraction.cost);
        buildables.push_back({std::move(split), std::move(estimate)});
      }
    llvm::stable_sort(buildables, [](const Buildable &a, const Buildable &b) {
      return a.estimate.us < b.estimate.us;
    });
    for (auto [rank, candidate] : llvm::enumerate(buildables)) {
      if (rank >= maxBuilt || !baselineError.empty() ||
          (chosen && kept.size() >= keepCandidates))
        break;
      tried = rank + 1;
      auto fn = materializeProgram(
          builder, loc, llvm::formatv("{0}_tile{1}", name, rank + 1).str(),
          function.getFunctionType(), *program, candidate.term, materialize);
      if (!fn) {
        std::string reason = llvm::toString(fn.takeError());
        if (inexpressible++ == 0)
          firstInexpressible =
              llvm::formatv("#{0}: {1}", rank + 1, reason).str();
        if (getenv("MIRAGE_TILE_EQSAT_DEBUG"))
          llvm::errs() << "#" << rank + 1 << " "
                       << candidate.estimate.describe() << ": " << reason
                       << "\n"
                       << program->context->toString(candidate.term, true)
                       << "\n";
        continue;
      }
      ++built;
      std::string diagnostics;
      if (failed(verifyQuietly(*fn, diagnostics))) {
        if (getenv("MIRAGE_TILE_EQSAT_DEBUG"))
          llvm::errs() << "#" << rank + 1 << " is invalid IR: " << diagnostics
                       << "\n"
                       << *fn << "\n";
        if (rejected++ == 0)
          firstRejection =
              llvm::formatv("#{0} is invalid IR: {1}", rank + 1, diagnostics)
                  .str();
        fn->erase();
        continue;
      }
      std::optional<double> candidateUs;
      bool faster = true;
      if (fusedUs) {
        auto us = estimateCandidate(*fn);
        if (!us) {
          if (rejected++ == 0)
            firstRejection =
                llvm::formatv("#{0}: the speed model could not cost it: {1}",
                              rank + 1, llvm::toString(us.takeError()))
                    .str();
          fn->erase();
          continue;
        }
        auto noFaster = [&](double us) { return us > 0.99 * *fusedUs; };
        if (noFaster(*us))
          std::tie(*fn, *us) = tuneTileSizes(builder, loc, *fn, *us, *program,
                                             candidate.term, materialize);
        if (noFaster(*us)) {
          if (getenv("MIRAGE_TILE_EQSAT_DEBUG"))
            llvm::errs() << "#" << rank + 1 << " takes " << *us << " us\n"
                         << *fn << "\n";
          ++slower;
          fastestSlowerUs = std::min(fastestSlowerUs.value_or(*us), *us);
          faster = false;
          if (kept.size() >= keepCandidates) {
            fn->erase();
            continue;
          }
        }
        candidateUs = *us;
      }
      auto checked = checkEquivalence(*fn, reference, equivalence);
      if (!faster && (!checked || (checked->verdict != Verdict::Proven &&
                                   checked->verdict != Verdict::Tested))) {
        // Checked only to be kept: counted among the slower ones already.
        if (!checked)
          llvm::consumeError(checked.takeError());
        fn->erase();
        continue;
      }
      if (!checked || (checked->verdict != Verdict::Proven &&
                       checked->verdict != Verdict::Tested)) {
        std::string why = checked ? describe(*checked, reference.getSymName())
                                  : "could not be checked: " +
                                        llvm::toString(checked.takeError());
        if (rejected++ == 0)
          firstRejection = llvm::formatv("#{0}: {1}", rank + 1, why).str();
        fn->erase();
        continue;
      }
      if (kept.size() < keepCandidates)
        kept.push_back(*fn);
      if (faster && !chosen) {
        chosen = *fn;
        chosenRank = rank;
        chosenUs = candidateUs;
        verdict = details ? describe(*checked, reference.getSymName())
                          : describeBriefly(*checked);
      }
    }

    // One short line unless `details`: the extraction's counts and the
    // first candidates turned away are for whoever tunes the pass; the
    // reason a program was kept is always given.
    InFlightDiagnostic remark = emitRemark(loc);
    remark << llvm::formatv(
        "@{0}: {1} e-classes, {2} e-nodes, {3:e1} programs represented; "
        "saturated in {4:f2} s ({5}, {6} iterations)",
        name, stats.classes, stats.nodes, stats.programs.count, stats.seconds,
        egraph::toString(stats.stopReason), stats.iterations);
    if (details)
      remark << llvm::formatv(
          "; extracted {0} loop structures (up to {1} kernels) into {2} "
          "candidates in {3:f2} s",
          unconstrained.structures, unconstrained.kernelLimit,
          unconstrained.candidates.size(),
          unconstrained.structureSeconds + unconstrained.completionSeconds);
    if (!unconstrained.candidates.empty()) {
      const Candidate &best = unconstrained.candidates.front();
      remark << llvm::formatv("; best: {0} (the program: {1:f1} us)",
                              best.estimate.describe(), own.us);
      if (!bestReason.empty())
        remark << ", not expressible as block graphs: " << bestReason;
    }
    if (details || !chosen) {
      remark << llvm::formatv(
          "; for block graphs {0} loop structures, {1} candidates in {2:f2} "
          "s; {3} distinct candidates ranked; tried {4}: {5} not expressible "
          "as block graphs",
          result.structures, result.candidates.size(),
          result.structureSeconds + result.completionSeconds, buildables.size(),
          tried, inexpressible);
      if (!firstInexpressible.empty())
        remark << " (first: " << firstInexpressible << ")";
      remark << llvm::formatv(", {0} built, {1} rejected", built, rejected);
      if (fusedUs)
        remark << llvm::formatv(", {0} not 1% faster than kn-fuse's kernels",
                                slower);
      if (!firstRejection.empty())
        remark << " (first: " << firstRejection << ")";
    }
    bool use = false;
    if (chosen) {
      remark << llvm::formatv("; chose #{0}: {1}; {2}", *chosenRank + 1,
                              buildables[*chosenRank].estimate.describe(),
                              verdict);
      if (baseline == "program") {
        use = buildables[*chosenRank].estimate.us < own.us;
        if (!use)
          remark << llvm::formatv(
              "; kept the program (its estimate, {0:f2} us, is not above the "
              "candidate's {1:f2} us)",
              own.us, buildables[*chosenRank].estimate.us);
      } else {
        use = true;
        remark << llvm::formatv("; by the speed model {0:f1} us against "
                                "{1:f1} us for kn-fuse's kernels",
                                *chosenUs, *fusedUs);
      }
      if (use && !replace)
        remark << "; not replaced (replace=false)";
    } else if (!baselineError.empty()) {
      remark << "; kept the program (the speed model could not cost kn-fuse's "
                "kernels: "
             << baselineError << ")";
    } else if (slower > 0) {
      remark << llvm::formatv(
          "; kept the program (by the speed model, kn-fuse's kernels take "
          "{0:f1} us; {1} of the {2} candidates built are not 1% faster, "
          "the fastest {3:f1} us",
          *fusedUs, slower, built, *fastestSlowerUs);
      if (slower < built)
        remark << ", and the others failed the checks";
      remark << ")";
    } else if (buildables.empty()) {
      remark << "; kept the program (no candidates)";
    } else if (built == 0) {
      remark << "; kept the program (no candidate was expressible as block "
                "graphs)";
    } else {
      remark << "; kept the program (no candidate that was built passed the "
                "IR verifier, the speed model and the equivalence check)";
    }
    if (keepCandidates > 0) {
      // Beside the function, under their own names (a taken name gets a
      // suffix).
      SymbolTable symbols(function->getParentOp());
      OpBuilder after(function);
      after.setInsertionPointAfter(function);
      remark << llvm::formatv("; kept {0} candidate{1} that passed the IR "
                              "verifiers and the equivalence check",
                              kept.size(), kept.size() == 1 ? "" : "s");
      for (func::FuncOp candidate : kept) {
        auto copy = cast<func::FuncOp>(after.clone(*candidate));
        symbols.insert(copy, after.getInsertionPoint());
        after.setInsertionPointAfter(copy);
        remark << (candidate == kept.front() ? ": @" : ", @")
               << copy.getSymName();
      }
    }
    remark.report();
    if (!use || !replace)
      return;
    function.getBody().takeBody(chosen.getBody());
  }

  /// Runs the IR verifiers on `fn`, collecting their messages in
  /// `diagnostics` instead of reporting them.
  LogicalResult verifyQuietly(func::FuncOp fn, std::string &diagnostics) {
    ScopedDiagnosticHandler handler(&getContext(), [&](Diagnostic &d) {
      diagnostics += d.str();
      return success();
    });
    return verify(fn);
  }

  /// `fn`, built from `term` at `options`' tile sizes with `us` by the speed
  /// model, rebuilt with each symbolic tile size in turn set to the powers
  /// of two from 16 to 256 (clamped to divisors of its extent), then with
  /// 64, 128 and 256 threads, keeping the fastest that builds and verifies:
  /// the extraction ranks at one size for all, where kn-fuse plans each
  /// kernel's tiles and threads. The losers are erased.
  std::pair<func::FuncOp, double>
  tuneTileSizes(OpBuilder &builder, Location loc, func::FuncOp fn, double us,
                const TileProgram &program, const Term &term,
                const MaterializeOptions &options) {
    const TileContext &context = *program.context;
    llvm::SetVector<StringRef> symbols;
    for (const ENode &node : term.getNodes())
      if (node.op == context.getOps().tsize)
        symbols.insert(
            context.getLanguage().getSymbolName(node.payload.getSymbol()));
    // Each symbol, then the block size, in turn.
    SmallVector<std::pair<StringRef, SmallVector<int64_t>>> choices;
    for (StringRef symbol : symbols)
      choices.push_back({symbol, {16, 32, 64, 128, 256}});
    choices.push_back({"", {64, 128, 256}});
    MaterializeOptions tried = options;
    for (auto &[symbol, values] : choices) {
      for (int64_t value : values) {
        // The size or block size the function already has.
        int64_t current =
            symbol.empty() ? tried.threads : tried.sizes.sizes.lookup(symbol);
        if (value == (current ? current : tried.sizes.defaultSize))
          continue;
        MaterializeOptions next = tried;
        if (symbol.empty())
          next.threads = value;
        else
          next.sizes.sizes[symbol] = value;
        auto other =
            materializeProgram(builder, loc, fn.getSymName(),
                               fn.getFunctionType(), program, term, next);
        if (!other) {
          llvm::consumeError(other.takeError());
          continue;
        }
        auto otherUs = estimateCandidate(*other, /*verify=*/true);
        if (!otherUs || *otherUs >= us) {
          if (!otherUs)
            llvm::consumeError(otherUs.takeError());
          other->erase();
          continue;
        }
        fn.erase();
        fn = *other;
        us = *otherUs;
        tried = next;
      }
    }
    return {fn, us};
  }

  /// A hash of `fn`'s body: every op's name, attributes and properties,
  /// result types and operands (numbered in walk order), all uniqued in the
  /// context, and its regions' blocks and ops, so equal bodies hash equal
  /// without printing them (different ones collide with a probability of
  /// about 2^-64 per pair).
  static uint64_t fingerprintBody(func::FuncOp fn) {
    llvm::DenseMap<Value, unsigned> numbers;
    auto number = [&](Value value) {
      return numbers.try_emplace(value, numbers.size()).first->second;
    };
    for (BlockArgument arg : fn.getArguments())
      number(arg);
    llvm::hash_code hash = 0;
    fn.getBody().walk<WalkOrder::PreOrder>([&](Operation *op) {
      hash = llvm::hash_combine(
          hash, op->getName().getAsOpaquePointer(),
          op->getRawDictionaryAttrs().getAsOpaquePointer(),
          op->getPropertiesAsAttribute().getAsOpaquePointer(),
          op->getNumRegions());
      for (Value operand : op->getOperands())
        hash = llvm::hash_combine(hash, number(operand));
      for (Value result : op->getResults())
        hash = llvm::hash_combine(hash, result.getType().getAsOpaquePointer(),
                                  number(result));
      for (Region &region : op->getRegions()) {
        hash = llvm::hash_combine(hash, region.getBlocks().size());
        for (Block &block : region) {
          hash = llvm::hash_combine(hash, block.getOperations().size());
          for (BlockArgument arg : block.getArguments())
            hash = llvm::hash_combine(hash, arg.getType().getAsOpaquePointer(),
                                      number(arg));
        }
      }
    });
    return static_cast<uint64_t>(static_cast<size_t>(hash));
  }

  /// The speed model's time of a built candidate on the default path
  /// (estimateDefaultPath without kn-fuse), after the IR verifiers with
  /// `verify`; memoized by the candidate's body (fingerprintBody), since
  /// candidates and their tile sizes often build the same kernels (Vanilla:
  /// 1,088 distinct bodies among about 7,500 built while tuning).
  llvm::Expected<double> estimateCandidate(func::FuncOp fn,
                                           bool verify = false) {
    auto [it, inserted] = candidateEstimates.try_emplace(fingerprintBody(fn));
    CandidateEstimate &entry = it->second;
    if (inserted) {
      std::string diagnostics;
      if (verify && failed(verifyQuietly(fn, diagnostics))) {
        entry.error = "invalid IR: " + diagnostics;
      } else if (auto us = estimateDefaultPath(fn, /*fuse=*/false)) {
        entry.us = *us;
      } else {
        entry.error = llvm::toString(us.takeError());
      }
    }
    if (entry.us)
      return *entry.us;
    return llvm::createStringError(entry.error);
  }

  /// The speed model's time of `function` on the default path: a copy given
  /// kernels by `mirage-to-ptx`'s kernel stage (with `fuse`, kn-fuse first),
  /// every kernel's estimate (with its launch) summed.
  llvm::Expected<double> estimateDefaultPath(func::FuncOp function, bool fuse) {
    OwningOpRef<ModuleOp> scratch = ModuleOp::create(function.getLoc());
    // The chip of the module being optimized (SMs, shared memory per block).
    (*scratch)->setAttr(tb::BlockDialect::getTargetAttrName(),
                        tb::TargetAttr::lookup(getOperation()));
    OpBuilder builder = OpBuilder::atBlockEnd(scratch->getBody());
    auto copy = cast<func::FuncOp>(builder.clone(*function));
    PassManager pm(&getContext(), ModuleOp::getOperationName());
    MirageToPTXOptions defaultPath;
    defaultPath.fuse = fuse;
    buildMirageToPTXKernelStage(pm, defaultPath);
    std::string errors;
    LogicalResult ran = success();
    {
      // Only errors matter; the passes' remarks are not this pass's.
      ScopedDiagnosticHandler handler(&getContext(), [&](Diagnostic &d) {
        if (d.getSeverity() == DiagnosticSeverity::Error)
          errors += d.str();
        return success();
      });
      ran = pm.run(*scratch);
    }
    if (failed(ran))
      return llvm::createStringError(errors.empty() ? "the pipeline failed"
                                                    : errors);
    double us = 0;
    copy.walk([&](kn::KernelOp kernel) {
      us += kn::estimateGraphKernel(kernel, deviceModel).time.us;
    });
    return us;
  }

  DeviceModel deviceModel;
  /// estimateCandidate's results, by candidate body, for one function.
  struct CandidateEstimate {
    std::optional<double> us;
    std::string error;
  };
  std::unordered_map<uint64_t, CandidateEstimate> candidateEstimates;
  RuleSets ruleSets;
};

} // namespace
