//===- Search.h - The µGraph superoptimizer ---------------------*- C++ -*-===//
//
// Mirage v3 Algorithm 1 over the compact µGraphs of MuGraph.h:
//
//  1. Kernel graphs are enumerated depth first, one operator at a time, in
//     canonical (rank) order: a new operator's key (its last operand first)
//     must exceed the previous one's, so each graph is built in exactly one
//     order. Operators are predefined ones or graph-defined kernels.
//  2. A graph-defined kernel's block graph is enumerated the same way, as a
//     skeleton on whole tensors: loop-body operators, accumulators for every
//     loop-body value nothing else uses, post-loop operators. It closes when
//     nothing is left dangling.
//  3. Every operator's abstract expression must be a subexpression of the
//     program's (Subexpr.h), or its branch is cut.
//  4. A kernel graph whose tensors include every program output (same shape,
//     A_eq-equivalent expression) is complete. Its block graphs are then
//     scheduled: grid, for-loop range and imap/fmap/omap follow from the
//     classes of dimensions the operators tie together (Schedule.cpp), with
//     each schedule's per-tile expressions checked again.
//  5. Complete, scheduled µGraphs are ranked by an analytical cost model.
//
// Verification happens in the caller (the pass), which owns MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef MIRAGE_SEARCH_SEARCH_H
#define MIRAGE_SEARCH_SEARCH_H

#include "mirage/CostModel/CostModel.h"
#include "mirage/Search/MuGraph.h"
#include "mirage/Search/Subexpr.h"
#include "llvm/Support/raw_ostream.h"

#include <functional>
#include <vector>

namespace mirage::search {

struct Candidate;

struct SearchOptions {
  /// Mirage v3's limits: kernel operators, block operators (compute ops and
  /// accumulators), graph-defined kernels per µGraph.
  unsigned maxKernelOps = 5;
  unsigned maxBlockOps = 11;
  unsigned maxCustomOps = 1;
  unsigned maxCustomInputs = 4;
  unsigned maxBlockOutputs = 2;
  /// Worker threads; 0 uses every hardware thread.
  unsigned threads = 0;
  /// Seconds; 0 for none. A search that runs out reports what it found.
  double timeBudget = 0;
  /// Block graphs kept in memory at most (about 1 KB each); the search
  /// stops there like at the end of its time budget.
  uint64_t maxBlockGraphs = 2000000;
  /// Off for the ablation: no subexpression pruning, no expression-based
  /// deduplication (complete graphs are still recognized by expression).
  bool abstractExprPruning = true;
  /// Complete µGraphs kept, best first.
  unsigned keep = 16;
  int64_t threadsPerBlock = 128;
  int64_t maxBlocks = 4096;
  DeviceModel device;
  /// Where the search state is saved after each finished branch and resumed
  /// from; empty for none.
  std::string checkpointPath;
  /// Progress lines go here every `progressInterval` seconds (null: none).
  llvm::raw_ostream *progress = nullptr;
  double progressInterval = 10;
  SubexprOptions subexpr;
  /// The caller's test of a complete, scheduled µGraph (its equivalence
  /// check): abstract expressions ignore indices, so they also accept
  /// programs that differ from the target (mul(x, reduce_sum(W)) for
  /// matmul(x, W), when axis labels do not tell them apart). Called one call
  /// at a time, once per complete kernel graph, on its first schedule cheap
  /// enough to enter the ranking; the graph's schedules then rank only if it
  /// passes, and only they tighten the cost bound. Null accepts all.
  std::function<bool(const Candidate &)> acceptCandidate;
};

/// A program to superoptimize: a kernel graph of predefined operators whose
/// tensors carry shapes and abstract expressions over its inputs.
struct Problem {
  MuGraph reference;
  /// Bytes of the element type, shared by all tensors.
  unsigned elementBytes = 2;

  llvm::SmallVector<ExprId, 1> getTargets() const;
  /// Text identifying the problem in checkpoints.
  std::string getFingerprint(const ExprContext &context) const;
};

struct Candidate {
  MuGraph graph;
  /// Estimated microseconds.
  double cost = 0;
  std::string text;
};

struct SearchStats {
  uint64_t kernelGraphs = 0, blockGraphs = 0, completeGraphs = 0,
           schedules = 0, rejectedSchedules = 0,
           /// Partial kernel graphs cut by the cost bound.
           boundedGraphs = 0,
           /// Candidates given to acceptCandidate, and those it rejected.
           testedCandidates = 0, rejectedCandidates = 0;
  unsigned branches = 0, branchesDone = 0, branchesResumed = 0;
  double seconds = 0;
  SubexprStats subexpr;
};

struct SearchResult {
  /// Best first, at most `keep`.
  std::vector<Candidate> candidates;
  SearchStats stats;
  /// Empty when the whole space was searched; otherwise why not.
  std::string incomplete;
};

/// Searches the µGraphs equivalent (by abstract expression) to the problem.
llvm::Expected<SearchResult> superoptimize(const Problem &problem,
                                           ExprContext &context,
                                           const SearchOptions &options);

/// The search's quick estimate of the shared memory a scheduled block graph
/// needs, to drop schedules before they are built: every tile, a second
/// pipeline stage for the input tiles that change each iteration, f32
/// accumulators. It is no bound on the lowering's plan (which aligns
/// tiles and may add stages or scratch, or give a tile none); the tb.graph
/// verifier checks each built candidate against that plan
/// (tb::getBlockGraphMemory).
int64_t getSharedMemoryBytes(const BlockSkeleton &skeleton,
                             const Schedule &schedule, unsigned elementBytes);

/// Estimated microseconds of a µGraph whose block graphs are scheduled.
double estimateCost(const MuGraph &graph, unsigned elementBytes,
                    const DeviceModel &device);
/// A lower bound of estimateCost over every schedule of the graph's
/// graph-defined kernels and every operator added to it: the search's
/// branch-and-bound test.
double estimateLowerBound(const MuGraph &graph, unsigned elementBytes,
                          const DeviceModel &device);

/// The schedules of a block-graph skeleton over operands of the given
/// shapes: every grid, loop range and imap/fmap/omap the dimension classes
/// allow, whose per-tile expressions match the skeleton's outputs. Without a
/// checker the expressions are not checked.
std::vector<Schedule> enumerateSchedules(const BlockSkeleton &skeleton,
                                         unsigned elementBytes,
                                         const SearchOptions &options,
                                         ExprContext &context,
                                         SubexprChecker *checker);

} // namespace mirage::search

#endif // MIRAGE_SEARCH_SEARCH_H
