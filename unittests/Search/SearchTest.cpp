//===- SearchTest.cpp - The µGraph generator end to end -------------------===//
//
// Small problems whose best µGraph is known: the search must find it, give
// the same ranking with one or two threads, resume from its checkpoint, and
// keep its cost bound below every candidate's cost, rank only candidates the
// caller accepts, generate each block graph once, and return every time,
// within its time budget, whatever the threads' timing.
//
//===----------------------------------------------------------------------===//

#include "mirage/Search/Search.h"

#include "SearchContext.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <set>
#include <thread>

using namespace mirage;
using namespace mirage::search;

namespace {

class SearchTest : public ::testing::Test {
protected:
  ExprContext exprs;
  Problem problem;

  unsigned addInput(Shape shape) {
    unsigned id = problem.reference.tensors.size();
    problem.reference.tensors.push_back({shape, exprs.var(id)});
    problem.reference.numInputs = id + 1;
    return id;
  }

  unsigned addOp(OpKind kind, llvm::ArrayRef<unsigned> operands,
                 OpParams params = {}) {
    MuGraph &graph = problem.reference;
    llvm::SmallVector<llvm::ArrayRef<int64_t>, 3> shapes;
    llvm::SmallVector<ExprId, 3> in;
    for (unsigned operand : operands) {
      shapes.push_back(graph.tensors[operand].shape);
      in.push_back(graph.tensors[operand].expr);
    }
    auto inferred = inferShapes(kind, shapes, params);
    EXPECT_TRUE(static_cast<bool>(inferred));
    KernelOp op;
    op.kind = kind;
    op.params = params;
    op.operands.assign(operands.begin(), operands.end());
    op.results.push_back(graph.tensors.size());
    graph.tensors.push_back(
        {inferred->front(), getAbstractExpr(kind, in, shapes, params, exprs)});
    graph.ops.push_back(op);
    return op.results.front();
  }

  /// RMSNorm (with weight) and a matmul: Mirage v3 Fig. 3 at a small size.
  void buildRmsNormLinear() {
    unsigned x = addInput({2, 256}), g = addInput({256}),
             w = addInput({256, 512});
    OpParams eps;
    eps.scalar = 1e-6;
    unsigned y = addOp(OpKind::RmsNorm, {x, g}, eps);
    problem.reference.outputs.push_back(addOp(OpKind::Matmul, {y, w}));
  }

  /// GatedMLP, silu(x W1) * (x W2), at a small size: with two block ops a
  /// search takes a few tenths of a second and its branches often ask for
  /// the same block-graph lists at the same time.
  void buildGatedMlp() {
    unsigned x = addInput({8, 64}), w1 = addInput({64, 64}),
             w2 = addInput({64, 64});
    unsigned a = addOp(OpKind::Matmul, {x, w1});
    unsigned b = addOp(OpKind::Matmul, {x, w2});
    unsigned gate = addOp(OpKind::Silu, {a});
    problem.reference.outputs.push_back(addOp(OpKind::Mul, {gate, b}));
  }

  SearchOptions smallOptions(unsigned threads) {
    SearchOptions options;
    options.maxBlockOps = 3;
    options.threads = threads;
    return options;
  }

