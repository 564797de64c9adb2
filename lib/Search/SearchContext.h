//===- SearchContext.h - State shared by the search's threads ---*- C++ -*-===//
//
// Internal to lib/Search: the operator vocabulary, the per-thread Z3
// checkers, counters, the stop flag, and the enumeration of candidate
// operators that kernel and block levels share.
//
//===----------------------------------------------------------------------===//

#ifndef MIRAGE_LIB_SEARCH_SEARCHCONTEXT_H
#define MIRAGE_LIB_SEARCH_SEARCHCONTEXT_H

#include "mirage/Search/Search.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/ThreadPool.h"

#include <atomic>
#include <chrono>
#include <limits>
#include <map>
#include <queue>
#include <thread>

namespace mirage::search::detail {

/// An operator the search may place.
struct OpTemplate {
  OpKind kind;
  OpParams params;
  /// Reductions: try every dim of the operand (params.dim is ignored).
  bool everyDim = false;
};

/// The canonical rank of an operator: its last operand, its template, its
/// parameters and operands. Operators are added in increasing key order.
using OpKey = llvm::SmallVector<int64_t, 6>;

/// A value an operator may take: a kernel tensor or a block-graph node.
struct ValueRef {
  unsigned id;
  const Shape *shape;
  ExprId expr;
};

struct OpChoice {
  unsigned templateIndex;
  OpParams params;
  llvm::SmallVector<unsigned, 2> operands;
  KernelTensor result;
  OpKey key;
};

/// Branch and bound over the cost model: the `keep`-th lowest cost among
/// the candidates found so far, by any thread. A partial graph whose lower
/// bound exceeds it cannot reach the final ranking, whatever the timing of
/// the threads, so the ranking stays deterministic.
class CostBound {
public:
  explicit CostBound(unsigned keep) : keep(keep) {}
  /// Records a new (not duplicate) candidate's cost.
  void add(double cost);
  double get() const { return bound.load(std::memory_order_relaxed); }

private:
  unsigned keep;
  std::mutex mutex;
  /// The `keep` lowest costs, highest on top.
  std::priority_queue<double> lowest;
  std::atomic<double> bound{std::numeric_limits<double>::infinity()};
};

class SearchContext {
public:
  SearchContext(const Problem &problem, ExprContext &exprs,
                const SearchOptions &options);

  /// Appends the operators of `vocabulary` over `values` whose key exceeds
  /// `after`, that infer a shape and pass pruning, in key order; only those
  /// reading `requiredOperand` when given. With pruning, a result equal to a
  /// value's or to a choice already in `choices` is redundant.
  void enumerateOps(llvm::ArrayRef<ValueRef> values,
                    llvm::ArrayRef<OpTemplate> vocabulary, const OpKey &after,
                    llvm::SmallVectorImpl<OpChoice> &choices,
                    std::optional<unsigned> requiredOperand = std::nullopt);

  /// Whether pruning keeps an operator with this result (always, when
  /// pruning is off).
  bool keep(ExprId expr);
  bool isEquivalent(ExprId expr, ExprId target);
  /// This thread's checker (Z3 contexts are not thread-safe).
  SubexprChecker &getChecker();

  /// Whether options.acceptCandidate accepts a candidate (serialized).
  bool accept(const Candidate &candidate);

  /// True once the time budget is spent (then every loop winds down).
  bool isStopped();

  const Problem &problem;
  ExprContext &exprs;
  const SearchOptions &options;
  llvm::SmallVector<ExprId, 1> targets;
  /// Per program input, whether the outputs' expressions contain it (then
  /// every complete graph reads it).
  std::vector<bool> inputRequired;
  /// Per program output, its axis labels (AxisLabels.h).
  std::vector<std::optional<AxisSets>> targetLabels;
  std::vector<OpTemplate> kernelVocabulary, blockVocabulary;
  std::shared_ptr<SubexprCache> cache;
  llvm::ThreadPoolInterface *pool = nullptr;

  CostBound costBound;

  std::atomic<uint64_t> kernelGraphs{0}, blockGraphs{0}, completeGraphs{0},
      schedules{0}, rejectedSchedules{0}, boundedGraphs{0},
      testedCandidates{0}, rejectedCandidates{0};

private:
  void buildVocabularies();

  std::mutex acceptMutex;
  /// Unique per search in the process (getChecker's per-thread memo).
  const uint64_t id = nextId.fetch_add(1) + 1;
  static inline std::atomic<uint64_t> nextId{0};
  std::mutex checkersMutex;
  std::map<std::thread::id, std::unique_ptr<SubexprChecker>> checkers;
  std::chrono::steady_clock::time_point deadline;
  bool hasDeadline = false;
  std::atomic<bool> stopped{false};
};

/// Lexicographic order of keys.
bool keyLess(const OpKey &lhs, const OpKey &rhs);

/// Runs body(0), ..., body(count - 1), each once: the calling thread claims
/// indices from a shared counter and runs them itself, and helpers it
/// submits to `pool` (when given) claim from the same counter. It returns
/// once every index has run, and waits only for indices other threads have
/// already claimed and are running: it never runs unrelated pool tasks
/// (ThreadPoolTaskGroup::wait on a pool thread does, see
/// SkeletonEnumerator::get), so waits inside `body`'s callers form no cycle.
/// A helper that starts late finds no index left and exits.
void workSharingFor(llvm::ThreadPoolInterface *pool, size_t count,
                    llvm::function_ref<void(size_t)> body);

/// The block-graph skeletons over given operands, memoized per operand list
/// and computed with the pool's threads, split by the first loop-body op.
class SkeletonEnumerator {
public:
  using List = std::vector<std::shared_ptr<const BlockSkeleton>>;
  explicit SkeletonEnumerator(SearchContext &context) : context(context) {}

  /// The list over `operands`: the first thread to ask computes it, others
  /// asking meanwhile wait for it. Safe from pool threads: the computing
  /// thread waits only for its own loop's work (workSharingFor), never for
  /// another list, so waits form no cycle; and it stops with the time
  /// budget, which therefore bounds the waits too (the list is then
  /// incomplete and not checkpointed).
  std::shared_ptr<const List> get(llvm::ArrayRef<KernelTensor> operands);

  /// The memo's key for an operand list (shapes and printed expressions,
  /// stable across processes).
  std::string getKey(llvm::ArrayRef<KernelTensor> operands) const;
  /// Finished entries, for the checkpoint: an object of skeleton lists.
  void writeJSON(llvm::json::OStream &json);
  /// Entries of an earlier run, read when first asked for.
  void restore(const llvm::json::Object &entries);

private:
  struct Entry {
    std::shared_future<std::shared_ptr<const List>> list;
    /// False when the time budget cut the enumeration short.
    bool complete = false;
  };
  std::shared_ptr<const List> enumerate(llvm::ArrayRef<KernelTensor> operands,
                                        bool &complete);

  SearchContext &context;
  std::mutex mutex;
  std::map<std::string, Entry> entries;
  std::map<std::string, llvm::json::Value> restored;
};

} // namespace mirage::search::detail

#endif // MIRAGE_LIB_SEARCH_SEARCHCONTEXT_H
