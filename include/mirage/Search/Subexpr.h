//===- Subexpr.h - Abstract-expression pruning with Z3 ----------*- C++ -*-===//
//
// The superoptimizer keeps a candidate operator only when the axioms of
// Mirage v3 Table 2 entail that its output's abstract expression is a
// subexpression of the program's (A_eq ∪ A_sub ⊨ subexpr(E, E_target)):
//
//   A_eq   add, mul commutative and associative; mul distributes over add;
//          x/z + y/z = (x+y)/z; x (y/z) = (x y)/z; (x/y)/z = x/(y z);
//          x = sum(1, x); sum(i, sum(j, x)) = sum(i j, x);
//          sum(i, x + y) = sum(i, x) + sum(i, y); sum(i, x y) = sum(i, x) y;
//          sum(i, x/y) = sum(i, x)/y; e^x e^y = e^(x+y);
//          sqrt(x) sqrt(y) = sqrt(x y)
//   A_sub  x is a subexpression of x+y, x y, x/y, y/x, e^x, sqrt(x),
//          silu(x), sum(i, x) and of every uninterpreted f(..., x, ...);
//          reflexive, transitive
//
// Z3 receives the axioms as quantified formulas (with E-matching patterns)
// and the negated query; unsat within the resource limit means entailed.
// What keeps it fast: terms in normal form modulo AC (AbstractExpr.h);
// ground instances of sum(i, sum(j, x)) = sum(i j, x) that split the
// target's sums by the candidate's sizes (E-matching cannot invent them);
// and two sound filters that answer most negative queries, which Z3 would
// otherwise spend its whole limit on: one rejects a candidate using an
// input or a function symbol the axioms can never produce from the
// target's, the other compares the monomials of both
// (lib/Search/MonomialFilter.h).
// Answers are cached per search; a SubexprChecker owns one Z3 context and
// must stay on one thread, while a SubexprCache may be shared.
//
//===----------------------------------------------------------------------===//

#ifndef MIRAGE_SEARCH_SUBEXPR_H
#define MIRAGE_SEARCH_SUBEXPR_H

#include "mirage/Semantics/AbstractExpr.h"

#include <atomic>
#include <memory>

namespace mirage {

struct SubexprOptions {
  /// Z3's resource limit per query (rlimit, a deterministic count of
  /// steps): a query it cannot decide within it is not entailed. Proofs of
  /// the examples' subexpressions take at most about a fifth of it. No
  /// wall-clock limit: on a slow or loaded machine it would change answers,
  /// and with them the search's result.
  unsigned resourceLimit = 80000;
};

struct SubexprStats {
  uint64_t queries = 0, cacheHits = 0, filtered = 0, solved = 0,
           undecided = 0;
  double solverSeconds = 0.0;
};

/// Answers shared by the checkers of one search.
class SubexprCache {
public:
  std::optional<bool> lookup(uint64_t key);
  void insert(uint64_t key, bool answer);
  SubexprStats getStats();
  void record(const SubexprStats &delta);
  /// A query answered from a cache: counted without the lock (the search
  /// asks hundreds of millions).
  void recordHit() { hits.fetch_add(1, std::memory_order_relaxed); }

private:
  std::mutex mutex;
  llvm::DenseMap<uint64_t, bool> answers;
  SubexprStats stats;
  std::atomic<uint64_t> hits{0};
};

class SubexprChecker {
public:
  SubexprChecker(ExprContext &context, llvm::ArrayRef<ExprId> targets,
                 std::shared_ptr<SubexprCache> cache,
                 const SubexprOptions &options = {});
  ~SubexprChecker();

  /// Whether the axioms entail that `expr` is a subexpression of one of the
  /// targets.
  bool isSubexpr(ExprId expr);
  /// Whether A_eq entails `expr` = `target`.
  bool isEquivalent(ExprId expr, ExprId target);
  /// Empty, or why Z3 could not take the axioms; then only the filter
  /// prunes and every other query counts as entailed.
  llvm::StringRef getFailure() const;

private:
  struct Impl;
  std::unique_ptr<Impl> impl;
};

} // namespace mirage

#endif // MIRAGE_SEARCH_SUBEXPR_H
