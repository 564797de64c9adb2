//===- Analysis.h - What the guards of the tile rules read ------*- C++ -*-===//
//
// Part of the Mirage MLIR project.
//
// One e-class analysis over tile-IR terms (Trinity section 4.3): for every
// class its sort (number, tensor, index, value, statement), the shape of a
// value (symbolic tile dims included), the tensor regions it reads and
// writes, the regions it writes in full (must-writes) and those it reads
// before writing them (exposed reads), and the loop variables it depends on.
//
// Regions are per-dim summaries of an index: the whole dim, the tile or the
// element of a free loop variable, or a constant range. A loop widens its
// variable's tiles to the range it covers. Classes join their members'
// summaries: reads, writes and dependences by union, must-writes by
// intersection, so a guard that holds on the class holds for every program
// the class represents.
//
// The predicates over these summaries (the guards of the loop rules) are
// functions below; docs/TileEqsat.md states what each one guarantees.
//
//===----------------------------------------------------------------------===//

#ifndef MIRAGE_TILEEQSAT_ANALYSIS_H
#define MIRAGE_TILEEQSAT_ANALYSIS_H

#include "mirage/TileEqsat/TileIR.h"

#include <set>

namespace mirage::tile {

/// One dim of a region.
struct RegionDim {
  enum class Kind : uint8_t { Full, Tile, Elem, Range };
  Kind kind = Kind::Full;
  /// Tile and Elem: the loop variable.
  SymbolId var = 0;
  /// Range: [lo, hi).
  int64_t lo = 0, hi = 0;

  static RegionDim full() { return {}; }
  static RegionDim tile(SymbolId v) { return {Kind::Tile, v, 0, 0}; }
  static RegionDim elem(SymbolId v) { return {Kind::Elem, v, 0, 0}; }
  static RegionDim range(int64_t lo, int64_t hi) {
    return {Kind::Range, 0, lo, hi};
  }

  friend bool operator==(const RegionDim &a, const RegionDim &b) {
    return a.kind == b.kind && a.var == b.var && a.lo == b.lo && a.hi == b.hi;
  }
  friend bool operator<(const RegionDim &a, const RegionDim &b) {
    return std::tie(a.kind, a.var, a.lo, a.hi) <
           std::tie(b.kind, b.var, b.lo, b.hi);
  }
};

/// A region of one tensor.
struct Access {
  SymbolId tensor = 0;
  llvm::SmallVector<RegionDim, 4> dims;

  friend bool operator==(const Access &a, const Access &b) {
    return a.tensor == b.tensor && a.dims == b.dims;
  }
  friend bool operator<(const Access &a, const Access &b) {
    if (a.tensor != b.tensor)
      return a.tensor < b.tensor;
    return std::lexicographical_compare(a.dims.begin(), a.dims.end(),
                                        b.dims.begin(), b.dims.end());
  }
};

/// Sorted, duplicate-free sets.
using AccessSet = std::vector<Access>;
using VarSet = llvm::SmallVector<SymbolId, 4>;

struct TileData {
  enum class Sort : uint8_t {
    Other,
    /// A number: a loop bound, a permutation entry, a scalar value.
    Num,
    /// A symbolic tile size.
    TileSize,
    Tensor,
    IndexElem,
    Index,
    Value,
    Stmt,
  };
  Sort sort = Sort::Other;
  /// Num and scalar values: the constant.
  std::optional<double> constant;
  /// Tensor: its name; TileSize: its symbol.
  SymbolId symbol = 0;
  /// IndexElem: the element; Index: one per dim.
  llvm::SmallVector<RegionDim, 4> index;
  /// Value: the shape (symbolic dims are symbolicDim(var)); empty with
  /// shapeError set when the operators do not take the operand shapes.
  Shape shape;
  bool shapeError = false;
  /// Values and statements.
  AccessSet reads, writes, mustWrites, exposedReads;
  /// Free loop variables used in tile and in elem indices.
  VarSet tileVars, elemVars;
  /// Variables of the loops inside (a statement that holds a loop over v
  /// moved into another loop over v would shadow it).
  VarSet boundVars;

  bool isValue() const { return sort == Sort::Value || sort == Sort::Num; }
  bool dependsOn(SymbolId var) const;
  VarSet getVars() const;
};

class TileAnalysis : public egraph::AnalysisOf<TileData> {
public:
  explicit TileAnalysis(const TileContext &context) : context(context) {}

  llvm::StringRef getName() const override { return "tile"; }
  TileData make(const egraph::EGraph &graph, const ENode &node) const override;
  egraph::MergeResult merge(TileData &into, TileData from) const override;
  void print(llvm::raw_ostream &os, const TileData &data) const override;

  const TileContext &getContext() const { return context; }
  /// Shape conflicts seen on merges (a sign of an unsound rule).
  unsigned getShapeConflicts() const { return shapeConflicts; }

  /// Records that loads of `tensor` were merged with the value its single
  /// store writes (expression propagation, before the merge). Such a load
  /// is that value only after the store, so extraction never takes it for
  /// the store's own value, and the store is not taken to read the tensor.
  void markPropagated(SymbolId tensor) const { propagated.insert(tensor); }
  bool isPropagated(SymbolId tensor) const {
    return propagated.count(tensor) != 0;
  }

private:
  const TileContext &context;
  mutable unsigned shapeConflicts = 0;
  mutable std::set<SymbolId> propagated;
};

/// Summaries for a term (not in an e-graph): the data of its root, computed
/// bottom-up with the same rules.
TileData analyzeTerm(const TileContext &context, const Term &term,
                     std::optional<unsigned> root = {});
/// The data of every node of a term.
std::vector<TileData> analyzeTermNodes(const TileContext &context,
                                       const Term &term);

//===----------------------------------------------------------------------===//
// Guards
//===----------------------------------------------------------------------===//

/// May two accesses of the same tensor overlap in one execution (the same
/// values of free loop variables)? Only constant ranges are told apart.
bool mayOverlap(const Access &a, const Access &b);
/// Does `written` cover `read` (same tensor, every dim covered)?
bool covers(const Access &written, const Access &read);
/// Do `a` and `b` (run in the same iteration) access a common location, one
/// of them writing it? (Trinity's no_dep, negated.)
bool conflicts(const TileData &a, const TileData &b);
/// Could `first` in one iteration of a loop over `var` and `second` in
/// another access a common location, one of them writing it? False when
/// every such pair is told apart by constant ranges or indexes the same dim
/// by the tile (or element) of `var` on both sides, so that different
/// iterations touch disjoint slices. (Trinity's no_raw_waw_dep, negated,
/// with write-after-read hazards counted too.)
bool conflictsAcrossIterations(const TileData &first, const TileData &second,
                               SymbolId var);
/// Whether the iterations of a loop over `var` with body `body` are
/// independent, so they can run in parallel (on different blocks): no
/// iteration touches what another writes, except variables every iteration
/// writes in full before reading them (privatized, as Trinity's on-chip
/// buffers are per program).
bool isParallelLoop(const TileContext &context, const TileData &body,
                    SymbolId var);
/// Running `s` twice in a row leaves the state running it once does: it
/// reads nothing it writes without first writing all of it.
bool isIdempotent(const TileData &s);
/// The data of (seq a b) from its parts' data.
TileData sequenceData(const TileData &a, const TileData &b);
/// `data` with every use of `from` (tile and elem indices) renamed `to`.
TileData renameVar(const TileData &data, SymbolId from, SymbolId to);

} // namespace mirage::tile

#endif // MIRAGE_TILEEQSAT_ANALYSIS_H
