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
#include "mirage/TileEqsat/Evaluator.h"

#include <random>

namespace mirage::tile {

class TileAnalysis;

/// A random program of class `root` (one node per class on the way, chosen
/// by `seed`; nodes that lead into a cycle are skipped), optionally with a
/// given root node. Empty if there is none. For tests.
Term sampleTerm(const egraph::EGraph &graph, EClassId root, uint64_t seed,
                std::optional<egraph::ENodeId> rootNode = std::nullopt);

} // namespace mirage::tile

#endif // MIRAGE_TILEEQSAT_EXTRACTION_H
