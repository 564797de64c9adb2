//===- SExpr.h - Terms as s-expressions -------------------------*- C++ -*-===//
//
// Part of the Mirage MLIR project.
//
// Terms read and written as s-expressions, for tests and debugging:
//
//   (+ (* a 2) b)        operators + and *, nullary operators a and b, and
//                        the integer constant 2 (operator `num`, payload 2)
//   (tile:64 i)          operator `tile` with the integer payload 64
//   (load:A (index ...)) operator `load` with the symbol payload A
//   var:n                a nullary operator with a symbol payload
//
// `;` starts a comment to the end of the line. Patterns (Pattern.h) use the
// same syntax plus `?x` for variables.
//
//===----------------------------------------------------------------------===//

#ifndef MIRAGE_EGRAPH_SEXPR_H
#define MIRAGE_EGRAPH_SEXPR_H

#include "mirage/EGraph/EGraph.h"

#include "llvm/Support/Error.h"

#include <string>

namespace mirage::egraph {

/// Parses one term; operators and symbols are added to `language`. Equal
/// subterms are shared (the term is a DAG).
llvm::Expected<Term> parseTerm(Language &language, llvm::StringRef text);

/// Parses a term and adds it to `graph`; returns its class.
llvm::Expected<EClassId> addSExpr(EGraph &graph, llvm::StringRef text);

/// Writes node `root` of `term` (default: the term's root) as a tree.
void printTerm(llvm::raw_ostream &os, const Language &language,
               const Term &term, std::optional<unsigned> root = {});
std::string printTerm(const Language &language, const Term &term,
                      std::optional<unsigned> root = {});

/// Writes the head of a node: `op`, `op:payload`, or the integer of a `num`.
void printHead(llvm::raw_ostream &os, const Language &language,
               const ENode &node);

} // namespace mirage::egraph

#endif // MIRAGE_EGRAPH_SEXPR_H
