//===- EGraph.cpp - Hash-consed e-graph with deferred rebuilding ----------===//
//
// Part of the Mirage MLIR project.
//
//===----------------------------------------------------------------------===//

#include "mirage/EGraph/EGraph.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Debug.h"

#include <algorithm>

using namespace mirage::egraph;

//===----------------------------------------------------------------------===//
// ENode and Term
//===----------------------------------------------------------------------===//

namespace {
/// -1, 0 or 1 as `a` orders before, equal to or after `b`.
int compareNodes(const ENode &a, const ENode &b) {
  if (a.op != b.op)
    return a.op < b.op ? -1 : 1;
  if (a.payload != b.payload)
    return a.payload < b.payload ? -1 : 1;
  size_t n = std::min(a.children.size(), b.children.size());
  for (size_t i = 0; i < n; ++i)
    if (a.children[i] != b.children[i])
      return a.children[i] < b.children[i] ? -1 : 1;
  if (a.children.size() != b.children.size())
    return a.children.size() < b.children.size() ? -1 : 1;
  return 0;
}
} // namespace

bool mirage::egraph::operator<(const ENode &a, const ENode &b) {
  return compareNodes(a, b) < 0;
}

llvm::hash_code mirage::egraph::hash_value(const ENode &n) {
  return llvm::hash_combine(
      n.op, n.payload,
      llvm::hash_combine_range(n.children.begin(), n.children.end()));
}

uint64_t Term::getTreeSize(unsigned root) const {
  std::vector<uint64_t> sizes(root + 1, 0);
  for (unsigned i = 0; i <= root; ++i) {
    uint64_t size = 1;
    for (EClassId child : nodes[i].children) {
      uint64_t sum = size + sizes[child];
      size = sum < size ? UINT64_MAX : sum;
    }
    sizes[i] = size;
  }
  return sizes[root];
}

//===----------------------------------------------------------------------===//
// Analysis
//===----------------------------------------------------------------------===//

Analysis::~Analysis() = default;

//===----------------------------------------------------------------------===//
// EGraph: hash-cons table
//===----------------------------------------------------------------------===//

ENode EGraph::NodeInfo::getEmptyKey() { return ENode(~OpId(0)); }
ENode EGraph::NodeInfo::getTombstoneKey() { return ENode(~OpId(0) - 1); }
unsigned EGraph::NodeInfo::getHashValue(const ENode &node) {
  return unsigned(hash_value(node));
}
bool EGraph::NodeInfo::isEqual(const ENode &a, const ENode &b) {
  return a == b;
}

EGraph::EGraph(Language &language) : language(language) {}
EGraph::~EGraph() = default;

//===----------------------------------------------------------------------===//
// EGraph: building
//===----------------------------------------------------------------------===//

EClassId EGraph::add(ENode node) {
  node = canonicalize(std::move(node));
  if (auto it = memo.find(node); it != memo.end())
    return find(it->second);

  ENodeId id = nodes.size();
  assert(id != invalidId && "e-graph id space exhausted");
  for (size_t i = 0, e = node.children.size(); i < e; ++i) {
    EClassId child = node.children[i];
    // A child listed twice makes the node a parent once.
    if (!llvm::is_contained(llvm::ArrayRef(node.children).take_front(i), child))
      classes[child].parents.push_back(id);
  }
  memo.try_emplace(node, id);
  nodes.push_back(std::move(node));
  unionFind.push_back(id);
  classes.emplace_back();
  classes.back().nodes.push_back(id);
  inAnalysisPending.push_back(false);
  ++numClasses;
  clean = false;

  for (auto &analysis : analyses)
    analysis->createClass(id, nodes[id]);
  for (auto &analysis : analyses)
    analysis->modifyClass(find(id));
  return find(id);
}

EClassId EGraph::addTerm(const Term &term, std::optional<unsigned> root) {
  assert(!term.empty() && "adding an empty term");
  std::vector<EClassId> ids(term.size());
  for (unsigned i = 0, e = term.size(); i < e; ++i) {
    ENode node = term[i];
    for (EClassId &child : node.children)
      child = ids[child];
    ids[i] = add(std::move(node));
  }
  return find(ids[root.value_or(term.getRoot())]);
}

