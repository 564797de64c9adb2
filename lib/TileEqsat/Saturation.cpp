//===- Saturation.cpp - Equality saturation of a tile program -------------===//
//
// Part of the Mirage MLIR project.
//
//===----------------------------------------------------------------------===//

#include "mirage/TileEqsat/Saturation.h"

#include "llvm/Support/FormatVariadic.h"

#include <chrono>

using namespace mirage;
using namespace mirage::tile;
using namespace mirage::egraph;
using llvm::ArrayRef;
using llvm::Expected;
using llvm::SmallVector;
using llvm::StringRef;
using llvm::Twine;

TileEGraph::TileEGraph(TileContext &context)
    : context(context), graph(std::make_unique<EGraph>(context.getLanguage())) {
  analysis = &graph->addAnalysis<TileAnalysis>(context);
}

TileEGraph::~TileEGraph() = default;

EClassId TileEGraph::addProgram(const Term &term) {
  root = graph->addTerm(term);
  graph->rebuild();
  return root;
}

SaturationStats TileEGraph::saturate(const SaturationOptions &options) {
  auto start = std::chrono::steady_clock::now();
  SaturationStats stats;
  rules = makeTileRules(context, *analysis, options.rules);
  if (!options.fission)
    llvm::erase_if(rules, [](const Rewrite &rule) {
      return rule.getName() == "loop-fission" ||
             rule.getName() == "loop-fission-tail";
    });

  // Propagate and flatten once before the first iteration, so the first
  // round of rules already sees through loads.
  if (options.propagation)
    stats.propagated += propagateExpressions(*graph, *analysis, &propagated);
  graph->rebuild();
  if (options.canonicalization)
    stats.flattened += canonicalizeSequences(*graph, *analysis);

  RunnerOptions runnerOptions;
  runnerOptions.iterationLimit = options.iterations;
  runnerOptions.nodeLimit = options.nodeLimit;
  runnerOptions.timeLimitSeconds = options.timeLimitSeconds;
  runnerOptions.checkInvariants = options.checkInvariants;
  runner = std::make_unique<Runner>(*graph, runnerOptions);
  auto scheduler = std::make_unique<BackoffScheduler>(options.matchLimit,
                                                      options.banLength);
  for (StringRef name : {"seq-comm", "seq-comm-tail", "loop-fusion",
                         "loop-fusion-tail"})
    scheduler->doNotBan(name);
  if (options.fission && options.fissionMatchLimit)
    for (StringRef name : {"loop-fission", "loop-fission-tail"}) {
      scheduler->setMatchLimit(name, options.fissionMatchLimit);
      scheduler->setBanLength(name, 1000);
    }
  runner->setScheduler(std::move(scheduler));
  runner->addHook([&](EGraph &g, const Iteration &iteration) {
    if (options.propagation)
      stats.propagated += propagateExpressions(g, *analysis, &propagated);
    if (options.canonicalization)
      stats.flattened += canonicalizeSequences(g, *analysis);
    if (options.progress) {
      double seconds = std::chrono::duration<double>(
                           std::chrono::steady_clock::now() - start)
                           .count();
      std::string left;
      if (options.timeLimitSeconds > 0)
        left = llvm::formatv("; at most {0:f0} s left (time limit)",
                             std::max(0.0, options.timeLimitSeconds - seconds))
                   .str();
      *options.progress << llvm::formatv(
          "[mirage-tile-eqsat] iteration {0} of at most {1}: {2} e-nodes "
          "(limit {3}), {4} matches applied, {5:f1} s{6}\n",
          iteration.index + 1, options.iterations, g.getNumNodes(),
          options.nodeLimit, iteration.getTotalApplied(), seconds, left);
      options.progress->flush();
    }
    return HookResult::Continue;
  });
  stats.stopReason = runner->run(rules);
  graph->rebuild();
  stats.iterations = runner->getIterations().size();
  stats.nodes = graph->getNumNodes();
  stats.classes = graph->getNumClasses();
  stats.shapeConflicts = analysis->getShapeConflicts();
  stats.seconds = std::chrono::duration<double>(
                      std::chrono::steady_clock::now() - start)
                      .count();
  stats.programs = countAcyclicTerms(*graph, getRoot());
  return stats;
}