  std::vector<std::string> texts(const SearchResult &result) {
    std::vector<std::string> list;
    for (const Candidate &candidate : result.candidates)
      list.push_back(candidate.text + llvm::formatv(" @{0}", candidate.cost).str());
    return list;
  }
};

TEST_F(SearchTest, FusesRmsNormIntoTheMatmul) {
  buildRmsNormLinear();
  auto result = superoptimize(problem, exprs, smallOptions(1));
  ASSERT_TRUE(static_cast<bool>(result)) << llvm::toString(result.takeError());
  EXPECT_TRUE(result->incomplete.empty());
  ASSERT_FALSE(result->candidates.empty());
  const Candidate &best = result->candidates.front();
  ASSERT_EQ(best.graph.ops.size(), 1u);
  EXPECT_TRUE(best.graph.ops.front().isCustom());
  double reference = estimateCost(problem.reference, 2, DeviceModel());
  EXPECT_LT(best.cost, reference);
  // Best first; the bound never exceeds a candidate's cost.
  for (size_t i = 0; i < result->candidates.size(); ++i) {
    const Candidate &candidate = result->candidates[i];
    EXPECT_LE(estimateLowerBound(candidate.graph, 2, DeviceModel()),
              candidate.cost + 1e-9);
    if (i > 0)
      EXPECT_LE(result->candidates[i - 1].cost, candidate.cost);
  }
  EXPECT_GT(result->stats.subexpr.filtered, 0u);
}

TEST_F(SearchTest, SameRankingWithOneOrTwoThreads) {
  buildRmsNormLinear();
  auto one = superoptimize(problem, exprs, smallOptions(1));
  auto two = superoptimize(problem, exprs, smallOptions(2));
  ASSERT_TRUE(one && two);
  EXPECT_EQ(texts(*one), texts(*two));
}

TEST_F(SearchTest, ResumesFromItsCheckpoint) {
  buildRmsNormLinear();
  llvm::SmallString<128> path;
  ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("search", "json", path));
  llvm::sys::fs::remove(path);
  SearchOptions options = smallOptions(1);
  options.checkpointPath = path.str().str();
  auto first = superoptimize(problem, exprs, options);
  ASSERT_TRUE(static_cast<bool>(first)) << llvm::toString(first.takeError());
  auto resumed = superoptimize(problem, exprs, options);
  ASSERT_TRUE(static_cast<bool>(resumed))
      << llvm::toString(resumed.takeError());
  EXPECT_EQ(resumed->stats.branchesResumed, first->stats.branches);
  EXPECT_EQ(resumed->stats.kernelGraphs, 0u);
  EXPECT_EQ(texts(*first), texts(*resumed));

  // Other options: refused rather than mixed.
  options.maxBlockOps = 4;
  auto mixed = superoptimize(problem, exprs, options);
  ASSERT_FALSE(static_cast<bool>(mixed));
  EXPECT_NE(llvm::toString(mixed.takeError()).find("other search options"),
            std::string::npos);
  llvm::sys::fs::remove(path);
}

TEST_F(SearchTest, PruningOnlyRemovesWork) {
  // x * y + x: the fused elementwise kernel is found with and without
  // abstract-expression pruning, with fewer graphs explored with it.
  unsigned x = addInput({64, 64}), y = addInput({64, 64});
  unsigned m = addOp(OpKind::Mul, {x, y});
  problem.reference.outputs.push_back(addOp(OpKind::Add, {m, x}));
  SearchOptions options;
  options.maxKernelOps = 2;
  options.maxBlockOps = 2;
  options.threads = 1;
  auto pruned = superoptimize(problem, exprs, options);
  options.abstractExprPruning = false;
  auto full = superoptimize(problem, exprs, options);
  ASSERT_TRUE(pruned && full);
  ASSERT_FALSE(pruned->candidates.empty());
  ASSERT_FALSE(full->candidates.empty());
  EXPECT_EQ(pruned->candidates.front().text, full->candidates.front().text);
  EXPECT_LT(pruned->stats.blockGraphs + pruned->stats.kernelGraphs,
            full->stats.blockGraphs + full->stats.kernelGraphs);
}

TEST_F(SearchTest, TighterBoundsKeepTheBest) {
  // keep = 1 bounds the search by the best cost found so far: it must
  // explore less and still find the same best µGraph as keep = 16.
  buildRmsNormLinear();
  SearchOptions options = smallOptions(1);
  auto wide = superoptimize(problem, exprs, options);
  options.keep = 1;
  auto narrow = superoptimize(problem, exprs, options);
  ASSERT_TRUE(wide && narrow);
  ASSERT_FALSE(wide->candidates.empty());
  ASSERT_EQ(narrow->candidates.size(), 1u);
  EXPECT_EQ(narrow->candidates.front().text, wide->candidates.front().text);
  // It cuts, and explores less. The number of cuts is no measure: one cut
  // near the root replaces every cut below it (here 297 cuts against 4946).
  EXPECT_GT(narrow->stats.boundedGraphs, 0u);
  EXPECT_LT(narrow->stats.kernelGraphs, wide->stats.kernelGraphs);
}