std::optional<EClassId> EGraph::lookup(ENode node) const {
  node = canonicalize(std::move(node));
  auto it = memo.find(node);
  if (it == memo.end())
    return std::nullopt;
  return find(it->second);
}

std::optional<EClassId> EGraph::lookupTerm(const Term &term) const {
  if (term.empty())
    return std::nullopt;
  std::vector<EClassId> ids(term.size());
  for (unsigned i = 0, e = term.size(); i < e; ++i) {
    ENode node = term[i];
    for (EClassId &child : node.children)
      child = ids[child];
    std::optional<EClassId> id = lookup(std::move(node));
    if (!id)
      return std::nullopt;
    ids[i] = *id;
  }
  return ids.back();
}

bool EGraph::merge(EClassId a, EClassId b) {
  a = find(a);
  b = find(b);
  if (a == b)
    return false;
  // The class with more parents survives, so that fewer nodes need
  // repairing; ties go to the smaller id.
  size_t parentsA = classes[a].parents.size();
  size_t parentsB = classes[b].parents.size();
  if (parentsA < parentsB || (parentsA == parentsB && b < a))
    std::swap(a, b);

  unionFind[b] = a;
  --numClasses;
  ++numMerges;
  clean = false;

  // Every node with a child in b now has a non-canonical child.
  pending.insert(pending.end(), classes[b].parents.begin(),
                 classes[b].parents.end());
  for (auto &analysis : analyses) {
    MergeResult result = analysis->mergeClasses(a, b);
    if (result.intoChanged)
      enqueueAnalysis(classes[a].parents);
    if (result.fromChanged)
      enqueueAnalysis(classes[b].parents);
  }

  EClass from = std::move(classes[b]);
  classes[b] = EClass();
  EClass &into = classes[a];
  into.nodes.insert(into.nodes.end(), from.nodes.begin(), from.nodes.end());
  into.parents.insert(into.parents.end(), from.parents.begin(),
                      from.parents.end());

  for (auto &analysis : analyses)
    analysis->modifyClass(find(a));
  return true;
}

void EGraph::enqueueAnalysis(llvm::ArrayRef<ENodeId> ids) {
  if (analyses.empty())
    return;
  for (ENodeId id : ids) {
    if (inAnalysisPending[id])
      continue;
    inAnalysisPending[id] = true;
    analysisPending.push_back(id);
  }
}

//===----------------------------------------------------------------------===//
// EGraph: rebuilding
//===----------------------------------------------------------------------===//

void EGraph::repairNode(ENodeId id) {
  ENode canonical = canonicalize(nodes[id]);
  if (canonical != nodes[id]) {
    // The old form has a child that is no longer a root: every node with
    // that form is pending too, so no live entry is lost.
    memo.erase(nodes[id]);
    nodes[id] = canonical;
  }
  auto [it, inserted] = memo.try_emplace(std::move(canonical), id);
  if (inserted)
    return;
  ENodeId congruent = it->second;
  merge(congruent, id);
}

unsigned EGraph::rebuild() {
  uint64_t mergesBefore = numMerges;
  while (!pending.empty() || analysisHead < analysisPending.size()) {
    while (!pending.empty()) {
      ENodeId id = pending.back();
      pending.pop_back();
      repairNode(id);
    }
    while (analysisHead < analysisPending.size()) {
      ENodeId id = analysisPending[analysisHead++];
      inAnalysisPending[id] = false;
      EClassId cls = find(id);
      ENode node = canonicalize(nodes[id]);
      bool changed = false;
      for (auto &analysis : analyses)
        changed |= analysis->remakeClass(cls, node);
      if (!changed)
        continue;
      enqueueAnalysis(classes[cls].parents);
      for (auto &analysis : analyses)
        analysis->modifyClass(find(cls));
    }
    analysisPending.clear();
    analysisHead = 0;
  }
  rebuildClasses();
  clean = true;
  return numMerges - mergesBefore;
}

