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
// `max`, `gelu`, ... and, because a search must reproduce a program's
// constants exactly, `muls[c]` and `adds[c]` for multiplying and adding a
// constant c.
//
// Terms are hash-consed in an ExprContext: equal terms have equal ids. The
// context is safe to use from several threads.
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
  ExprId add(ExprId lhs, ExprId rhs);
  ExprId mul(ExprId lhs, ExprId rhs);
  ExprId div(ExprId lhs, ExprId rhs);
  ExprId exp(ExprId operand);
  ExprId sqrt(ExprId operand);
  ExprId silu(ExprId operand);
  /// sum(1, x) is x.
  ExprId sum(int64_t terms, ExprId operand);
  ExprId opaque(llvm::StringRef symbol, llvm::ArrayRef<ExprId> operands);

  /// A copy of the node (nodes may move while other threads intern).
  ExprNode get(ExprId id) const;
  /// The name of an opaque symbol.
  std::string getSymbol(int64_t symbol) const;
  /// `div(sum(4096, mul(v0, v1)), sqrt(v0))`.
  std::string print(ExprId id) const;

private:
  ExprId intern(ExprNode node);

  struct NodeInfo {
    static ExprNode getEmptyKey();
    static ExprNode getTombstoneKey();
    static unsigned getHashValue(const ExprNode &node);
    static bool isEqual(const ExprNode &lhs, const ExprNode &rhs);
  };

  mutable std::mutex mutex;
  std::deque<ExprNode> nodes;
  llvm::DenseMap<ExprNode, ExprId, NodeInfo> ids;
  std::deque<std::string> symbols;
  llvm::StringMap<int64_t> symbolIds;
};

/// The abstract expression of the result `result` of operator `kind` on
/// operands with the given expressions and shapes.
ExprId getAbstractExpr(OpKind kind, llvm::ArrayRef<ExprId> operands,
                       llvm::ArrayRef<llvm::ArrayRef<int64_t>> operandShapes,
                       const OpParams &params, ExprContext &context);

} // namespace mirage

#endif // MIRAGE_SEMANTICS_ABSTRACTEXPR_H
