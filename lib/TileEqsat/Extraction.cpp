//===- Extraction.cpp - Two-pass extraction of tile programs --------------===//
//
// Part of the Mirage MLIR project.
//
//===----------------------------------------------------------------------===//

#include "mirage/TileEqsat/Extraction.h"

#include "mirage/EGraph/Extract.h"
#include "mirage/TileEqsat/Analysis.h"
#include "mirage/TileEqsat/Saturation.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringSet.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <deque>
#include <queue>
#include <set>

using namespace mirage;
using namespace mirage::tile;
using namespace mirage::egraph;
using llvm::ArrayRef;
using llvm::Expected;
using llvm::SmallVector;
using llvm::StringRef;
using llvm::Twine;

//===----------------------------------------------------------------------===//
// Sampling
//===----------------------------------------------------------------------===//

namespace {
class Sampler {
public:
  Sampler(const EGraph &graph, uint64_t seed) : graph(graph), rng(seed) {}

  std::optional<unsigned> build(EClassId cls,
                                std::optional<ENodeId> forced = std::nullopt) {
    cls = graph.find(cls);
    if (!forced)
      if (auto it = memo.find(cls); it != memo.end())
        return it->second;
    // A class may be entered again below itself once (a loop whose body is
    // its own class after code motion): a tree, not a cycle.
    unsigned &depth = onStack[cls];
    if (depth >= 2)
      return std::nullopt;
    ++depth;
    std::vector<ENodeId> nodes;
    if (forced)
      nodes.push_back(*forced);
    else
      nodes.assign(graph.getClassNodes(cls).begin(),
                   graph.getClassNodes(cls).end());
    std::shuffle(nodes.begin(), nodes.end(), rng);
    std::optional<unsigned> result;
    for (ENodeId id : nodes) {
      ENode node = graph.getNode(id);
      bool ok = true;
      for (EClassId &child : node.children) {
        std::optional<unsigned> index = build(child);
        if (!index) {
          ok = false;
          break;
        }
        child = *index;
      }
      if (ok) {
        result = term.add(std::move(node));
        break;
      }
    }
    --onStack[cls];
    if (result && !forced && !memo.count(cls))
      memo[cls] = *result;
    return result;
  }

  Term take() { return std::move(term); }

private:
  const EGraph &graph;
  std::mt19937_64 rng;
  Term term;
  llvm::DenseMap<EClassId, unsigned> memo;
  llvm::DenseMap<EClassId, unsigned> onStack;
};
} // namespace

Term mirage::tile::sampleTerm(const EGraph &graph, EClassId root,
                              uint64_t seed, std::optional<ENodeId> rootNode) {
  Sampler sampler(graph, seed);
  if (!sampler.build(root, rootNode))
    return Term();
  return sampler.take();
}

//===----------------------------------------------------------------------===//
// Dead stores
//===----------------------------------------------------------------------===//

namespace {
/// Copies a term, leaving out stores to `dead` tensors and the loops and
/// sequences they leave empty.
class Pruner {
public:
  Pruner(const TileContext &context, const Term &from,
         const std::set<SymbolId> &dead)
      : ops(context.getOps()), from(from), dead(dead) {}

  std::optional<unsigned> statement(unsigned i) {
    const ENode &node = from[i];
    if (node.op == ops.dummy)
      return std::nullopt;
    if (node.op == ops.store) {
      if (dead.count(from[node.children[0]].payload.getSymbol()))
        return std::nullopt;
      return value(i);
    }
    if (node.op == ops.seq) {
      std::optional<unsigned> a = statement(node.children[0]);
      std::optional<unsigned> b = statement(node.children[1]);
      if (!a)
        return b;
      if (!b)
        return a;
      return to.add(ENode(ops.seq, {*a, *b}));
    }
    if (node.op == ops.loop) {
      std::optional<unsigned> body = statement(node.children[3]);
      if (!body)
        return std::nullopt;
      ENode copy = node;
      for (unsigned c = 0; c < 3; ++c)
        copy.children[c] = value(node.children[c]);
      copy.children[3] = *body;
      return to.add(std::move(copy));
    }
    return value(i);
  }