void EGraph::rebuildClasses() {
  rootIds.clear();
  for (std::vector<EClassId> &list : classesByOp)
    list.clear();
  classesByOp.resize(language.getNumOps());

  auto nodeLess = [&](ENodeId a, ENodeId b) {
    int order = compareNodes(nodes[a], nodes[b]);
    return order != 0 ? order < 0 : a < b;
  };
  auto nodeEqual = [&](ENodeId a, ENodeId b) { return nodes[a] == nodes[b]; };
  for (EClassId id = 0, e = classes.size(); id < e; ++id) {
    if (unionFind[id] != id)
      continue;
    rootIds.push_back(id);
    EClass &cls = classes[id];
    if (!std::is_sorted(cls.nodes.begin(), cls.nodes.end(), nodeLess))
      llvm::sort(cls.nodes, nodeLess);
    // Congruent twins: the one with the smallest id stays.
    cls.nodes.erase(std::unique(cls.nodes.begin(), cls.nodes.end(), nodeEqual),
                    cls.nodes.end());
    if (!std::is_sorted(cls.parents.begin(), cls.parents.end()))
      llvm::sort(cls.parents);
    cls.parents.erase(std::unique(cls.parents.begin(), cls.parents.end()),
                      cls.parents.end());
    OpId last = ~OpId(0);
    for (ENodeId node : cls.nodes) {
      OpId op = nodes[node].op;
      if (op == last)
        continue;
      last = op;
      classesByOp[op].push_back(id);
    }
  }
}

//===----------------------------------------------------------------------===//
// EGraph: queries
//===----------------------------------------------------------------------===//

llvm::ArrayRef<ENodeId> EGraph::getClassNodesWithOp(EClassId id,
                                                    OpId op) const {
  assert(clean && "rebuild() before searching");
  llvm::ArrayRef<ENodeId> list = classes[find(id)].nodes;
  const ENodeId *begin = std::partition_point(
      list.begin(), list.end(), [&](ENodeId n) { return nodes[n].op < op; });
  const ENodeId *end = std::partition_point(
      begin, list.end(), [&](ENodeId n) { return nodes[n].op == op; });
  return llvm::ArrayRef<ENodeId>(begin, end);
}

