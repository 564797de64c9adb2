//===- SearchContext.cpp - Vocabulary, pruning and operator choices -------===//
//
// Part of the Mirage MLIR project.
//
//===----------------------------------------------------------------------===//

#include "SearchContext.h"

#include "AxisLabels.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/Hashing.h"

#include <condition_variable>
#include <cstdlib>

using namespace mirage;
using namespace mirage::search;
using namespace mirage::search::detail;
using llvm::ArrayRef;
using llvm::SmallVector;
using llvm::SmallVectorImpl;

bool detail::keyLess(const OpKey &lhs, const OpKey &rhs) {
  return std::lexicographical_compare(lhs.begin(), lhs.end(), rhs.begin(),
                                      rhs.end());
}

void detail::workSharingFor(llvm::ThreadPoolInterface *pool, size_t count,
                            llvm::function_ref<void(size_t)> body) {
  if (!pool || count < 2) {
    for (size_t index = 0; index < count; ++index)
      body(index);
    return;
  }
  // Shared with the helpers, which may start after this call has returned
  // (the pool runs tasks in order, and earlier ones may take long): they
  // then find no index left and touch nothing else, so `body` is only run
  // while this call waits.
  struct Loop {
    Loop(size_t count, llvm::function_ref<void(size_t)> body)
        : count(count), body(body) {}
    void work() {
      size_t ran = 0;
      for (size_t index; (index = next.fetch_add(1)) < count; ++ran)
        body(index);
      if (ran == 0)
        return;
      std::lock_guard<std::mutex> lock(mutex);
      done += ran;
      if (done == count)
        finished.notify_all();
    }
    const size_t count;
    const llvm::function_ref<void(size_t)> body;
    std::atomic<size_t> next{0};
    std::mutex mutex;
    std::condition_variable finished;
    /// Indices run, under `mutex`.
    size_t done = 0;
  };
  auto loop = std::make_shared<Loop>(count, body);
  size_t helpers = std::min<size_t>(count - 1, pool->getMaxConcurrency());
  for (size_t helper = 0; helper < helpers; ++helper)
    (void)pool->async([loop] { loop->work(); });
  loop->work();
  // Every index is claimed now; wait for those other threads are running.
  std::unique_lock<std::mutex> lock(loop->mutex);
  loop->finished.wait(lock, [&] { return loop->done == count; });
}

void CostBound::add(double cost) {
  std::lock_guard<std::mutex> lock(mutex);
  if (lowest.size() < keep) {
    lowest.push(cost);
  } else if (cost < lowest.top()) {
    lowest.pop();
    lowest.push(cost);
  }
  if (lowest.size() == keep)
    bound.store(lowest.top(), std::memory_order_relaxed);
}

SearchContext::SearchContext(const Problem &problem, ExprContext &exprs,
                             const SearchOptions &options)
    : problem(problem), exprs(exprs), options(options),
      targets(problem.getTargets()),
      cache(std::make_shared<SubexprCache>()), costBound(options.keep) {
  if (options.timeBudget > 0) {
    hasDeadline = true;
    deadline = std::chrono::steady_clock::now() +
               std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                   std::chrono::duration<double>(options.timeBudget));
  }
  buildVocabularies();
  std::vector<std::optional<AxisLabels>> labels =
      labelTensors(problem.reference);
  for (unsigned output : problem.reference.outputs)
    targetLabels.push_back(labels[output]);
  llvm::DenseSet<ExprId> reachable;
  SmallVector<ExprId> stack(targets.begin(), targets.end());
  while (!stack.empty()) {
    ExprId id = stack.pop_back_val();
    if (reachable.insert(id).second)
      llvm::append_range(stack, exprs.get(id).operands);
  }
  for (unsigned i = 0; i < problem.reference.numInputs; ++i)
    inputRequired.push_back(
        reachable.contains(problem.reference.tensors[i].expr));
}

bool SearchContext::accept(const Candidate &candidate) {
  if (!options.acceptCandidate)
    return true;
  std::lock_guard<std::mutex> lock(acceptMutex);
  ++testedCandidates;
  if (options.acceptCandidate(candidate))
    return true;
  ++rejectedCandidates;
  return false;
}

bool SearchContext::isStopped() {
  if (stopped.load(std::memory_order_relaxed))
    return true;
  if (hasDeadline && std::chrono::steady_clock::now() >= deadline)
    stopped = true;
  // Block graphs are kept in memory (memoized per operand list); past the
  // limit the search would exhaust it.
  if (blockGraphs.load(std::memory_order_relaxed) >= options.maxBlockGraphs)
    stopped = true;
  return stopped;
}

SubexprChecker &SearchContext::getChecker() {
  // Remembered per thread without the lock, keyed by this search's id (an
  // address could be reused by a later search).
  thread_local uint64_t lastSearch = 0;
  thread_local SubexprChecker *lastChecker = nullptr;
  if (lastSearch == id)
    return *lastChecker;
  std::lock_guard<std::mutex> lock(checkersMutex);
  std::unique_ptr<SubexprChecker> &checker =
      checkers[std::this_thread::get_id()];
  if (!checker)
    checker = std::make_unique<SubexprChecker>(exprs, targets, cache,
                                               options.subexpr);
  lastSearch = id;
  lastChecker = checker.get();
  return *checker;
}

