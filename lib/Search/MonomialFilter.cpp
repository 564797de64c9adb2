//===- MonomialFilter.cpp - A cheap necessary test for subexpr ------------===//
//
// Part of the Mirage MLIR project.
//
//===----------------------------------------------------------------------===//

#include "MonomialFilter.h"

#include "llvm/ADT/DenseSet.h"

using namespace mirage;
using namespace mirage::search::detail;
using Monomial = MonomialFilter::Monomial;
using Monomials = MonomialFilter::Monomials;

namespace {

/// Sets larger than this make the filter give up (products of sums
/// multiply their sizes).
constexpr size_t kMaxMonomials = 512;

// Keys of the exponent vectors. The low two bits say what a base key is;
// two flag bits say whether it counts under a square root (no axiom takes a
// factor out of one, so sqrt(x y) shares nothing with x) and whether it
// counts in a denominator (a monomial is a pair numerator / denominator).
int64_t getVarKey(int64_t input) { return 4 * input; }
int64_t getSymbolKey(int64_t symbol) { return 4 * symbol + 1; }
/// The key of silu, which is not an uninterpreted symbol of the context.
constexpr int64_t kSiluKey = 2;
/// A sum over n terms multiplies by prime p as many times as p divides n
/// (exact exponents, unlike log n), so sum(i, sum(j, x)) = sum(ij, x).
int64_t getSumPrimeKey(int64_t prime) { return 4 * prime + 3; }
constexpr int64_t kRootFlag = int64_t(1) << 40;
constexpr int64_t kDenominatorFlag = int64_t(1) << 41;
int64_t flipKey(int64_t key) { return key ^ kDenominatorFlag; }

/// The sum factors of n as a monomial.
Monomial getSumMonomial(int64_t n) {
  Monomial factors;
  for (int64_t p = 2; p * p <= n; ++p)
    for (; n % p == 0; n /= p) {
      if (factors.empty() || factors.back().first != getSumPrimeKey(p))
        factors.push_back({getSumPrimeKey(p), 0.0});
      factors.back().second += 1;
    }
  if (n > 1)
    factors.push_back({getSumPrimeKey(n), 1.0});
  llvm::sort(factors);
  return factors;
}

void normalize(Monomials &set) {
  llvm::sort(set);
  set.erase(std::unique(set.begin(), set.end()), set.end());
}

Monomial add(const Monomial &a, const Monomial &b) {
  Monomial sum;
  size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    if (j == b.size() || (i < a.size() && a[i].first < b[j].first))
      sum.push_back(a[i++]);
    else if (i == a.size() || b[j].first < a[i].first)
      sum.push_back(b[j++]);
    else {
      sum.push_back({a[i].first, a[i].second + b[j].second});
      ++i;
      ++j;
    }
  }
  return sum;
}

Monomials minkowski(const Monomials &a, const Monomials &b) {
  Monomials sum;
  for (const Monomial &x : a)
    for (const Monomial &y : b)
      sum.push_back(add(x, y));
  normalize(sum);
  return sum;
}

/// The monomial with numerator and denominator swapped (1/m).
Monomial flip(const Monomial &m) {
  Monomial flipped;
  for (auto [key, exponent] : m)
    flipped.push_back({flipKey(key), exponent});
  llvm::sort(flipped);
  return flipped;
}

Monomials flip(const Monomials &set) {
  Monomials flipped;
  for (const Monomial &m : set)
    flipped.push_back(flip(m));
  normalize(flipped);
  return flipped;
}

Monomials unite(const Monomials &a, const Monomials &b) {
  Monomials all = a;
  all.insert(all.end(), b.begin(), b.end());
  normalize(all);
  return all;
}

/// Every exponent of `a` at most the same symbol's in `b`.
bool below(const Monomial &a, const Monomial &b) {
  size_t j = 0;
  for (const auto &[symbol, exponent] : a) {
    while (j < b.size() && b[j].first < symbol)
      ++j;
    if (j == b.size() || b[j].first != symbol || b[j].second < exponent)
      return false;
  }
  return true;
}

/// Every vector of `a` below some vector of `b`.
bool dominated(const Monomials &a, const Monomials &b) {
  return llvm::all_of(a, [&](const Monomial &x) {
    return llvm::any_of(b, [&](const Monomial &y) { return below(x, y); });
  });
}

/// `b - a` for `a` below `b`, without zero components.
Monomial subtract(const Monomial &b, const Monomial &a) {
  Monomial difference;
  size_t i = 0;
  for (auto [symbol, exponent] : b) {
    double remaining = exponent;
    if (i < a.size() && a[i].first == symbol)
      remaining -= a[i++].second;
    if (remaining != 0)
      difference.push_back({symbol, remaining});
  }
  return difference;
}

