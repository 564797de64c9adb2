//===- Extract.cpp - Extraction and counting of represented terms ---------===//
//
// Part of the Mirage MLIR project.
//
//===----------------------------------------------------------------------===//

#include "mirage/EGraph/Extract.h"

#include <cmath>
#include <deque>
#include <limits>

using namespace mirage::egraph;

namespace {
constexpr double infinity = std::numeric_limits<double>::infinity();
} // namespace

double mirage::egraph::astSizeCost(const EGraph &, EClassId, const ENode &,
                                   llvm::ArrayRef<double> childCosts) {
  double total = 1;
  for (double c : childCosts)
    total += c;
  return total;
}

double mirage::egraph::astDepthCost(const EGraph &, EClassId, const ENode &,
                                    llvm::ArrayRef<double> childCosts) {
  double deepest = 0;
  for (double c : childCosts)
    deepest = std::max(deepest, c);
  return 1 + deepest;
}

//===----------------------------------------------------------------------===//
// GreedyExtractor
//===----------------------------------------------------------------------===//

GreedyExtractor::GreedyExtractor(const EGraph &graph, CostFunction costFn)
    : graph(graph), cost(std::move(costFn)) {
  assert(graph.isClean() && "rebuild() before extracting");
  size_t numIds = graph.getNumIds();
  costs.assign(numIds, infinity);
  best.assign(numIds, invalidId);

  // Every class is examined once; a class whose cost improves puts its
  // parents' classes back on the queue.
  std::deque<EClassId> queue;
  std::vector<bool> queued(numIds, false);
  for (EClassId cls : graph.getClassIds()) {
    queue.push_back(cls);
    queued[cls] = true;
  }
  llvm::SmallVector<double, 4> childCosts;
  while (!queue.empty()) {
    EClassId cls = queue.front();
    queue.pop_front();
    queued[cls] = false;
    double classCost = costs[cls];
    ENodeId classBest = best[cls];
    for (ENodeId id : graph.getClassNodes(cls)) {
      const ENode &node = graph.getNode(id);
      childCosts.clear();
      bool finite = true;
      for (EClassId child : node.children) {
        double c = costs[child];
        if (c == infinity) {
          finite = false;
          break;
        }
        childCosts.push_back(c);
      }
      if (!finite)
        continue;
      double c = cost(graph, cls, node, childCosts);
      if (c < classCost) {
        classCost = c;
        classBest = id;
      }
    }
    if (!(classCost < costs[cls]))
      continue;
    costs[cls] = classCost;
    best[cls] = classBest;
    for (ENodeId parent : graph.getParents(cls)) {
      EClassId parentClass = graph.find(parent);
      if (!queued[parentClass]) {
        queued[parentClass] = true;
        queue.push_back(parentClass);
      }
    }
  }
}

double GreedyExtractor::getCost(EClassId id) const {
  return costs[graph.find(id)];
}

std::optional<ENodeId> GreedyExtractor::getBestNode(EClassId id) const {
  ENodeId node = best[graph.find(id)];
  if (node == invalidId)
    return std::nullopt;
  return node;
}

Term GreedyExtractor::extract(EClassId root) const {
  llvm::SmallVector<unsigned, 1> indices;
  return extract(llvm::ArrayRef(root), indices);
}

Term GreedyExtractor::extract(
    llvm::ArrayRef<EClassId> roots,
    llvm::SmallVectorImpl<unsigned> &rootIndices) const {
  Term term;
  rootIndices.clear();
  // Per class: unvisited, on the stack, or its index in the term.
  constexpr unsigned unvisited = ~0u, onStack = ~0u - 1;
  std::vector<unsigned> index(graph.getNumIds(), unvisited);
  // Iterative post-order walk, so that deep terms do not exhaust the stack.
  struct Frame {
    EClassId cls;
    unsigned nextChild;
  };
  for (EClassId root : roots) {
    root = graph.find(root);
    if (best[root] == invalidId)
      return Term();
    std::vector<Frame> stack;
    if (index[root] == unvisited) {
      index[root] = onStack;
      stack.push_back({root, 0});
    }
    while (!stack.empty()) {
      Frame &frame = stack.back();
      const ENode &node = graph.getNode(best[frame.cls]);
      if (frame.nextChild < node.children.size()) {
        EClassId child = graph.find(node.children[frame.nextChild++]);
        if (index[child] == onStack || best[child] == invalidId)
          return Term(); // A cycle (non-monotone cost).
        if (index[child] == unvisited) {
          index[child] = onStack;
          stack.push_back({child, 0});
        }
        continue;
      }
      ENode chosen(node.op, {}, node.payload);
      for (EClassId child : node.children)
        chosen.children.push_back(index[graph.find(child)]);
      index[frame.cls] = term.add(std::move(chosen));
      stack.pop_back();
    }
    rootIndices.push_back(index[root]);
  }
  return term;
}

//===----------------------------------------------------------------------===//
// Counting
//===----------------------------------------------------------------------===//

