//===- AxisLabels.h - The input axes each tensor axis is indexed with -*- C++ -*-===//
//
// Abstract expressions ignore indices: when the shapes allow both,
// mul(x, reduce_sum(W, 0)) and matmul(x, W) get the same one, and so do
// silu(x W1) * (x W2) and x * (silu(x W1) W2). Axis labels tell them apart.
// Each axis of a tensor carries the set of input axes it is indexed
// together with, propagated through the graph by each operator's axis-set
// facet (inferAxisSets, OpSemantics.h). Element [i, j] of matmul(x, W) is
// indexed by x's axis 0 and W's axis 1; that of mul(x, reduce_sum(W, 0)) by
// x's axis 1 as well.
//
// The search takes a tensor as a program output only when its labels equal
// the output's. Like every pruning rule this may in principle reject an
// equivalent µGraph (one that aligns axes through terms that cancel); it
// never accepts one, which the verifier does.
//
//===----------------------------------------------------------------------===//

#ifndef MIRAGE_LIB_SEARCH_AXISLABELS_H
#define MIRAGE_LIB_SEARCH_AXISLABELS_H

#include "mirage/Search/MuGraph.h"

#include <optional>
#include <vector>

namespace mirage::search::detail {

/// Per axis, a bit set of input axes (bit input * kMaxLabelRank + axis).
using AxisLabels = AxisSets;
constexpr unsigned kMaxLabelRank = 8;

/// The labels of every tensor of `graph`; nullopt for tensors that an
/// operator without a labeling rule (reshape) feeds, and for all of them
/// when the graph has too many inputs or too high a rank for the bit sets.
std::vector<std::optional<AxisLabels>> labelTensors(const MuGraph &graph);

/// Whether two labelings agree on every axis longer than 1 (unknown ones
/// agree with anything).
bool sameLabels(const std::optional<AxisLabels> &a,
                const std::optional<AxisLabels> &b, llvm::ArrayRef<int64_t> shape);

} // namespace mirage::search::detail

#endif // MIRAGE_LIB_SEARCH_AXISLABELS_H
