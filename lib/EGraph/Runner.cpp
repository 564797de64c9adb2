//===- Runner.cpp - Equality saturation: iterations, limits, hooks --------===//
//
// Part of the Mirage MLIR project.
//
//===----------------------------------------------------------------------===//

#include "mirage/EGraph/Runner.h"

#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/Format.h"

#include <limits>

using namespace mirage::egraph;

llvm::StringRef mirage::egraph::toString(StopReason reason) {
  switch (reason) {
  case StopReason::None:
    return "none";
  case StopReason::Saturated:
    return "saturated";
  case StopReason::IterationLimit:
    return "iteration limit";
  case StopReason::NodeLimit:
    return "node limit";
  case StopReason::TimeLimit:
    return "time limit";
  case StopReason::Hook:
    return "stopped by a hook";
  }
  llvm_unreachable("unknown stop reason");
}

size_t Iteration::getTotalMatches() const {
  size_t total = 0;
  for (const RuleIterationStats &rule : rules)
    total += rule.matches;
  return total;
}

size_t Iteration::getTotalApplied() const {
  size_t total = 0;
  for (const RuleIterationStats &rule : rules)
    total += rule.applied;
  return total;
}

//===----------------------------------------------------------------------===//
// Schedulers
//===----------------------------------------------------------------------===//

Scheduler::~Scheduler() = default;

void Scheduler::search(unsigned iteration, unsigned ruleIndex,
                       const Rewrite &rule, const EGraph &graph,
                       MatchList &matches, RuleIterationStats &stats) {
  stats.matches = rule.search(graph, matches);
}

namespace {
template <typename T>
T shiftSaturating(T value, unsigned shift) {
  constexpr T max = std::numeric_limits<T>::max();
  if (value == 0)
    return 0;
  if (shift >= std::numeric_limits<T>::digits || value > (max >> shift))
    return max;
  return value << shift;
}
} // namespace

BackoffScheduler &BackoffScheduler::setMatchLimit(llvm::StringRef rule,
                                                  size_t limit) {
  matchLimits[rule] = limit;
  return *this;
}

BackoffScheduler &BackoffScheduler::setBanLength(llvm::StringRef rule,
                                                 unsigned length) {
  banLengths[rule] = length;
  return *this;
}

BackoffScheduler &BackoffScheduler::doNotBan(llvm::StringRef rule) {
  return setMatchLimit(rule, SIZE_MAX);
}

void BackoffScheduler::start(llvm::ArrayRef<Rewrite> rules) {
  states.assign(rules.size(), RuleState());
  for (size_t i = 0; i < rules.size(); ++i) {
    auto limit = matchLimits.find(rules[i].getName());
    states[i].matchLimit =
        limit == matchLimits.end() ? defaultMatchLimit : limit->second;
    auto ban = banLengths.find(rules[i].getName());
    states[i].banLength =
        ban == banLengths.end() ? defaultBanLength : ban->second;
  }
}

void BackoffScheduler::search(unsigned iteration, unsigned ruleIndex,
                              const Rewrite &rule, const EGraph &graph,
                              MatchList &matches, RuleIterationStats &stats) {
  RuleState &state = states[ruleIndex];
  if (iteration < state.bannedUntil) {
    stats.skipped = true;
    return;
  }
  size_t threshold = state.matchLimit == SIZE_MAX
                         ? SIZE_MAX
                         : shiftSaturating(state.matchLimit, state.timesBanned);
  size_t before = matches.size();
  size_t found = rule.search(graph, matches,
                             threshold == SIZE_MAX ? SIZE_MAX : threshold + 1);
  stats.matches = found;
  if (found <= threshold) {
    ++state.timesSearched;
    return;
  }
  unsigned length = shiftSaturating(state.banLength, state.timesBanned);
  ++state.timesBanned;
  state.bannedUntil = iteration + std::max(length, 1u);
  if (state.bannedUntil < iteration)
    state.bannedUntil = std::numeric_limits<unsigned>::max();
  matches.truncate(before);
  stats.banned = true;
}

bool BackoffScheduler::canStop(unsigned iteration) {
  // A rule banned in this iteration was not searched (or its matches were
  // dropped), so an unchanged e-graph proves nothing until it runs again.
  unsigned firstEnd = std::numeric_limits<unsigned>::max();
  bool anyBanned = false;
  for (const RuleState &state : states) {
    if (state.bannedUntil > iteration) {
      anyBanned = true;
      firstEnd = std::min(firstEnd, state.bannedUntil);
    }
  }
  if (!anyBanned)
    return true;
  // Shorten every ban so that the first one to end is over in the next
  // iteration.
  unsigned delta = firstEnd - (iteration + 1);
  for (RuleState &state : states)
    if (state.bannedUntil > iteration)
      state.bannedUntil -= delta;
  return false;
}

//===----------------------------------------------------------------------===//
// Runner
//===----------------------------------------------------------------------===//

namespace {
double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}
} // namespace

Runner::Runner(EGraph &graph, RunnerOptions options)
    : graph(graph), options(options),
      scheduler(std::make_unique<BackoffScheduler>()) {}

Runner::~Runner() = default;

void Runner::setScheduler(std::unique_ptr<Scheduler> newScheduler) {
  scheduler = std::move(newScheduler);
}

void Runner::addHook(Hook hook) { hooks.push_back(std::move(hook)); }

bool Runner::timeUp() const {
  return secondsSince(startTime) > options.timeLimitSeconds;
}

