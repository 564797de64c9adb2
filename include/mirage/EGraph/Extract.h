//===- Extract.h - Extraction and counting of represented terms -*- C++ -*-===//
//
// Part of the Mirage MLIR project.
//
// Greedy bottom-up extraction (egg's Extractor): the best cost of a class is
// the least cost of its nodes, where a node's cost is a user function of the
// node and its children's best costs; best costs are found by a worklist
// that re-examines the parents of every class whose cost improved. Costs
// must be monotone (a node costs at least as much as each of its children)
// for the result to be the optimum of the tree cost and free of cycles; the
// extractor never picks a node whose cost does not strictly improve its
// class, and reports a cycle rather than looping if the cost is not.
//
// Counting: how many terms an e-class represents (Trinity's "programs
// represented"), as a double that saturates at +inf.
//
//===----------------------------------------------------------------------===//

#ifndef MIRAGE_EGRAPH_EXTRACT_H
#define MIRAGE_EGRAPH_EXTRACT_H

#include "mirage/EGraph/EGraph.h"

#include <functional>

namespace mirage::egraph {

/// The cost of `node` (in class `cls`) given the best costs of its children,
/// in child order. +inf excludes the node.
using CostFunction =
    std::function<double(const EGraph &graph, EClassId cls, const ENode &node,
                         llvm::ArrayRef<double> childCosts)>;

/// 1 + the sum of the children's costs: the size of the term as a tree.
double astSizeCost(const EGraph &graph, EClassId cls, const ENode &node,
                   llvm::ArrayRef<double> childCosts);
/// 1 + the largest child cost: the depth of the term.
double astDepthCost(const EGraph &graph, EClassId cls, const ENode &node,
                    llvm::ArrayRef<double> childCosts);

class GreedyExtractor {
public:
  /// Computes the best cost of every class of the clean `graph`.
  GreedyExtractor(const EGraph &graph, CostFunction cost);

  /// The best cost of the class of `id`; +inf if it has no finite term.
  double getCost(EClassId id) const;
  /// The node chosen for the class of `id`, if it has a finite cost.
  std::optional<ENodeId> getBestNode(EClassId id) const;

  /// The chosen term of `root`: a DAG in which every class appears once,
  /// root last. Empty if the class has no finite cost, or if the choices
  /// form a cycle (only with a non-monotone cost).
  Term extract(EClassId root) const;
  /// The chosen terms of several roots in one DAG; `rootIndices` receives
  /// the index of each root's node.
  Term extract(llvm::ArrayRef<EClassId> roots,
               llvm::SmallVectorImpl<unsigned> &rootIndices) const;

private:
  const EGraph &graph;
  CostFunction cost;
  std::vector<double> costs;
  std::vector<ENodeId> best;
};

/// The number of terms a class represents.
struct TermCount {
  /// +inf when infinitely many, or more than a double can hold.
  double count = 0;
  /// countTerms: a cycle of classes that have finite terms is reachable, so
  /// there are infinitely many. countAcyclicTerms: back edges were dropped.
  bool cyclic = false;
};

/// The number of finite terms of `root`: the least fixed point of
/// count(c) = sum over nodes n of c of the product of count(child), which
/// is infinite when a cycle through classes that have finite terms is
/// reachable from `root`.
TermCount countTerms(const EGraph &graph, EClassId root);

/// The number of terms of the DAG that remains when the back edges of a
/// depth-first search from `root` (children in node order) are removed: a
/// node whose child class is on the search's stack counts zero. It is finite
/// on cyclic e-graphs, a lower bound on the terms in which no class repeats
/// along a path, and equal to countTerms on acyclic ones.
TermCount countAcyclicTerms(const EGraph &graph, EClassId root);

} // namespace mirage::egraph

#endif // MIRAGE_EGRAPH_EXTRACT_H
