//===- Saturation.h - Equality saturation of a tile program -----*- C++ -*-===//
//
// Part of the Mirage MLIR project.
//
// A tile program in an e-graph with the tile analysis, saturated with
// Trinity's rules under the backoff scheduler (the sequence commutation and
// plain loop fusion rules are never banned, as in Trinity's artifact), with
// expression propagation and sequence canonicalization after every
// iteration.
//
//===----------------------------------------------------------------------===//

#ifndef MIRAGE_TILEEQSAT_SATURATION_H
#define MIRAGE_TILEEQSAT_SATURATION_H

#include "mirage/EGraph/Extract.h"
#include "mirage/EGraph/Runner.h"
#include "mirage/TileEqsat/Rules.h"

#include <memory>

namespace mirage::tile {

struct SaturationOptions {
  /// Trinity applies its rules for up to 10 iterations.
  unsigned iterations = 10;
  size_t nodeLimit = 200000;
  double timeLimitSeconds = 60;
  RuleSets rules;
  bool propagation = true;
  bool canonicalization = true;
  /// The backoff scheduler's default match limit and ban length.
  size_t matchLimit = 1000;
  unsigned banLength = 5;
  /// Loop fission undoes what fusion does; with fusion and sequence
  /// commutation it builds every grouping of a loop's statements into loops
  /// (the scaled Vanilla block: 35k e-nodes without it, 118k with 11
  /// fissions, same 10 iterations). Off by default; when on, it gets
  /// `fissionMatchLimit` and a ban for the rest of the run once it exceeds
  /// it (0: no limit).
  bool fission = false;
  size_t fissionMatchLimit = 16;
  /// One line per iteration (nodes, classes, time) when set.
  llvm::raw_ostream *progress = nullptr;
  bool checkInvariants = false;
};

struct SaturationStats {
  egraph::StopReason stopReason = egraph::StopReason::None;
  unsigned iterations = 0;
  double seconds = 0;
  size_t nodes = 0, classes = 0;
  /// Merges by expression propagation and sequence canonicalization.
  unsigned propagated = 0, flattened = 0;
  /// The programs the root class represents: countAcyclicTerms (a lower
  /// bound on the terms in which no class repeats along a path).
  egraph::TermCount programs;
  unsigned shapeConflicts = 0;
};

class TileEGraph {
public:
  explicit TileEGraph(TileContext &context);
  ~TileEGraph();

  /// Adds the program (a statement) and makes it the root.
  EClassId addProgram(const Term &term);
  /// Saturates; may be called once.
  SaturationStats saturate(const SaturationOptions &options = {});

  TileContext &getContext() { return context; }
  egraph::EGraph &getGraph() { return *graph; }
  const egraph::EGraph &getGraph() const { return *graph; }
  const TileAnalysis &getAnalysis() const { return *analysis; }
  EClassId getRoot() const { return graph->find(root); }
  /// Tensors whose loads expression propagation merged with their stored
  /// value: such a load is that value only after the store, so the store's
  /// own value must not be extracted as it.
  const std::set<SymbolId> &getPropagatedTensors() const {
    return propagated;
  }
  /// The runner of the last saturate() (for its report), or null.
  const egraph::Runner *getRunner() const { return runner.get(); }

private:
  TileContext &context;
  std::unique_ptr<egraph::EGraph> graph;
  TileAnalysis *analysis = nullptr;
  EClassId root = egraph::invalidId;
  std::vector<egraph::Rewrite> rules;
  std::unique_ptr<egraph::Runner> runner;
  std::set<SymbolId> propagated;
};

} // namespace mirage::tile

#endif // MIRAGE_TILEEQSAT_SATURATION_H
