//===- MonomialFilter.h - A cheap necessary test for subexpr ----*- C++ -*-===//
//
// Z3 proves subexpressions quickly but almost never refutes one: a
// candidate that is not a subexpression costs the whole time limit. This
// filter rejects most of those in microseconds, and is sound: it never
// rejects a candidate the axioms make a subexpression.
//
// It maps a term t to S(t), the set of exponent vectors of its monomials,
// with one component per input and per uninterpreted symbol (constants
// included):
//
//   S(x) = {e_x}   S(a + b) = S(a) ∪ S(b)   S(a b) = S(a) ⊕ S(b)
//   S(a / b) = S(a) ⊕ flip(S(b))
//   S(sum(n, a)) = S(a) ⊕ {e_n}   S(exp a) = {0}
//   S(sqrt a) = {root(v) / 2 : v ∈ S(a)}
//   S(f(a, ...)) = S(silu a) = {e_f}
//
// (⊕ adds vectors pairwise; a vector is a pair (numerator, denominator) and
// flip swaps the two, so only the A_eq moves of division, which keep a
// denominator a denominator, hold in the model; e_n has
// one component per prime factor of n, so sum(i, sum(j, x)) = sum(ij, x);
// root moves every component to a symbol of its own, as no axiom takes a
// factor out of a square root). Every
// A_eq axiom holds in this model (e.g. sqrt(x) sqrt(y) = sqrt(x y) both
// give {(a + b) / 2}; e^x e^y = e^(x+y) both give {0}), so S is the same for
// all A_eq-equivalent terms. A subterm s of a term t outside any exp, sqrt,
// silu or f has S(s) + v ⊆ S(t) for one vector v (S(s u) = S(s) ⊕ S(u)
// contains S(s) + v for each v of S(u)), or the same for flip(S(s)) when s
// is in a denominator. Inside those atoms the
// same holds relative to their arguments, which the axioms change only so:
//
//  - exp arguments split and merge by sums (e^x e^y = e^(x+y)): an exp's
//    argument in any equivalent term has S within the union of the merged
//    arguments of a monomial;
//  - sqrt arguments split and merge by products: an argument F of a sqrt in
//    an equivalent term divides a merged product M, so every vector of M is
//    above one of F and every vector of F below one of M;
//  - the arguments of silu and uninterpreted functions are only rewritten
//    in place, which keeps S.
//
// A candidate is kept only if S of it, and of each atom in it, satisfies
// these conditions against the targets. Where a set would exceed a size
// limit the filter gives up and keeps everything.
//
//===----------------------------------------------------------------------===//

#ifndef MIRAGE_LIB_SEARCH_MONOMIALFILTER_H
#define MIRAGE_LIB_SEARCH_MONOMIALFILTER_H

#include "mirage/Semantics/AbstractExpr.h"

#include "llvm/ADT/DenseSet.h"

#include <map>
#include <unordered_map>
#include <vector>

namespace mirage::search::detail {

class MonomialFilter {
public:
  MonomialFilter(ExprContext &context, llvm::ArrayRef<ExprId> targets);

  /// False only if no term A_eq-equivalent to a target has a subterm
  /// A_eq-equivalent to `expr`.
  bool mayBeSubexpr(ExprId expr);
  /// False only if `expr` cannot be A_eq-equivalent to `target`.
  bool mayBeEquivalent(ExprId expr, ExprId target);

  /// An exponent vector: (symbol, exponent) sorted by symbol, no zeros.
  using Monomial = llvm::SmallVector<std::pair<int64_t, double>, 4>;
  /// Sorted and without duplicates.
  using Monomials = std::vector<Monomial>;

private:
  struct Facts {
    Monomials monomials;
    /// Per monomial of the term: the merged arguments of its square roots
    /// and of its exponentials (empty sets where it has none).
    std::vector<Monomials> sqrtArgs, expArgs;
  };
  const Facts &getFacts(ExprId id);
  void collectTargetFacts(ExprId id, llvm::DenseSet<ExprId> &seen);
  bool atomsFit(ExprId id, llvm::DenseSet<ExprId> &seen);

  ExprContext &context;
  std::unordered_map<ExprId, Facts> facts;
  /// Sets a subterm's monomials must lie below (the targets, the arguments
  /// of their atoms, merged sqrt and exp arguments).
  std::vector<Monomials> contexts;
  std::vector<Monomials> sqrtMerged, expMerged;
  /// Per (symbol, argument position): the arguments' monomial sets.
  std::map<std::pair<int64_t, unsigned>, std::vector<Monomials>> atomArgs;
  /// Set when a set grew past the limit: then nothing is filtered.
  bool gaveUp = false;
};

} // namespace mirage::search::detail

#endif // MIRAGE_LIB_SEARCH_MONOMIALFILTER_H
