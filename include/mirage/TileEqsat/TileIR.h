//===- TileIR.h - Trinity's tile IR as e-graph terms ------------*- C++ -*-===//
//
// Part of the Mirage MLIR project.
//
// The tile-level IR of Trinity (Park et al., ASPLOS '26, Table 1) as terms of
// the e-graph engine (include/mirage/EGraph). Loads, stores, sequences and
// loops are terms like the arithmetic, so algebra, memory I/O and loop
// structure are rewritten in one e-graph.
//
//   tensors     (input:X) (output:X) (variable:X)       shapes in TileContext
//   index       (index e0 e1 ...)  with one element per tensor dim:
//               fulltile           the whole dim
//               tile:n             [n, n + step(n)), step(n) the stride of the
//                                  loop over n (symbolic or a number)
//               elem:n             the single element n / step(n), kept as a
//                                  dim of size 1
//               (const_tile b l)   [b, b + l)
//   memory      (load T I)  (store T v I)
//   values      numbers (num), (fconst:1.5e-06), (+ a b) (- a b) (* a b)
//               (/ a b) with numpy broadcasting, (exp a) (sqrt a)
//               (sigmoid a), (rsum:k a) (sum over axis k, kept with size 1),
//               (matmul a b) (batched over leading dims), (concat:k a b),
//               (permute a p0 p1 ...), (squeeze:k a), (unsqueeze:k a),
//               (bcast:k a) (a broadcasts along its size-1 axis k)
//   statements  (seq s1 s2), (loop:n start end step body), dummy
//   tile sizes  a number, or (tsize:tile_n) for a symbolic size
//
// Semantics: every tensor is a dense array; inputs hold the program's
// arguments, outputs and variables start at zero; statements run in order,
// a loop runs its body for n = start, start + step, ... < end. The meaning of
// every value operator is the operator record it maps to
// (getValueOpKind/getValueOpParams; include/mirage/Semantics), never restated
// here. docs/TileEqsat.md lists where this differs from the paper.
//
//===----------------------------------------------------------------------===//

#ifndef MIRAGE_TILEEQSAT_TILEIR_H
#define MIRAGE_TILEEQSAT_TILEIR_H

#include "mirage/EGraph/EGraph.h"
#include "mirage/Semantics/OpSemantics.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/Error.h"

#include <map>
#include <string>

namespace mirage::tile {

using egraph::EClassId;
using egraph::ENode;
using egraph::Language;
using egraph::OpId;
using egraph::Payload;
using egraph::SymbolId;
using egraph::Term;

enum class TensorKind : uint8_t { Input, Output, Variable };
llvm::StringRef stringifyTensorKind(TensorKind kind);

struct TensorInfo {
  std::string name;
  TensorKind kind = TensorKind::Variable;
  Shape shape;
};

/// The operators of the tile IR, interned in a fixed order.
struct TileOps {
  OpId num, fconst, input, output, variable, fulltile, tile, elem, constTile,
      index, tsize, load, store, add, sub, mul, div, exp, sqrt, sigmoid, rsum,
      matmul, concat, permute, squeeze, unsqueeze, bcast, seq, loop, dummy;
  explicit TileOps(Language &language);
};

/// Symbolic dims in shapes: the tile of loop variable v is the size
/// kSymbolicDimBase + v (positive and larger than any real dim, so the
/// operator records' shape rules work on them unchanged: equal symbolic dims
/// match, different ones do not, and they never broadcast).
constexpr int64_t kSymbolicDimBase = int64_t(1) << 20;
inline bool isSymbolicDim(int64_t size) { return size >= kSymbolicDimBase; }
inline int64_t symbolicDim(SymbolId var) { return kSymbolicDimBase + var; }
inline SymbolId symbolicDimVar(int64_t size) {
  return SymbolId(size - kSymbolicDimBase);
}

/// The vocabulary of one tile program: the language, the operators and the
/// tensors (by name).
class TileContext {
public:
  TileContext();
  TileContext(const TileContext &) = delete;
  TileContext &operator=(const TileContext &) = delete;

  Language &getLanguage() { return language; }
  const Language &getLanguage() const { return language; }
  const TileOps &getOps() const { return ops; }