bool SearchContext::keep(ExprId expr) {
  return !options.abstractExprPruning || getChecker().isSubexpr(expr);
}

bool SearchContext::isEquivalent(ExprId expr, ExprId target) {
  return getChecker().isEquivalent(expr, target);
}

//===----------------------------------------------------------------------===//
// The vocabulary: operators of the program and of its expressions
//===----------------------------------------------------------------------===//

namespace {

bool sameTemplate(const OpTemplate &a, const OpTemplate &b) {
  return a.kind == b.kind && a.everyDim == b.everyDim &&
         (a.everyDim || a.params.dim == b.params.dim) &&
         a.params.keepDim == b.params.keepDim &&
         a.params.scalar == b.params.scalar && a.params.ints == b.params.ints;
}

/// What the target expressions contain: node kinds, constants, and whether
/// a sum of products (a matmul) occurs.
struct ExprContents {
  llvm::DenseSet<unsigned> kinds;
  SmallVector<double> constants;
  bool sumOfProducts = false;
};

void collect(ExprContext &exprs, ExprId id, ExprContents &contents,
             llvm::DenseSet<ExprId> &seen) {
  if (!seen.insert(id).second)
    return;
  ExprNode node = exprs.get(id);
  contents.kinds.insert(static_cast<unsigned>(node.kind));
  if (node.kind == ExprKind::Sum &&
      exprs.get(node.operands[0]).kind == ExprKind::Mul)
    contents.sumOfProducts = true;
  if (node.kind == ExprKind::Opaque && node.operands.empty()) {
    std::string symbol = exprs.getSymbol(node.value);
    if (llvm::StringRef(symbol).starts_with("c["))
      contents.constants.push_back(std::strtod(symbol.c_str() + 2, nullptr));
  }
  for (ExprId operand : node.operands)
    collect(exprs, operand, contents, seen);
}

} // namespace

void SearchContext::buildVocabularies() {
  std::vector<OpTemplate> all;
  auto add = [&](OpKind kind, OpParams params = {}, bool everyDim = false) {
    OpTemplate t{kind, std::move(params), everyDim};
    if (llvm::none_of(all, [&](const OpTemplate &o) { return sameTemplate(o, t); }))
      all.push_back(std::move(t));
  };
  // The program's own operators; reductions over any dim.
  for (const KernelOp &op : problem.reference.ops) {
    bool reduction = op.kind == OpKind::ReduceSum || op.kind == OpKind::ReduceMax;
    add(op.kind, op.params, reduction);
  }
  // The operators that build its expressions.
  ExprContents contents;
  llvm::DenseSet<ExprId> seen;
  for (ExprId target : targets)
    collect(exprs, target, contents, seen);
  auto has = [&](ExprKind kind) {
    return contents.kinds.contains(static_cast<unsigned>(kind));
  };
  if (has(ExprKind::Add))
    add(OpKind::Add);
  if (has(ExprKind::Mul)) {
    add(OpKind::Mul);
    add(OpKind::Square);
  }
  if (has(ExprKind::Div))
    add(OpKind::Div);
  if (has(ExprKind::Exp))
    add(OpKind::Exp);
  if (has(ExprKind::Sqrt))
    add(OpKind::Sqrt);
  if (has(ExprKind::Silu))
    add(OpKind::Silu);
  if (has(ExprKind::Sum))
    add(OpKind::ReduceSum, {}, /*everyDim=*/true);
  if (contents.sumOfProducts)
    add(OpKind::Matmul);
  for (double constant : contents.constants) {
    OpParams params;
    params.scalar = constant;
    add(OpKind::MulScalar, params);
    add(OpKind::AddScalar, params);
  }
  // A total order, so the vocabulary does not depend on the program's
  // operator order.
  llvm::sort(all, [](const OpTemplate &a, const OpTemplate &b) {
    return std::make_tuple(a.kind, a.everyDim, a.params.scalar, a.params.dim,
                           a.params.keepDim, ArrayRef<int64_t>(a.params.ints)) <
           std::make_tuple(b.kind, b.everyDim, b.params.scalar, b.params.dim,
                           b.params.keepDim, ArrayRef<int64_t>(b.params.ints));
  });
  kernelVocabulary = all;
  for (const OpTemplate &t : all)
    if (!getOpInfo(t.kind).movesData)
      blockVocabulary.push_back(t);
}

//===----------------------------------------------------------------------===//
// Candidate operators
//===----------------------------------------------------------------------===//

