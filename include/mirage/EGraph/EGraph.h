//===- EGraph.h - Hash-consed e-graph with deferred rebuilding --*- C++ -*-===//
//
// Part of the Mirage MLIR project.
//
// An e-graph after egg (Willsey et al., "egg: Fast and Extensible Equality
// Saturation", POPL 2021): e-nodes are hash-consed, e-classes are the sets of
// a union-find, and the congruence invariant is restored lazily by
// `rebuild()` (egg's deferred rebuilding) rather than after every `merge()`.
// E-class analyses attach data to every e-class, computed from e-nodes
// (make), joined on merges (merge) and allowed to edit the e-graph (modify);
// rebuilding re-runs them to a fixed point.
//
// Ids. Every e-node that is new when added gets a fresh id, which is both the
// id of the node and of the singleton e-class it starts; a class is named by
// the root of its union-find set. Ids are dense and assigned in order, and
// every order the e-graph exposes (classes, nodes in a class, parents) is
// sorted by ids or node contents, never by pointers or hash-table order, so
// that the same sequence of calls gives the same e-graph.
//
// See docs/EGraph.md.
//
//===----------------------------------------------------------------------===//

#ifndef MIRAGE_EGRAPH_EGRAPH_H
#define MIRAGE_EGRAPH_EGRAPH_H

#include "mirage/EGraph/Language.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <cassert>
#include <memory>
#include <optional>
#include <vector>

namespace mirage::egraph {

using EClassId = uint32_t;
/// E-nodes and e-classes share one id space: the id of a node is the id of
/// the class it created when it was added.
using ENodeId = uint32_t;
constexpr EClassId invalidId = ~0u;

/// An operator applied to child e-classes (in an e-graph) or to earlier
/// nodes (in a Term), with a payload.
struct ENode {
  OpId op = 0;
  Payload payload;
  llvm::SmallVector<EClassId, 3> children;

  ENode() = default;
  explicit ENode(OpId op, llvm::ArrayRef<EClassId> children = {},
                 Payload payload = {})
      : op(op), payload(payload), children(children.begin(), children.end()) {}

  friend bool operator==(const ENode &a, const ENode &b) {
    return a.op == b.op && a.payload == b.payload && a.children == b.children;
  }
  friend bool operator!=(const ENode &a, const ENode &b) { return !(a == b); }
  /// A total order: operator, payload, then children lexicographically.
  friend bool operator<(const ENode &a, const ENode &b);
  friend llvm::hash_code hash_value(const ENode &n);
};
bool operator<(const ENode &a, const ENode &b);
llvm::hash_code hash_value(const ENode &n);

/// A term: nodes whose children are indices of earlier nodes of the same
/// term, so that a term is a DAG in topological order (egg's RecExpr). The
/// root is the last node unless the producer says otherwise.
class Term {
public:
  /// Appends `node` (its children must be indices below size()) and returns
  /// its index.
  unsigned add(ENode node) {
    assert(llvm::all_of(node.children,
                        [&](EClassId c) { return c < nodes.size(); }) &&
           "a term's children must precede it");
    nodes.push_back(std::move(node));
    return nodes.size() - 1;
  }
  llvm::ArrayRef<ENode> getNodes() const { return nodes; }
  const ENode &operator[](unsigned i) const { return nodes[i]; }
  unsigned size() const { return nodes.size(); }
  bool empty() const { return nodes.empty(); }
  unsigned getRoot() const { return nodes.size() - 1; }
  /// The number of nodes of the term written out as a tree from `root`
  /// (saturating at UINT64_MAX).
  uint64_t getTreeSize(unsigned root) const;

  friend bool operator==(const Term &a, const Term &b) {
    return a.nodes == b.nodes;
  }

private:
  std::vector<ENode> nodes;
};

class EGraph;

/// What a merge of analysis data changed: whether the result differs from
/// the data of the surviving class, and from the data of the other.
struct MergeResult {
  bool intoChanged = false;
  bool fromChanged = false;
};

/// The type-erased interface the e-graph calls. Clients derive from
/// AnalysisOf<Data> below rather than from this class.
class Analysis {
public:
  virtual ~Analysis();
  virtual llvm::StringRef getName() const = 0;
  EGraph &getGraph() const { return *graph; }

protected:
  friend class EGraph;
  /// Computes the data of new class `id` whose only node is `node`.
  virtual void createClass(EClassId id, const ENode &node) = 0;
  /// Joins the data of `from` into `into` (`into` survives).
  virtual MergeResult mergeClasses(EClassId into, EClassId from) = 0;
  /// Joins make(node) into the data of class `id`; true if it changed.
  virtual bool remakeClass(EClassId id, const ENode &node) = 0;
  /// May edit the e-graph after class `id`'s data was created or changed.
  virtual void modifyClass(EClassId id) = 0;
  virtual void printClass(llvm::raw_ostream &os, EClassId id) const = 0;
  /// Whether the data of `id` is a fixed point over the class's nodes.
  virtual bool checkClass(EClassId id, llvm::raw_ostream *os) const = 0;