bool EGraph::checkInvariants(llvm::raw_ostream *os) const {
  unsigned problems = 0;
  auto fail = [&]() -> llvm::raw_ostream & {
    ++problems;
    if (os && problems <= 20)
      return *os;
    return llvm::nulls();
  };
  auto node = [&](const ENode &n) {
    std::string text;
    llvm::raw_string_ostream stream(text);
    printNode(stream, n);
    return text;
  };

  if (!clean)
    fail() << "the e-graph is not rebuilt\n";
  if (!pending.empty() || analysisHead != analysisPending.size())
    fail() << "work is pending\n";

  size_t roots = 0, listed = 0;
  std::vector<EClassId> expectedRoots;
  std::vector<std::vector<EClassId>> expectedByOp(classesByOp.size());
  for (EClassId id = 0, e = classes.size(); id < e; ++id) {
    if (unionFind[id] != id) {
      if (!classes[id].nodes.empty() || !classes[id].parents.empty())
        fail() << "e" << id << " is merged away but holds nodes or parents\n";
      continue;
    }
    ++roots;
    expectedRoots.push_back(id);
    const EClass &cls = classes[id];
    if (cls.nodes.empty())
      fail() << "e" << id << " has no nodes\n";
    listed += cls.nodes.size();
    for (size_t i = 0; i < cls.nodes.size(); ++i) {
      ENodeId nodeId = cls.nodes[i];
      const ENode &n = nodes[nodeId];
      if (find(nodeId) != id)
        fail() << "e" << id << " lists node " << nodeId << " of e"
               << find(nodeId) << "\n";
      if (i > 0 && !(nodes[cls.nodes[i - 1]] < n))
        fail() << "e" << id << ": nodes not sorted or duplicated at " << node(n)
               << "\n";
      if (i == 0 || nodes[cls.nodes[i - 1]].op != n.op) {
        if (n.op >= expectedByOp.size())
          fail() << "operator " << n.op << " unknown to the index\n";
        else
          expectedByOp[n.op].push_back(id);
      }
      for (EClassId child : n.children) {
        if (child >= classes.size() || find(child) != child) {
          fail() << "e" << id << ": node " << node(n)
                 << " has a non-canonical child\n";
          continue;
        }
        if (!std::binary_search(classes[child].parents.begin(),
                                classes[child].parents.end(), nodeId))
          fail() << "e" << child << " does not list parent " << node(n) << "\n";
      }
    }
    for (size_t i = 0; i < cls.parents.size(); ++i) {
      ENodeId parent = cls.parents[i];
      if (i > 0 && cls.parents[i - 1] >= parent)
        fail() << "e" << id << ": parents not sorted\n";
      if (!llvm::is_contained(nodes[parent].children, id))
        fail() << "e" << id << " lists parent " << node(nodes[parent])
               << " that has no such child\n";
    }
    for (const auto &analysis : analyses)
      if (!analysis->checkClass(id, problems < 20 ? os : nullptr))
        ++problems;
  }
  if (roots != numClasses)
    fail() << "class count " << numClasses << " but " << roots << " roots\n";
  if (listed != memo.size())
    fail() << listed << " nodes in classes but " << memo.size()
           << " in the hash-cons table (stale entries or congruent nodes in "
              "different classes)\n";
  if (expectedRoots != rootIds)
    fail() << "the class list is stale\n";
  if (expectedByOp.size() != classesByOp.size() ||
      !std::equal(expectedByOp.begin(), expectedByOp.end(),
                  classesByOp.begin()))
    fail() << "the operator index is stale\n";

  // Congruence closure: every node id, listed or not, is canonical and the
  // table maps its form to its own class.
  for (ENodeId id = 0, e = nodes.size(); id < e; ++id) {
    const ENode &n = nodes[id];
    if (canonicalize(n) != n) {
      fail() << "node " << id << " " << node(n) << " is not canonical\n";
      continue;
    }
    auto it = memo.find(n);
    if (it == memo.end())
      fail() << "node " << id << " " << node(n)
             << " is missing from the hash-cons table\n";
    else if (find(it->second) != find(id))
      fail() << "congruent nodes in e" << find(it->second) << " and e"
             << find(id) << ": " << node(n) << "\n";
  }
  for (const auto &entry : memo)
    if (canonicalize(entry.first) != entry.first)
      fail() << "stale hash-cons entry " << node(entry.first) << "\n";

  if (os && problems > 20)
    *os << "... " << problems - 20 << " more problems\n";
  return problems == 0;
}

//===----------------------------------------------------------------------===//
// EGraph: printing
//===----------------------------------------------------------------------===//

void EGraph::printNode(llvm::raw_ostream &os, const ENode &n) const {
  if (n.op == Language::numOp && n.payload.isInt() && n.children.empty()) {
    os << n.payload.getInt();
    return;
  }
  if (!n.children.empty())
    os << "(";
  os << language.getOpName(n.op);
  if (!n.payload.isNone()) {
    os << ":";
    language.printPayload(os, n.payload);
  }
  for (EClassId child : n.children)
    os << " e" << child;
  if (!n.children.empty())
    os << ")";
}

void EGraph::print(llvm::raw_ostream &os) const {
  for (EClassId id = 0, e = classes.size(); id < e; ++id) {
    if (unionFind[id] != id)
      continue;
    os << "e" << id << ":";
    for (ENodeId node : classes[id].nodes) {
      os << " ";
      printNode(os, nodes[node]);
    }
    for (const auto &analysis : analyses) {
      os << " [" << analysis->getName() << ": ";
      analysis->printClass(os, id);
      os << "]";
    }
    os << "\n";
  }
}

void EGraph::dump() const { print(llvm::errs()); }