/// Whether `a` translated by one vector lies within `b`: what a subterm of a
/// product, quotient or sum is to the whole (S(s t) = S(s) ⊕ S(t) contains
/// S(s) + v for each v in S(t)).
bool embeds(const Monomials &a, const Monomials &b) {
  if (a.empty())
    return true;
  for (const Monomial &anchor : b) {
    if (!below(a.front(), anchor))
      continue;
    Monomial offset = subtract(anchor, a.front());
    if (llvm::all_of(a, [&](const Monomial &m) {
          return std::binary_search(b.begin(), b.end(), add(m, offset));
        }))
      return true;
  }
  return false;
}

/// The necessary conditions for `factor` to divide `product`.
bool mayDivide(const Monomials &factor, const Monomials &product) {
  return dominated(factor, product) &&
         llvm::all_of(product, [&](const Monomial &m) {
           return llvm::any_of(factor,
                               [&](const Monomial &f) { return below(f, m); });
         });
}

bool isSubset(const Monomials &a, const Monomials &b) {
  return std::includes(b.begin(), b.end(), a.begin(), a.end());
}

/// The set {0}: the sqrt arguments of a monomial without square roots.
const Monomials &getUnit() {
  static const Monomials unit{Monomial()};
  return unit;
}

} // namespace

MonomialFilter::MonomialFilter(ExprContext &context,
                               llvm::ArrayRef<ExprId> targets)
    : context(context) {
  llvm::DenseSet<ExprId> seen;
  for (ExprId target : targets) {
    contexts.push_back(getFacts(target).monomials);
    collectTargetFacts(target, seen);
  }
  auto unique = [](std::vector<Monomials> &sets) {
    llvm::sort(sets);
    sets.erase(std::unique(sets.begin(), sets.end()), sets.end());
  };
  unique(contexts);
  unique(sqrtMerged);
  unique(expMerged);
  for (auto &[key, sets] : atomArgs)
    unique(sets);
}

const MonomialFilter::Facts &MonomialFilter::getFacts(ExprId id) {
  auto it = facts.find(id);
  if (it != facts.end())
    return it->second;
  ExprNode node = context.get(id);
  Facts result;
  auto atom = [&](int64_t key) {
    result.monomials = {Monomial{{key, 1.0}}};
    result.sqrtArgs = {getUnit()};
    result.expArgs = {Monomials()};
  };
  switch (node.kind) {
  case ExprKind::Var:
    atom(getVarKey(node.value));
    break;
  case ExprKind::Opaque:
    atom(getSymbolKey(node.value));
    break;
  case ExprKind::Silu:
    atom(kSiluKey);
    break;
  case ExprKind::Sum: {
    result = getFacts(node.operands[0]);
    Monomial factors = getSumMonomial(node.value);
    for (Monomial &m : result.monomials)
      m = add(m, factors);
    normalize(result.monomials);
    break;
  }
  case ExprKind::Add: {
    Facts lhs = getFacts(node.operands[0]);
    const Facts &rhs = getFacts(node.operands[1]);
    result.monomials = unite(lhs.monomials, rhs.monomials);
    result.sqrtArgs = lhs.sqrtArgs;
    result.sqrtArgs.insert(result.sqrtArgs.end(), rhs.sqrtArgs.begin(),
                           rhs.sqrtArgs.end());
    result.expArgs = lhs.expArgs;
    result.expArgs.insert(result.expArgs.end(), rhs.expArgs.begin(),
                          rhs.expArgs.end());
    break;
  }
  case ExprKind::Mul:
  case ExprKind::Div: {
    // A denominator's square roots and exponentials merge only with other
    // denominator ones; merging them all is a coarser, still sound, bound.
    Facts lhs = getFacts(node.operands[0]);
    const Facts &rhs = getFacts(node.operands[1]);
    result.monomials = minkowski(lhs.monomials,
                                 node.kind == ExprKind::Div
                                     ? flip(rhs.monomials)
                                     : rhs.monomials);
    for (const Monomials &a : lhs.sqrtArgs)
      for (const Monomials &b : rhs.sqrtArgs)
        result.sqrtArgs.push_back(minkowski(a, b));
    for (const Monomials &a : lhs.expArgs)
      for (const Monomials &b : rhs.expArgs)
        result.expArgs.push_back(unite(a, b));
    break;
  }
  case ExprKind::Exp: {
    const Facts &arg = getFacts(node.operands[0]);
    result.monomials = getUnit();
    result.sqrtArgs = {getUnit()};
    result.expArgs = {arg.monomials};
    break;
  }
  case ExprKind::Sqrt: {
    const Facts &arg = getFacts(node.operands[0]);
    for (const Monomial &m : arg.monomials) {
      std::map<int64_t, double> root;
      for (auto [key, exponent] : m)
        root[key | kRootFlag] += exponent / 2;
      result.monomials.emplace_back(root.begin(), root.end());
    }
    normalize(result.monomials);
    result.sqrtArgs = {arg.monomials};
    result.expArgs = {Monomials()};
    break;
  }
  }
  llvm::sort(result.sqrtArgs);
  result.sqrtArgs.erase(
      std::unique(result.sqrtArgs.begin(), result.sqrtArgs.end()),
      result.sqrtArgs.end());
  llvm::sort(result.expArgs);
  result.expArgs.erase(
      std::unique(result.expArgs.begin(), result.expArgs.end()),
      result.expArgs.end());
  if (result.monomials.size() > kMaxMonomials ||
      result.sqrtArgs.size() > kMaxMonomials ||
      result.expArgs.size() > kMaxMonomials)
    gaveUp = true;
  return facts.emplace(id, std::move(result)).first->second;
}

