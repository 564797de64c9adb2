//===- Pattern.h - Patterns, substitutions and e-matching -------*- C++ -*-===//
//
// Part of the Mirage MLIR project.
//
// Patterns are terms with variables, written as s-expressions (SExpr.h) with
// `?x` for a variable that matches any e-class and `op:?p` for a payload
// variable that matches any payload:
//
//   (/ (* ?x ?y) ?y)       a repeated variable must bind the same class
//   (tile:?n ?i)           binds the tile size to ?n
//
// E-matching is top-down backtracking over the e-classes: the candidate
// roots are the classes holding the pattern's root operator (an index the
// e-graph keeps), a class's nodes with a given operator are found by binary
// search in its sorted node list, and variables bind in a substitution that
// is extended and undone as the search backtracks. A multi-pattern is a list
// of patterns that must all match under one substitution; `?v = pattern`
// binds a pattern's root class to ?v so later patterns and appliers can use
// it.
//
//===----------------------------------------------------------------------===//

#ifndef MIRAGE_EGRAPH_PATTERN_H
#define MIRAGE_EGRAPH_PATTERN_H

#include "mirage/EGraph/EGraph.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Error.h"

#include <string>

namespace mirage::egraph {

/// The variables of a rule, numbered in the order they first appear.
class VarTable {
public:
  enum class Kind : uint8_t { Class, Payload };

  /// The index of variable `name` (without '?'); adds it with kind `kind` if
  /// new. Fails if it exists with the other kind.
  llvm::Expected<unsigned> getOrAdd(llvm::StringRef name, Kind kind);
  std::optional<unsigned> lookup(llvm::StringRef name) const;
  llvm::StringRef getName(unsigned var) const { return names[var]; }
  Kind getKind(unsigned var) const { return kinds[var]; }
  unsigned size() const { return names.size(); }

private:
  std::vector<std::string> names;
  std::vector<Kind> kinds;
};

/// A node of a pattern: a class variable, or an operator with a payload (a
/// literal or a payload variable) and child patterns.
struct PatternNode {
  bool isVar = false;
  /// The class variable, for variable nodes.
  unsigned var = 0;
  OpId op = 0;
  Payload payload;
  /// The payload variable, if the payload is one.
  std::optional<unsigned> payloadVar;
  /// Indices of the children in Pattern::getNodes() (all smaller).
  llvm::SmallVector<unsigned, 3> children;
};

/// A pattern: nodes in post-order, the root last.
class Pattern {
public:
  /// Parses `text`; variables are added to `vars`, operators to `language`.
  static llvm::Expected<Pattern> parse(Language &language, llvm::StringRef text,
                                       VarTable &vars);

  llvm::ArrayRef<PatternNode> getNodes() const { return nodes; }
  const PatternNode &getRoot() const { return nodes.back(); }
  unsigned getRootIndex() const { return nodes.size() - 1; }
  /// The variable bound to the pattern's root class in a multi-pattern
  /// (`?v = pattern`), if any.
  std::optional<unsigned> getRootBinding() const { return rootBinding; }
  void setRootBinding(unsigned var) { rootBinding = var; }

  void print(llvm::raw_ostream &os, const Language &language,
             const VarTable &vars) const;

private:
  std::vector<PatternNode> nodes;
  std::optional<unsigned> rootBinding;
};

/// Bindings of a rule's variables: a class per class variable, a payload per
/// payload variable.
class Subst {
public:
  Subst() = default;
  /// All variables of `vars` unbound.
  explicit Subst(const VarTable &vars);
  /// Every variable bound: `classes[v]` for class variables, `payloads[v]`
  /// for payload variables (`payloads` may be empty if there are none).
  Subst(llvm::ArrayRef<EClassId> classes, llvm::ArrayRef<Payload> payloads);

  EClassId operator[](unsigned var) const { return classes[var]; }
  Payload getPayload(unsigned var) const { return payloads[var]; }
  bool isBound(unsigned var) const { return bound[var]; }
  unsigned size() const { return classes.size(); }

  void bind(unsigned var, EClassId cls) {
    classes[var] = cls;
    bound[var] = true;
  }
  void bindPayload(unsigned var, Payload p) {
    payloads[var] = p;
    bound[var] = true;
  }
  void unbind(unsigned var) { bound[var] = false; }

  friend bool operator==(const Subst &a, const Subst &b) {
    return a.classes == b.classes && a.payloads == b.payloads &&
           a.bound == b.bound;
  }

private:
  llvm::SmallVector<EClassId, 6> classes;
  llvm::SmallVector<Payload, 2> payloads;
  llvm::SmallVector<bool, 6> bound;
};

/// A match of a (multi-)pattern: the class the first pattern matched and
/// the substitution.
struct Match {
  EClassId root = invalidId;
  Subst subst;
};

/// Matches of one rule, stored flat (a root and one id per variable each),
/// since a search may return millions.
class MatchList {
public:
  MatchList() = default;
  explicit MatchList(const VarTable &vars);

  /// Appends a match whose substitution binds every variable.
  void push(EClassId root, const Subst &subst);
  size_t size() const { return roots.size(); }
  bool empty() const { return roots.empty(); }
  /// Keeps the first `n` matches.
  void truncate(size_t n);
  /// Drops every match and frees the memory.
  void release();

  EClassId getRoot(size_t i) const { return roots[i]; }
  /// Match `i` with its substitution rebuilt.
  Match operator[](size_t i) const;

private:
  unsigned numVars = 0;
  bool hasPayloads = false;
  std::vector<EClassId> roots;
  std::vector<EClassId> classes;
  std::vector<Payload> payloads;
};

/// Enumerates the matches of `patterns` (all must match under one
/// substitution) in a clean e-graph, in a deterministic order: candidate
/// classes by increasing id, nodes in class order. `onMatch` returns false to
/// stop the search.
void searchPatterns(
    const EGraph &graph, llvm::ArrayRef<Pattern> patterns, const VarTable &vars,
    llvm::function_ref<bool(EClassId root, const Subst &subst)> onMatch);

/// All matches of one pattern.
std::vector<Match> searchPattern(const EGraph &graph, const Pattern &pattern,
                                 const VarTable &vars);

/// Adds the instance of `pattern` under `subst` to `graph`; returns its class.
EClassId instantiate(EGraph &graph, const Pattern &pattern, const Subst &subst);

} // namespace mirage::egraph

#endif // MIRAGE_EGRAPH_PATTERN_H
