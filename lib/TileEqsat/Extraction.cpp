//===- Extraction.cpp - Two-pass extraction of tile programs --------------===//
//
// Part of the Mirage MLIR project.
//
//===----------------------------------------------------------------------===//

#include "mirage/TileEqsat/Extraction.h"

#include "mirage/TileEqsat/Analysis.h"

#include "llvm/ADT/DenseSet.h"

#include <algorithm>

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