  unsigned value(unsigned i) {
    if (auto it = copied.find(i); it != copied.end())
      return it->second;
    ENode copy = from[i];
    for (EClassId &child : copy.children)
      child = value(child);
    unsigned index = to.add(std::move(copy));
    copied[i] = index;
    return index;
  }

  Term take() { return std::move(to); }

private:
  const TileOps &ops;
  const Term &from;
  const std::set<SymbolId> &dead;
  Term to;
  llvm::DenseMap<unsigned, unsigned> copied;
};
} // namespace

/// `term` with node `root` last (the nodes it reaches, in order).
static Term reroot(const Term &term, unsigned root) {
  if (root == term.getRoot())
    return term;
  std::vector<int> index(term.size(), -1);
  std::vector<bool> reached(term.size(), false);
  reached[root] = true;
  for (int i = int(root); i >= 0; --i)
    if (reached[i])
      for (EClassId child : term[i].children)
        reached[child] = true;
  Term out;
  for (unsigned i = 0; i <= root; ++i) {
    if (!reached[i])
      continue;
    ENode node = term[i];
    for (EClassId &child : node.children)
      child = index[child];
    index[i] = out.add(std::move(node));
  }
  return out;
}

Term mirage::tile::removeDeadStores(const TileContext &context,
                                    const Term &term) {
  const TileOps &ops = context.getOps();
  Term current = term;
  while (!current.empty()) {
    // Tensors written, and tensors read by a store of another tensor.
    std::set<SymbolId> written, read;
    for (const ENode &node : current.getNodes()) {
      if (node.op != ops.store)
        continue;
      SymbolId target = current[node.children[0]].payload.getSymbol();
      written.insert(target);
      std::vector<unsigned> work{node.children[1]};
      std::set<unsigned> seen;
      while (!work.empty()) {
        unsigned v = work.back();
        work.pop_back();
        if (!seen.insert(v).second)
          continue;
        const ENode &value = current[v];
        if (value.op == ops.load) {
          SymbolId source = current[value.children[0]].payload.getSymbol();
          if (source != target)
            read.insert(source);
          continue;
        }
        for (unsigned child : value.children)
          work.push_back(child);
      }
    }
    std::set<SymbolId> dead;
    for (SymbolId tensor : written) {
      const TensorInfo *info = context.getTensor(tensor);
      if (info && info->kind == TensorKind::Variable && !read.count(tensor))
        dead.insert(tensor);
    }
    if (dead.empty())
      return current;
    Pruner pruner(context, current, dead);
    std::optional<unsigned> root = pruner.statement(current.getRoot());
    Term pruned = pruner.take();
    if (!root) {
      Term empty;
      empty.add(ENode(ops.dummy));
      return empty;
    }
    current = reroot(pruned, *root);
  }
  return current;
}

//===----------------------------------------------------------------------===//
// Pass 1: loop structures
//===----------------------------------------------------------------------===//

namespace {

struct Semi {
  enum class Kind : uint8_t { Seq, Loop, Body };
  Kind kind = Kind::Body;
  /// Seq and Loop: the e-node; Body: the class.
  uint32_t id = 0;
  const Semi *first = nullptr, *second = nullptr;
  uint32_t kernels = 0, loops = 0;
  /// Block-graph target: sequential loops of the kernel this is part of.
  uint32_t sequential = 0;
};

bool fewer(const Semi *a, const Semi *b) {
  return std::tie(a->kernels, a->loops) < std::tie(b->kernels, b->loops);
}

/// Where a class is enumerated. Trinity's extraction only tells the top
/// level (loops there are kernels) from the rest (InLoop). For block graphs
/// a kernel is a nest of up to three independent loops (its grid), then a
/// chain of statements (Block) with at most one loop in it, whose body
/// (SeqLoop) holds no loop.
enum class Where : uint8_t { Top, InLoop, Grid1, Grid2, Grid3, Block, SeqLoop };

class StructureEnumerator {
public:
  StructureEnumerator(const EGraph &graph, const TileAnalysis &analysis,
                      unsigned topK, unsigned innerCap, bool blockGraphs)
      : graph(graph), analysis(analysis), ops(analysis.getContext().getOps()),
        topK(topK), innerCap(innerCap), blockGraphs(blockGraphs) {}