  EGraph *graph = nullptr;
};

/// An e-class analysis with data of type `DataT` per e-class (egg's
/// Analysis). `DataT` must be default-constructible and copyable.
///
///  - make(node): the data of a class holding just `node`; the node's
///    children are canonical e-classes whose data `get()` returns.
///  - merge(into, from): joins `from` into `into`, reporting which side
///    changed. It must be a semilattice join (commutative, associative,
///    idempotent) for the fixed point to exist and not depend on order.
///  - modify(graph, id): may add nodes and merge classes (e.g. constant
///    folding adds the folded constant and merges it into `id`); called after
///    a class is created and whenever its data changes.
template <typename DataT>
class AnalysisOf : public Analysis {
public:
  using Data = DataT;

  virtual DataT make(const EGraph &graph, const ENode &node) const = 0;
  virtual MergeResult merge(DataT &into, DataT from) const = 0;
  virtual void modify(EGraph &graph, EClassId id) {}
  virtual void print(llvm::raw_ostream &os, const DataT &data) const {}

  /// The data of the class of `id` (any id of the class). The reference is
  /// invalidated when a node is added.
  const DataT &get(EClassId id) const;

protected:
  void createClass(EClassId id, const ENode &node) final {
    assert(id == data.size() && "ids are created in order");
    data.push_back(make(*graph, node));
  }
  MergeResult mergeClasses(EClassId into, EClassId from) final {
    MergeResult result = merge(data[into], std::move(data[from]));
    data[from] = DataT();
    return result;
  }
  bool remakeClass(EClassId id, const ENode &node) final {
    return merge(data[id], make(*graph, node)).intoChanged;
  }
  void modifyClass(EClassId id) final { modify(*graph, id); }
  void printClass(llvm::raw_ostream &os, EClassId id) const final {
    print(os, data[id]);
  }
  bool checkClass(EClassId id, llvm::raw_ostream *os) const final;

private:
  std::vector<DataT> data;
};

/// Joins two optional values that must agree when both are present (e.g. a
/// constant value): the usual lattice of "unknown" below all values.
template <typename T>
MergeResult mergeOptional(std::optional<T> &into, std::optional<T> from) {
  if (!from)
    return {false, bool(into)};
  if (!into) {
    into = std::move(from);
    return {true, false};
  }
  assert(*into == *from && "merged classes disagree on their analysis data");
  return {false, false};
}

/// The e-graph.
class EGraph {
public:
  explicit EGraph(Language &language);
  ~EGraph();
  EGraph(const EGraph &) = delete;
  EGraph &operator=(const EGraph &) = delete;

  Language &getLanguage() const { return language; }

  //===--------------------------------------------------------------------===//
  // Analyses
  //===--------------------------------------------------------------------===//

  /// Attaches an analysis. Analyses are registered before the first node is
  /// added; make() of a later analysis may read the data of earlier ones.
  template <typename T, typename... Args>
  T &addAnalysis(Args &&...args) {
    assert(nodes.empty() && "register analyses before adding nodes");
    auto analysis = std::make_unique<T>(std::forward<Args>(args)...);
    T &result = *analysis;
    analysis->graph = this;
    analyses.push_back(std::move(analysis));
    return result;
  }
  unsigned getNumAnalyses() const { return analyses.size(); }

  //===--------------------------------------------------------------------===//
  // Building
  //===--------------------------------------------------------------------===//

  /// Adds `node` (children are any ids of their classes) and returns its
  /// class: the existing one if a congruent node is known (hash-consing).
  EClassId add(ENode node);
  /// Adds every node of `term` and returns the class of `root` (default:
  /// the term's last node).
  EClassId addTerm(const Term &term, std::optional<unsigned> root = {});
  /// The class of `node` if a congruent node is in the e-graph.
  std::optional<EClassId> lookup(ENode node) const;
  std::optional<EClassId> lookupTerm(const Term &term) const;

  /// Asserts that `a` and `b` are equal; true if they were in different
  /// classes. The congruence invariant holds again after rebuild().
  bool merge(EClassId a, EClassId b);
  /// Restores the invariants: congruence closure (parents of merged classes
  /// are re-canonicalized and congruent ones merged), analyses at a fixed
  /// point, class node lists canonical, sorted and free of duplicates.
  /// Returns the number of merges congruence caused.
  unsigned rebuild();
  /// Whether nothing was added or merged since the last rebuild().
  bool isClean() const { return clean; }

  //===--------------------------------------------------------------------===//
  // Queries
  //===--------------------------------------------------------------------===//

  /// The canonical id of `id`'s class (with path compression).
  EClassId find(EClassId id) const {
    while (unionFind[id] != id) {
      unionFind[id] = unionFind[unionFind[id]];
      id = unionFind[id];
    }
    return id;
  }
  bool areEquivalent(EClassId a, EClassId b) const {
    return find(a) == find(b);
  }
  /// `node` with every child replaced by its canonical id.
  ENode canonicalize(ENode node) const {
    for (EClassId &child : node.children)
      child = find(child);
    return node;
  }