namespace {
/// The classes reachable from `root`, in the order first reached.
std::vector<EClassId> reachableClasses(const EGraph &graph, EClassId root,
                                       std::vector<bool> &reached) {
  std::vector<EClassId> order{root};
  reached[root] = true;
  for (size_t i = 0; i < order.size(); ++i)
    for (ENodeId id : graph.getClassNodes(order[i]))
      for (EClassId child : graph.getNode(id).children)
        if (!reached[child]) {
          reached[child] = true;
          order.push_back(child);
        }
  return order;
}

/// A depth-first count over classes with colors. `countBackEdges` selects
/// the acyclic count (a node reaching a class on the stack counts zero) or
/// the exact one (such a node makes the count infinite). Only nodes accepted
/// by `useNode` count.
class Counter {
public:
  Counter(const EGraph &graph, std::function<bool(ENodeId)> useNode)
      : graph(graph), useNode(std::move(useNode)),
        state(graph.getNumIds(), State::Unvisited),
        counts(graph.getNumIds(), 0) {}

  /// Returns the count of `root`; sets `sawBackEdge`.
  double count(EClassId root) {
    struct Frame {
      EClassId cls;
      size_t node = 0;
      size_t child = 0;
      double total = 0;
      double product = 1;
      bool dropped = false;
    };
    std::vector<Frame> stack;
    state[root] = State::OnStack;
    stack.push_back({root});
    double last = 0;
    while (!stack.empty()) {
      Frame &frame = stack.back();
      llvm::ArrayRef<ENodeId> nodes = graph.getClassNodes(frame.cls);
      // Skip nodes that do not count.
      while (frame.node < nodes.size() && frame.child == 0 &&
             !useNode(nodes[frame.node]))
        ++frame.node;
      if (frame.node == nodes.size()) {
        counts[frame.cls] = frame.total;
        state[frame.cls] = State::Done;
        last = frame.total;
        stack.pop_back();
        continue;
      }
      const ENode &node = graph.getNode(nodes[frame.node]);
      if (frame.child == node.children.size()) {
        if (!frame.dropped)
          frame.total += frame.product;
        ++frame.node;
        frame.child = 0;
        frame.product = 1;
        frame.dropped = false;
        continue;
      }
      EClassId child = node.children[frame.child];
      switch (state[child]) {
      case State::OnStack:
        sawBackEdge = true;
        frame.dropped = true;
        ++frame.child;
        break;
      case State::Done:
        frame.product *= counts[child];
        ++frame.child;
        break;
      case State::Unvisited:
        state[child] = State::OnStack;
        stack.push_back({child});
        // The child's frame finishes first; its count is read when this
        // frame sees it Done.
        break;
      }
    }
    return last;
  }

  bool sawBackEdge = false;

private:
  enum class State : uint8_t { Unvisited, OnStack, Done };
  const EGraph &graph;
  std::function<bool(ENodeId)> useNode;
  std::vector<State> state;
  std::vector<double> counts;
};
} // namespace

TermCount mirage::egraph::countTerms(const EGraph &graph, EClassId root) {
  assert(graph.isClean() && "rebuild() before counting");
  root = graph.find(root);
  size_t numIds = graph.getNumIds();
  std::vector<bool> reached(numIds, false);
  std::vector<EClassId> classes = reachableClasses(graph, root, reached);

  // Productive classes (those with a finite term), by a worklist over
  // parents: a node becomes productive when its last unproductive distinct
  // child class does.
  std::vector<bool> listed(numIds, false), productive(numIds, false);
  std::vector<unsigned> missing(numIds, 0);
  std::vector<EClassId> ready;
  for (EClassId cls : classes) {
    for (ENodeId id : graph.getClassNodes(cls)) {
      listed[id] = true;
      const ENode &node = graph.getNode(id);
      unsigned distinct = 0;
      for (size_t i = 0; i < node.children.size(); ++i)
        distinct += !llvm::is_contained(
            llvm::ArrayRef(node.children).take_front(i), node.children[i]);
      missing[id] = distinct;
      if (distinct == 0 && !productive[cls]) {
        productive[cls] = true;
        ready.push_back(cls);
      }
    }
  }
  while (!ready.empty()) {
    EClassId cls = ready.back();
    ready.pop_back();
    for (ENodeId parent : graph.getParents(cls)) {
      if (!listed[parent] || --missing[parent] != 0)
        continue;
      EClassId parentClass = graph.find(parent);
      if (!productive[parentClass]) {
        productive[parentClass] = true;
        ready.push_back(parentClass);
      }
    }
  }
  if (!productive[root])
    return {0, false};

  // Over productive nodes only, any reachable cycle repeats forever.
  Counter counter(graph, [&](ENodeId id) { return missing[id] == 0; });
  double count = counter.count(root);
  if (counter.sawBackEdge)
    return {infinity, true};
  return {count, false};
}

TermCount mirage::egraph::countAcyclicTerms(const EGraph &graph,
                                            EClassId root) {
  assert(graph.isClean() && "rebuild() before counting");
  Counter counter(graph, [](ENodeId) { return true; });
  double count = counter.count(graph.find(root));
  return {count, counter.sawBackEdge};
}