  const std::vector<const Semi *> &enumerate(EClassId cls, unsigned budget,
                                             Where where) {
    cls = graph.find(cls);
    if (where != Where::Top)
      budget = 0;
    Key key{cls, budget, where};
    if (auto it = memo.find(key); it != memo.end())
      return it->second;
    if (!active.insert({cls, where}).second)
      return empty;
    unsigned cap = where == Where::Top ? topK : innerCap;
    std::vector<const Semi *> results;
    bool body = false;
    for (ENodeId id : graph.getClassNodes(cls)) {
      const ENode &node = graph.getNode(id);
      if (node.op == ops.seq) {
        // Non-canonical sequences have canonical twins in the class.
        if (!graph.getClassNodesWithOp(node.children[0], ops.seq).empty())
          continue;
        Where inner = where;
        if (where == Where::Grid1 || where == Where::Grid2 ||
            where == Where::Grid3)
          inner = Where::Block;
        const std::vector<const Semi *> &a =
            enumerate(node.children[0], budget, inner);
        if (a.empty())
          continue;
        const std::vector<const Semi *> &b =
            enumerate(node.children[1], budget, inner);
        combine(id, a, b, budget, cap, inner == Where::Block ? 1 : ~0u,
                results);
        continue;
      }
      if (node.op == ops.loop) {
        unsigned own = where == Where::Top ? 1 : 0;
        if (own > budget || where == Where::SeqLoop)
          continue;
        // Where the body goes, and whether this loop is the kernel's
        // sequential one.
        Where inner = Where::InLoop;
        bool sequential = false;
        if (blockGraphs) {
          bool parallel = isParallelLoop(analysis.getContext(),
                                         analysis.get(node.children[3]),
                                         node.payload.getSymbol());
          switch (where) {
          case Where::Top:
            inner = parallel ? Where::Grid1 : Where::SeqLoop;
            break;
          case Where::Grid1:
            inner = parallel ? Where::Grid2 : Where::SeqLoop;
            break;
          case Where::Grid2:
            inner = parallel ? Where::Grid3 : Where::SeqLoop;
            break;
          case Where::Grid3:
          case Where::InLoop:
          case Where::Block:
          case Where::SeqLoop:
            inner = Where::SeqLoop;
            break;
          }
          sequential = inner == Where::SeqLoop;
        }
        const std::vector<const Semi *> &bodies =
            enumerate(node.children[3], 0, inner);
        for (const Semi *b : bodies) {
          Semi &s = arena.emplace_back();
          s.kind = Semi::Kind::Loop;
          s.id = id;
          s.first = b;
          s.kernels = own;
          s.loops = 1 + b->loops;
          s.sequential = where == Where::Top ? 0 : b->sequential + sequential;
          results.push_back(&s);
          if (results.size() >= 4 * cap)
            break;
        }
        continue;
      }
      if (body)
        continue;
      body = true;
      unsigned own =
          where != Where::Top || node.op == ops.dummy || isInit(cls) ? 0 : 1;
      if (own > budget)
        continue;
      Semi &s = arena.emplace_back();
      s.kind = Semi::Kind::Body;
      s.id = cls;
      s.kernels = own;
      results.push_back(&s);
    }
    llvm::stable_sort(results, fewer);
    if (results.size() > cap)
      results.resize(cap);
    active.erase({cls, where});
    return memo[key] = std::move(results);
  }

private:
  using Key = std::tuple<EClassId, unsigned, Where>;

  /// Whether every statement of the class zero-initializes a tensor (such a
  /// statement belongs to the kernel that sums into it: no kernel of its
  /// own).
  bool isInit(EClassId cls) const {
    bool any = false;
    for (ENodeId id : graph.getClassNodes(cls)) {
      const ENode &node = graph.getNode(id);
      if (node.op == ops.seq || node.op == ops.loop)
        continue;
      if (node.op != ops.store)
        return false;
      const TileData &value = analysis.get(node.children[1]);
      if (!value.constant || *value.constant != 0)
        return false;
      any = true;
    }
    return any;
  }

