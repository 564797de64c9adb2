//===- Generator.cpp - The kernel level of Algorithm 1 --------------------===//
//
// Kernel graphs grow one operator at a time in key order from the program's
// inputs. The root's choices are the search's branches: each runs as one
// task of the thread pool, keeps its own best candidates, and goes into the
// checkpoint once finished, so a resumed search skips it. Results are merged
// in branch order and ranked by (cost, text), which makes them independent
// of the number of threads. A partial graph whose cost lower bound exceeds
// the `keep`-th best cost found so far is cut (branch and bound); it could
// not enter the ranking, so the cut does not change it either.
//
//===----------------------------------------------------------------------===//

#include "AxisLabels.h"
#include "SearchContext.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Threading.h"

#include <condition_variable>

using namespace mirage;
using namespace mirage::search;
using namespace mirage::search::detail;
using llvm::ArrayRef;
using llvm::SmallVector;

llvm::SmallVector<ExprId, 1> Problem::getTargets() const {
  llvm::SmallVector<ExprId, 1> targets;
  for (unsigned output : reference.outputs)
    targets.push_back(reference.tensors[output].expr);
  return targets;
}

std::string Problem::getFingerprint(const ExprContext &context) const {
  std::string text = printMuGraph(reference) + " | bytes " +
                     std::to_string(elementBytes) + " | inputs";
  for (unsigned i = 0; i < reference.numInputs; ++i)
    text += " " + formatShape(reference.tensors[i].shape);
  for (ExprId target : getTargets())
    text += " | " + context.print(target);
  return text;
}

namespace {

/// Schedules per complete kernel graph that reach the ranking: enough to
/// show the best tilings of a graph without crowding out other graphs.
constexpr unsigned kSchedulesPerGraph = 4;
/// Version 2 stores each block graph as a JSON string: parsing a tree of
/// objects for 100k block graphs took 20 GB.
constexpr int64_t kCheckpointVersion = 2;
/// How often finished branches are saved (a checkpoint holds every block
/// graph enumerated, so writing it after each branch would dominate).
constexpr std::chrono::seconds kCheckpointInterval(5);

/// The best candidates of one branch, without duplicates.
class CandidatePool {
public:
  explicit CandidatePool(unsigned keep) : keep(keep) {}

  /// False for a duplicate.
  bool add(Candidate candidate) {
    auto it = llvm::find_if(candidates, [&](const Candidate &c) {
      return c.text == candidate.text;
    });
    if (it != candidates.end())
      return false;
    candidates.push_back(std::move(candidate));
    if (candidates.size() > 2 * keep)
      trim();
    return true;
  }

  std::vector<Candidate> take() {
    trim();
    return std::move(candidates);
  }

private:
  void trim() {
    llvm::sort(candidates, rankLess);
    if (candidates.size() > keep)
      candidates.resize(keep);
  }

public:
  static bool rankLess(const Candidate &a, const Candidate &b) {
    if (a.cost != b.cost)
      return a.cost < b.cost;
    return a.text < b.text;
  }

private:
  unsigned keep;
  std::vector<Candidate> candidates;
};

struct KernelState {
  MuGraph graph;
  SmallVector<unsigned, 12> uses;
  OpKey lastKey;
};

struct KernelChoice {
  OpKey key;
  KernelOp op;
  SmallVector<KernelTensor, 2> results;
};

class Generator {
public:
  Generator(SearchContext &context, SkeletonEnumerator &skeletons)
      : context(context), options(context.options), skeletons(skeletons) {}

  void getChoices(const KernelState &state,
                  std::vector<KernelChoice> &choices);
  void apply(KernelState &state, const KernelChoice &choice);
  void expand(KernelState &state, CandidatePool &pool);

private:
  void undo(KernelState &state, const OpKey &previousKey);
  /// The tensors that compute the program's outputs, if all are present
  /// and no operator is dead.
  std::optional<SmallVector<unsigned, 1>> findOutputs(const KernelState &state);
  void schedule(const KernelState &state, ArrayRef<unsigned> outputs,
                CandidatePool &pool);
  std::shared_ptr<const std::vector<Schedule>>
  getSchedules(const std::shared_ptr<const BlockSkeleton> &skeleton);

