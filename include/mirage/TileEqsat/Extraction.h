//===- Extraction.h - Two-pass extraction of tile programs ------*- C++ -*-===//
//
// Part of the Mirage MLIR project.
//
// Trinity's two-pass extraction (section 5.2, Algorithm 1). Pass 1
// enumerates loop structures: from the root, every seq and loop node is
// expanded (the Cartesian product of its children's structures) and every
// other node becomes a placeholder for its class ("body"); the cost is the
// number of kernels, the level-0 loops and top-level statements outside any
// loop. The limit on kernels grows from 0 until top-k structures are
// collected. A class that is already being expanded on the current path is
// not entered again (cycles: loop-invariant code motion makes a loop class
// its own body). Pass 2 completes each structure greedily: every
// placeholder takes the node of least cost in its context, FLOPs of its
// operators at the tile sizes chosen, loads of tensors the same kernel
// stores counted as on-chip, others as device-memory traffic.
//
// Candidates are then cleaned (stores of variables nobody reads are
// dropped, empty loops removed) and ranked by the kernel cost model
// (Cost.h).
//
//===----------------------------------------------------------------------===//

#ifndef MIRAGE_TILEEQSAT_EXTRACTION_H
#define MIRAGE_TILEEQSAT_EXTRACTION_H

#include "mirage/EGraph/EGraph.h"
#include "mirage/TileEqsat/Cost.h"
#include "mirage/TileEqsat/Evaluator.h"

#include <random>

namespace mirage::tile {

class TileAnalysis;
class TileEGraph;

struct ExtractionOptions {
  /// Loop structures to collect (Trinity: 512).
  unsigned topK = 512;
  /// Structures kept per e-class inside loops (where every structure has no
  /// kernels of its own), by fewest loops first.
  unsigned innerCap = 16;
  /// The largest kernel count tried.
  unsigned maxKernels = 32;
  /// Only loop structures block graphs can say: per kernel up to three
  /// outer loops with independent iterations, then at most one loop, with
  /// no loop inside it.
  bool blockGraphs = false;
  /// The ranking model; pass 2's costs use its tile sizes.
  CostOptions cost;
  /// Seconds after which pass 2 stops completing structures (0: none).
  double timeLimitSeconds = 0;
};

struct Candidate {
  /// The program, with stores of variables nobody reads removed.
  Term term;
  /// Kernels of its loop structure (pass 1's count).
  unsigned kernels = 0;
  ProgramEstimate estimate;
};

struct ExtractionResult {
  /// Distinct programs, by estimated time.
  std::vector<Candidate> candidates;
  /// Loop structures pass 1 collected, and the kernel limit it reached.
  unsigned structures = 0;
  unsigned kernelLimit = 0;
  double structureSeconds = 0, completionSeconds = 0;
};

/// Trinity's two-pass extraction from the root of a saturated e-graph.
ExtractionResult extractCandidates(const TileEGraph &egraph,
                                   const ExtractionOptions &options = {});

/// Drops stores of variables that no load outside their own stores reads
/// (repeatedly), and loops and sequences left empty.
Term removeDeadStores(const TileContext &context, const Term &term);

/// A random program of class `root` (one node per class on the way, chosen
/// by `seed`; nodes that lead into a cycle are skipped), optionally with a
/// given root node. Empty if there is none. For tests.
Term sampleTerm(const egraph::EGraph &graph, EClassId root, uint64_t seed,
                std::optional<egraph::ENodeId> rootNode = std::nullopt);

} // namespace mirage::tile

#endif // MIRAGE_TILEEQSAT_EXTRACTION_H
