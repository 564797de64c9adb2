//===- Rules.h - Trinity's rewrite rules and hooks --------------*- C++ -*-===//
//
// Part of the Mirage MLIR project.
//
// The rules of Trinity (Appendix A): 15 loop and sequence rules with their
// dependence guards, the two loop fusions of the case study (a symbolic tile
// fixed to a number; iteration spaces of equal trip count reindexed), and
// the 31 algebraic rules. Two rules are added because this IR initializes
// accumulators explicitly (`(store C 0 idx)` before the loop that sums into
// C, where the paper relies on zero-initialized on-chip buffers): the
// factoring rules match the initialization, and a loop insertion moves an
// initialization together with its accumulation loop.
//
// Every algebraic rule also checks that its right-hand side has the shape of
// the matched class (operator records' shape rules), so no rule builds a
// term the operators do not take.
//
// Two hooks run after every iteration: sequence canonicalization
// (right-associated seq: a seq whose first statement is a seq is rewritten
// to the right-nested form and merged with it) and expression propagation (a
// load of a tensor that exactly one store writes is merged with the value
// stored, when the index and the stored value's variables agree).
//
//===----------------------------------------------------------------------===//

#ifndef MIRAGE_TILEEQSAT_RULES_H
#define MIRAGE_TILEEQSAT_RULES_H

#include "mirage/EGraph/Rewrite.h"
#include "mirage/TileEqsat/Analysis.h"

#include <set>

namespace mirage::tile {

/// Which rules to build.
struct RuleSets {
  /// The 15 loop and sequence rules (A.1) and the two initialization rules.
  bool loops = true;
  /// The two fusions of the case study (fixed tile size, reindexing).
  bool fusion = true;
  /// The 31 algebraic rules (A.2).
  bool algebra = true;
  /// Only rules whose name is listed (empty: every rule of the sets above).
  std::vector<std::string> only;

  /// Parses "loops,fusion,algebra" (any subset; "all"; "none").
  static llvm::Expected<RuleSets> parse(llvm::StringRef text);
};

/// The rules, in a fixed order.
std::vector<egraph::Rewrite> makeTileRules(TileContext &context,
                                           const TileAnalysis &analysis,
                                           const RuleSets &sets = {});

/// Names of the rules of each set, in the order makeTileRules builds them.
llvm::ArrayRef<llvm::StringRef> getLoopRuleNames();
llvm::ArrayRef<llvm::StringRef> getFusionRuleNames();
llvm::ArrayRef<llvm::StringRef> getAlgebraRuleNames();

/// Rewrites every seq whose first statement is a seq into right-associated
/// form and merges it with the original; returns the merges done. Rebuilds
/// the e-graph as it goes.
unsigned canonicalizeSequences(egraph::EGraph &graph,
                               const TileAnalysis &analysis);

/// Expression propagation (Trinity 4.1): for every output or variable
/// tensor written by exactly one store node `(store T v I)` whose value does
/// not read T and depends on no loop variable I does not, merges every
/// `(load T I)` (same index class) with v. Returns the merges; the e-graph
/// is dirty afterwards.
unsigned propagateExpressions(egraph::EGraph &graph,
                              const TileAnalysis &analysis,
                              std::set<SymbolId> *propagated = nullptr);

} // namespace mirage::tile

#endif // MIRAGE_TILEEQSAT_RULES_H
