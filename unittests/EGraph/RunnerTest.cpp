//===- RunnerTest.cpp - Saturation, limits, scheduler, hooks, determinism -===//
//
// Part of the Mirage MLIR project.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include "mirage/EGraph/Runner.h"

#include <chrono>
#include <cmath>
#include <limits>
#include <tuple>

using namespace mirage::egraph;
using namespace mirage::egraph::test;

namespace {

/// (+ (+ (+ x0 x1) x2) ...) with n leaves.
std::string leftSum(unsigned n) {
  std::string text = "x0";
  for (unsigned i = 1; i < n; ++i)
    text = "(+ " + text + " x" + std::to_string(i) + ")";
  return text;
}

std::vector<Rewrite> assocComm(Language &language) {
  return {rule(language, "add-comm", "(+ ?a ?b)", "(+ ?b ?a)"),
          rule(language, "add-assoc", "(+ ?a (+ ?b ?c))", "(+ (+ ?a ?b) ?c)")};
}

/// Classes and nodes of a saturated sum of n distinct leaves under
/// commutativity and associativity: a class per non-empty subset, and per
/// subset S of two or more leaves a node (+ A B) per ordered split of S.
size_t sumClasses(unsigned n) { return (size_t(1) << n) - 1; }
size_t sumNodes(unsigned n) {
  return size_t(std::pow(3.0, n)) - (size_t(1) << (n + 1)) + 1 + n;
}

RunnerOptions testOptions() {
  RunnerOptions options;
  options.checkInvariants = true;
  options.nodeLimit = 100000;
  options.timeLimitSeconds = 60;
  return options;
}

TEST(RunnerTest, DivideTimesTwo) {
  // The egg paper's example: (a * 2) / 2 = a.
  Language language;
  EGraph graph(language);
  EClassId root = add(graph, "(/ (* a 2) 2)");
  std::vector<Rewrite> rules = {
      rule(language, "mul-one", "(* ?x 1)", "?x"),
      rule(language, "div-one", "(/ ?x 1)", "?x"),
      rule(language, "mul-two", "(* ?x 2)", "(<< ?x 1)"),
      rule(language, "reassoc-div", "(/ (* ?x ?y) ?z)", "(* ?x (/ ?y ?z))"),
      rule(language, "div-same", "(/ ?x ?x)", "1"),
  };
  Runner runner(graph, testOptions());
  EXPECT_EQ(runner.run(rules), StopReason::Saturated);
  EXPECT_TRUE(graph.areEquivalent(root, lookup(graph, "a")));
  EXPECT_EQ(best(graph, root), "a");
  EXPECT_EQ(graph.find(lookup(graph, "(<< a 1)")),
            graph.find(lookup(graph, "(* a 2)")));
  // Iteration 0 reassociates and shifts, 1 cancels 2 / 2, 2 drops * 1, 3
  // changes nothing.
  ASSERT_EQ(runner.getIterations().size(), 4u);
  EXPECT_FALSE(runner.getIterations().back().changed);
  // The root holds a and a * 1; 2 / 2 is 1; a * 2 is a << 1.
  EXPECT_EQ(print(graph), "e0: (/ e2 e1) (* e0 e4) a\n"
                          "e1: 2\n"
                          "e2: (* e0 e1) (<< e0 e4)\n"
                          "e4: 1 (/ e1 e1)\n");

  // With commutativity the rules never saturate ((* 2 a) / 2 reassociates
  // to (* 2 (/ a 2)), which is a again, ...): the iteration limit stops it,
  // and the answer is the same.
  rules.push_back(rule(language, "mul-comm", "(* ?x ?y)", "(* ?y ?x)"));
  RunnerOptions options = testOptions();
  options.iterationLimit = 12;
  EGraph commuting(language);
  root = add(commuting, "(/ (* a 2) 2)");
  Runner limited(commuting, options);
  EXPECT_EQ(limited.run(rules), StopReason::IterationLimit);
  EXPECT_EQ(best(commuting, root), "a");
  EXPECT_GT(commuting.getNumClasses(), 12u);
}

TEST(RunnerTest, DocExample) {
  // The example at the top of docs/EGraph.md.
  Language language; // operator and symbol names
  EGraph graph(language);
  EClassId root = llvm::cantFail(addSExpr(graph, "(/ (* a 2) 2)"));
  std::vector<Rewrite> rules;
  for (auto [name, lhs, rhs] :
       {std::tuple{"mul-one", "(* ?x 1)", "?x"},
        {"mul-two", "(* ?x 2)", "(<< ?x 1)"},
        {"reassoc-div", "(/ (* ?x ?y) ?z)", "(* ?x (/ ?y ?z))"},
        {"div-same", "(/ ?x ?x)", "1"}})
    rules.push_back(llvm::cantFail(Rewrite::create(language, name, lhs, rhs)));
  Runner runner(graph);
  EXPECT_EQ(runner.run(rules), StopReason::Saturated);
  EXPECT_EQ(runner.getIterations().size(), 4u);
  GreedyExtractor extractor(graph, astSizeCost);
  EXPECT_EQ(printTerm(language, extractor.extract(root)), "a");
  TermCount count = countTerms(graph, root);
  EXPECT_EQ(count.count, std::numeric_limits<double>::infinity());
  EXPECT_TRUE(count.cyclic);
}

TEST(RunnerTest, AssocCommSaturatesToAllSubsets) {
  for (unsigned n : {3u, 5u, 7u}) {
    Language language;
    EGraph graph(language);
    EClassId root = add(graph, leftSum(n));
    Runner runner(graph, testOptions());
    runner.setScheduler(std::make_unique<SimpleScheduler>());
    EXPECT_EQ(runner.run(assocComm(language)), StopReason::Saturated);
    EXPECT_EQ(graph.getNumClasses(), sumClasses(n)) << "n = " << n;
    EXPECT_EQ(graph.getNumNodes(), sumNodes(n)) << "n = " << n;
    EXPECT_EQ(graph.getClassNodes(root).size(), (size_t(1) << n) - 2);
  }
}

TEST(RunnerTest, IterationStatistics) {
  Language language;
  EGraph graph(language);
  add(graph, leftSum(5));
  Runner runner(graph, testOptions());
  runner.setScheduler(std::make_unique<SimpleScheduler>());
  runner.run(assocComm(language));
  llvm::ArrayRef<Iteration> its = runner.getIterations();
  ASSERT_GE(its.size(), 2u);
  // Iteration 0: four + nodes to commute, no right-nested sum to
  // reassociate.
  EXPECT_EQ(its[0].nodesBefore, 9u);
  EXPECT_EQ(its[0].rules[0].matches, 4u);
  EXPECT_EQ(its[0].rules[0].applied, 4u);
  EXPECT_EQ(its[0].rules[1].matches, 0u);
  EXPECT_EQ(its[0].nodes, 13u);
  EXPECT_EQ(its[0].classes, 9u);
  // Iteration 1: eight + nodes; (+ xk S) for the three upper classes, each
  // S with two nodes.
  EXPECT_EQ(its[1].rules[0].matches, 8u);
  EXPECT_EQ(its[1].rules[0].applied, 0u) << "all commuted already";
  EXPECT_EQ(its[1].rules[1].matches, 6u);
  EXPECT_EQ(its[1].rules[1].applied, 6u);
  EXPECT_EQ(its.back().getTotalApplied(), 0u);
  std::string report;
  llvm::raw_string_ostream os(report);
  runner.printReport(os);
  EXPECT_NE(report.find("add-assoc"), std::string::npos);
  EXPECT_NE(report.find("stop: saturated after"), std::string::npos);
}

TEST(RunnerTest, IterationLimit) {
  Language language;
  EGraph graph(language);
  add(graph, leftSum(8));
  RunnerOptions options = testOptions();
  options.iterationLimit = 3;
  Runner runner(graph, options);
  EXPECT_EQ(runner.run(assocComm(language)), StopReason::IterationLimit);
  EXPECT_EQ(runner.getIterations().size(), 3u);
  EXPECT_LT(graph.getNumNodes(), sumNodes(8));
}

TEST(RunnerTest, NodeLimitBoundsTheBlowUp) {
  Language language;
  EGraph graph(language);
  add(graph, leftSum(8));
  RunnerOptions options = testOptions();
  options.nodeLimit = 500;
  Runner runner(graph, options);
  runner.setScheduler(std::make_unique<SimpleScheduler>());
  EXPECT_EQ(runner.run(assocComm(language)), StopReason::NodeLimit);
  // Checked after every application: one rule application adds at most two
  // nodes here.
  EXPECT_GT(graph.getNumNodes(), 500u);
  EXPECT_LE(graph.getNumNodes(), 502u);
  EXPECT_TRUE(graph.isClean());
  EXPECT_INVARIANTS(graph);
}

TEST(RunnerTest, TimeLimit) {
  Language language;
  EGraph graph(language);
  add(graph, leftSum(8));
  RunnerOptions options = testOptions();
  options.timeLimitSeconds = 0;
  Runner runner(graph, options);
  EXPECT_EQ(runner.run(assocComm(language)), StopReason::TimeLimit);
  EXPECT_TRUE(runner.getIterations().empty());
}

TEST(RunnerTest, BackoffSchedulerBansExplodingRules) {
  Language language;
  EGraph graph(language);
  add(graph, leftSum(5));
  Runner runner(graph, testOptions());
  auto scheduler = std::make_unique<BackoffScheduler>(/*matchLimit=*/5,
                                                      /*banLength=*/2);
  BackoffScheduler *backoff = scheduler.get();
  runner.setScheduler(std::move(scheduler));
  EXPECT_EQ(runner.run(assocComm(language)), StopReason::Saturated);
  llvm::ArrayRef<Iteration> its = runner.getIterations();
  ASSERT_EQ(its.size(), 20u);
  // Iteration 0: four commutations, below the limit of 5.
  EXPECT_EQ(its[0].rules[0].matches, 4u);
  EXPECT_EQ(its[0].rules[0].applied, 4u);
  EXPECT_FALSE(its[0].rules[0].banned);
  // Iteration 1: 8 commutations and 6 reassociations exceed it: the search
  // stops at limit + 1, both rules are banned for 2 iterations and their
  // matches dropped.
  EXPECT_TRUE(its[1].rules[0].banned);
  EXPECT_TRUE(its[1].rules[1].banned);
  EXPECT_EQ(its[1].rules[0].matches, 6u);
  EXPECT_EQ(its[1].rules[1].matches, 6u);
  EXPECT_EQ(its[1].getTotalApplied(), 0u);
  EXPECT_FALSE(its[1].changed);
  // Nothing changed while rules were banned, so the bans were shortened:
  // iteration 2 searches both with the limit doubled to 10.
  EXPECT_FALSE(its[2].rules[0].skipped || its[2].rules[0].banned);
  EXPECT_EQ(its[2].rules[0].matches, 8u);
  EXPECT_EQ(its[2].rules[1].matches, 6u);
  EXPECT_EQ(its[2].rules[1].applied, 6u);
  // Iteration 3: 11 > 10 for both: banned again (for 4 iterations, later
  // shortened); iteration 4 allows 20.
  EXPECT_TRUE(its[3].rules[0].banned && its[3].rules[1].banned);
  EXPECT_EQ(its[3].rules[0].matches, 11u);
  EXPECT_FALSE(its[4].rules[0].banned);
  EXPECT_EQ(its[4].rules[0].matches, 20u);
  EXPECT_TRUE(its[4].rules[1].banned);
  EXPECT_TRUE(its[5].rules[1].skipped);
  EXPECT_EQ(backoff->getState(0).timesBanned, 6u);
  EXPECT_EQ(backoff->getState(1).timesBanned, 7u);
  // Bans never stop the run short of saturation: same e-graph as without.
  EXPECT_EQ(graph.getNumClasses(), sumClasses(5));
  EXPECT_EQ(graph.getNumNodes(), sumNodes(5));
  EXPECT_GE(backoff->getState(0).timesBanned, 1u);
  EXPECT_GE(backoff->getState(1).timesBanned, 1u);
  unsigned bans = 0;
  for (const Iteration &it : its)
    bans += it.rules[0].banned + it.rules[1].banned;
  EXPECT_EQ(bans, backoff->getState(0).timesBanned +
                      backoff->getState(1).timesBanned);
}

TEST(RunnerTest, BackoffSchedulerPerRuleLimits) {
  Language language;
  EGraph graph(language);
  add(graph, leftSum(6));
  Runner runner(graph, testOptions());
  auto scheduler = std::make_unique<BackoffScheduler>(5, 2);
  scheduler->doNotBan("add-comm").setMatchLimit("add-assoc", 1000000);
  BackoffScheduler *backoff = scheduler.get();
  runner.setScheduler(std::move(scheduler));
  EXPECT_EQ(runner.run(assocComm(language)), StopReason::Saturated);
  EXPECT_EQ(backoff->getState(0).timesBanned, 0u);
  EXPECT_EQ(backoff->getState(1).timesBanned, 0u);
  for (const Iteration &it : runner.getIterations())
    EXPECT_FALSE(it.rules[0].skipped || it.rules[1].skipped);
  EXPECT_EQ(graph.getNumNodes(), sumNodes(6));
}

TEST(RunnerTest, HooksRunAfterEachIteration) {
  Language language;
  EGraph graph(language);
  EClassId root = add(graph, "(f a)");
  OpId g = language.getOrAddOp("g");
  std::vector<size_t> seen;
  Runner runner(graph, testOptions());
  // A canonicalization hook: every (f x) also gets (g x) merged in, once.
  runner.addHook([&](EGraph &graph, const Iteration &it) {
    seen.push_back(it.index);
    for (EClassId cls : graph.getClassIds())
      for (ENodeId id : graph.getClassNodes(cls))
        if (language.getOpName(graph.getNode(id).op) == "f") {
          EClassId child = graph.getNode(id).children[0];
          graph.merge(cls, graph.add(ENode(g, {child})));
          break;
        }
    return HookResult::Continue;
  });
  // A rule with nothing to do: only the hook changes the e-graph.
  std::vector<Rewrite> rules = {rule(language, "noop", "(h ?x)", "?x")};
  EXPECT_EQ(runner.run(rules), StopReason::Saturated);
  EXPECT_EQ(graph.find(root), lookup(graph, "(g a)"));
  // Iteration 0: the hook added (g a); iteration 1 changed nothing.
  EXPECT_EQ(seen, (std::vector<size_t>{0, 1}));
  EXPECT_TRUE(runner.getIterations()[0].changed);
  EXPECT_FALSE(runner.getIterations()[1].changed);
}

TEST(RunnerTest, HookCanStopTheRun) {
  Language language;
  EGraph graph(language);
  add(graph, leftSum(8));
  Runner runner(graph, testOptions());
  runner.addHook([](EGraph &, const Iteration &it) {
    return it.index == 2 ? HookResult::Stop : HookResult::Continue;
  });
  EXPECT_EQ(runner.run(assocComm(language)), StopReason::Hook);
  EXPECT_EQ(runner.getIterations().size(), 3u);
}

struct RunSummary {
  std::string graph;
  std::vector<std::vector<size_t>> iterations;
  StopReason reason;
};

RunSummary runOnce(unsigned padding) {
  // Perturb the heap so that pointers differ between the runs.
  std::vector<std::unique_ptr<char[]>> garbage;
  for (unsigned i = 0; i < padding; ++i)
    garbage.push_back(std::make_unique<char[]>(64 + 8 * i));

  Language language;
  EGraph graph(language);
  graph.addAnalysis<ConstantFolding>(language);
  add(graph, "(* (+ (+ (+ x0 x1) (* 2 3)) x2) (+ x3 (- 4 4)))");
  std::vector<Rewrite> rules = assocComm(language);
  rules.push_back(rule(language, "mul-comm", "(* ?a ?b)", "(* ?b ?a)"));
  rules.push_back(rule(language, "distribute", "(* ?a (+ ?b ?c))",
                       "(+ (* ?a ?b) (* ?a ?c))"));
  rules.push_back(rule(language, "add-zero", "(+ ?a 0)", "?a"));
  RunnerOptions options = testOptions();
  options.iterationLimit = 6;
  options.nodeLimit = 5000;
  Runner runner(graph, options);
  runner.setScheduler(std::make_unique<BackoffScheduler>(40, 1));
  RunSummary summary;
  summary.reason = runner.run(rules);
  summary.graph = print(graph);
  for (const Iteration &it : runner.getIterations()) {
    std::vector<size_t> numbers = {it.nodes, it.classes, it.rebuildMerges};
    for (const RuleIterationStats &rule : it.rules) {
      numbers.push_back(rule.matches);
      numbers.push_back(rule.applied);
      numbers.push_back(rule.banned);
      numbers.push_back(rule.skipped);
    }
    summary.iterations.push_back(numbers);
  }
  return summary;
}

TEST(RunnerTest, DeterministicAcrossRuns) {
  RunSummary first = runOnce(0);
  RunSummary second = runOnce(1000);
  EXPECT_EQ(first.reason, second.reason);
  EXPECT_EQ(first.iterations, second.iterations);
  EXPECT_EQ(first.graph, second.graph);
  // The run is large enough to mean something.
  EXPECT_GT(first.iterations.size(), 3u);
  EXPECT_GT(std::count(first.graph.begin(), first.graph.end(), '\n'), 50);
}

/// The performance note of docs/EGraph.md: saturating sums of n leaves.
/// Run with --gtest_also_run_disabled_tests.
TEST(RunnerTest, DISABLED_SaturationSpeed) {
  for (unsigned n : {8u, 9u, 10u, 11u}) {
    Language language;
    EGraph graph(language);
    add(graph, leftSum(n));
    RunnerOptions options;
    options.nodeLimit = 10000000;
    options.timeLimitSeconds = 600;
    options.iterationLimit = 100;
    Runner runner(graph, options);
    runner.setScheduler(std::make_unique<SimpleScheduler>());
    auto start = std::chrono::steady_clock::now();
    StopReason reason = runner.run(assocComm(language));
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    size_t matches = 0;
    double search = 0, apply = 0, rebuild = 0;
    for (const Iteration &it : runner.getIterations()) {
      matches += it.getTotalMatches();
      search += it.searchSeconds;
      apply += it.applySeconds;
      rebuild += it.rebuildSeconds;
    }
    EXPECT_EQ(reason, StopReason::Saturated);
    EXPECT_EQ(graph.getNumNodes(), sumNodes(n));
    llvm::outs() << llvm::format(
        "n=%u: %zu nodes, %zu classes, %zu iterations, %zu matches, %.3f s "
        "(search %.3f, apply %.3f, rebuild %.3f), %.0f nodes/s, %.0f "
        "matches/s\n",
        n, graph.getNumNodes(), graph.getNumClasses(),
        runner.getIterations().size(), matches, seconds, search, apply, rebuild,
        graph.getNumNodes() / seconds, matches / seconds);
  }
}

} // namespace