TEST_F(SearchTest, CandidatesTheCallerRejectsNeverRank) {
  // The caller rejects every graph-defined kernel: only predefined
  // operators may rank, and each kernel graph is tested once.
  buildRmsNormLinear();
  SearchOptions options = smallOptions(2);
  options.maxKernelOps = 2;
  options.maxBlockOps = 2;
  std::set<std::string> tested;
  unsigned calls = 0;
  options.acceptCandidate = [&](const Candidate &candidate) {
    ++calls;
    tested.insert(candidate.text);
    return candidate.graph.getNumCustomOps() == 0;
  };
  auto result = superoptimize(problem, exprs, options);
  ASSERT_TRUE(static_cast<bool>(result));
  EXPECT_EQ(result->stats.testedCandidates, calls);
  EXPECT_EQ(tested.size(), calls);
  EXPECT_GT(result->stats.rejectedCandidates, 0u);
  EXPECT_LE(calls, result->stats.completeGraphs);
  ASSERT_FALSE(result->candidates.empty());
  for (const Candidate &candidate : result->candidates)
    EXPECT_EQ(candidate.graph.getNumCustomOps(), 0u) << candidate.text;

  options.acceptCandidate = [](const Candidate &) { return false; };
  auto none = superoptimize(problem, exprs, options);
  ASSERT_TRUE(static_cast<bool>(none));
  EXPECT_TRUE(none->candidates.empty());
}

TEST_F(SearchTest, TimeBudgetReportsAnIncompleteSearch) {
  buildRmsNormLinear();
  SearchOptions options;
  options.threads = 1;
  options.timeBudget = 0.2;
  auto result = superoptimize(problem, exprs, options);
  ASSERT_TRUE(static_cast<bool>(result));
  EXPECT_NE(result->incomplete.find("time budget"), std::string::npos);
}

/// Ends the whole test binary with a message when the scope is not left
/// within `limit`: a search that never returns would otherwise hang the
/// suite instead of failing it.
class Watchdog {
public:
  Watchdog(std::string what, std::chrono::seconds limit)
      : thread([this, what = std::move(what), limit] {
          std::unique_lock<std::mutex> lock(mutex);
          if (!wake.wait_for(lock, limit, [this] { return done; })) {
            std::fprintf(stderr, "watchdog: %s did not return within %lld s\n",
                         what.c_str(), static_cast<long long>(limit.count()));
            std::fflush(stderr);
            std::_Exit(1);
          }
        }) {}
  ~Watchdog() {
    {
      std::lock_guard<std::mutex> lock(mutex);
      done = true;
    }
    wake.notify_all();
    thread.join();
  }

private:
  std::mutex mutex;
  std::condition_variable wake;
  bool done = false;
  std::thread thread;
};

// Issue 18, item 4: a search on a small problem sometimes never returned. A
// thread producing a memoized block-graph list waited for its sub-tasks
// with ThreadPoolTaskGroup::wait, which on a pool thread runs any queued
// task: a generator branch run there could wait for a list that only the
// stack below it (or a thread waiting on this one) could finish. On the old
// code about one search in fifty hung here; all of these must return, with
// the same ranking.
TEST_F(SearchTest, RepeatedSearchesAlwaysReturn) {
  buildGatedMlp();
  std::optional<std::vector<std::string>> first;
  for (unsigned threads : {2u, 4u}) {
    for (unsigned run = 0; run < 100; ++run) {
      SearchOptions options;
      options.maxBlockOps = 2;
      options.threads = threads;
      Watchdog watchdog(
          llvm::formatv("search {0} at threads={1}", run, threads).str(),
          std::chrono::seconds(60));
      auto result = superoptimize(problem, exprs, options);
      ASSERT_TRUE(static_cast<bool>(result))
          << llvm::toString(result.takeError());
      EXPECT_TRUE(result->incomplete.empty());
      if (!first)
        first = texts(*result);
      else
        ASSERT_EQ(texts(*result), *first)
            << "threads=" << threads << " run " << run;
    }
  }
}