  /// The best `cap` pairs of `a` x `b` within the budget, best first, with
  /// at most `maxSequential` sequential loops together.
  void combine(ENodeId id, const std::vector<const Semi *> &a,
               const std::vector<const Semi *> &b, unsigned budget,
               unsigned cap, unsigned maxSequential,
               std::vector<const Semi *> &out) {
    if (a.empty() || b.empty())
      return;
    using Entry = std::tuple<uint32_t, uint32_t, uint32_t, uint32_t>;
    std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> heap;
    std::set<std::pair<uint32_t, uint32_t>> queued;
    auto push = [&](uint32_t i, uint32_t j) {
      if (i >= a.size() || j >= b.size() || !queued.insert({i, j}).second)
        return;
      heap.push({a[i]->kernels + b[j]->kernels, a[i]->loops + b[j]->loops, i,
                 j});
    };
    push(0, 0);
    unsigned produced = 0;
    while (!heap.empty() && produced < cap) {
      auto [kernels, loops, i, j] = heap.top();
      heap.pop();
      if (kernels > budget)
        continue;
      push(i + 1, j);
      push(i, j + 1);
      if (a[i]->sequential + b[j]->sequential > maxSequential)
        continue;
      Semi &s = arena.emplace_back();
      s.kind = Semi::Kind::Seq;
      s.id = id;
      s.first = a[i];
      s.second = b[j];
      s.kernels = kernels;
      s.loops = loops;
      s.sequential = a[i]->sequential + b[j]->sequential;
      out.push_back(&s);
      ++produced;
    }
  }

  const EGraph &graph;
  const TileAnalysis &analysis;
  const TileOps &ops;
  unsigned topK, innerCap;
  bool blockGraphs;
  std::map<Key, std::vector<const Semi *>> memo;
  std::set<std::pair<EClassId, Where>> active;
  std::deque<Semi> arena;
  std::vector<const Semi *> empty;
};

//===----------------------------------------------------------------------===//
// Pass 2: greedy completion
//===----------------------------------------------------------------------===//

class Completer {
public:
  Completer(const TileEGraph &egraph, const ExtractionOptions &options,
            bool recompute)
      : recompute(recompute), egraph(egraph), graph(egraph.getGraph()),
        analysis(egraph.getAnalysis()), context(analysis.getContext()),
        ops(context.getOps()), options(options) {}

  Term complete(const Semi *root) {
    term = Term();
    emitted.clear();
    failed = false;
    // The kernels: the elements of the top-level chain.
    std::vector<const Semi *> kernels;
    flatten(root, kernels);
    std::vector<std::pair<const Semi *, std::set<SymbolId>>> parts;
    for (const Semi *kernel : kernels) {
      std::set<SymbolId> written;
      collectWrites(kernel, written);
      parts.push_back({kernel, written});
    }
    std::optional<unsigned> result;
    for (auto &[kernel, written] : llvm::reverse(parts)) {
      kernelWrites = written;
      current = &extractorFor(written);
      unsigned k = build(kernel);
      result = result ? term.add(ENode(ops.seq, {k, *result})) : k;
    }
    if (failed)
      return Term();
    return std::move(term);
  }

private:
  void flatten(const Semi *s, std::vector<const Semi *> &out) {
    if (s->kind == Semi::Kind::Seq) {
      flatten(s->first, out);
      flatten(s->second, out);
      return;
    }
    out.push_back(s);
  }

  void collectWrites(const Semi *s, std::set<SymbolId> &written) {
    if (!s)
      return;
    if (s->kind == Semi::Kind::Body) {
      for (const Access &w : analysis.get(s->id).writes)
        written.insert(w.tensor);
      return;
    }
    collectWrites(s->first, written);
    collectWrites(s->second, written);
  }

  /// Concrete elements of a class's value shape (symbolic dims at the
  /// default tile size).
  double elements(const TileData &d) const {
    double n = 1;
    for (int64_t size : d.shape)
      n *= isSymbolicDim(size) ? double(options.cost.sizes.defaultSize)
                               : double(size);
    return n;
  }
  Shape concrete(const Shape &shape) const {
    Shape out;
    for (int64_t size : shape)
      out.push_back(isSymbolicDim(size) ? options.cost.sizes.defaultSize
                                        : size);
    return out;
  }

