//===- ExtractTest.cpp - Extraction and term counting ---------------------===//
//
// Part of the Mirage MLIR project.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include "mirage/EGraph/Runner.h"

#include <cmath>
#include <limits>

using namespace mirage::egraph;
using namespace mirage::egraph::test;

namespace {

constexpr double infinity = std::numeric_limits<double>::infinity();

TEST(ExtractTest, SmallestTerm) {
  Language language;
  EGraph graph(language);
  EClassId x = add(graph, "(+ (* a 1) (* b 0))");
  graph.merge(lookup(graph, "(* a 1)"), add(graph, "a"));
  graph.merge(lookup(graph, "(* b 0)"), add(graph, "0"));
  graph.merge(x, add(graph, "(+ a 0)"));
  graph.merge(x, add(graph, "(id (id (id a)))"));
  graph.rebuild();
  GreedyExtractor size(graph, astSizeCost);
  EXPECT_EQ(size.getCost(x), 3);
  EXPECT_EQ(printTerm(language, size.extract(x)), "(+ a 0)");
  GreedyExtractor depth(graph, astDepthCost);
  EXPECT_EQ(depth.getCost(x), 2);
}

TEST(ExtractTest, UserCostFunction) {
  Language language;
  EGraph graph(language);
  EClassId x = add(graph, "(* (+ a b) 2)");
  graph.merge(x, add(graph, "(<< (+ a b) 1)"));
  graph.merge(x, add(graph, "(+ (+ a b) (+ a b))"));
  graph.rebuild();
  OpId mul = *language.lookupOp("*"), shl = *language.lookupOp("<<");
  // Multiplication is expensive, shifts are cheap.
  auto cost = [&](OpId expensive, double price) {
    return [=](const EGraph &, EClassId, const ENode &node,
               llvm::ArrayRef<double> children) {
      double total = node.op == expensive ? price : 1;
      for (double c : children)
        total += c;
      return total;
    };
  };
  GreedyExtractor preferShift(graph, cost(mul, 10));
  EXPECT_EQ(printTerm(language, preferShift.extract(x)), "(<< (+ a b) 1)");
  EXPECT_EQ(preferShift.getCost(x), 5);
  GreedyExtractor preferMul(graph, cost(shl, 10));
  EXPECT_EQ(printTerm(language, preferMul.extract(x)), "(* (+ a b) 2)");
  // Infinite cost excludes a node: without * and <<, the sum is left.
  GreedyExtractor onlyAdd(graph,
                          [&](const EGraph &, EClassId, const ENode &node,
                              llvm::ArrayRef<double> children) {
                            if (node.op == mul || node.op == shl)
                              return infinity;
                            return astSizeCost(graph, 0, node, children);
                          });
  Term sum = onlyAdd.extract(x);
  EXPECT_EQ(printTerm(language, sum), "(+ (+ a b) (+ a b))");
  EXPECT_EQ(sum.size(), 4u) << "the shared (+ a b) appears once in the DAG";
  EXPECT_EQ(sum.getTreeSize(sum.getRoot()), 7u);
  // A class without a finite term extracts to nothing.
  GreedyExtractor nothing(graph,
                          [](const EGraph &, EClassId, const ENode &,
                             llvm::ArrayRef<double>) { return infinity; });
  EXPECT_TRUE(nothing.extract(x).empty());
  EXPECT_EQ(nothing.getBestNode(x), std::nullopt);
}

TEST(ExtractTest, SeveralRootsShareOneDag) {
  Language language;
  EGraph graph(language);
  EClassId p = add(graph, "(f (g a) b)");
  EClassId q = add(graph, "(h (g a))");
  graph.rebuild();
  GreedyExtractor extractor(graph, astSizeCost);
  llvm::SmallVector<unsigned> roots;
  Term term = extractor.extract({p, q}, roots);
  ASSERT_EQ(roots.size(), 2u);
  // a, (g a), b, (f ...), (h ...).
  EXPECT_EQ(term.size(), 5u);
  EXPECT_EQ(printTerm(language, term, roots[0]), "(f (g a) b)");
  EXPECT_EQ(printTerm(language, term, roots[1]), "(h (g a))");
  // Adding the term back finds the same classes.
  EXPECT_EQ(graph.addTerm(term, roots[1]), graph.find(q));
}

TEST(ExtractTest, CyclesAreNeverChosen) {
  Language language;
  EGraph graph(language);
  EClassId a = add(graph, "a");
  // a = (* a 1) = (f a): the class is its own child.
  graph.merge(a, add(graph, "(* a 1)"));
  graph.merge(a, add(graph, "(f a)"));
  EClassId top = add(graph, "(g (f a))");
  graph.rebuild();
  EXPECT_INVARIANTS(graph);
  // Zero-cost f: (f a) costs as much as a, and is never picked over it.
  GreedyExtractor extractor(graph, [&](const EGraph &, EClassId,
                                       const ENode &node,
                                       llvm::ArrayRef<double> children) {
    double total = language.getOpName(node.op) == "f" ? 0 : 1;
    for (double c : children)
      total += c;
    return total;
  });
  EXPECT_EQ(printTerm(language, extractor.extract(top)), "(g a)");
  EXPECT_EQ(extractor.getCost(top), 2);
}

TEST(ExtractTest, AfterSaturation) {
  Language language;
  EGraph graph(language);
  EClassId root = add(graph, "(+ (* x 0) (+ y (* 1 z)))");
  std::vector<Rewrite> rules = {
      rule(language, "mul-comm", "(* ?a ?b)", "(* ?b ?a)"),
      rule(language, "add-comm", "(+ ?a ?b)", "(+ ?b ?a)"),
      rule(language, "mul-zero", "(* ?a 0)", "0"),
      rule(language, "mul-one", "(* ?a 1)", "?a"),
      rule(language, "add-zero", "(+ ?a 0)", "?a"),
  };
  Runner runner(graph);
  EXPECT_EQ(runner.run(rules), StopReason::Saturated);
  EXPECT_EQ(best(graph, root), "(+ y z)");
}

TEST(ExtractTest, CountTerms) {
  Language language;
  EGraph graph(language);
  EClassId x = add(graph, "(+ a b)");
  graph.merge(x, add(graph, "(+ b a)"));
  EClassId y = add(graph, "(* (+ a b) (+ a b))");
  graph.rebuild();
  EXPECT_EQ(countTerms(graph, x).count, 2);
  EXPECT_FALSE(countTerms(graph, x).cyclic);
  // Each operand independently: 2 * 2.
  EXPECT_EQ(countTerms(graph, y).count, 4);
  EXPECT_EQ(countAcyclicTerms(graph, y).count, 4);
  EXPECT_EQ(countTerms(graph, add(graph, "a")).count, 1);
}

TEST(ExtractTest, CountAssocCommTerms) {
  // A saturated sum of n distinct leaves represents every binary tree over
  // every order of the leaves: n! * Catalan(n - 1).
  for (auto [n, expected] : {std::pair{3u, 12.0}, {4u, 120.0}, {6u, 30240.0}}) {
    Language language;
    EGraph graph(language);
    std::string text = "x0";
    for (unsigned i = 1; i < n; ++i)
      text = "(+ " + text + " x" + std::to_string(i) + ")";
    EClassId root = add(graph, text);
    Runner runner(graph);
    runner.setScheduler(std::make_unique<SimpleScheduler>());
    runner.run(
        {rule(language, "comm", "(+ ?a ?b)", "(+ ?b ?a)"),
         rule(language, "assoc", "(+ ?a (+ ?b ?c))", "(+ (+ ?a ?b) ?c)")});
    EXPECT_EQ(countTerms(graph, root).count, expected) << "n = " << n;
    EXPECT_FALSE(countTerms(graph, root).cyclic);
    EXPECT_EQ(countAcyclicTerms(graph, root).count, expected);
  }
}

TEST(ExtractTest, CountTermsWithACycle) {
  Language language;
  EGraph graph(language);
  EClassId a = add(graph, "a");
  graph.merge(a, add(graph, "(* a 1)"));
  EClassId top = add(graph, "(g a b)");
  graph.rebuild();
  // a, (* a 1), (* (* a 1) 1), ...: infinitely many.
  TermCount exact = countTerms(graph, a);
  EXPECT_EQ(exact.count, infinity);
  EXPECT_TRUE(exact.cyclic);
  EXPECT_EQ(countTerms(graph, top).count, infinity);
  // Without the back edge: just a, and (g a b).
  TermCount acyclic = countAcyclicTerms(graph, a);
  EXPECT_EQ(acyclic.count, 1);
  EXPECT_TRUE(acyclic.cyclic);
  EXPECT_EQ(countAcyclicTerms(graph, top).count, 1);
  // b has no cycle below it.
  EXPECT_EQ(countTerms(graph, add(graph, "b")).count, 1);
  EXPECT_FALSE(countTerms(graph, add(graph, "b")).cyclic);
}

TEST(ExtractTest, CountSaturatesToInfinity) {
  // x_{i+1} = (f x_i) = (g x_i): 2^n terms.
  Language language;
  EGraph graph(language);
  auto chain = [&](unsigned n) {
    EClassId x = add(graph, "a");
    OpId f = language.getOrAddOp("f"), g = language.getOrAddOp("g");
    for (unsigned i = 0; i < n; ++i) {
      EClassId next = graph.add(ENode(f, {x}));
      graph.merge(next, graph.add(ENode(g, {x})));
      x = next;
    }
    graph.rebuild();
    return x;
  };
  EClassId x60 = chain(60);
  EXPECT_EQ(countTerms(graph, x60).count, std::ldexp(1.0, 60));
  EClassId x1100 = chain(1100);
  TermCount huge = countTerms(graph, x1100);
  EXPECT_EQ(huge.count, infinity);
  EXPECT_FALSE(huge.cyclic) << "too many, but finitely many";
}

} // namespace
