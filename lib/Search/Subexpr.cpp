//===- Subexpr.cpp - Abstract-expression entailment with Z3 ---------------===//
//
// The only file of the project that uses Z3: it is built with exceptions
// (z3++ reports errors by throwing) and catches them all.
//
//===----------------------------------------------------------------------===//

#include "mirage/Search/Subexpr.h"

#include "MonomialFilter.h"

#include "llvm/ADT/Hashing.h"
#include "llvm/ADT/SmallSet.h"

#include <chrono>
#include <unordered_map>
#include <z3++.h>

using namespace mirage;

//===----------------------------------------------------------------------===//
// SubexprCache
//===----------------------------------------------------------------------===//

std::optional<bool> SubexprCache::lookup(uint64_t key) {
  std::lock_guard<std::mutex> lock(mutex);
  auto it = answers.find(key);
  if (it == answers.end())
    return std::nullopt;
  return it->second;
}

void SubexprCache::insert(uint64_t key, bool answer) {
  std::lock_guard<std::mutex> lock(mutex);
  answers[key] = answer;
}

SubexprStats SubexprCache::getStats() {
  std::lock_guard<std::mutex> lock(mutex);
  SubexprStats total = stats;
  uint64_t cached = hits.load(std::memory_order_relaxed);
  total.queries += cached;
  total.cacheHits += cached;
  return total;
}

void SubexprCache::record(const SubexprStats &delta) {
  std::lock_guard<std::mutex> lock(mutex);
  stats.queries += delta.queries;
  stats.cacheHits += delta.cacheHits;
  stats.filtered += delta.filtered;
  stats.solved += delta.solved;
  stats.undecided += delta.undecided;
  stats.solverSeconds += delta.solverSeconds;
}

//===----------------------------------------------------------------------===//
// What a term contains: the sound filter
//===----------------------------------------------------------------------===//

namespace {

/// The inputs and function symbols of a term. The axioms never create an
/// input or an uninterpreted symbol, and never remove the last exp, sqrt,
/// silu or div; add appears only where add or exp was (e^x e^y = e^(x+y)),
/// mul only where mul, div or exp was.
struct Contents {
  llvm::SmallSet<int64_t, 8> vars, opaques;
  bool add = false, mul = false, div = false, exp = false, sqrt = false,
       silu = false;

  void merge(const Contents &other) {
    for (int64_t v : other.vars)
      vars.insert(v);
    for (int64_t o : other.opaques)
      opaques.insert(o);
    add |= other.add;
    mul |= other.mul;
    div |= other.div;
    exp |= other.exp;
    sqrt |= other.sqrt;
    silu |= other.silu;
  }

  /// Whether a term with these contents may be (a subexpression of a term)
  /// equivalent to one with `target`'s.
  bool mayOccurIn(const Contents &target) const {
    for (int64_t v : vars)
      if (!target.vars.contains(v))
        return false;
    for (int64_t o : opaques)
      if (!target.opaques.contains(o))
        return false;
    if ((exp && !target.exp) || (sqrt && !target.sqrt) ||
        (silu && !target.silu) || (div && !target.div))
      return false;
    if (add && !target.add && !target.exp)
      return false;
    if (mul && !target.mul && !target.div && !target.exp)
      return false;
    return true;
  }
};

} // namespace

//===----------------------------------------------------------------------===//
// SubexprChecker
//===----------------------------------------------------------------------===//

struct SubexprChecker::Impl {
  Impl(ExprContext &context, llvm::ArrayRef<ExprId> targets,
       std::shared_ptr<SubexprCache> cache, const SubexprOptions &options);

  /// Answers a query from the cache, the filters (`possible` false means
  /// the monomial filter ruled it out) or Z3.
  bool decide(uint64_t key, ExprId expr, llvm::ArrayRef<ExprId> seedsFrom,
              llvm::function_ref<bool()> possible,
              llvm::function_ref<z3::expr(z3::expr)> goal);
  const Contents &getContents(ExprId id);
  z3::expr translate(ExprId id);
  void addAxioms();
  void addSymbolAxioms(const z3::func_decl &function, unsigned arity);
  void collectSums(ExprId id, llvm::SmallVectorImpl<std::pair<int64_t, ExprId>>
                                  &sums);
  /// A quantified formula with alternative triggers (each a multi-pattern).
  z3::expr forall(const std::vector<z3::expr> &vars, const z3::expr &body,
                  const std::vector<std::vector<z3::expr>> &triggers);
  /// Adds an equation triggered by either side.
  void equation(const std::vector<z3::expr> &vars, const z3::expr &lhs,
                const z3::expr &rhs);

