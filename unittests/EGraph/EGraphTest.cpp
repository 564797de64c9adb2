//===- EGraphTest.cpp - Hash-consing, congruence, analyses ----------------===//
//
// Part of the Mirage MLIR project.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

using namespace mirage::egraph;
using namespace mirage::egraph::test;

namespace {

TEST(EGraphTest, HashConsing) {
  Language language;
  EGraph graph(language);
  EClassId x = add(graph, "(+ a b)");
  EClassId y = add(graph, "(+ a b)");
  EClassId z = add(graph, "(+ b a)");
  EXPECT_EQ(x, y);
  EXPECT_NE(x, z);
  // a, b, (+ a b), (+ b a).
  EXPECT_EQ(graph.getNumNodes(), 4u);
  EXPECT_EQ(graph.getNumClasses(), 4u);
  EXPECT_EQ(graph.getNumIds(), 4u);
  // Shared subterms within one term are added once.
  EClassId w = add(graph, "(* (+ a b) (+ a b))");
  EXPECT_EQ(graph.getNumNodes(), 5u);
  EXPECT_EQ(graph.getNode(w).children[0], x);
  EXPECT_EQ(graph.getNode(w).children[1], x);
  EXPECT_EQ(graph.getParents(x).size(), 1u) << "a node is a parent once";
  graph.rebuild();
  EXPECT_INVARIANTS(graph);
}

TEST(EGraphTest, PayloadsDistinguishNodes) {
  Language language;
  EGraph graph(language);
  EClassId t64 = add(graph, "(tile:64 i)");
  EClassId t32 = add(graph, "(tile:32 i)");
  EClassId tn = add(graph, "(tile:n i)");
  EClassId plain = add(graph, "(tile i)");
  EXPECT_EQ(add(graph, "(tile:64 i)"), t64);
  EXPECT_EQ(llvm::SmallVector<EClassId>({t64, t32, tn, plain}).size(), 4u);
  EXPECT_NE(t64, t32);
  EXPECT_NE(t64, tn);
  EXPECT_NE(t64, plain);
  EXPECT_EQ(graph.getNode(t64).payload, Payload::integer(64));
  EXPECT_EQ(graph.getNode(tn).payload, language.symbol("n"));
  // i, 4 tiles; `64` is the num node, distinct from the payload 64.
  EClassId n64 = add(graph, "64");
  EXPECT_EQ(graph.getNode(n64).op, Language::numOp);
  EXPECT_EQ(graph.getNumNodes(), 6u);
}

TEST(EGraphTest, CongruenceAfterRebuild) {
  Language language;
  EGraph graph(language);
  EClassId a = add(graph, "a");
  EClassId b = add(graph, "b");
  EClassId fa = add(graph, "(f a)");
  EClassId fb = add(graph, "(f b)");
  graph.rebuild();
  EXPECT_INVARIANTS(graph);
  EXPECT_FALSE(graph.areEquivalent(fa, fb));

  EXPECT_TRUE(graph.merge(a, b));
  EXPECT_FALSE(graph.merge(b, a)) << "already merged";
  EXPECT_FALSE(graph.isClean());
  // Deferred: congruence is restored by rebuild(), not by merge().
  EXPECT_FALSE(graph.areEquivalent(fa, fb));
  EXPECT_FALSE(graph.checkInvariants());
  EXPECT_EQ(graph.rebuild(), 1u);
  EXPECT_TRUE(graph.areEquivalent(fa, fb));
  EXPECT_INVARIANTS(graph);
  EXPECT_EQ(graph.getNumClasses(), 2u);
  // {a, b} and {(f e)}: the two f nodes became one.
  EXPECT_EQ(graph.getNumNodes(), 3u);
  EXPECT_EQ(graph.getClassNodes(a).size(), 2u);
  EXPECT_EQ(graph.getClassNodes(fa).size(), 1u);
}

TEST(EGraphTest, NestedCongruenceNeedsRepeatedRepair) {
  Language language;
  EGraph graph(language);
  // Two chains f^8(g(a, b)) and f^8(g(c, b)) and their mixes.
  std::string left = "(g a b)", right = "(g c b)";
  for (int i = 0; i < 8; ++i) {
    left = "(f " + left + ")";
    right = "(f " + right + ")";
  }
  EClassId l = add(graph, left);
  EClassId r = add(graph, right);
  EClassId h = add(graph, "(h " + left + " " + right + ")");
  EClassId hr = add(graph, "(h " + right + " " + left + ")");
  graph.rebuild();
  EXPECT_EQ(graph.getNumClasses(), 3u + 2 * 9 + 2);
  EXPECT_FALSE(graph.areEquivalent(l, r));

  graph.merge(add(graph, "a"), add(graph, "c"));
  // g, then 8 levels of f, then h: 10 merges by congruence.
  EXPECT_EQ(graph.rebuild(), 10u);
  EXPECT_TRUE(graph.areEquivalent(l, r));
  EXPECT_TRUE(graph.areEquivalent(h, hr));
  EXPECT_INVARIANTS(graph);
  // {a, c}, b, 9 chain classes, one h class.
  EXPECT_EQ(graph.getNumClasses(), 12u);
  EXPECT_EQ(graph.getNumNodes(), 13u);
}

TEST(EGraphTest, CongruenceWithSwappedChildren) {
  Language language;
  EGraph graph(language);
  EClassId x = add(graph, "(f a b)");
  EClassId y = add(graph, "(f b a)");
  graph.merge(add(graph, "a"), add(graph, "b"));
  graph.rebuild();
  EXPECT_TRUE(graph.areEquivalent(x, y));
  EXPECT_INVARIANTS(graph);
  EXPECT_EQ(graph.getNumNodes(), 3u);
}

TEST(EGraphTest, MergeMakesACycle) {
  Language language;
  EGraph graph(language);
  EClassId a = add(graph, "a");
  EClassId fa = add(graph, "(f a)");
  EClassId ffa = add(graph, "(f (f a))");
  graph.merge(a, fa);
  graph.rebuild();
  // f(a) = a makes f(f(a)) = f(a) = a.
  EXPECT_TRUE(graph.areEquivalent(a, ffa));
  EXPECT_EQ(graph.getNumClasses(), 1u);
  EXPECT_EQ(graph.getNumNodes(), 2u);
  EXPECT_INVARIANTS(graph);
  // The class is its own parent, through (f a) and its congruent twin
  // (f (f a)), which the class no longer lists.
  EXPECT_EQ(graph.getParents(a).size(), 2u);
  EXPECT_EQ(graph.find(lookup(graph, "(f (f (f a)))")), graph.find(a));
}

TEST(EGraphTest, LookupAndAddAfterMerges) {
  Language language;
  EGraph graph(language);
  EClassId fa = add(graph, "(f a)");
  EClassId b = add(graph, "b");
  EXPECT_EQ(lookup(graph, "(f b)"), invalidId);
  graph.merge(add(graph, "a"), b);
  // Adding while dirty canonicalizes the children first.
  EXPECT_EQ(add(graph, "(f b)"), graph.find(fa));
  graph.rebuild();
  EXPECT_EQ(lookup(graph, "(f b)"), graph.find(fa));
  EXPECT_INVARIANTS(graph);
}

TEST(EGraphTest, ClassNodesAreSortedAndIndexedByOperator) {
  Language language;
  EGraph graph(language);
  EClassId x = add(graph, "(g b)");
  graph.merge(x, add(graph, "(f a)"));
  graph.merge(x, add(graph, "(g a)"));
  graph.merge(x, add(graph, "c"));
  graph.rebuild();
  OpId f = *language.lookupOp("f"), g = *language.lookupOp("g");
  EXPECT_EQ(graph.getClassNodesWithOp(x, g).size(), 2u);
  EXPECT_EQ(graph.getClassNodesWithOp(x, f).size(), 1u);
  EXPECT_EQ(graph.getClassNodesWithOp(x, Language::numOp).size(), 0u);
  EXPECT_EQ(graph.getClassesWithOp(g), llvm::ArrayRef(graph.find(x)));
  // Ops were interned in the order num, g, b, f, a, c.
  EXPECT_EQ(print(graph), "e0: b\n"
                          "e1: (g e0) (g e2) (f e2) c\n"
                          "e2: a\n");
  EXPECT_INVARIANTS(graph);
}

TEST(EGraphTest, ConstantFoldingAnalysis) {
  Language language;
  EGraph graph(language);
  ConstantFolding &constants = graph.addAnalysis<ConstantFolding>(language);
  EClassId sum = add(graph, "(+ 1 2)");
  // modify() merged the folded constant in at once.
  EXPECT_EQ(graph.find(sum), lookup(graph, "3"));
  EXPECT_EQ(constants.get(sum), 3);

  EClassId product = add(graph, "(* (+ 1 2) x)");
  EClassId difference = add(graph, "(- (* (+ 1 2) x) 2)");
  graph.rebuild();
  EXPECT_EQ(constants.get(product), std::nullopt);
  EXPECT_INVARIANTS(graph);

  // x = 4 makes the product 12 and the difference 10, through the parents.
  graph.merge(add(graph, "x"), add(graph, "4"));
  graph.rebuild();
  EXPECT_EQ(constants.get(product), 12);
  EXPECT_EQ(constants.get(difference), 10);
  EXPECT_EQ(graph.find(product), lookup(graph, "12"));
  EXPECT_EQ(graph.find(difference), lookup(graph, "10"));
  EXPECT_EQ(constants.conflicts, 0u);
  EXPECT_INVARIANTS(graph);
  // `num` is operator 0, so constants come first in their classes.
  EXPECT_EQ(print(graph), "e0: 1 [const: 1]\n"
                          "e1: 2 [const: 2]\n"
                          "e2: 3 (+ e0 e1) [const: 3]\n"
                          "e4: 4 x [const: 4]\n"
                          "e5: 12 (* e2 e4) [const: 12]\n"
                          "e6: 10 (- e5 e1) [const: 10]\n");
}

TEST(EGraphTest, AnalysisMergeOfEqualConstants) {
  Language language;
  EGraph graph(language);
  ConstantFolding &constants = graph.addAnalysis<ConstantFolding>(language);
  EClassId x = add(graph, "(+ y 1)");
  EClassId z = add(graph, "(- w 1)");
  graph.rebuild();
  EXPECT_EQ(constants.get(x), std::nullopt);
  // y = 2 and w = 4 make both 3: the classes merge through their constant.
  graph.merge(add(graph, "y"), add(graph, "2"));
  graph.merge(add(graph, "w"), add(graph, "4"));
  graph.rebuild();
  EXPECT_TRUE(graph.areEquivalent(x, z));
  EXPECT_EQ(constants.get(z), 3);
  EXPECT_EQ(constants.conflicts, 0u);
  EXPECT_INVARIANTS(graph);
}

TEST(EGraphTest, TermsRoundTrip) {
  Language language;
  for (const char *text :
       {"(+ (* a 2) b)", "(tile:64 i)", "var:n", "-3", "(f (g x) (g x))",
        "(loop:k 0 4096 tile_k (store:C (load:A (index (tile k)))))"}) {
    llvm::Expected<Term> term = parseTerm(language, text);
    ASSERT_TRUE(bool(term)) << llvm::toString(term.takeError());
    EXPECT_EQ(printTerm(language, *term), text);
  }
  Term shared = llvm::cantFail(parseTerm(language, "(f (g x) (g x))"));
  EXPECT_EQ(shared.size(), 3u) << "equal subterms are shared";
  EXPECT_EQ(shared.getTreeSize(shared.getRoot()), 5u);
  Term spaced = llvm::cantFail(parseTerm(language, " ( f ; a comment\n a ) "));
  EXPECT_EQ(printTerm(language, spaced), "(f a)");
}

TEST(EGraphTest, ParseErrors) {
  Language language;
  auto error = [&](llvm::StringRef text) {
    llvm::Expected<Term> term = parseTerm(language, text);
    if (term)
      return std::string("parsed");
    return llvm::toString(term.takeError());
  };
  EXPECT_EQ(error("(f a"), "at offset 0: unclosed '('");
  EXPECT_EQ(error("(f a))"), "at offset 5: unexpected text after the "
                             "expression");
  EXPECT_EQ(error("()"), "at offset 0: empty list");
  EXPECT_EQ(error("(f ?x)"), "at offset 3: a term cannot contain variables");
  EXPECT_EQ(error("((f) a)"), "at offset 0: a list must start with an "
                              "operator");
  EXPECT_EQ(error("(3 a)"), "at offset 1: an integer cannot have children");
  EXPECT_EQ(error("f:"), "at offset 0: empty payload after ':'");
  EXPECT_EQ(error(""), "at offset 0: expected an expression");
}

} // namespace