  /// FLOPs per computational unit (Trinity 5.2) with loads of tensors the
  /// kernel stores counted as on-chip, others as device traffic.
  double nodeCost(const ENode &node, EClassId cls,
                  const std::set<SymbolId> &onChip,
                  std::optional<SymbolId> excluded) const {
    if (node.op == ops.seq || node.op == ops.loop)
      return INFINITY;
    if (node.op == ops.load) {
      const TileData &tensor = analysis.get(node.children[0]);
      if (excluded && tensor.symbol == *excluded)
        return INFINITY;
      // Recomputing: a propagated value is not reloaded from another
      // kernel (its producer then goes away as a dead store).
      if (recompute && !onChip.count(tensor.symbol) &&
          egraph.getPropagatedTensors().count(tensor.symbol))
        return INFINITY;
      bool chip = onChip.count(tensor.symbol) &&
                  context.getTensor(tensor.symbol) &&
                  context.getTensor(tensor.symbol)->kind ==
                      TensorKind::Variable;
      return elements(analysis.get(cls)) * (chip ? 0.5 : 8.0);
    }
    if (!context.isValueOp(node.op))
      return 0;
    const TileData &out = analysis.get(cls);
    if (out.shapeError)
      return INFINITY;
    SmallVector<Shape, 2> in;
    SmallVector<int64_t> permutation;
    for (auto [i, child] : llvm::enumerate(node.children)) {
      const TileData &d = analysis.get(child);
      if (node.op == ops.permute && i > 0) {
        permutation.push_back(int64_t(d.constant.value_or(0)));
        continue;
      }
      if (d.shapeError)
        return INFINITY;
      in.push_back(concrete(d.shape));
    }
    SmallVector<ArrayRef<int64_t>> refs(in.begin(), in.end());
    auto record = getValueOpRecord(context, node, refs, permutation);
    if (!record) {
      llvm::consumeError(record.takeError());
      return INFINITY;
    }
    Shape result = concrete(out.shape);
    OpWork work = getWork(record->first, refs, result, record->second);
    return 2 * work.multiplyAdds + work.elementOps + 1e-3;
  }

  /// The extractor for a kernel storing `onChip`; with `excluded`, for
  /// the value of a store to that tensor, which must not be a load of it.
  GreedyExtractor &extractorFor(const std::set<SymbolId> &onChip,
                                std::optional<SymbolId> excluded = {}) {
    std::vector<SymbolId> key(onChip.begin(), onChip.end());
    key.push_back(excluded ? *excluded + 1 : 0);
    auto it = extractors.find(key);
    if (it != extractors.end())
      return *it->second;
    auto extractor = std::make_unique<GreedyExtractor>(
        graph, [this, onChip, excluded](const EGraph &, EClassId cls,
                                        const ENode &node,
                                        ArrayRef<double> children) {
          double cost = nodeCost(node, cls, onChip, excluded);
          for (double c : children)
            cost += c;
          return cost;
        });
    GreedyExtractor &result = *extractor;
    extractors[key] = std::move(extractor);
    return result;
  }

  unsigned emitClass(EClassId cls) {
    cls = graph.find(cls);
    auto key = std::make_pair(current, cls);
    if (auto it = emitted.find(key); it != emitted.end())
      return it->second;
    std::optional<ENodeId> best = current->getBestNode(cls);
    if (!best) {
      // No finite choice under this completion's costs.
      failed = true;
      return term.add(ENode(ops.dummy));
    }
    ENode node = graph.getNode(*best);
    for (EClassId &child : node.children)
      child = emitClass(child);
    unsigned index = term.add(std::move(node));
    emitted[key] = index;
    return index;
  }