  SearchContext &context;
  const SearchOptions &options;
  SkeletonEnumerator &skeletons;
  std::mutex schedulesMutex;
  std::map<const BlockSkeleton *, std::shared_ptr<const std::vector<Schedule>>>
      scheduleCache;
};

void Generator::getChoices(const KernelState &state,
                           std::vector<KernelChoice> &choices) {
  const MuGraph &graph = state.graph;
  SmallVector<ValueRef, 16> values;
  for (auto [index, tensor] : llvm::enumerate(graph.tensors))
    values.push_back({static_cast<unsigned>(index), &tensor.shape, tensor.expr});

  SmallVector<OpChoice, 32> predefined;
  context.enumerateOps(values, context.kernelVocabulary, state.lastKey,
                       predefined);
  for (OpChoice &choice : predefined) {
    KernelChoice kernel;
    const OpTemplate &t = context.kernelVocabulary[choice.templateIndex];
    kernel.op.kind = t.kind;
    kernel.op.params = choice.params;
    kernel.op.operands.assign(choice.operands.begin(), choice.operands.end());
    kernel.results.push_back(std::move(choice.result));
    kernel.key = std::move(choice.key);
    choices.push_back(std::move(kernel));
  }

  if (graph.getNumCustomOps() < options.maxCustomOps) {
    // Graph-defined kernels over every subset of the tensors, smallest
    // first; their key follows the predefined operators'.
    int64_t customIndex = context.kernelVocabulary.size();
    unsigned count = graph.tensors.size();
    SmallVector<unsigned, 4> subset;
    std::function<void(unsigned)> visit = [&](unsigned next) {
      if (!subset.empty()) {
        OpKey base{static_cast<int64_t>(subset.back()), customIndex};
        base.append(subset.begin(), subset.end());
        OpKey largest = base;
        largest.push_back(std::numeric_limits<int64_t>::max());
        if (keyLess(state.lastKey, largest)) {
          SmallVector<KernelTensor, 4> operands;
          for (unsigned id : subset)
            operands.push_back(graph.tensors[id]);
          auto list = skeletons.get(operands);
          if (context.isStopped())
            return;
          for (auto [index, skeleton] : llvm::enumerate(*list)) {
            OpKey key = base;
            key.push_back(index);
            if (!keyLess(state.lastKey, key))
              continue;
            KernelChoice kernel;
            kernel.key = std::move(key);
            kernel.op.skeleton = skeleton;
            kernel.op.operands.assign(subset.begin(), subset.end());
            bool fresh = !options.abstractExprPruning;
            for (unsigned output : skeleton->outputs) {
              const BlockNode &node = skeleton->nodes[output];
              kernel.results.push_back({node.shape, node.expr});
              fresh |= llvm::none_of(graph.tensors, [&](const KernelTensor &t) {
                return t.expr == node.expr && t.shape == node.shape;
              });
            }
            if (fresh)
              choices.push_back(std::move(kernel));
          }
        }
      }
      if (subset.size() == options.maxCustomInputs)
        return;
      for (unsigned id = next; id < count; ++id) {
        subset.push_back(id);
        visit(id + 1);
        subset.pop_back();
      }
    };
    visit(0);
  }
  // Keys are unique, so the order is total.
  llvm::sort(choices, [](const KernelChoice &a, const KernelChoice &b) {
    return keyLess(a.key, b.key);
  });
}

void Generator::apply(KernelState &state, const KernelChoice &choice) {
  KernelOp op = choice.op;
  for (unsigned operand : op.operands)
    ++state.uses[operand];
  for (const KernelTensor &result : choice.results) {
    op.results.push_back(state.graph.tensors.size());
    state.graph.tensors.push_back(result);
    state.uses.push_back(0);
  }
  state.graph.ops.push_back(std::move(op));
  state.lastKey = choice.key;
}

void Generator::undo(KernelState &state, const OpKey &previousKey) {
  const KernelOp &op = state.graph.ops.back();
  for (unsigned operand : op.operands)
    --state.uses[operand];
  for (size_t r = 0; r < op.results.size(); ++r) {
    state.graph.tensors.pop_back();
    state.uses.pop_back();
  }
  state.graph.ops.pop_back();
  state.lastKey = previousKey;
}

std::optional<SmallVector<unsigned, 1>>
Generator::findOutputs(const KernelState &state) {
  const MuGraph &graph = state.graph;
  const MuGraph &reference = context.problem.reference;
  SmallVector<unsigned, 1> outputs;
  std::optional<std::vector<std::optional<AxisLabels>>> labels;
  for (auto [index, target] : llvm::enumerate(reference.outputs)) {
    const KernelTensor &wanted = reference.tensors[target];
    std::optional<unsigned> found;
    // The newest match: earlier ones would leave later operators dead.
    for (unsigned t = graph.tensors.size(); t-- > graph.numInputs;) {
      const KernelTensor &tensor = graph.tensors[t];
      if (tensor.shape != wanted.shape ||
          !context.isEquivalent(tensor.expr, wanted.expr))
        continue;
      if (!labels)
        labels = labelTensors(graph);
      if (sameLabels((*labels)[t], context.targetLabels[index],
                     wanted.shape)) {
        found = t;
        break;
      }
    }
    if (!found)
      return std::nullopt;
    outputs.push_back(*found);
  }
  for (const KernelOp &op : graph.ops)
    if (llvm::none_of(op.results, [&](unsigned r) {
          return state.uses[r] > 0 || llvm::is_contained(outputs, r);
        }))
      return std::nullopt;
  return outputs;
}

void Generator::expand(KernelState &state, CandidatePool &pool) {
  if (context.isStopped())
    return;
  ++context.kernelGraphs;
  unsigned bytes = context.problem.elementBytes;
  double lowerBound =
      state.graph.ops.empty()
          ? 0
          : estimateLowerBound(state.graph, bytes, options.device);
  if (lowerBound > context.costBound.get()) {
    ++context.boundedGraphs;
    return;
  }
  if (!state.graph.ops.empty()) {
    if (auto outputs = findOutputs(state)) {
      schedule(state, *outputs, pool);
      return;
    }
  }
  if (state.graph.ops.size() >= options.maxKernelOps)
    return;
  // Completing the graph takes at least one more kernel (a launch), and
  // some kernel must read each required input that none reads yet.
  double unreadBytes = 0;
  for (unsigned i = 0; i < state.graph.numInputs; ++i)
    if (state.uses[i] == 0 && context.inputRequired[i])
      unreadBytes += static_cast<double>(
                         getNumElements(state.graph.tensors[i].shape)) *
                     bytes;
  if (lowerBound + options.device.launchUs +
          unreadBytes / options.device.dramBytesPerUs >
      context.costBound.get()) {
    ++context.boundedGraphs;
    return;
  }
  std::vector<KernelChoice> choices;
  getChoices(state, choices);
  OpKey previous = state.lastKey;
  for (const KernelChoice &choice : choices) {
    apply(state, choice);
    expand(state, pool);
    undo(state, previous);
  }
}

std::shared_ptr<const std::vector<Schedule>> Generator::getSchedules(
    const std::shared_ptr<const BlockSkeleton> &skeleton) {
  {
    std::lock_guard<std::mutex> lock(schedulesMutex);
    auto it = scheduleCache.find(skeleton.get());
    if (it != scheduleCache.end())
      return it->second;
  }
  auto schedules = std::make_shared<std::vector<Schedule>>(enumerateSchedules(
      *skeleton, context.problem.elementBytes, options, context.exprs,
      &context.getChecker()));
  context.schedules += schedules->size();
  if (schedules->empty())
    ++context.rejectedSchedules;
  std::lock_guard<std::mutex> lock(schedulesMutex);
  // Skeletons live as long as the enumerator's memo, so the address stays
  // a valid key.
  return scheduleCache.emplace(skeleton.get(), std::move(schedules))
      .first->second;
}

void Generator::schedule(const KernelState &state, ArrayRef<unsigned> outputs,
                         CandidatePool &pool) {
  ++context.completeGraphs;
  MuGraph graph = state.graph;
  graph.outputs.assign(outputs.begin(), outputs.end());
  // The same graph without its dead work is enumerated too: this one must
  // not rank next to it as a distinct candidate. Its cost still tightens
  // the bound, as it did when such graphs ranked: without them small
  // problems have fewer than `keep` candidates and nothing is bounded.
  bool deadWork = hasDeadOps(graph);
  unsigned bytes = context.problem.elementBytes;
  const DeviceModel &device = options.device;

  // Each graph-defined kernel's best schedules with the others fixed at
  // their first; then every combination of those.
  SmallVector<size_t, 2> customOps;
  SmallVector<std::vector<const Schedule *>, 2> scheduleChoices;
  for (auto [index, op] : llvm::enumerate(graph.ops)) {
    if (!op.isCustom())
      continue;
    auto schedules = getSchedules(op.skeleton);
    if (schedules->empty())
      return;
    customOps.push_back(index);
    scheduleChoices.emplace_back();
    for (const Schedule &s : *schedules)
      scheduleChoices.back().push_back(&s);
  }
  for (auto [slot, index] : llvm::enumerate(customOps))
    graph.ops[index].schedule = *scheduleChoices[slot].front();
  for (auto [slot, index] : llvm::enumerate(customOps)) {
    // (cost, enumeration order): a total order.
    std::vector<std::pair<double, size_t>> ranked;
    for (auto [order, s] : llvm::enumerate(scheduleChoices[slot])) {
      graph.ops[index].schedule = *s;
      ranked.push_back({estimateCost(graph, bytes, device), order});
    }
    llvm::sort(ranked);
    std::vector<const Schedule *> best;
    for (size_t r = 0; r < ranked.size() && r < kSchedulesPerGraph; ++r)
      best.push_back(scheduleChoices[slot][ranked[r].second]);
    scheduleChoices[slot] = std::move(best);
    graph.ops[index].schedule = *scheduleChoices[slot].front();
  }
  // The caller's test runs once per kernel graph, on its first schedule
  // cheap enough to rank: an equivalence that only some schedules break is
  // the verifier's to find.
  std::optional<bool> accepted;
  std::function<void(size_t)> combine = [&](size_t slot) {
    if (slot == customOps.size()) {
      Candidate candidate;
      candidate.graph = graph;
      candidate.cost = estimateCost(graph, bytes, device);
      // Above the bound, `keep` accepted candidates are cheaper: it could
      // not rank, so it is not worth testing.
      double cost = candidate.cost;
      if (cost > context.costBound.get())
        return;
      candidate.text = printMuGraph(graph);
      if (!accepted)
        accepted = context.accept(candidate);
      if (!*accepted)
        return;
      if (deadWork || pool.add(std::move(candidate)))
        context.costBound.add(cost);
      return;
    }
    for (const Schedule *s : scheduleChoices[slot]) {
      graph.ops[customOps[slot]].schedule = *s;
      combine(slot + 1);
    }
  };
  combine(0);
}

//===----------------------------------------------------------------------===//
// Checkpoints
//===----------------------------------------------------------------------===//

std::string getOptionsFingerprint(const SearchOptions &options) {
  return llvm::formatv("kernel-ops {0} block-ops {1} custom-ops {2} "
                       "custom-inputs {3} block-outputs {4} pruning {5} "
                       "keep {6} threads-per-block {7} max-blocks {8} "
                       "device {9}",
                       options.maxKernelOps, options.maxBlockOps,
                       options.maxCustomOps, options.maxCustomInputs,
                       options.maxBlockOutputs, options.abstractExprPruning,
                       options.keep, options.threadsPerBlock,
                       options.maxBlocks, options.device.name)
      .str();
}

struct Checkpoint {
  std::string problem, options;
  size_t branches = 0;
  std::map<size_t, std::vector<Candidate>> done;
};

llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// Reads a checkpoint; std::nullopt when there is no file yet.
llvm::Expected<std::optional<llvm::json::Object>>
readCheckpoint(llvm::StringRef path) {
  if (!llvm::sys::fs::exists(path))
    return std::nullopt;
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    return makeError("cannot read checkpoint '" + path +
                     "': " + buffer.getError().message());
  auto parsed = llvm::json::parse((*buffer)->getBuffer());
  if (!parsed)
    return makeError("checkpoint '" + path +
                     "' is not JSON: " + llvm::toString(parsed.takeError()));
  if (!parsed->getAsObject())
    return makeError("checkpoint '" + path + "' is not a JSON object");
  return std::optional<llvm::json::Object>(std::move(*parsed->getAsObject()));
}

llvm::Error writeFileAtomically(llvm::StringRef path, llvm::StringRef text) {
  std::string temporary = (path + ".tmp").str();
  std::error_code error;
  {
    llvm::raw_fd_ostream os(temporary, error);
    if (error)
      return makeError("cannot write checkpoint '" + temporary +
                       "': " + error.message());
    os << text;
  }
  if (std::error_code renamed = llvm::sys::fs::rename(temporary, path))
    return makeError("cannot rename checkpoint to '" + path +
                     "': " + renamed.message());
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// Progress
//===----------------------------------------------------------------------===//

/// Prints a line every interval until stopped.
class ProgressReporter {
public:
  ProgressReporter(llvm::raw_ostream *os, double interval,
                   std::function<std::string()> line)
      : os(os), interval(interval), line(std::move(line)) {
    if (os && interval > 0)
      thread = std::thread([this] { run(); });
  }
  ~ProgressReporter() {
    {
      std::lock_guard<std::mutex> lock(mutex);
      done = true;
    }
    wake.notify_all();
    if (thread.joinable())
      thread.join();
  }

private:
  void run() {
    std::unique_lock<std::mutex> lock(mutex);
    while (!wake.wait_for(lock, std::chrono::duration<double>(interval),
                          [this] { return done; })) {
      *os << line() << "\n";
      os->flush();
    }
  }

  llvm::raw_ostream *os;
  double interval;
  std::function<std::string()> line;
  std::mutex mutex;
  std::condition_variable wake;
  bool done = false;
  std::thread thread;
};

} // namespace

//===----------------------------------------------------------------------===//
// The search
//===----------------------------------------------------------------------===//

llvm::Expected<SearchResult>
search::superoptimize(const Problem &problem, ExprContext &exprs,
                      const SearchOptions &options) {
  auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                         start)
        .count();
  };
  SearchContext context(problem, exprs, options);
  unsigned threads = options.threads ? options.threads
                                     : llvm::hardware_concurrency().compute_thread_count();
  llvm::StdThreadPool pool(llvm::hardware_concurrency(threads));
  context.pool = &pool;
  SkeletonEnumerator skeletons(context);
  Generator generator(context, skeletons);

  std::string problemText = problem.getFingerprint(exprs);
  std::string optionsText = getOptionsFingerprint(options);
  SmallVector<KernelTensor, 4> inputs(
      problem.reference.tensors.begin(),
      problem.reference.tensors.begin() + problem.reference.numInputs);

  // Resume: finished branches and block-graph lists of an earlier run.
  std::map<size_t, std::vector<Candidate>> resumed;
  std::optional<size_t> savedBranches;
  if (!options.checkpointPath.empty()) {
    auto saved = readCheckpoint(options.checkpointPath);
    if (!saved)
      return saved.takeError();
    if (*saved) {
      llvm::json::Object &object = **saved;
      if (object.getString("problem") != llvm::StringRef(problemText))
        return makeError("checkpoint '" + options.checkpointPath +
                         "' belongs to another program; remove it or choose "
                         "another path");
      if (object.getInteger("version") != kCheckpointVersion)
        return makeError("checkpoint '" + options.checkpointPath +
                         "' has another format version; remove it");
      if (object.getString("options") != llvm::StringRef(optionsText))
        return makeError("checkpoint '" + options.checkpointPath +
                         "' was written with other search options (" +
                         object.getString("options").value_or("none") +
                         "); remove it or rerun with those options");
      if (llvm::json::Object *lists = object.getObject("skeletons"))
        skeletons.restore(*lists);
      if (std::optional<int64_t> count = object.getInteger("branches"))
        savedBranches = static_cast<size_t>(*count);
      if (llvm::json::Array *done = object.getArray("done")) {
        for (llvm::json::Value &entry : *done) {
          llvm::json::Object *branch = entry.getAsObject();
          std::optional<int64_t> index =
              branch ? branch->getInteger("branch") : std::nullopt;
          llvm::json::Array *candidates =
              branch ? branch->getArray("candidates") : nullptr;
          if (!index || !candidates)
            return makeError("checkpoint '" + options.checkpointPath +
                             "' has a malformed finished branch");
          std::vector<Candidate> &list = resumed[*index];
          for (llvm::json::Value &c : *candidates) {
            llvm::json::Object *co = c.getAsObject();
            const llvm::json::Value *graphValue = co ? co->get("graph") : nullptr;
            std::optional<double> cost = co ? co->getNumber("cost") : std::nullopt;
            if (!graphValue || !cost)
              return makeError("checkpoint '" + options.checkpointPath +
                               "' has a malformed candidate");
            auto graph = muGraphFromJSON(*graphValue, inputs, exprs);
            if (!graph)
              return makeError("checkpoint '" + options.checkpointPath +
                               "': " + llvm::toString(graph.takeError()));
            Candidate candidate;
            candidate.graph = std::move(*graph);
            candidate.cost = *cost;
            candidate.text = printMuGraph(candidate.graph);
            list.push_back(std::move(candidate));
          }
        }
      }
    }
  }

  KernelState root;
  root.graph.numInputs = problem.reference.numInputs;
  root.graph.tensors.assign(inputs.begin(), inputs.end());
  root.uses.assign(inputs.size(), 0);

  std::atomic<unsigned> branchesDone{0};
  std::atomic<size_t> branchCount{0};
  std::atomic<double> exploreStart{0.0};
  // One short line: the phase, how far it got, candidates so far, and what
  // remains: the time budget's rest, or (without one) the branches left at
  // the pace of those done, which is rough (branches differ in size).
  auto progressLine = [&](bool finished) {
    double now = elapsed();
    std::string line =
        llvm::formatv("[mirage-superoptimize] {0:f0} s: ", now).str();
    size_t total = branchCount.load(), done = branchesDone.load();
    if (finished)
      line += "done: ";
    if (!total)
      line += llvm::formatv("listing the kernel graphs to explore ({0} block "
                            "graphs built)",
                            context.blockGraphs.load());
    else
      line += llvm::formatv("explored {0} of {1} kernel-graph branches "
                            "({2:f0}%)",
                            done, total, 100.0 * done / total);
    line += llvm::formatv(", {0} candidates screened",
                          context.testedCandidates.load());
    if (finished)
      return line;
    std::optional<double> pace, budget;
    if (total && done)
      pace = (now - exploreStart.load()) * double(total - done) / done;
    if (options.timeBudget > 0)
      budget = std::max(0.0, options.timeBudget - now);
    if (budget && (!pace || *budget < *pace))
      line += llvm::formatv("; at most {0:f0} s left (time budget)", *budget);
    else if (pace)
      line += llvm::formatv("; about {0:f0} s left", *pace);
    return line;
  };
  ProgressReporter reporter(options.progress, options.progressInterval,
                            [&] { return progressLine(false); });

  std::vector<KernelChoice> branches;
  generator.getChoices(root, branches);
  exploreStart = elapsed();
  branchCount = branches.size();
  // A budget spent while listing the branches leaves the list partial: then
  // nothing is explored or saved.
  bool branchesListed = !context.isStopped();
  if (branchesListed && savedBranches && *savedBranches != branchCount)
    return makeError("checkpoint '" + options.checkpointPath + "' has " +
                     llvm::Twine(*savedBranches) + " branches, this search " +
                     llvm::Twine(branchCount) + "; remove it");

  std::vector<std::vector<Candidate>> results(branchCount);
  std::vector<bool> finished(branchCount, false);
  for (auto &[index, list] : resumed) {
    if (index >= branchCount)
      continue;
    for (const Candidate &candidate : list)
      context.costBound.add(candidate.cost);
    results[index] = std::move(list);
    finished[index] = true;
    ++branchesDone;
  }
  unsigned resumedCount = branchesDone;

  std::mutex checkpointMutex;
  std::optional<llvm::Error> checkpointError;
  auto lastSave = std::chrono::steady_clock::now();
  // Streamed: a tree of json::Values for every block graph of a large
  // search takes gigabytes. Candidates above the cost bound are left out;
  // they can never rank again.
  auto saveCheckpoint = [&] {
    std::string text;
    llvm::raw_string_ostream os(text);
    llvm::json::OStream json(os);
    double bound = context.costBound.get();
    json.object([&] {
      json.attribute("version", kCheckpointVersion);
      json.attribute("problem", problemText);
      json.attribute("options", optionsText);
      json.attribute("branches", static_cast<int64_t>(branchCount));
      json.attributeArray("done", [&] {
        for (size_t b = 0; b < branchCount; ++b) {
          if (!finished[b])
            continue;
          json.object([&] {
            json.attribute("branch", static_cast<int64_t>(b));
            json.attributeArray("candidates", [&] {
              for (const Candidate &c : results[b])
                if (c.cost <= bound)
                  json.value(llvm::json::Object{{"graph", toJSON(c.graph)},
                                                {"cost", c.cost}});
            });
          });
        }
      });
      json.attributeBegin("skeletons");
      skeletons.writeJSON(json);
      json.attributeEnd();
    });
    if (llvm::Error error =
            writeFileAtomically(options.checkpointPath, text)) {
      if (!checkpointError)
        checkpointError = std::move(error);
      else
        llvm::consumeError(std::move(error));
    }
  };

  {
    // Waited for from this thread, which is not one of the pool's, so the
    // wait only blocks (a pool thread would run other queued tasks, see
    // workSharingFor). Nothing on the pool's threads waits for a group.
    //
    // Queued last first: the last branches are graph-defined kernels over
    // subsets that end with the last input (all the inputs among them),
    // whose fused candidates are usually the cheapest and tighten the cost
    // bound for the rest. On the small RMSNorm + Linear search
    // (one thread) list order explores 734k kernel graphs in 5.2 s, last
    // first 8.9k in 0.5 s. The results are merged in branch order, so the
    // order changes only the time.
    llvm::ThreadPoolTaskGroup group(pool);
    for (size_t r = 0; r < branchCount && !context.isStopped(); ++r) {
      size_t b = branchCount - 1 - r;
      if (finished[b])
        continue;
      group.async([&, b] {
        KernelState state = root;
        generator.apply(state, branches[b]);
        CandidatePool candidates(options.keep);
        generator.expand(state, candidates);
        std::vector<Candidate> list = candidates.take();
        std::lock_guard<std::mutex> lock(checkpointMutex);
        results[b] = std::move(list);
        if (context.isStopped())
          return;
        finished[b] = true;
        ++branchesDone;
        auto now = std::chrono::steady_clock::now();
        if (!options.checkpointPath.empty() &&
            now - lastSave >= kCheckpointInterval) {
          saveCheckpoint();
          lastSave = now;
        }
      });
    }
    group.wait();
  }
  if (!options.checkpointPath.empty() && branchesListed)
    saveCheckpoint();
  if (checkpointError)
    return std::move(*checkpointError);

  SearchResult result;
  CandidatePool merged(options.keep);
  for (std::vector<Candidate> &list : results)
    for (Candidate &candidate : list)
      merged.add(std::move(candidate));
  result.candidates = merged.take();

  SearchStats &stats = result.stats;
  stats.kernelGraphs = context.kernelGraphs;
  stats.blockGraphs = context.blockGraphs;
  stats.completeGraphs = context.completeGraphs;
  stats.schedules = context.schedules;
  stats.rejectedSchedules = context.rejectedSchedules;
  stats.boundedGraphs = context.boundedGraphs;
  stats.testedCandidates = context.testedCandidates;
  stats.rejectedCandidates = context.rejectedCandidates;
  stats.branches = branchCount;
  stats.branchesDone = branchesDone;
  stats.branchesResumed = resumedCount;
  stats.subexpr = context.cache->getStats();
  stats.seconds = elapsed();
  if (context.isStopped())
    result.incomplete =
        llvm::formatv("{0} with {1} of {2} branches finished",
                      context.blockGraphs >= options.maxBlockGraphs
                          ? llvm::formatv("the limit of {0} block graphs was "
                                          "reached",
                                          options.maxBlockGraphs)
                                .str()
                          : llvm::formatv("the time budget of {0} s ran out",
                                          options.timeBudget)
                                .str(),
                      stats.branchesDone, branchCount)
            .str();
  if (options.progress)
    *options.progress << progressLine(true) << "\n";
  return result;
}