  ExprContext &context;
  llvm::SmallVector<ExprId> targets;
  std::shared_ptr<SubexprCache> cache;
  /// The answers this checker has given or read from the shared cache.
  llvm::DenseMap<uint64_t, bool> answers;
  SubexprOptions options;
  Contents targetContents;
  std::unordered_map<ExprId, Contents> contents;
  search::detail::MonomialFilter monomials;

  z3::context z;
  z3::solver solver;
  z3::sort term;
  z3::func_decl add, mul, div, exp, sqrt, silu, sum, sub;
  std::unordered_map<ExprId, z3::expr> terms;
  std::unordered_map<int64_t, z3::func_decl> opaqueFunctions;
  std::vector<z3::expr> vars;
  /// Why the axioms could not be given to Z3 (then nothing is pruned).
  std::string failure;
};

SubexprChecker::Impl::Impl(ExprContext &context,
                           llvm::ArrayRef<ExprId> targets,
                           std::shared_ptr<SubexprCache> cache,
                           const SubexprOptions &options)
    : context(context), targets(targets.begin(), targets.end()),
      cache(std::move(cache)), options(options), monomials(context, targets),
      solver(z),
      term(z.uninterpreted_sort("E")),
      add(z.function("add", term, term, term)),
      mul(z.function("mul", term, term, term)),
      div(z.function("div", term, term, term)),
      exp(z.function("exp", term, term)), sqrt(z.function("sqrt", term, term)),
      silu(z.function("silu", term, term)),
      sum(z.function("sum", z.int_sort(), term, term)),
      sub(z.function("subexpr", term, term, z.bool_sort())) {
  try {
    z3::params params(z);
    params.set("rlimit", options.resourceLimit);
    solver.set(params);
    addAxioms();
    // The targets' inputs and symbols enter the base level now, so every
    // checker starts its queries from the same state.
    for (ExprId target : targets)
      translate(target);
  } catch (const z3::exception &error) {
    failure = error.msg();
  }
  for (ExprId target : targets)
    targetContents.merge(getContents(target));
}

z3::expr SubexprChecker::Impl::forall(
    const std::vector<z3::expr> &bound, const z3::expr &body,
    const std::vector<std::vector<z3::expr>> &triggers) {
  std::vector<Z3_app> apps;
  for (const z3::expr &var : bound)
    apps.push_back(Z3_to_app(z, var));
  std::vector<Z3_pattern> patterns;
  for (const std::vector<z3::expr> &trigger : triggers) {
    std::vector<Z3_ast> terms(trigger.begin(), trigger.end());
    patterns.push_back(Z3_mk_pattern(z, terms.size(), terms.data()));
  }
  Z3_ast quantified =
      Z3_mk_forall_const(z, 0, apps.size(), apps.data(), patterns.size(),
                         patterns.data(), body);
  return z3::expr(z, quantified);
}

void SubexprChecker::Impl::equation(const std::vector<z3::expr> &bound,
                                    const z3::expr &lhs, const z3::expr &rhs) {
  // Either side in the terms triggers an instance, so rewriting goes both
  // ways. Two quantifiers rather than one with two alternative patterns:
  // Z3 4.8 rejects some of those (e.g. mul(exp(x), exp(y)) | exp(add(x, y))).
  solver.add(forall(bound, lhs == rhs, {{lhs}}));
  solver.add(forall(bound, lhs == rhs, {{rhs}}));
}