namespace {

bool canBroadcast(ArrayRef<int64_t> lhs, ArrayRef<int64_t> rhs) {
  for (size_t i = 1; i <= std::min(lhs.size(), rhs.size()); ++i) {
    int64_t a = lhs[lhs.size() - i], b = rhs[rhs.size() - i];
    if (a != b && a != 1 && b != 1)
      return false;
  }
  return true;
}

/// A quick test that rejects most mismatched operand pairs without building
/// inferShapes' error message (most pairs the enumeration tries mismatch).
bool mayHaveShape(OpKind kind, ArrayRef<ArrayRef<int64_t>> shapes) {
  if (shapes.size() != 2)
    return true;
  ArrayRef<int64_t> lhs = shapes[0], rhs = shapes[1];
  if (kind == OpKind::Matmul) {
    if (lhs.size() < 2 || rhs.size() < 2)
      return true;
    return lhs.back() == rhs[rhs.size() - 2] &&
           canBroadcast(lhs.drop_back(2), rhs.drop_back(2));
  }
  if (kind == OpKind::RmsNorm)
    return rhs.size() != 1 || lhs.empty() || rhs[0] == lhs.back();
  if (getOpInfo(kind).elementwise)
    return canBroadcast(lhs, rhs);
  return true;
}

} // namespace

void SearchContext::enumerateOps(ArrayRef<ValueRef> values,
                                 ArrayRef<OpTemplate> vocabulary,
                                 const OpKey &after,
                                 SmallVectorImpl<OpChoice> &choices,
                                 std::optional<unsigned> requiredOperand) {
  bool prune = options.abstractExprPruning;
  // (expr, shape) pairs already present: an op computing one again is
  // redundant.
  auto hashOf = [](ExprId expr, ArrayRef<int64_t> shape) {
    return llvm::hash_combine(
        expr, llvm::hash_combine_range(shape.begin(), shape.end()));
  };
  llvm::DenseSet<uint64_t> present;
  if (prune) {
    for (const ValueRef &v : values)
      present.insert(hashOf(v.expr, *v.shape));
    for (const OpChoice &earlier : choices)
      present.insert(hashOf(earlier.result.expr, earlier.result.shape));
  }

  size_t first = choices.size();
  auto consider = [&](unsigned index, const OpTemplate &t,
                      const OpParams &params,
                      ArrayRef<const ValueRef *> operands) {
    if (requiredOperand && llvm::none_of(operands, [&](const ValueRef *v) {
          return v->id == *requiredOperand;
        }))
      return;
    OpKey key;
    int64_t last = 0;
    for (const ValueRef *v : operands)
      last = std::max<int64_t>(last, v->id);
    key.push_back(last);
    key.push_back(index);
    key.push_back(t.everyDim ? params.dim : 0);
    for (const ValueRef *v : operands)
      key.push_back(v->id);
    if (!keyLess(after, key))
      return;
    SmallVector<ArrayRef<int64_t>, 3> shapes;
    SmallVector<ExprId, 3> in;
    for (const ValueRef *v : operands) {
      shapes.push_back(*v->shape);
      in.push_back(v->expr);
    }
    if (!mayHaveShape(t.kind, shapes))
      return;
    auto inferred = inferShapes(t.kind, shapes, params);
    if (!inferred) {
      llvm::consumeError(inferred.takeError());
      return;
    }
    if (inferred->size() != 1)
      return;
    ExprId expr = getAbstractExpr(t.kind, in, shapes, params, exprs);
    const Shape &shape = inferred->front();
    if (prune && !present.insert(hashOf(expr, shape)).second)
      return;
    if (!keep(expr))
      return;
    OpChoice choice;
    choice.templateIndex = index;
    choice.params = params;
    for (const ValueRef *v : operands)
      choice.operands.push_back(v->id);
    choice.result = KernelTensor{shape, expr};
    choice.key = std::move(key);
    choices.push_back(std::move(choice));
  };

  for (auto [index, t] : llvm::enumerate(vocabulary)) {
    const OpInfo &info = getOpInfo(t.kind);
    unsigned arity = info.minOperands;
    if (t.kind == OpKind::Concat)
      arity = 2;
    if (arity == 1) {
      for (const ValueRef &x : values) {
        if (t.everyDim) {
          for (size_t d = 0; d < x.shape->size(); ++d) {
            if ((*x.shape)[d] <= 1)
              continue;
            OpParams params = t.params;
            params.dim = d;
            consider(index, t, params, {&x});
          }
          continue;
        }
        consider(index, t, t.params, {&x});
        // rms_norm with a weight.
        if (info.maxOperands && *info.maxOperands == 2)
          for (const ValueRef &w : values)
            if (w.shape->size() == 1 && w.id != x.id)
              consider(index, t, t.params, {&x, &w});
      }
      continue;
    }
    if (arity != 2)
      continue;
    for (const ValueRef &a : values) {
      for (const ValueRef &b : values) {
        if (a.id == b.id && t.kind != OpKind::Matmul)
          continue;
        if (getOpInfo(t.kind).commutative && b.id < a.id)
          continue;
        consider(index, t, t.params, {&a, &b});
      }
    }
  }
  std::sort(choices.begin() + first, choices.end(),
            [](const OpChoice &a, const OpChoice &b) {
              return keyLess(a.key, b.key);
            });
}