  /// Distinct canonical e-nodes (exact after rebuild()).
  size_t getNumNodes() const { return memo.size(); }
  size_t getNumClasses() const { return numClasses; }
  /// Ids created so far (e-nodes ever added, including merged ones).
  size_t getNumIds() const { return nodes.size(); }
  /// Grows whenever the e-graph changes (a node is added or two classes are
  /// merged); equal values mean nothing changed in between.
  uint64_t getVersion() const { return nodes.size() + numMerges; }

  /// The node with id `id` in its current form (canonical after rebuild()).
  const ENode &getNode(ENodeId id) const { return nodes[id]; }
  /// The nodes of class `id` (sorted by node, no duplicates, after
  /// rebuild()).
  llvm::ArrayRef<ENodeId> getClassNodes(EClassId id) const {
    return classes[find(id)].nodes;
  }
  /// The nodes of class `id` with operator `op` (requires a clean e-graph).
  llvm::ArrayRef<ENodeId> getClassNodesWithOp(EClassId id, OpId op) const;
  /// The nodes that have class `id` as a child (sorted ids after rebuild();
  /// a node may be listed whose congruent twin is the one its class keeps).
  llvm::ArrayRef<ENodeId> getParents(EClassId id) const {
    return classes[find(id)].parents;
  }
  /// The canonical class ids in increasing order (requires a clean e-graph).
  llvm::ArrayRef<EClassId> getClassIds() const {
    assert(clean && "rebuild() before iterating classes");
    return rootIds;
  }
  /// The classes that hold a node with operator `op`, in increasing order
  /// (requires a clean e-graph).
  llvm::ArrayRef<EClassId> getClassesWithOp(OpId op) const {
    assert(clean && "rebuild() before searching");
    if (op >= classesByOp.size())
      return {};
    return classesByOp[op];
  }

  /// Checks every invariant of a clean e-graph: canonical, sorted, unique
  /// class node lists; the hash-cons table holds exactly the canonical nodes
  /// and maps each to its class (congruence closure); parent lists are
  /// complete and sound; every node id is canonical and in its class's
  /// congruence set; the operator index; analyses at a fixed point. Writes
  /// the first problems to `os` and returns false if one is broken.
  bool checkInvariants(llvm::raw_ostream *os = nullptr) const;

  /// Writes `e<id>: <node> <node> ...` per class, children as `e<id>`, and
  /// the analyses' data.
  void print(llvm::raw_ostream &os) const;
  void printNode(llvm::raw_ostream &os, const ENode &node) const;
  void dump() const;

private:
  struct EClass {
    std::vector<ENodeId> nodes;
    std::vector<ENodeId> parents;
  };
  struct NodeInfo {
    static ENode getEmptyKey();
    static ENode getTombstoneKey();
    static unsigned getHashValue(const ENode &node);
    static bool isEqual(const ENode &a, const ENode &b);
  };

  void repairNode(ENodeId id);
  void rebuildClasses();
  void enqueueAnalysis(llvm::ArrayRef<ENodeId> ids);

  Language &language;
  std::vector<std::unique_ptr<Analysis>> analyses;
  /// nodes[id]: the node that created id, kept canonical by rebuild().
  std::vector<ENode> nodes;
  mutable std::vector<EClassId> unionFind;
  /// Indexed by id; only roots hold nodes and parents.
  std::vector<EClass> classes;
  /// The hash-cons table: canonical node -> the id of a node of its class.
  llvm::DenseMap<ENode, ENodeId, NodeInfo> memo;
  /// Nodes to re-canonicalize (parents of classes merged away).
  std::vector<ENodeId> pending;
  /// Nodes whose analysis data to recompute, first in first out.
  std::vector<ENodeId> analysisPending;
  size_t analysisHead = 0;
  std::vector<bool> inAnalysisPending;
  std::vector<EClassId> rootIds;
  std::vector<std::vector<EClassId>> classesByOp;
  size_t numClasses = 0;
  uint64_t numMerges = 0;
  bool clean = true;
};

//===----------------------------------------------------------------------===//
// AnalysisOf implementation
//===----------------------------------------------------------------------===//

template <typename DataT>
const DataT &AnalysisOf<DataT>::get(EClassId id) const {
  return data[graph->find(id)];
}

template <typename DataT>
bool AnalysisOf<DataT>::checkClass(EClassId id, llvm::raw_ostream *os) const {
  for (ENodeId nodeId : graph->getClassNodes(id)) {
    DataT copy = data[id];
    if (!merge(copy, make(*graph, graph->getNode(nodeId))).intoChanged)
      continue;
    if (os) {
      *os << "analysis " << getName() << ": data of e" << id
          << " is not a fixed point of node ";
      graph->printNode(*os, graph->getNode(nodeId));
      *os << "\n";
    }
    return false;
  }
  return true;
}

} // namespace mirage::egraph

#endif // MIRAGE_EGRAPH_EGRAPH_H