void SubexprChecker::Impl::addAxioms() {
  z3::expr x = z.constant("x", term), y = z.constant("y", term),
           w = z.constant("z", term);
  z3::expr i = z.int_const("i"), j = z.int_const("j");
  auto one = z.int_val(1);
  // A_eq (Table 2, 1-15).
  equation({x, y}, add(x, y), add(y, x));
  equation({x, y}, mul(x, y), mul(y, x));
  equation({x, y, w}, add(x, add(y, w)), add(add(x, y), w));
  equation({x, y, w}, mul(x, mul(y, w)), mul(mul(x, y), w));
  equation({x, y, w}, add(mul(x, w), mul(y, w)), mul(add(x, y), w));
  equation({x, y, w}, add(div(x, w), div(y, w)), div(add(x, y), w));
  equation({x, y, w}, mul(x, div(y, w)), div(mul(x, y), w));
  equation({x, y, w}, div(div(x, y), w), div(x, mul(y, w)));
  solver.add(forall({x}, x == sum(one, x), {{sum(one, x)}}));
  // A product of sizes cannot be matched: the right-hand side triggers
  // nothing, the split instances are seeded per query.
  solver.add(forall({x, i, j}, sum(i, sum(j, x)) == sum(i * j, x),
                    {{sum(i, sum(j, x))}}));
  equation({x, y, i}, sum(i, add(x, y)), add(sum(i, x), sum(i, y)));
  equation({x, y, i}, sum(i, mul(x, y)), mul(sum(i, x), y));
  equation({x, y, i}, sum(i, div(x, y)), div(sum(i, x), y));
  equation({x, y}, mul(exp(x), exp(y)), exp(add(x, y)));
  equation({x, y}, mul(sqrt(x), sqrt(y)), sqrt(mul(x, y)));
  // A_sub (Table 2, s1-s10).
  solver.add(forall({x, y}, sub(x, add(x, y)), {{add(x, y)}}));
  solver.add(forall({x, y}, sub(x, mul(x, y)), {{mul(x, y)}}));
  solver.add(forall({x, y}, sub(x, div(x, y)) && sub(y, div(x, y)),
                    {{div(x, y)}}));
  solver.add(forall({x}, sub(x, exp(x)), {{exp(x)}}));
  solver.add(forall({x}, sub(x, sqrt(x)), {{sqrt(x)}}));
  solver.add(forall({x}, sub(x, silu(x)), {{silu(x)}}));
  solver.add(forall({x, i}, sub(x, sum(i, x)), {{sum(i, x)}}));
  solver.add(forall({x}, sub(x, x), {{sub(x, x)}}));
  solver.add(forall({x, y, w}, z3::implies(sub(x, y) && sub(y, w), sub(x, w)),
                    {{sub(x, y), sub(y, w)}}));
}

void SubexprChecker::Impl::addSymbolAxioms(const z3::func_decl &function,
                                           unsigned arity) {
  // Every argument of an uninterpreted function is its subexpression.
  std::vector<z3::expr> bound;
  z3::expr_vector args(z);
  for (unsigned a = 0; a < arity; ++a) {
    bound.push_back(z.constant(("a" + std::to_string(a)).c_str(), term));
    args.push_back(bound.back());
  }
  z3::expr application = function(args);
  z3::expr all = z.bool_val(true);
  for (const z3::expr &arg : bound)
    all = all && sub(arg, application);
  solver.add(forall(bound, all, {{application}}));
}

const Contents &SubexprChecker::Impl::getContents(ExprId id) {
  auto it = contents.find(id);
  if (it != contents.end())
    return it->second;
  ExprNode node = context.get(id);
  Contents result;
  for (ExprId operand : node.operands)
    result.merge(getContents(operand));
  switch (node.kind) {
  case ExprKind::Var:
    result.vars.insert(node.value);
    break;
  case ExprKind::Opaque:
    result.opaques.insert(node.value);
    break;
  case ExprKind::Add:
    result.add = true;
    break;
  case ExprKind::Mul:
    result.mul = true;
    break;
  case ExprKind::Div:
    result.div = true;
    break;
  case ExprKind::Exp:
    result.exp = true;
    break;
  case ExprKind::Sqrt:
    result.sqrt = true;
    break;
  case ExprKind::Silu:
    result.silu = true;
    break;
  case ExprKind::Sum:
    break;
  }
  return contents.emplace(id, std::move(result)).first->second;
}

z3::expr SubexprChecker::Impl::translate(ExprId id) {
  auto it = terms.find(id);
  if (it != terms.end())
    return it->second;
  ExprNode node = context.get(id);
  std::vector<z3::expr> args;
  for (ExprId operand : node.operands)
    args.push_back(translate(operand));
  z3::expr result(z);
  switch (node.kind) {
  case ExprKind::Var: {
    result = z.constant(("v" + std::to_string(node.value)).c_str(), term);
    // Distinct inputs are distinct terms.
    for (const z3::expr &other : vars)
      solver.add(result != other);
    vars.push_back(result);
    break;
  }
  case ExprKind::Add:
    result = add(args[0], args[1]);
    break;
  case ExprKind::Mul:
    result = mul(args[0], args[1]);
    break;
  case ExprKind::Div:
    result = div(args[0], args[1]);
    break;
  case ExprKind::Exp:
    result = exp(args[0]);
    break;
  case ExprKind::Sqrt:
    result = sqrt(args[0]);
    break;
  case ExprKind::Silu:
    result = silu(args[0]);
    break;
  case ExprKind::Sum:
    result = sum(z.int_val(node.value), args[0]);
    break;
  case ExprKind::Opaque: {
    int64_t key = node.value * 8 + static_cast<int64_t>(args.size());
    auto function = opaqueFunctions.find(key);
    if (function == opaqueFunctions.end()) {
      std::string name = "f" + std::to_string(node.value) + "_" +
                         std::to_string(args.size());
      z3::sort_vector domain(z);
      for (size_t a = 0; a < args.size(); ++a)
        domain.push_back(term);
      function = opaqueFunctions
                     .emplace(key, z.function(name.c_str(), domain, term))
                     .first;
      if (!args.empty())
        addSymbolAxioms(function->second, args.size());
    }
    z3::expr_vector actuals(z);
    for (const z3::expr &arg : args)
      actuals.push_back(arg);
    result = function->second(actuals);
    break;
  }
  }
  terms.emplace(id, result);
  return result;
}