  /// Declares a tensor; fails if the name exists with another kind or shape.
  llvm::Error addTensor(llvm::StringRef name, TensorKind kind,
                        llvm::ArrayRef<int64_t> shape);
  const TensorInfo *getTensor(SymbolId name) const;
  const TensorInfo *lookupTensor(llvm::StringRef name) const;
  /// The tensors in declaration order.
  llvm::ArrayRef<TensorInfo> getTensors() const { return tensors; }
  /// The op of a tensor reference node of this kind.
  OpId getTensorOp(TensorKind kind) const;
  /// The kind of a tensor reference op, if `op` is one.
  std::optional<TensorKind> getTensorKind(OpId op) const;

  /// Whether `op` is a value operator (arithmetic or data movement).
  bool isValueOp(OpId op) const;
  bool isStmtOp(OpId op) const {
    return op == ops.store || op == ops.seq || op == ops.loop ||
           op == ops.dummy;
  }

  /// Writes a term as an s-expression (constants as numbers, fconst as its
  /// value), on one line or indented.
  void print(llvm::raw_ostream &os, const Term &term,
             std::optional<unsigned> root = {}, bool indent = false) const;
  std::string toString(const Term &term, bool indent = false) const;

private:
  Language language;
  TileOps ops;
  std::vector<TensorInfo> tensors;
  llvm::DenseMap<SymbolId, unsigned> tensorIndex;
};

/// The record and parameters of a value operator node with children of the
/// given shapes: the one place the tile IR's operators are tied to their
/// meaning. Fails for nodes that are not value operators (loads,
/// constants) or shapes the operator does not take.
llvm::Expected<std::pair<OpKind, OpParams>>
getValueOpRecord(const TileContext &context, const ENode &node,
                 llvm::ArrayRef<llvm::ArrayRef<int64_t>> childShapes,
                 llvm::ArrayRef<int64_t> permutation = {});

/// A double as a value node: `num` when it is an integer, else `fconst`
/// with the shortest text that reads back to it.
ENode makeConstant(TileContext &context, double value);
/// The value of a `num` or `fconst` node.
std::optional<double> getConstant(const TileContext &context,
                                  const ENode &node);

/// Parses a term in the s-expression syntax (SExpr.h).
llvm::Expected<Term> parseTileTerm(TileContext &context, llvm::StringRef text);

/// Builds terms node by node, sharing equal subterms.
class TermBuilder {
public:
  explicit TermBuilder(TileContext &context) : context(context) {}

  unsigned add(ENode node);
  unsigned num(int64_t value);
  unsigned constant(double value);
  unsigned tensor(llvm::StringRef name);
  unsigned fulltile();
  unsigned tile(llvm::StringRef var);
  unsigned elem(llvm::StringRef var);
  unsigned constTile(int64_t base, int64_t length);
  unsigned index(llvm::ArrayRef<unsigned> elements);
  unsigned tileSize(llvm::StringRef symbol);
  unsigned load(unsigned tensor, unsigned index);
  unsigned store(unsigned tensor, unsigned value, unsigned index);
  unsigned op(OpId op, llvm::ArrayRef<unsigned> children,
              Payload payload = {});
  unsigned axisOp(OpId op, int64_t axis, unsigned child);
  unsigned permute(unsigned child, llvm::ArrayRef<int64_t> permutation);
  unsigned seq(unsigned first, unsigned second);
  /// Right-associated sequence of `statements` (dummy when empty).
  unsigned seq(llvm::ArrayRef<unsigned> statements);
  unsigned loop(llvm::StringRef var, int64_t start, int64_t end,
                unsigned step, unsigned body);
  unsigned dummy();

  Term &getTerm() { return term; }
  Term take() { return std::move(term); }

private:
  TileContext &context;
  Term term;
  std::map<std::tuple<OpId, uint8_t, int64_t, std::vector<unsigned>>, unsigned>
      memo;
};

/// The statements of a right-associated sequence rooted at `root` of `term`
/// (one statement when the root is not a seq).
llvm::SmallVector<unsigned> getSequence(const TileContext &context,
                                        const Term &term, unsigned root);

} // namespace mirage::tile

#endif // MIRAGE_TILEEQSAT_TILEIR_H