StopReason Runner::run(llvm::ArrayRef<Rewrite> rules) {
  if (!started) {
    started = true;
    startTime = std::chrono::steady_clock::now();
  }
  scheduler->start(rules);
  ruleNames.clear();
  for (const Rewrite &rule : rules)
    ruleNames.push_back(rule.getName().str());

  auto rebuild = [&]() {
    unsigned merges = graph.rebuild();
    if (options.checkInvariants) {
      std::string problems;
      llvm::raw_string_ostream os(problems);
      if (!graph.checkInvariants(&os))
        llvm::report_fatal_error(llvm::Twine("e-graph invariants broken:\n") +
                                 problems);
    }
    return merges;
  };
  rebuild();

  stopReason = StopReason::None;
  while (stopReason == StopReason::None) {
    unsigned index = iterations.size();
    if (index >= options.iterationLimit) {
      stopReason = StopReason::IterationLimit;
      break;
    }
    if (graph.getNumNodes() > options.nodeLimit) {
      stopReason = StopReason::NodeLimit;
      break;
    }
    if (timeUp()) {
      stopReason = StopReason::TimeLimit;
      break;
    }

    auto iterationStart = std::chrono::steady_clock::now();
    Iteration it;
    it.index = index;
    it.nodesBefore = graph.getNumNodes();
    it.classesBefore = graph.getNumClasses();
    it.rules.resize(rules.size());
    uint64_t versionBefore = graph.getVersion();
    StopReason reason = StopReason::None;

    // Search every rule on the same e-graph.
    std::vector<MatchList> matches;
    matches.reserve(rules.size());
    for (const Rewrite &rule : rules)
      matches.push_back(rule.makeMatchList());
    auto phaseStart = std::chrono::steady_clock::now();
    for (size_t i = 0; i < rules.size() && reason == StopReason::None; ++i) {
      if (timeUp()) {
        reason = StopReason::TimeLimit;
        break;
      }
      auto ruleStart = std::chrono::steady_clock::now();
      scheduler->search(index, i, rules[i], graph, matches[i], it.rules[i]);
      it.rules[i].searchSeconds = secondsSince(ruleStart);
    }
    it.searchSeconds = secondsSince(phaseStart);

    // Apply the matches, rule by rule.
    phaseStart = std::chrono::steady_clock::now();
    for (size_t i = 0; i < rules.size() && reason == StopReason::None; ++i) {
      auto ruleStart = std::chrono::steady_clock::now();
      size_t count = 0;
      for (size_t j = 0, e = matches[i].size(); j < e; ++j) {
        if (rules[i].apply(graph, matches[i][j]))
          ++it.rules[i].applied;
        if (graph.getNumNodes() > options.nodeLimit) {
          reason = StopReason::NodeLimit;
          break;
        }
        if (++count % 1024 == 0 && timeUp()) {
          reason = StopReason::TimeLimit;
          break;
        }
      }
      it.rules[i].applySeconds = secondsSince(ruleStart);
      matches[i].release();
      if (reason == StopReason::None && timeUp())
        reason = StopReason::TimeLimit;
    }
    it.applySeconds = secondsSince(phaseStart);

    phaseStart = std::chrono::steady_clock::now();
    it.rebuildMerges = rebuild();
    it.rebuildSeconds = secondsSince(phaseStart);

    phaseStart = std::chrono::steady_clock::now();
    for (const Hook &hook : hooks) {
      if (hook(graph, it) == HookResult::Stop) {
        if (reason == StopReason::None)
          reason = StopReason::Hook;
        break;
      }
    }
    if (!graph.isClean())
      it.rebuildMerges += rebuild();
    it.hookSeconds = secondsSince(phaseStart);

    it.nodes = graph.getNumNodes();
    it.classes = graph.getNumClasses();
    it.changed = graph.getVersion() != versionBefore;
    it.totalSeconds = secondsSince(iterationStart);
    iterations.push_back(std::move(it));

    if (reason != StopReason::None)
      stopReason = reason;
    else if (!iterations.back().changed && scheduler->canStop(index))
      stopReason = StopReason::Saturated;
  }
  totalSeconds = secondsSince(startTime);
  return stopReason;
}

void Runner::printReport(llvm::raw_ostream &os) const {
  os << "iter    nodes  classes   matches   applied  rebuild  search(s)  "
        "apply(s)  rebuild(s)  hooks(s)\n";
  for (const Iteration &it : iterations)
    os << llvm::format("%4u %8zu %8zu %9zu %9zu %8u %10.4f %9.4f %11.4f "
                       "%9.4f\n",
                       it.index, it.nodes, it.classes, it.getTotalMatches(),
                       it.getTotalApplied(), it.rebuildMerges, it.searchSeconds,
                       it.applySeconds, it.rebuildSeconds, it.hookSeconds);
  os << "rule                              matches   applied  bans  "
        "search(s)  apply(s)\n";
  for (size_t i = 0; i < ruleNames.size(); ++i) {
    size_t matches = 0, applied = 0;
    unsigned bans = 0;
    double search = 0, apply = 0;
    for (const Iteration &it : iterations) {
      if (i >= it.rules.size())
        continue;
      const RuleIterationStats &rule = it.rules[i];
      matches += rule.matches;
      applied += rule.applied;
      bans += rule.banned;
      search += rule.searchSeconds;
      apply += rule.applySeconds;
    }
    os << llvm::format("%-30s %10zu %9zu %5u %10.4f %9.4f\n",
                       ruleNames[i].c_str(), matches, applied, bans, search,
                       apply);
  }
  os << "stop: " << toString(stopReason) << " after " << iterations.size()
     << " iterations, " << llvm::format("%.4f", totalSeconds) << " s\n";
}
