//===- Runner.h - Equality saturation: iterations, limits, hooks -*- C++
//-*-===//
//
// Part of the Mirage MLIR project.
//
// The runner repeats iterations until the e-graph saturates or a limit is
// reached. An iteration searches every rule on the same (clean) e-graph,
// then applies all the matches in rule order, rebuilds, and runs the hooks
// (then rebuilds again if a hook changed the e-graph). A scheduler decides
// which rules are searched in an iteration and how many matches they may
// return; the default, egg's backoff scheduler, bans a rule whose matches
// exceed its limit for a number of iterations, doubling both the limit and
// the ban each time it is banned again.
//
// Determinism: rules are searched and applied in the order given, matches in
// search order, and the e-graph's own orders are by ids, so two runs from
// the same e-graph with the same rules and hooks give the same e-graph and
// the same statistics (except times) unless the time limit stops one of
// them.
//
//===----------------------------------------------------------------------===//

#ifndef MIRAGE_EGRAPH_RUNNER_H
#define MIRAGE_EGRAPH_RUNNER_H

#include "mirage/EGraph/Rewrite.h"

#include "llvm/ADT/StringMap.h"

#include <chrono>
#include <functional>

namespace mirage::egraph {

enum class StopReason {
  /// Still running, or never run.
  None,
  /// An iteration changed nothing (and the scheduler had no banned rule).
  Saturated,
  IterationLimit,
  NodeLimit,
  TimeLimit,
  /// A hook asked to stop.
  Hook,
};
llvm::StringRef toString(StopReason reason);

/// What one rule did in one iteration.
struct RuleIterationStats {
  /// Matches the search found (after the rule's conditions); when the rule
  /// is banned in this iteration, the count at which the search stopped
  /// (its limit + 1), none of them applied; 0 when it was skipped.
  size_t matches = 0;
  /// Matches whose application changed the e-graph.
  size_t applied = 0;
  /// The scheduler skipped the rule (it was banned).
  bool skipped = false;
  /// The rule was banned in this iteration (its matches exceeded its limit;
  /// they were discarded).
  bool banned = false;
  double searchSeconds = 0;
  double applySeconds = 0;
};

/// What one iteration did.
struct Iteration {
  unsigned index = 0;
  /// E-nodes and e-classes at the start of the iteration and after it.
  size_t nodesBefore = 0, classesBefore = 0;
  size_t nodes = 0, classes = 0;
  /// Merges performed by congruence and analyses while rebuilding.
  unsigned rebuildMerges = 0;
  /// Per rule, in the order the rules were given.
  std::vector<RuleIterationStats> rules;
  double searchSeconds = 0, applySeconds = 0, rebuildSeconds = 0,
         hookSeconds = 0, totalSeconds = 0;
  /// Whether the e-graph changed in this iteration.
  bool changed = false;

  size_t getTotalMatches() const;
  size_t getTotalApplied() const;
};

/// Decides which rules are searched and with which match limits.
class Scheduler {
public:
  virtual ~Scheduler();
  /// Called when a run starts, with the run's rules.
  virtual void start(llvm::ArrayRef<Rewrite> rules) {}
  /// Searches rule `ruleIndex` in iteration `iteration`, appending the
  /// matches to apply; fills `stats.matches`, `skipped` and `banned`.
  virtual void search(unsigned iteration, unsigned ruleIndex,
                      const Rewrite &rule, const EGraph &graph,
                      MatchList &matches, RuleIterationStats &stats);
  /// Whether the run may stop as saturated after an iteration that changed
  /// nothing. May unban rules and return false to get another iteration.
  virtual bool canStop(unsigned iteration) { return true; }
};

/// Searches every rule with no limit.
class SimpleScheduler : public Scheduler {};

/// egg's backoff scheduler. A rule whose matches in an iteration exceed
/// `matchLimit << timesBanned` is banned for `banLength << timesBanned`
/// iterations and its matches are dropped. When the e-graph stops changing
/// while rules are banned, the bans are shortened so that the first one
/// ends in the next iteration (the run only saturates with no rule banned).
class BackoffScheduler : public Scheduler {
public:
  explicit BackoffScheduler(size_t matchLimit = 1000, unsigned banLength = 5)
      : defaultMatchLimit(matchLimit), defaultBanLength(banLength) {}

  /// Per-rule settings by rule name (before the run).
  BackoffScheduler &setMatchLimit(llvm::StringRef rule, size_t limit);
  BackoffScheduler &setBanLength(llvm::StringRef rule, unsigned length);
  /// The rule is never banned.
  BackoffScheduler &doNotBan(llvm::StringRef rule);

  void start(llvm::ArrayRef<Rewrite> rules) override;
  void search(unsigned iteration, unsigned ruleIndex, const Rewrite &rule,
              const EGraph &graph, MatchList &matches,
              RuleIterationStats &stats) override;
  bool canStop(unsigned iteration) override;

  struct RuleState {
    size_t matchLimit = 0;
    unsigned banLength = 0;
    unsigned timesBanned = 0;
    unsigned bannedUntil = 0;
    /// Iterations in which the rule was searched and not banned.
    unsigned timesSearched = 0;
  };
  const RuleState &getState(unsigned ruleIndex) const {
    return states[ruleIndex];
  }

private:
  size_t defaultMatchLimit;
  unsigned defaultBanLength;
  llvm::StringMap<size_t> matchLimits;
  llvm::StringMap<unsigned> banLengths;
  std::vector<RuleState> states;
};

struct RunnerOptions {
  unsigned iterationLimit = 30;
  /// Stops once the e-graph has more e-nodes than this (checked after every
  /// application, so it may overshoot by one match's nodes).
  size_t nodeLimit = 10000;
  double timeLimitSeconds = 5.0;
  /// Run EGraph::checkInvariants after every rebuild (and abort with the
  /// problems if one fails); for tests.
  bool checkInvariants = false;
};

enum class HookResult { Continue, Stop };

class Runner {
public:
  /// Called after each iteration's rebuild with the e-graph (which it may
  /// edit; the runner rebuilds afterwards) and the iteration's statistics.
  using Hook = std::function<HookResult(EGraph &graph, const Iteration &)>;

  explicit Runner(EGraph &graph, RunnerOptions options = {});
  ~Runner();

  /// Replaces the scheduler (default: BackoffScheduler()).
  void setScheduler(std::unique_ptr<Scheduler> scheduler);
  Scheduler &getScheduler() { return *scheduler; }
  void addHook(Hook hook);

  /// Runs iterations until saturation or a limit. May be called again to go
  /// on (with the limits counted from the first run).
  StopReason run(llvm::ArrayRef<Rewrite> rules);

  StopReason getStopReason() const { return stopReason; }
  llvm::ArrayRef<Iteration> getIterations() const { return iterations; }
  double getTotalSeconds() const { return totalSeconds; }
  EGraph &getGraph() const { return graph; }

  /// One line per iteration, then per-rule totals (matches, applications,
  /// bans, time).
  void printReport(llvm::raw_ostream &os) const;

private:
  bool timeUp() const;

  EGraph &graph;
  RunnerOptions options;
  std::unique_ptr<Scheduler> scheduler;
  std::vector<Hook> hooks;
  std::vector<Iteration> iterations;
  std::vector<std::string> ruleNames;
  StopReason stopReason = StopReason::None;
  std::chrono::steady_clock::time_point startTime;
  bool started = false;
  double totalSeconds = 0;
};

} // namespace mirage::egraph

#endif // MIRAGE_EGRAPH_RUNNER_H