  unsigned build(const Semi *s) {
    if (s->kind == Semi::Kind::Seq) {
      unsigned a = build(s->first);
      unsigned b = build(s->second);
      return term.add(ENode(ops.seq, {a, b}));
    }
    if (s->kind == Semi::Kind::Loop) {
      ENode node = graph.getNode(s->id);
      for (unsigned c = 0; c < 3; ++c)
        node.children[c] = emitClass(node.children[c]);
      node.children[3] = build(s->first);
      return term.add(std::move(node));
    }
    // A placeholder: the cheapest statement node that is not a structure.
    // The value of a store to a propagated tensor is never a load of it.
    GreedyExtractor *kernel = current;
    std::optional<ENodeId> best;
    GreedyExtractor *bestExtractor = nullptr;
    double bestCost = INFINITY;
    for (ENodeId id : graph.getClassNodes(s->id)) {
      const ENode &node = graph.getNode(id);
      if (node.op == ops.seq || node.op == ops.loop)
        continue;
      GreedyExtractor *extractor = kernel;
      if (node.op == ops.store) {
        SymbolId target = analysis.get(node.children[0]).symbol;
        if (egraph.getPropagatedTensors().count(target))
          extractor = &extractorFor(kernelWrites, target);
      }
      double cost = 0;
      for (EClassId child : node.children)
        cost += extractor->getCost(child);
      if (cost < bestCost) {
        bestCost = cost;
        best = id;
        bestExtractor = extractor;
      }
    }
    if (!best || !std::isfinite(bestCost)) {
      failed = true;
      return term.add(ENode(ops.dummy));
    }
    ENode node = graph.getNode(*best);
    current = bestExtractor;
    for (EClassId &child : node.children)
      child = emitClass(child);
    current = kernel;
    return term.add(std::move(node));
  }

  bool recompute;
  const TileEGraph &egraph;
  const EGraph &graph;
  const TileAnalysis &analysis;
  const TileContext &context;
  const TileOps &ops;
  const ExtractionOptions &options;
  std::map<std::vector<SymbolId>, std::unique_ptr<GreedyExtractor>> extractors;
  GreedyExtractor *current = nullptr;
  std::set<SymbolId> kernelWrites;
  bool failed = false;
  std::map<std::pair<GreedyExtractor *, EClassId>, unsigned> emitted;
  Term term;
};

} // namespace

ExtractionResult mirage::tile::extractCandidates(
    const TileEGraph &egraph, const ExtractionOptions &options) {
  ExtractionResult result;
  auto start = std::chrono::steady_clock::now();
  const EGraph &graph = egraph.getGraph();
  const TileContext &context = egraph.getAnalysis().getContext();
  StructureEnumerator enumerator(graph, egraph.getAnalysis(), options.topK,
                                 options.innerCap, options.blockGraphs);
  std::vector<const Semi *> structures;
  for (unsigned budget = 0; budget <= options.maxKernels; ++budget) {
    structures = enumerator.enumerate(egraph.getRoot(), budget, Where::Top);
    result.kernelLimit = budget;
    if (structures.size() >= options.topK)
      break;
  }
  result.structures = structures.size();
  auto middle = std::chrono::steady_clock::now();
  result.structureSeconds =
      std::chrono::duration<double>(middle - start).count();

  // Each structure is completed twice: loads of values another kernel
  // stores are priced as device traffic, and then never used where the
  // value can be recomputed (so that its producer becomes a dead store).
  Completer reuse(egraph, options, false), recompute(egraph, options, true);
  llvm::StringSet<> seen;
  for (const Semi *s : structures)
    for (Completer *completer : {&reuse, &recompute}) {
      if (options.timeLimitSeconds > 0 &&
          std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                        middle)
                  .count() > options.timeLimitSeconds)
        break;
      Term completed = completer->complete(s);
      if (completed.empty())
        continue;
      Term term = removeDeadStores(context, completed);
      std::string text = context.toString(term);
      if (!seen.insert(text).second)
        continue;
      Candidate candidate;
      candidate.kernels = s->kernels;
      candidate.estimate = estimateProgram(context, term, options.cost);
      candidate.term = std::move(term);
      result.candidates.push_back(std::move(candidate));
    }
  llvm::stable_sort(result.candidates,
                    [](const Candidate &a, const Candidate &b) {
                      return a.estimate.us < b.estimate.us;
                    });
  result.completionSeconds = std::chrono::duration<double>(
                                 std::chrono::steady_clock::now() - middle)
                                 .count();
  return result;
}