void MonomialFilter::collectTargetFacts(ExprId id,
                                        llvm::DenseSet<ExprId> &seen) {
  if (!seen.insert(id).second)
    return;
  // Every node may be a context root (the targets and atom arguments are);
  // recording the merged arguments of all nodes only adds sets, which
  // loosens the filter but keeps it sound.
  const Facts &f = getFacts(id);
  for (const Monomials &merged : f.sqrtArgs)
    if (merged != getUnit()) {
      sqrtMerged.push_back(merged);
      contexts.push_back(merged);
    }
  for (const Monomials &merged : f.expArgs)
    if (!merged.empty()) {
      expMerged.push_back(merged);
      contexts.push_back(merged);
    }
  ExprNode node = context.get(id);
  bool isAtom = node.kind == ExprKind::Exp || node.kind == ExprKind::Sqrt ||
                node.kind == ExprKind::Silu ||
                (node.kind == ExprKind::Opaque && !node.operands.empty());
  for (auto [position, operand] : llvm::enumerate(node.operands)) {
    if (isAtom) {
      const Monomials &arg = getFacts(operand).monomials;
      contexts.push_back(arg);
      if (node.kind == ExprKind::Silu)
        atomArgs[{kSiluKey, position}].push_back(arg);
      else if (node.kind == ExprKind::Opaque)
        atomArgs[{getSymbolKey(node.value), position}].push_back(arg);
    }
    collectTargetFacts(operand, seen);
  }
}

bool MonomialFilter::atomsFit(ExprId id, llvm::DenseSet<ExprId> &seen) {
  if (!seen.insert(id).second)
    return true;
  ExprNode node = context.get(id);
  switch (node.kind) {
  case ExprKind::Exp: {
    const Monomials &arg = getFacts(node.operands[0]).monomials;
    if (llvm::none_of(expMerged, [&](const Monomials &merged) {
          return isSubset(arg, merged);
        }))
      return false;
    break;
  }
  case ExprKind::Sqrt: {
    const Monomials &arg = getFacts(node.operands[0]).monomials;
    if (llvm::none_of(sqrtMerged, [&](const Monomials &merged) {
          return mayDivide(arg, merged);
        }))
      return false;
    break;
  }
  case ExprKind::Silu:
  case ExprKind::Opaque: {
    int64_t key = node.kind == ExprKind::Silu ? kSiluKey
                                              : getSymbolKey(node.value);
    for (auto [position, operand] : llvm::enumerate(node.operands)) {
      auto it = atomArgs.find({key, position});
      if (it == atomArgs.end() ||
          !llvm::is_contained(it->second, getFacts(operand).monomials))
        return false;
    }
    break;
  }
  // Not atoms (exp, sqrt, silu, uninterpreted functions): only their
  // operands are checked.
  case ExprKind::Var:
  case ExprKind::Add:
  case ExprKind::Mul:
  case ExprKind::Div:
  case ExprKind::Sum:
    break;
  }
  return llvm::all_of(node.operands,
                      [&](ExprId operand) { return atomsFit(operand, seen); });
}

bool MonomialFilter::mayBeSubexpr(ExprId expr) {
  const Monomials &monomials = getFacts(expr).monomials;
  if (gaveUp)
    return true;
  // A subterm of a denominator is flipped.
  Monomials flipped = flip(monomials);
  if (llvm::none_of(contexts, [&](const Monomials &context) {
        return embeds(monomials, context) || embeds(flipped, context);
      }))
    return false;
  llvm::DenseSet<ExprId> seen;
  return atomsFit(expr, seen);
}

bool MonomialFilter::mayBeEquivalent(ExprId expr, ExprId target) {
  Monomials candidate = getFacts(expr).monomials;
  const Monomials &wanted = getFacts(target).monomials;
  if (gaveUp)
    return true;
  return candidate == wanted && mayBeSubexpr(expr);
}