void SubexprChecker::Impl::collectSums(
    ExprId id, llvm::SmallVectorImpl<std::pair<int64_t, ExprId>> &sums) {
  ExprNode node = context.get(id);
  if (node.kind == ExprKind::Sum)
    sums.push_back({node.value, node.operands[0]});
  for (ExprId operand : node.operands)
    collectSums(operand, sums);
}

bool SubexprChecker::Impl::decide(uint64_t key, ExprId expr,
                                  llvm::ArrayRef<ExprId> seedsFrom,
                                  llvm::function_ref<bool()> possible,
                                  llvm::function_ref<z3::expr(z3::expr)> goal) {
  // This checker's answers first: no lock on the common path.
  auto known = answers.find(key);
  if (known != answers.end()) {
    cache->recordHit();
    return known->second;
  }
  SubexprStats delta;
  delta.queries = 1;
  auto finish = [&](bool answer) {
    answers[key] = answer;
    cache->insert(key, answer);
    cache->record(delta);
    return answer;
  };
  if (std::optional<bool> cached = cache->lookup(key)) {
    answers[key] = *cached;
    cache->recordHit();
    return *cached;
  }
  if (!getContents(expr).mayOccurIn(targetContents) || !possible()) {
    delta.filtered = 1;
    return finish(false);
  }
  if (!failure.empty())
    return finish(true);
  auto start = std::chrono::steady_clock::now();
  bool entailed = false;
  try {
    // Translate first: new symbols add axioms at the base level.
    z3::expr candidate = translate(expr);
    llvm::SmallVector<z3::expr> seedTerms;
    for (ExprId id : seedsFrom)
      seedTerms.push_back(translate(id));
    solver.push();
    // Instances of sum(i, sum(j, x)) = sum(i j, x) that split each sum by
    // every size the terms use (E-matching cannot invent the split terms).
    llvm::SmallVector<std::pair<int64_t, ExprId>> sums;
    collectSums(expr, sums);
    for (ExprId id : seedsFrom)
      collectSums(id, sums);
    for (auto [terms, operand] : sums)
      for (auto [factor, unused] : sums) {
        (void)unused;
        if (factor <= 1 || factor >= terms || terms % factor != 0)
          continue;
        z3::expr x = translate(operand);
        z3::expr whole = sum(z.int_val(terms), x);
        solver.add(whole == sum(z.int_val(factor),
                                sum(z.int_val(terms / factor), x)));
        solver.add(whole == sum(z.int_val(terms / factor),
                                sum(z.int_val(factor), x)));
      }
    solver.add(!goal(candidate));
    entailed = solver.check() == z3::unsat;
    solver.pop();
    if (!entailed)
      delta.undecided = 1;
  } catch (const z3::exception &) {
    entailed = false;
    delta.undecided = 1;
  }
  delta.solved = 1;
  delta.solverSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  return finish(entailed);
}

//===----------------------------------------------------------------------===//
// Public interface
//===----------------------------------------------------------------------===//

SubexprChecker::SubexprChecker(ExprContext &context,
                               llvm::ArrayRef<ExprId> targets,
                               std::shared_ptr<SubexprCache> cache,
                               const SubexprOptions &options)
    : impl(std::make_unique<Impl>(context, targets, std::move(cache),
                                  options)) {}

SubexprChecker::~SubexprChecker() = default;

bool SubexprChecker::isSubexpr(ExprId expr) {
  return impl->decide(
      llvm::hash_combine(0, expr), expr, impl->targets,
      [&] { return impl->monomials.mayBeSubexpr(expr); },
      [&](z3::expr candidate) {
        z3::expr any = impl->z.bool_val(false);
        for (ExprId target : impl->targets)
          any = any || impl->sub(candidate, impl->translate(target));
        return any;
      });
}

llvm::StringRef SubexprChecker::getFailure() const { return impl->failure; }

bool SubexprChecker::isEquivalent(ExprId expr, ExprId target) {
  return impl->decide(llvm::hash_combine(1, expr, target), expr, {target},
                      [&] { return impl->monomials.mayBeEquivalent(expr, target); },
                      [&](z3::expr candidate) {
                        return candidate == impl->translate(target);
                      });
}
