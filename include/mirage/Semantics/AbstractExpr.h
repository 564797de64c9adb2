//===- AbstractExpr.h - Abstract expressions of tensors ---------*- C++ -*-===//
//
// The abstract expression of a tensor (Mirage v3 §4.5) forgets which
// elements of an input it reads and keeps only how it is computed: a
// first-order term over the inputs with add, mul, div, exp, sqrt, silu and
// sum(k, x) (a sum of k terms). The superoptimizer prunes every candidate
// whose abstract expression cannot be a subexpression of the program it
// searches for (lib/Search).
//
// Operators the algebra does not cover are uninterpreted functions: `neg`,
// `max`, `gelu`, ... A constant c is the nullary symbol `c[c]`, so that
// multiplying by it is a product (which sums distribute over) and a search
// must reproduce a program's constants exactly.
//
// Terms are hash-consed in an ExprContext: equal terms have equal ids. The
// context builds them in a normal form modulo the axioms that only reorder
// (A_eq 1-4, 9, 10): sums and products are left-deep chains with operands
// in the order of a structural hash, nested sums are one sum and sum(1, x)
// is x. The order does not depend on the order terms were made in, so the
// form is the same in every run and on every thread. The context is safe
// to use from several threads.
//
//===----------------------------------------------------------------------===//

#ifndef MIRAGE_SEMANTICS_ABSTRACTEXPR_H
#define MIRAGE_SEMANTICS_ABSTRACTEXPR_H

#include "mirage/Semantics/OpSemantics.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"

#include <deque>
#include <mutex>
#include <string>

namespace mirage {

enum class ExprKind : uint8_t {
  /// Input tensor `value`.
  Var,
  Add,
  Mul,
  Div,
  Exp,
  Sqrt,
  Silu,
  /// sum(value, operand): a sum of `value` terms.
  Sum,
  /// An uninterpreted function: `symbol` applied to the operands.
  Opaque,
};

using ExprId = uint32_t;

struct ExprNode {
  ExprKind kind;
  /// Var: the input index; Sum: the number of terms; Opaque: the symbol.
  int64_t value = 0;
  llvm::SmallVector<ExprId, 2> operands;

  bool operator==(const ExprNode &other) const {
    return kind == other.kind && value == other.value &&
           operands == other.operands;
  }
};

class ExprContext {
public:
  ExprId var(int64_t input);
  /// Sums and products in normal form (see above).
  ExprId add(ExprId lhs, ExprId rhs);
  ExprId mul(ExprId lhs, ExprId rhs);
  ExprId div(ExprId lhs, ExprId rhs);
  ExprId exp(ExprId operand);
  ExprId sqrt(ExprId operand);
  ExprId silu(ExprId operand);
  /// sum(1, x) is x; sum(i, sum(j, x)) is sum(i j, x).
  ExprId sum(int64_t terms, ExprId operand);
  ExprId opaque(llvm::StringRef symbol, llvm::ArrayRef<ExprId> operands);
  /// The constant `value`: an uninterpreted nullary symbol `c[value]`, so
  /// that mul_scalar and add_scalar are products and sums with it.
  ExprId constant(double value);

  /// A copy of the node (nodes may move while other threads intern).
  ExprNode get(ExprId id) const;
  /// The name of an opaque symbol.
  std::string getSymbol(int64_t symbol) const;
  /// `div(sum(4096, mul(v0, v1)), sqrt(v0))`.
  std::string print(ExprId id) const;

  /// A hash of the term's structure, the same in every run.
  uint64_t getStructuralHash(ExprId id) const;

private:
  ExprId intern(ExprNode node);
  /// `kind` (Add or Mul) over the operands of both sides, flattened and
  /// sorted.
  ExprId chain(ExprKind kind, ExprId lhs, ExprId rhs);

  struct NodeInfo {
    static ExprNode getEmptyKey();
    static ExprNode getTombstoneKey();
    static unsigned getHashValue(const ExprNode &node);
    static bool isEqual(const ExprNode &lhs, const ExprNode &rhs);
  };

  mutable std::mutex mutex;
  std::deque<ExprNode> nodes;
  std::deque<uint64_t> hashes;
  llvm::DenseMap<ExprNode, ExprId, NodeInfo> ids;
  std::deque<std::string> symbols;
  llvm::StringMap<int64_t> symbolIds;
  /// Constants by bit pattern: the search asks for the same few millions
  /// of times, and printing a double is slow.
  llvm::DenseMap<uint64_t, ExprId> constants;
};

/// The abstract expression of the result `result` of operator `kind` on
/// operands with the given expressions and shapes.
ExprId getAbstractExpr(OpKind kind, llvm::ArrayRef<ExprId> operands,
                       llvm::ArrayRef<llvm::ArrayRef<int64_t>> operandShapes,
                       const OpParams &params, ExprContext &context);

} // namespace mirage

#endif // MIRAGE_SEMANTICS_ABSTRACTEXPR_H
