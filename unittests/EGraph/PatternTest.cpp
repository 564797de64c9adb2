//===- PatternTest.cpp - E-matching, guards, appliers, multi-patterns -----===//
//
// Part of the Mirage MLIR project.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include "mirage/EGraph/Pattern.h"

using namespace mirage::egraph;
using namespace mirage::egraph::test;

namespace {

struct Searched {
  VarTable vars;
  std::vector<Match> matches;
};

Searched search(EGraph &graph, llvm::StringRef text) {
  Searched result;
  Pattern pattern =
      llvm::cantFail(Pattern::parse(graph.getLanguage(), text, result.vars));
  graph.rebuild();
  result.matches = searchPattern(graph, pattern, result.vars);
  return result;
}

TEST(PatternTest, PrintsWhatItParses) {
  Language language;
  VarTable vars;
  for (const char *text :
       {"(+ ?x (* ?y 2))", "?x", "(tile:?n ?i)", "(tile:64 ?i)", "(f:s a)"}) {
    llvm::Expected<Pattern> pattern = Pattern::parse(language, text, vars);
    ASSERT_TRUE(bool(pattern)) << llvm::toString(pattern.takeError());
    std::string printed;
    llvm::raw_string_ostream os(printed);
    pattern->print(os, language, vars);
    EXPECT_EQ(printed, text);
  }
  EXPECT_EQ(vars.size(), 4u);
  EXPECT_EQ(vars.getKind(*vars.lookup("n")), VarTable::Kind::Payload);
  llvm::Expected<Pattern> clash = Pattern::parse(language, "(g:?x ?n)", vars);
  ASSERT_FALSE(bool(clash));
  EXPECT_EQ(llvm::toString(clash.takeError()),
            "variable ?x is used both for a class and a payload");
}

TEST(PatternTest, NestedPattern) {
  Language language;
  EGraph graph(language);
  EClassId root = add(graph, "(+ (* a 2) (* (+ b c) 2))");
  EClassId bc = add(graph, "(+ b c)");
  Searched s = search(graph, "(* (+ ?x ?y) ?z)");
  ASSERT_EQ(s.matches.size(), 1u);
  EXPECT_EQ(s.matches[0].subst[*s.vars.lookup("x")], add(graph, "b"));
  EXPECT_EQ(s.matches[0].subst[*s.vars.lookup("y")], add(graph, "c"));
  EXPECT_EQ(s.matches[0].subst[*s.vars.lookup("z")], add(graph, "2"));
  // Every + node, in class-id order: (+ b c) was added before the root.
  Searched plus = search(graph, "(+ ?x ?y)");
  ASSERT_EQ(plus.matches.size(), 2u);
  EXPECT_EQ(plus.matches[0].root, bc);
  EXPECT_EQ(plus.matches[1].root, root);
  EXPECT_EQ(search(graph, "(* ?x 2)").matches.size(), 2u);
  EXPECT_EQ(search(graph, "(* ?x 3)").matches.size(), 0u);
  // A variable root matches every class.
  EXPECT_EQ(search(graph, "?x").matches.size(), graph.getNumClasses());
}

TEST(PatternTest, RepeatedVariables) {
  Language language;
  EGraph graph(language);
  EClassId aa = add(graph, "(- a a)");
  EClassId ab = add(graph, "(- a b)");
  add(graph, "(- (f a) (f b))");
  Searched s = search(graph, "(- ?x ?x)");
  ASSERT_EQ(s.matches.size(), 1u);
  EXPECT_EQ(s.matches[0].root, aa);
  // Once a = b, (- a b) and (- (f a) (f b)) match too; (- a a) and (- a b)
  // are now one class.
  graph.merge(add(graph, "a"), add(graph, "b"));
  s = search(graph, "(- ?x ?x)");
  ASSERT_EQ(s.matches.size(), 2u);
  EXPECT_EQ(graph.find(aa), graph.find(ab));
  // Repeated variables in nested positions.
  EXPECT_EQ(search(graph, "(- (f ?x) (f ?x))").matches.size(), 1u);
}

TEST(PatternTest, MatchesEveryNodeOfAClass) {
  Language language;
  EGraph graph(language);
  EClassId x = add(graph, "(* a b)");
  graph.merge(x, add(graph, "(* b a)"));
  graph.merge(x, add(graph, "(* c d)"));
  EClassId top = add(graph, "(f (* a b))");
  Searched s = search(graph, "(f (* ?p ?q))");
  ASSERT_EQ(s.matches.size(), 3u);
  unsigned p = *s.vars.lookup("p");
  // In node order: (* a b), (* b a), (* c d) by child ids.
  EXPECT_EQ(s.matches[0].subst[p], add(graph, "a"));
  EXPECT_EQ(s.matches[1].subst[p], add(graph, "b"));
  EXPECT_EQ(s.matches[2].subst[p], add(graph, "c"));
  for (const Match &m : s.matches)
    EXPECT_EQ(m.root, top);
}

TEST(PatternTest, PayloadMatching) {
  Language language;
  EGraph graph(language);
  add(graph, "(seq (tile:64 i) (tile:32 j) (tile:64 j) (tile:n k))");
  EXPECT_EQ(search(graph, "(tile:64 ?i)").matches.size(), 2u);
  EXPECT_EQ(search(graph, "(tile:n ?i)").matches.size(), 1u);
  EXPECT_EQ(search(graph, "(tile ?i)").matches.size(), 0u)
      << "no payload matches only no payload";
  Searched any = search(graph, "(tile:?n ?i)");
  ASSERT_EQ(any.matches.size(), 4u);
  EXPECT_EQ(any.matches[0].subst.getPayload(*any.vars.lookup("n")),
            Payload::integer(64));
  // The same payload variable twice: only (tile:64 i) (tile:64 j) share.
  Searched same = search(graph, "(seq (tile:?n ?a) ?b (tile:?n ?c) ?d)");
  EXPECT_EQ(same.matches.size(), 1u);
  Searched differ = search(graph, "(seq (tile:?n ?a) (tile:?n ?b) ?c ?d)");
  EXPECT_EQ(differ.matches.size(), 0u);
}

TEST(PatternTest, RulesRejectUnboundRightHandVariables) {
  Language language;
  llvm::Expected<Rewrite> bad =
      Rewrite::create(language, "bad", "(f ?x)", "(g ?y)");
  ASSERT_FALSE(bool(bad));
  EXPECT_EQ(llvm::toString(bad.takeError()),
            "rule 'bad': variable ?y of the right-hand side is not bound by "
            "the left-hand side");
  llvm::Expected<Rewrite> badPayload =
      Rewrite::create(language, "bad", "(f ?x)", "(g:?p ?x)");
  EXPECT_FALSE(bool(badPayload));
  llvm::consumeError(badPayload.takeError());
  llvm::Expected<Rewrite> syntax =
      Rewrite::create(language, "bad", "(f ?x", "?x");
  ASSERT_FALSE(bool(syntax));
  EXPECT_EQ(llvm::toString(syntax.takeError()),
            "rule 'bad': at offset 0: unclosed '('");
}

TEST(PatternTest, PatternApplier) {
  Language language;
  EGraph graph(language);
  EClassId x = add(graph, "(* (+ a b) 2)");
  Rewrite shift = rule(language, "mul2-shl", "(* ?x 2)", "(<< ?x 1)");
  graph.rebuild();
  MatchList matches = shift.makeMatchList();
  EXPECT_EQ(shift.search(graph, matches), 1u);
  EXPECT_TRUE(shift.apply(graph, matches[0]));
  EXPECT_FALSE(shift.apply(graph, matches[0])) << "applying twice is a no-op";
  graph.rebuild();
  EXPECT_EQ(graph.find(x), lookup(graph, "(<< (+ a b) 1)"));
  EXPECT_INVARIANTS(graph);
  // A variable on the right-hand side alone merges the match with it.
  Rewrite unit = rule(language, "mul1", "(* ?x 1)", "?x");
  EClassId y = add(graph, "(* c 1)");
  graph.rebuild();
  matches = unit.makeMatchList();
  unit.search(graph, matches);
  ASSERT_EQ(matches.size(), 1u);
  unit.apply(graph, matches[0]);
  graph.rebuild();
  EXPECT_EQ(graph.find(y), lookup(graph, "c"));
}

TEST(PatternTest, GuardsSeeAnalysisData) {
  Language language;
  EGraph graph(language);
  ConstantFolding &constants = graph.addAnalysis<ConstantFolding>(language);
  EClassId aa = add(graph, "(/ a a)");
  EClassId zero = add(graph, "(/ (- b b) (- b b))");
  EClassId folded = add(graph, "(/ (- 3 3) (- 3 3))");
  Rewrite cancel = rule(language, "div-self", "(/ ?x ?x)", "1");
  unsigned x = cancel.getVar("x");
  cancel.addCondition([&, x](const EGraph &, EClassId, const Subst &s) {
    // x / x = 1 unless x is known to be 0.
    return constants.get(s[x]) != 0;
  });
  graph.rebuild();
  MatchList matches = cancel.makeMatchList();
  // (/ a a) and (/ (- b b) (- b b)) pass; (- 3 3) folded to 0 fails.
  EXPECT_EQ(cancel.search(graph, matches), 2u);
  for (size_t i = 0; i < matches.size(); ++i)
    cancel.apply(graph, matches[i]);
  graph.rebuild();
  EClassId one = lookup(graph, "1");
  EXPECT_EQ(graph.find(aa), one);
  EXPECT_EQ(graph.find(zero), one);
  EXPECT_NE(graph.find(folded), one);
  EXPECT_EQ(constants.get(aa), 1);
  EXPECT_INVARIANTS(graph);
}

TEST(PatternTest, CustomApplierBuildsTheRightHandSide) {
  Language language;
  EGraph graph(language);
  OpId mul = language.getOrAddOp("*");
  // (pow:n x) = x * x * ... * x, built by the applier for any n >= 1.
  Rewrite expand = llvm::cantFail(Rewrite::createCustom(
      language, "pow-expand", {"(pow:?n ?x)"},
      [mul](EGraph &graph, EClassId root, const Subst &s) {
        int64_t n = s.getPayload(0).getInt();
        if (n < 1)
          return;
        EClassId x = s[1];
        EClassId product = x;
        for (int64_t i = 1; i < n; ++i)
          product = graph.add(ENode(mul, {x, product}));
        graph.merge(root, product);
      }));
  EXPECT_EQ(expand.getVar("n"), 0u);
  EXPECT_EQ(expand.getVar("?x"), 1u);
  EClassId p3 = add(graph, "(pow:3 y)");
  EClassId p0 = add(graph, "(pow:0 y)");
  graph.rebuild();
  MatchList matches = expand.makeMatchList();
  ASSERT_EQ(expand.search(graph, matches), 2u);
  EXPECT_TRUE(expand.apply(graph, matches[0]));
  EXPECT_FALSE(expand.apply(graph, matches[1])) << "n = 0 changes nothing";
  graph.rebuild();
  EXPECT_EQ(graph.find(p3), lookup(graph, "(* y (* y y))"));
  EXPECT_EQ(graph.getClassNodes(p0).size(), 1u);
  EXPECT_INVARIANTS(graph);
}

TEST(PatternTest, MultiPatternSharesTheSubstitution) {
  Language language;
  EGraph graph(language);
  // Two matmuls that share their left operand become one matmul with the
  // right operands concatenated (TASO/Tensat's multi-pattern rule).
  EClassId xy = add(graph, "(matmul x y)");
  EClassId xz = add(graph, "(matmul x z)");
  add(graph, "(matmul w z)");
  Rewrite merge = llvm::cantFail(Rewrite::createMulti(
      language, "matmul-concat", {"?a = (matmul ?x ?y)", "?b = (matmul ?x ?z)"},
      {"?a = (split0 (matmul ?x (concat ?y ?z)))",
       "?b = (split1 (matmul ?x (concat ?y ?z)))"}));
  unsigned y = merge.getVar("y"), z = merge.getVar("z");
  merge.addCondition([y, z](const EGraph &graph, EClassId, const Subst &s) {
    return !graph.areEquivalent(s[y], s[z]);
  });
  graph.rebuild();
  MatchList matches = merge.makeMatchList();
  // (xy, xz) and (xz, xy); a matmul paired with itself fails the guard and
  // (matmul w z) shares no left operand.
  ASSERT_EQ(merge.search(graph, matches), 2u);
  EXPECT_EQ(matches[0].root, xy);
  EXPECT_EQ(matches[0].subst[merge.getVar("b")], xz);
  for (size_t i = 0; i < matches.size(); ++i)
    merge.apply(graph, matches[i]);
  graph.rebuild();
  EXPECT_EQ(graph.find(xy), lookup(graph, "(split0 (matmul x (concat y z)))"));
  EXPECT_EQ(graph.find(xz), lookup(graph, "(split1 (matmul x (concat y z)))"));
  EXPECT_EQ(graph.find(xy), lookup(graph, "(split1 (matmul x (concat z y)))"));
  EXPECT_INVARIANTS(graph);
  std::string text;
  llvm::raw_string_ostream os(text);
  merge.print(os, language);
  EXPECT_EQ(text, "matmul-concat: ?a = (matmul ?x ?y), ?b = (matmul ?x ?z) => "
                  "?a = (split0 (matmul ?x (concat ?y ?z))), ?b = (split1 "
                  "(matmul ?x (concat ?y ?z))) if <1 conditions>");
}

TEST(PatternTest, MultiPatternJoinsOnBoundRoots) {
  Language language;
  EGraph graph(language);
  // ?s is the root of the first pattern and a child in the second: the
  // second pattern is searched with ?s already bound.
  add(graph, "(g (f a) b)");
  add(graph, "(g c (f a))");
  add(graph, "(f d)");
  VarTable vars;
  std::vector<Pattern> patterns;
  patterns.push_back(llvm::cantFail(Pattern::parse(language, "(f ?x)", vars)));
  patterns.back().setRootBinding(
      llvm::cantFail(vars.getOrAdd("s", VarTable::Kind::Class)));
  patterns.push_back(
      llvm::cantFail(Pattern::parse(language, "(g ?s ?y)", vars)));
  graph.rebuild();
  unsigned count = 0;
  searchPatterns(graph, patterns, vars, [&](EClassId, const Subst &s) {
    EXPECT_EQ(s[*vars.lookup("y")], lookup(graph, "b"));
    ++count;
    return true;
  });
  EXPECT_EQ(count, 1u);
  // Stopping early.
  count = 0;
  searchPatterns(graph, patterns[0], vars, [&](EClassId, const Subst &) {
    ++count;
    return false;
  });
  EXPECT_EQ(count, 1u);
}

} // namespace
