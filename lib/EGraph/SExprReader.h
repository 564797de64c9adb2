//===- SExprReader.h - Reading s-expressions (private) ----------*- C++ -*-===//
//
// Part of the Mirage MLIR project.
//
// The syntax shared by terms and patterns:
//
//   expr  ::= atom | '(' atom expr* ')'
//   atom  ::= INT                 an integer constant: `num` with that payload
//           | '?' NAME            a pattern variable
//           | NAME [':' payload]  an operator, with an optional payload
//   payload ::= INT | NAME | '?' NAME   (the last only in patterns)
//
// Names are runs of characters other than whitespace, parentheses and ';'
// (which starts a comment to the end of the line).
//
//===----------------------------------------------------------------------===//

#ifndef MIRAGE_LIB_EGRAPH_SEXPRREADER_H
#define MIRAGE_LIB_EGRAPH_SEXPRREADER_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <vector>

namespace mirage::egraph::detail {

/// A parsed s-expression: an atom, or a list whose first element is the head.
struct SExpr {
  bool isList = false;
  llvm::StringRef atom;
  std::vector<SExpr> elements;
  /// Offset of the first character in the input.
  size_t offset = 0;
};

/// Reads exactly one s-expression from `text`.
llvm::Expected<SExpr> readSExpr(llvm::StringRef text);

/// An atom split into its parts.
struct Atom {
  enum class Kind { Int, Var, Op };
  Kind kind = Kind::Op;
  int64_t intValue = 0;
  /// The variable name (without '?') or the operator name.
  llvm::StringRef name;
  /// For operators: the text after ':' (empty if none).
  llvm::StringRef payload;
  bool hasPayload = false;
};

llvm::Expected<Atom> splitAtom(const SExpr &expr);

/// Whether `text` is an optionally negative decimal integer that fits int64.
bool parseInteger(llvm::StringRef text, int64_t &value);

llvm::Error makeError(size_t offset, const llvm::Twine &message);

} // namespace mirage::egraph::detail

#endif // MIRAGE_LIB_EGRAPH_SEXPRREADER_H