// The mechanism of that hang, made certain: on a one-thread pool, the
// first task computes the list and the second, queued before the list's
// own work, asks for the same list. The computing thread must not run the
// second task while it waits (it would wait for itself), and the second
// gets the first's list.
TEST_F(SearchTest, PoolTasksAskingForOneListDoNotWaitForEachOther) {
  buildRmsNormLinear();
  for (unsigned threads : {1u, 2u}) {
    SearchOptions options;
    options.maxBlockOps = 3;
    options.threads = threads;
    detail::SearchContext context(problem, exprs, options);
    llvm::StdThreadPool pool(llvm::hardware_concurrency(threads));
    context.pool = &pool;
    detail::SkeletonEnumerator enumerator(context);
    llvm::ArrayRef<KernelTensor> operands =
        llvm::ArrayRef<KernelTensor>(problem.reference.tensors).take_front(3);
    std::vector<std::shared_ptr<const detail::SkeletonEnumerator::List>>
        lists(4);
    {
      Watchdog watchdog(llvm::formatv("4 requests for one list on {0} pool "
                                      "threads",
                                      threads)
                            .str(),
                        std::chrono::seconds(60));
      llvm::ThreadPoolTaskGroup group(pool);
      for (size_t task = 0; task < lists.size(); ++task)
        group.async([&, task] { lists[task] = enumerator.get(operands); });
      group.wait();
    }
    ASSERT_TRUE(lists.front());
    EXPECT_FALSE(lists.front()->empty());
    for (const auto &list : lists)
      EXPECT_EQ(list, lists.front());
  }
}

// The time budget ends the waits for a list: the thread computing it stops,
// and the threads waiting for it get the partial list, which is left out of
// the checkpoint.
TEST_F(SearchTest, TimeBudgetEndsTheWaitsForAList) {
  buildRmsNormLinear();
  SearchOptions options;
  options.threads = 2;
  options.timeBudget = 0.3;
  detail::SearchContext context(problem, exprs, options);
  llvm::StdThreadPool pool(llvm::hardware_concurrency(2));
  context.pool = &pool;
  detail::SkeletonEnumerator enumerator(context);
  llvm::ArrayRef<KernelTensor> operands =
      llvm::ArrayRef<KernelTensor>(problem.reference.tensors).take_front(3);
  std::vector<std::shared_ptr<const detail::SkeletonEnumerator::List>> lists(
      4);
  auto start = std::chrono::steady_clock::now();
  {
    Watchdog watchdog("4 budgeted requests for one list",
                      std::chrono::seconds(60));
    llvm::ThreadPoolTaskGroup group(pool);
    for (size_t task = 0; task < lists.size(); ++task)
      group.async([&, task] { lists[task] = enumerator.get(operands); });
    group.wait();
  }
  double seconds = std::chrono::duration<double>(
                       std::chrono::steady_clock::now() - start)
                       .count();
  EXPECT_TRUE(context.isStopped());
  EXPECT_LT(seconds, 10.0);
  for (const auto &list : lists)
    EXPECT_EQ(list, lists.front());
  std::string text;
  llvm::raw_string_ostream os(text);
  llvm::json::OStream json(os);
  enumerator.writeJSON(json);
  EXPECT_EQ(text, "{}");
}

// The time budget bounds every wait: threads waiting for a list another
// thread produces return once the producer sees the budget spent.
TEST_F(SearchTest, TimeBudgetStopsEveryThread) {
  buildGatedMlp();
  for (unsigned threads : {2u, 4u}) {
    for (unsigned run = 0; run < 10; ++run) {
      SearchOptions options;
      options.threads = threads;
      options.timeBudget = 0.1;
      Watchdog watchdog(llvm::formatv("budgeted search {0} at threads={1}",
                                      run, threads)
                            .str(),
                        std::chrono::seconds(60));
      auto result = superoptimize(problem, exprs, options);
      ASSERT_TRUE(static_cast<bool>(result))
          << llvm::toString(result.takeError());
      EXPECT_NE(result->incomplete.find("time budget"), std::string::npos);
      EXPECT_LT(result->stats.seconds, 10.0);
    }
  }
}

} // namespace

namespace {

// Canonical order: every block graph is generated once, in one operator
// order, with or without pruning.
TEST_F(SearchTest, CanonicalOrderGeneratesEachBlockGraphOnce) {
  buildRmsNormLinear();
  for (bool pruning : {true, false}) {
    SearchOptions options;
    options.maxBlockOps = 4;
    options.threads = 1;
    options.abstractExprPruning = pruning;
    detail::SearchContext context(problem, exprs, options);
    detail::SkeletonEnumerator enumerator(context);
    llvm::ArrayRef<KernelTensor> tensors = problem.reference.tensors;
    auto list = enumerator.get(tensors.take_front(3));
    ASSERT_FALSE(list->empty());
    std::set<std::string> seen;
    for (const auto &skeleton : *list)
      EXPECT_TRUE(seen.insert(printSkeleton(*skeleton)).second)
          << printSkeleton(*skeleton);
    EXPECT_LE(list->front()->getNumOps(), options.maxBlockOps);
  }
}

} // namespace
