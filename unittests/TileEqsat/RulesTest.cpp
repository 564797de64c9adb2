//===- RulesTest.cpp - Every rule is sound on random inputs ---------------===//
//
// For every rule: a program it applies to is put in an e-graph, the rule
// alone is run, and programs drawn from the root class (at least one
// through each of its nodes) are evaluated on random inputs next to the
// original. Negative cases check that a guard keeps the rule from firing
// where it would be wrong.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include "mirage/TileEqsat/Extraction.h"
#include "mirage/TileEqsat/Saturation.h"

#include "llvm/ADT/StringSet.h"

using namespace mirage;
using namespace mirage::tile;
using namespace mirage::tile::test;
using namespace mirage::egraph;

namespace {

struct RuleCase {
  const char *rule;
  const char *program;
  bool fires;
};

std::ostream &operator<<(std::ostream &os, const RuleCase &c) {
  return os << c.rule << (c.fires ? "" : " (guarded)");
}

/// Runs one rule on the program; returns how often it was applied and
/// checks every sampled program of the root against the original.
size_t checkRule(const RuleCase &c, unsigned iterations = 1,
                 bool propagation = false) {
  TileContext context;
  declareTensors(context);
  Term term = parse(context, c.program);
  if (term.empty())
    return 0;
  TileEGraph egraph(context);
  egraph.addProgram(term);
  SaturationOptions options;
  options.iterations = iterations;
  options.rules.only = {c.rule};
  options.propagation = propagation;
  options.fission = true;
  options.checkInvariants = true;
  SaturationStats stats = egraph.saturate(options);
  EXPECT_EQ(stats.shapeConflicts, 0u) << c;
  size_t applied = 0;
  for (const Iteration &iteration : egraph.getRunner()->getIterations())
    for (const RuleIterationStats &rule : iteration.rules)
      applied += rule.applied;

  // Evaluate programs of the root class against the original, at two
  // assignments of the symbolic tile sizes.
  const EGraph &graph = egraph.getGraph();
  EClassId root = egraph.getRoot();
  llvm::StringSet<> seen;
  for (int64_t tile : {2, 4}) {
    TileSizes sizes;
    sizes.defaultSize = tile;
    TensorStore expected = run(context, term, 11, sizes);
    std::vector<Term> programs;
    for (ENodeId node : graph.getClassNodes(root))
      for (uint64_t seed = 0; seed < 3; ++seed)
        programs.push_back(sampleTerm(graph, root, seed, node));
    for (uint64_t seed = 0; seed < 12; ++seed)
      programs.push_back(sampleTerm(graph, root, 100 + seed));
    for (const Term &program : programs) {
      if (program.empty())
        continue;
      seen.insert(context.toString(program));
      TensorStore actual = run(context, program, 11, sizes);
      EXPECT_LE(compareOutputs(context, actual, expected), 1e-9)
          << c << ": " << context.toString(program, true)
          << "\ndiffers from\n"
          << context.toString(term, true);
    }
  }
  if (c.fires)
    EXPECT_GT(seen.size(), 1u) << c << ": no other program was sampled";
  return applied;
}

class LoopRules : public ::testing::TestWithParam<RuleCase> {};

TEST_P(LoopRules, Sound) {
  const RuleCase &c = GetParam();
  size_t applied = checkRule(c);
  if (c.fires)
    EXPECT_GT(applied, 0u) << c;
  else
    EXPECT_EQ(applied, 0u) << c;
}

#define A_FULL "(load (input:A) (index fulltile fulltile))"
#define B_FULL "(load (input:B) (index fulltile fulltile))"
#define FULL "(index fulltile fulltile)"
#define TN "(index fulltile tile:n)"
#define LOOP_N "(loop:n 0 8 (tsize:tn) "
// T[:, n] = exp(A[:, n]) and O[:, n] = 2 T[:, n], in loops over n.
#define T_EXP "(store (variable:T) (exp (load (input:A) " TN ")) " TN ")"
#define O_TWICE "(store (output:O) (* (load (variable:T) " TN ") 2) " TN ")"
#define O_SUM_T                                                                \
  "(store (output:O) (+ (load (input:B) " TN ") (rsum:1 (load (variable:T) "   \
  FULL "))) " TN ")"
#define P_COPY "(store (output:P) " B_FULL " " FULL ")"
#define SUM_ACC                                                                \
  "(loop:k 0 16 (tsize:tk) (store (variable:Sum) (+ (load (variable:Sum) "     \
  FULL ") (rsum:1 (load (input:X) (index fulltile tile:k)))) " FULL "))"
#define MATMUL_K                                                               \
  "(matmul (load (input:X) (index fulltile tile:k)) (load (input:W) (index "   \
  "tile:k fulltile)))"
#define S_BCAST "(bcast:1 (load (input:S) " FULL "))"

INSTANTIATE_TEST_SUITE_P(
    TileEqsat, LoopRules,
    ::testing::Values(
        RuleCase{"seq-comm",
                 "(seq (store (output:O) (exp " A_FULL ") " FULL ") " P_COPY
                 ")",
                 true},
        RuleCase{"seq-comm",
                 "(seq (store (variable:T) (exp " A_FULL ") " FULL
                 ") (store (output:O) (load (variable:T) " FULL ") " FULL "))",
                 false},
        RuleCase{"seq-comm-tail",
                 "(seq (store (output:O) (exp " A_FULL ") " FULL
                 ") (seq " P_COPY " (store (output:Q) (load (input:S) " FULL
                 ") " FULL ")))",
                 true},
        RuleCase{"seq-comm-tail",
                 "(seq (store (variable:T) " A_FULL " " FULL
                 ") (seq (store (output:O) (load (variable:T) " FULL ") " FULL
                 ") " P_COPY "))",
                 false},
        RuleCase{"loop-fusion-tail",
                 "(seq " LOOP_N T_EXP ") " LOOP_N O_TWICE "))", true},
        RuleCase{"loop-fusion-tail",
                 "(seq " LOOP_N T_EXP ") " LOOP_N O_SUM_T "))", false},
        RuleCase{"loop-fusion",
                 "(seq " LOOP_N T_EXP ") (seq " LOOP_N O_TWICE ") " P_COPY "))",
                 true},
        RuleCase{"loop-fission-tail",
                 "(seq " LOOP_N "(seq " T_EXP " " O_TWICE ")) " P_COPY ")",
                 true},
        RuleCase{"loop-fission", LOOP_N "(seq " T_EXP " " O_TWICE "))", true},
        RuleCase{"loop-fission", LOOP_N "(seq " T_EXP " " O_SUM_T "))", false},
        RuleCase{"loop-insertion1-tail",
                 "(seq " LOOP_N T_EXP ") (seq " P_COPY
                 " (store (output:O) (load (variable:T) " FULL ") " FULL ")))",
                 true},
        RuleCase{"loop-insertion1", "(seq " LOOP_N T_EXP ") " P_COPY ")", true},
        // Not idempotent: P accumulates.
        RuleCase{"loop-insertion1",
                 "(seq " LOOP_N T_EXP ") (store (output:P) (+ (load "
                 "(output:P) " FULL ") " B_FULL ") " FULL "))",
                 false},
        // Writes what the loop reads.
        RuleCase{"loop-insertion1",
                 "(seq " LOOP_N "(store (output:O) (exp (load (variable:U) " TN
                 ")) " TN ")) (store (variable:U) " B_FULL " " FULL "))",
                 false},
        RuleCase{"loop-insertion2-tail",
                 "(seq (store (variable:U) " B_FULL " " FULL ") (seq " LOOP_N
                 "(store (output:O) (exp (load (variable:U) " TN ")) " TN "))"
                 " (store (output:Q) (load (input:S) " FULL ") " FULL ")))",
                 true},
        RuleCase{"loop-insertion2",
                 "(seq (store (variable:U) " B_FULL " " FULL ") " LOOP_N
                 "(store (output:O) (exp (load (variable:U) " TN ")) " TN ")))",
                 true},
        // The loop writes what the moved statement reads.
        RuleCase{"loop-insertion2",
                 "(seq (store (output:P) (load (variable:T) " FULL ") " FULL
                 ") " LOOP_N T_EXP "))",
                 false},
        RuleCase{"loop-invar-code-motion",
                 LOOP_N "(store (output:O) (exp " A_FULL ") " FULL "))", true},
        RuleCase{"loop-invar-code-motion",
                 LOOP_N "(store (output:O) (+ (load (output:O) " FULL
                        ") " A_FULL ") " FULL "))",
                 false},
        RuleCase{"alge-factor-loop-body-div",
                 "(seq (store (output:Acc2) 0 " FULL
                 ") (loop:k 0 16 (tsize:tk) "
                 "(store (output:Acc2) (+ (load (output:Acc2) " FULL
                 ") (/ " MATMUL_K " " S_BCAST ")) " FULL ")))",
                 true},
        RuleCase{
            "alge-factor-loop-body-div-tail",
            "(seq (store (variable:Acc) 0 " FULL ") (seq (loop:k 0 16 "
            "(tsize:tk) (store (variable:Acc) (+ (load (variable:Acc) " FULL
            ") (/ " MATMUL_K " " S_BCAST ")) " FULL ")) (store (output:O) "
            "(load (variable:Acc) " FULL ") " FULL ")))",
            true},
        // The divisor depends on k.
        RuleCase{"alge-factor-loop-body-div",
                 "(seq (store (output:Acc2) 0 " FULL
                 ") (loop:k 0 16 (tsize:tk) "
                 "(store (output:Acc2) (+ (load (output:Acc2) " FULL
                 ") (/ " MATMUL_K " (bcast:1 (rsum:1 (load (input:X) (index "
                                  "fulltile tile:k)))))) " FULL ")))",
                 false},
        // No initialization before the loop: the accumulator is not known
        // to start at zero.
        RuleCase{"alge-factor-loop-body-div",
                 "(seq (store (output:Acc2) " A_FULL " " FULL ") (loop:k 0 16 "
                 "(tsize:tk) (store (output:Acc2) (+ (load (output:Acc2) " FULL
                 ") (/ " MATMUL_K " " S_BCAST ")) " FULL ")))",
                 false},
        RuleCase{"alge-factor-loop-body-mul",
                 "(seq (store (output:Acc2) 0 " FULL
                 ") (loop:k 0 16 (tsize:tk) "
                 "(store (output:Acc2) (+ (load (output:Acc2) " FULL
                 ") (* " MATMUL_K " " S_BCAST ")) " FULL ")))",
                 true},
        RuleCase{
            "alge-factor-loop-body-mul-tail",
            "(seq (store (variable:Acc) 0 " FULL ") (seq (loop:k 0 16 "
            "(tsize:tk) (store (variable:Acc) (+ (load (variable:Acc) " FULL
            ") (* " MATMUL_K " " S_BCAST ")) " FULL ")) (store (output:O) "
            "(load (variable:Acc) " FULL ") " FULL ")))",
            true},
        RuleCase{
            "alge-factor-loop-body-div-seq",
            "(seq (store (output:Acc2) 0 " FULL ") (loop:k 0 16 (tsize:tk) "
            "(seq (store (output:Acc2) (+ (load (output:Acc2) " FULL
            ") (/ " MATMUL_K " " S_BCAST ")) " FULL ") (store (output:O) (load "
            "(input:A) " FULL ") " FULL "))))",
            true},
        RuleCase{
            "alge-factor-loop-body-div-seq-tail",
            "(seq (store (output:Acc2) 0 " FULL ") (seq (loop:k 0 16 "
            "(tsize:tk) (seq (store (output:Acc2) (+ (load (output:Acc2) " FULL
            ") (/ " MATMUL_K " " S_BCAST ")) " FULL ") (store "
            "(output:O) (load (input:A) " FULL ") " FULL "))) " P_COPY "))",
            true},
        // The other statement reads the partial sums.
        RuleCase{
            "alge-factor-loop-body-div-seq",
            "(seq (store (output:Acc2) 0 " FULL ") (loop:k 0 16 (tsize:tk) "
            "(seq (store (output:Acc2) (+ (load (output:Acc2) " FULL
            ") (/ " MATMUL_K " " S_BCAST ")) " FULL ") (store (output:O) (load "
            "(output:Acc2) " FULL ") " FULL "))))",
            false},
        RuleCase{
            "alge-factor-loop-body-mul-seq",
            "(seq (store (output:Acc2) 0 " FULL ") (loop:k 0 16 (tsize:tk) "
            "(seq (store (output:Acc2) (+ (load (output:Acc2) " FULL
            ") (* " MATMUL_K " " S_BCAST ")) " FULL ") (store (output:O) (load "
            "(input:A) " FULL ") " FULL "))))",
            true},
        RuleCase{
            "alge-factor-loop-body-mul-seq-tail",
            "(seq (store (output:Acc2) 0 " FULL ") (seq (loop:k 0 16 "
            "(tsize:tk) (seq (store (output:Acc2) (+ (load (output:Acc2) " FULL
            ") (* " MATMUL_K " " S_BCAST ")) " FULL ") (store "
            "(output:O) (load (input:A) " FULL ") " FULL "))) " P_COPY "))",
            true},
        RuleCase{"loop-insertion2-init-tail",
                 "(seq (store (variable:Sum) 0 " FULL ") (seq " SUM_ACC
                 " (seq " LOOP_N "(store (output:O) (/ (load (input:A) " TN ") "
                 "(bcast:1 (load (variable:Sum) " FULL "))) " TN ")) " P_COPY
                 ")))",
                 true},
        RuleCase{"loop-insertion2-init",
                 "(seq (store (variable:Sum) 0 " FULL ") (seq " SUM_ACC
                 " " LOOP_N "(store (output:O) (/ (load (input:A) " TN
                 ") (bcast:1 (load "
                 "(variable:Sum) " FULL "))) " TN "))))",
                 true},
        // The loop writes the accumulator.
        RuleCase{"loop-insertion2-init",
                 "(seq (store (variable:Sum) 0 " FULL ") (seq " SUM_ACC
                 " " LOOP_N "(store (variable:Sum) (load (input:S) " FULL
                 ") " FULL "))))",
                 false}));

class FusionRules : public ::testing::TestWithParam<RuleCase> {};

TEST_P(FusionRules, Sound) {
  const RuleCase &c = GetParam();
  size_t applied = checkRule(c);
  if (c.fires)
    EXPECT_GT(applied, 0u) << c;
  else
    EXPECT_EQ(applied, 0u) << c;
}

#define RESHAPE_N                                                              \
  "(loop:n 0 8 4 (store (variable:R) (unsqueeze:1 (load (input:A) (index "     \
  "fulltile tile:n))) (index fulltile elem:n fulltile)))"
#define TRANSPOSE_H                                                            \
  "(loop:h 0 2 1 (store (output:O3) (permute (load (variable:R) (index "       \
  "fulltile elem:h fulltile)) 1 0 2) (index elem:h fulltile fulltile)))"

INSTANTIATE_TEST_SUITE_P(
    TileEqsat, FusionRules,
    ::testing::Values(
        RuleCase{"loop-fusion-fixed-tile",
                 "(seq " LOOP_N T_EXP ") (loop:n 0 8 4 " O_TWICE "))", true},
        RuleCase{"loop-fusion-fixed-tile-tail",
                 "(seq (loop:n 0 8 4 " T_EXP ") (seq " LOOP_N O_TWICE ") " P_COPY
                 "))",
                 true},
        // The symbolic loop uses elements of n, whose meaning depends on its
        // step.
        RuleCase{"loop-fusion-fixed-tile",
                 "(seq (loop:n 0 2 (tsize:tn) (store (output:O3) (load (input:E) "
                 "(index elem:n fulltile fulltile)) (index elem:n fulltile "
                 "fulltile))) (loop:n 0 2 1 " T_EXP "))",
                 false},
        RuleCase{"loop-fusion-reindex", "(seq " RESHAPE_N " " TRANSPOSE_H ")",
                 true},
        RuleCase{"loop-fusion-reindex-tail",
                 "(seq " RESHAPE_N " (seq " TRANSPOSE_H " " P_COPY "))", true},
        RuleCase{"loop-fusion-reindex-rev",
                 "(seq (loop:h 0 2 1 (store (variable:R2) (* (load (input:E) "
                 "(index elem:h fulltile fulltile)) 2) (index elem:h fulltile "
                 "fulltile))) (loop:n 0 8 4 (store (output:O) (squeeze:1 "
                 "(permute (load (variable:R2) (index elem:n fulltile fulltile)) "
                 "1 0 2)) " TN ")))",
                 true},
        RuleCase{"loop-fusion-reindex-rev-tail",
                 "(seq (loop:h 0 2 1 (store (variable:R2) (* (load (input:E) "
                 "(index elem:h fulltile fulltile)) 2) (index elem:h fulltile "
                 "fulltile))) (seq (loop:n 0 8 4 (store (output:O) (squeeze:1 "
                 "(permute (load (variable:R2) (index elem:n fulltile fulltile)) "
                 "1 0 2)) " TN ")) " P_COPY "))",
                 true},
        // Different trip counts.
        RuleCase{"loop-fusion-reindex",
                 "(seq " RESHAPE_N " (loop:h 0 1 1 (store (output:O3) (permute "
                 "(load (variable:R) (index fulltile elem:h fulltile)) 1 0 2) "
                 "(index elem:h fulltile fulltile))))",
                 false},
        // The second loop reads all of R, written by every iteration.
        RuleCase{"loop-fusion-reindex",
                 "(seq " RESHAPE_N " (loop:h 0 2 1 (store (output:O3) (* (permute "
                 "(load (variable:R) (index fulltile elem:h fulltile)) 1 0 2) "
                 "(rsum:0 (rsum:1 (rsum:2 (permute (load (variable:R) (index "
                 "fulltile fulltile fulltile)) 1 0 2))))) (index elem:h fulltile "
                 "fulltile))))",
                 false}));

class AlgebraRules : public ::testing::TestWithParam<RuleCase> {};

TEST_P(AlgebraRules, Sound) {
  const RuleCase &c = GetParam();
  size_t applied = checkRule(c);
  if (c.fires)
    EXPECT_GT(applied, 0u) << c;
  else
    EXPECT_EQ(applied, 0u) << c;
}

#define XA "(load (input:A) (index fulltile fulltile))"
#define XB "(load (input:B) (index fulltile fulltile))"
#define XC "(load (input:C) (index fulltile fulltile))"
#define XD "(load (input:D) (index fulltile fulltile))"
#define XS "(load (input:S) (index fulltile fulltile))"
#define XR1 "(load (input:R1) (index fulltile fulltile))"
#define STORE(out, expr) "(store (output:" out ") " expr " " FULL ")"

INSTANTIATE_TEST_SUITE_P(
    TileEqsat, AlgebraRules,
    ::testing::Values(
        RuleCase{"comm-add", STORE("O", "(+ " XA " " XB ")"), true},
        RuleCase{"assoc-add", STORE("O", "(+ " XA " (+ " XB " " XC "))"), true},
        RuleCase{"assoc-add2", STORE("O", "(+ (+ " XA " " XB ") " XC ")"), true},
        RuleCase{"comm-mul", STORE("O", "(* " XA " " XB ")"), true},
        RuleCase{"assoc-mul", STORE("O", "(* " XA " (* " XB " " XC "))"), true},
        RuleCase{"assoc-mul2", STORE("O", "(* (* " XA " " XB ") " XC ")"), true},
        RuleCase{"assoc-matmul",
                 STORE("O", "(matmul " XA " (matmul " XB " " XC "))"), true},
        RuleCase{"assoc-matmul2",
                 STORE("O", "(matmul (matmul " XA " " XB ") " XC ")"), true},
        RuleCase{"assoc-div-matmul",
                 STORE("O", "(matmul (/ " XA " (bcast:1 " XS ")) " XB ")"), true},
        // Broadcast along the other axis: not a scaling of rows.
        RuleCase{"assoc-div-matmul",
                 STORE("O", "(matmul (/ " XA " (bcast:0 " XR1 ")) " XB ")"), false},
        RuleCase{"dist-mul-add", STORE("O", "(* " XA " (+ " XB " " XC "))"), true},
        RuleCase{"dist-mul-sub", STORE("O", "(* " XA " (- " XB " " XC "))"), true},
        RuleCase{"dist-matmul-add",
                 STORE("O", "(matmul " XA " (+ " XB " " XC "))"), true},
        // b + r1 broadcasts: a @ r1 does not exist.
        RuleCase{"dist-matmul-add",
                 STORE("O", "(matmul " XA " (+ " XB " " XR1 "))"), false},
        RuleCase{"dist-matmul-sub",
                 STORE("O", "(matmul " XA " (- " XB " " XC "))"), true},
        RuleCase{"factor-mul-add",
                 STORE("O", "(+ (* " XA " " XB ") (* " XA " " XC "))"), true},
        RuleCase{"factor-mul-sub",
                 STORE("O", "(- (* " XA " " XB ") (* " XA " " XC "))"), true},
        RuleCase{"factor-matmul-add",
                 STORE("O", "(+ (matmul " XA " " XB ") (matmul " XA " " XC "))"),
                 true},
        RuleCase{"factor-matmul-sub",
                 STORE("O", "(- (matmul " XA " " XB ") (matmul " XA " " XC "))"),
                 true},
        RuleCase{"exp-mul", STORE("O", "(* (exp " XA ") (exp " XB "))"), true},
        RuleCase{"exp-div", STORE("O", "(/ (exp " XA ") (exp " XB "))"), true},
        RuleCase{"exp0", STORE("O", "(+ " XA " (exp 0))"), true},
        RuleCase{"recip-mul-div", STORE("O", "(+ " XA " (* 2 (/ 1 2)))"), true},
        // On a tile: the product is a tile, not the scalar 1.
        RuleCase{"recip-mul-div", STORE("O", "(* " XA " (/ 1 " XA "))"), false},
        RuleCase{"geometry-of-concat",
                 STORE("O16", "(concat:1 (concat:0 " XA " " XC ") (concat:0 " XB
                              " " XD "))"),
                 true},
        RuleCase{"geometry-of-concat-inv",
                 STORE("O16", "(concat:0 (concat:1 " XA " " XB ") (concat:1 " XC
                              " " XD "))"),
                 true},
        RuleCase{"operator-comm6",
                 STORE("O816", "(+ (concat:1 " XA " " XC ") (concat:1 " XB " " XD
                               "))"),
                 true},
        RuleCase{"operator-comm6-inv",
                 STORE("O816", "(concat:1 (+ " XA " " XB ") (+ " XC " " XD "))"),
                 true},
        RuleCase{"operator-comm7",
                 STORE("O816", "(* (concat:1 " XA " " XC ") (concat:1 " XB " " XD
                               "))"),
                 true},
        RuleCase{"operator-comm7-inv",
                 STORE("O816", "(concat:1 (* " XA " " XB ") (* " XC " " XD "))"),
                 true},
        RuleCase{"concat-and-matmul0",
                 STORE("O816", "(matmul " XA " (concat:1 " XB " " XC "))"), true},
        RuleCase{"concat-and-matmul0-inv",
                 STORE("O816", "(concat:1 (matmul " XA " " XB ") (matmul " XA " " XC
                               "))"),
                 true},
        RuleCase{"concat-and-matmul1",
                 STORE("O", "(+ (matmul " XA " " XB ") (matmul " XC " " XD "))"),
                 true},
        RuleCase{"concat-and-matmul1-inv",
                 STORE("O", "(matmul (concat:1 " XA " " XC ") (concat:0 " XB " " XD
                            "))"),
                 true}));

// Every rule of the three sets has a positive case above.
TEST(TileRules, EveryRuleIsTested) {
  TileContext context;
  TileAnalysis analysis(context);
  std::vector<Rewrite> rules = makeTileRules(context, analysis);
  size_t expected = getLoopRuleNames().size() + getFusionRuleNames().size() +
                    getAlgebraRuleNames().size();
  EXPECT_EQ(rules.size(), expected);
  // 15 of A.1, 4 factorings of one of several statements, 2 insertions
  // with inits.
  EXPECT_EQ(getLoopRuleNames().size(), 21u);
  EXPECT_EQ(getAlgebraRuleNames().size(), 31u);
  for (auto [rule, name] : llvm::zip(
           rules, llvm::concat<const llvm::StringRef>(
                      getLoopRuleNames(), getFusionRuleNames(),
                      getAlgebraRuleNames())))
    EXPECT_EQ(rule.getName(), name);
}

TEST(TileHooks, PropagationSeesThroughStores) {
  TileContext context;
  declareTensors(context);
  // T = exp(A) per tile; O = T * 2: after propagation O's value is also
  // exp(A) * 2.
  Term term = parse(context, "(seq " LOOP_N T_EXP ") " LOOP_N O_TWICE "))");
  TileEGraph egraph(context);
  egraph.addProgram(term);
  SaturationOptions options;
  options.iterations = 0;
  egraph.saturate(options);
  Term expected = parse(context, "(* (exp (load (input:A) " TN ")) 2)");
  Term loadT = parse(context, "(load (variable:T) " TN ")");
  auto x = egraph.getGraph().lookupTerm(expected);
  auto y = egraph.getGraph().lookupTerm(loadT);
  ASSERT_TRUE(x && y);
  Term expT = parse(context, "(exp (load (input:A) " TN "))");
  EXPECT_TRUE(egraph.getGraph().areEquivalent(
      *y, *egraph.getGraph().lookupTerm(expT)));
}

TEST(TileHooks, AccumulatorsAreNotPropagated) {
  TileContext context;
  declareTensors(context);
  Term term = parse(context, "(seq (store (variable:Sum) 0 " FULL ") (seq " SUM_ACC
                             " (store (output:Q) (load (variable:Sum) " FULL ") "
                             FULL ")))");
  TileEGraph egraph(context);
  egraph.addProgram(term);
  SaturationOptions options;
  options.iterations = 0;
  SaturationStats stats = egraph.saturate(options);
  EXPECT_EQ(stats.propagated, 0u);
}

TEST(TileHooks, SequencesBecomeRightAssociated) {
  TileContext context;
  declareTensors(context);
  Term term = parse(context, "(seq (seq " P_COPY " (store (output:O) " A_FULL
                             " " FULL ")) (store (output:Q) (load (input:S) " FULL
                             ") " FULL "))");
  TileEGraph egraph(context);
  egraph.addProgram(term);
  SaturationOptions options;
  options.iterations = 0;
  SaturationStats stats = egraph.saturate(options);
  EXPECT_EQ(stats.flattened, 1u);
  Term flat = parse(context, "(seq " P_COPY " (seq (store (output:O) " A_FULL
                             " " FULL ") (store (output:Q) (load (input:S) " FULL
                             ") " FULL ")))");
  auto id = egraph.getGraph().lookupTerm(flat);
  ASSERT_TRUE(id);
  EXPECT_TRUE(egraph.getGraph().areEquivalent(*id, egraph.getRoot()));
}

} // namespace
