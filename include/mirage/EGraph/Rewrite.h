//===- Rewrite.h - Rewrite rules: searchers, guards, appliers ---*- C++ -*-===//
//
// Part of the Mirage MLIR project.
//
// A rewrite is a searcher (one pattern or several that share a
// substitution), optional conditions, and an applier:
//
//  - a right-hand side pattern, instantiated and merged with the match's
//    root:                      (* ?x 2)  =>  (<< ?x 1)
//  - for multi-patterns, right-hand sides bound to variables of the left:
//    {"?a = (f ?x)", "?b = (g ?x)"}  =>  {"?a = (h ?x)"}
//  - a callback that edits the e-graph itself (builds the right-hand side
//    programmatically, merges what it decides to merge).
//
// Conditions are checked when the rule is searched, on the clean e-graph
// whose analyses are at their fixed point, so a guard's verdict does not
// depend on which rules happened to be applied earlier in the same
// iteration; matches that fail a condition are not counted as matches.
//
//===----------------------------------------------------------------------===//

#ifndef MIRAGE_EGRAPH_REWRITE_H
#define MIRAGE_EGRAPH_REWRITE_H

#include "mirage/EGraph/Pattern.h"

#include <functional>

namespace mirage::egraph {

class Rewrite {
public:
  /// A guard over a match; `root` is the class the first pattern matched.
  using Condition =
      std::function<bool(const EGraph &graph, EClassId root, const Subst &)>;
  /// A custom applier: edits the e-graph for one match (adds nodes, merges
  /// classes). The rule counts as applied if the e-graph changed.
  using ApplyFn =
      std::function<void(EGraph &graph, EClassId root, const Subst &)>;

  /// `lhs => rhs`: the instance of `rhs` is merged with the match's root.
  /// Every variable of `rhs` must occur in `lhs`.
  static llvm::Expected<Rewrite> create(Language &language,
                                        llvm::StringRef name,
                                        llvm::StringRef lhs,
                                        llvm::StringRef rhs);
  /// A multi-pattern rule: every pattern of `lhs` must match under one
  /// substitution (`?v = pattern` binds a pattern's root class to ?v); each
  /// entry of `rhs` is `?v = pattern`, whose instance is merged with ?v.
  static llvm::Expected<Rewrite>
  createMulti(Language &language, llvm::StringRef name,
              llvm::ArrayRef<llvm::StringRef> lhs,
              llvm::ArrayRef<llvm::StringRef> rhs);
  /// A rule with one or more left-hand patterns and a custom applier.
  static llvm::Expected<Rewrite>
  createCustom(Language &language, llvm::StringRef name,
               llvm::ArrayRef<llvm::StringRef> lhs, ApplyFn apply);

  /// Adds a guard; a match is applied only if all guards hold.
  Rewrite &addCondition(Condition condition);

  llvm::StringRef getName() const { return name; }
  const VarTable &getVars() const { return vars; }
  /// The index of variable `name` ("x" or "?x"), which must exist.
  unsigned getVar(llvm::StringRef name) const;
  llvm::ArrayRef<Pattern> getPatterns() const { return lhs; }

  /// Appends the matches that satisfy every condition, in search order, and
  /// stops once `limit` were appended. Returns the number appended.
  size_t search(const EGraph &graph, MatchList &matches,
                size_t limit = SIZE_MAX) const;
  /// An empty match list for this rule.
  MatchList makeMatchList() const { return MatchList(vars); }
  /// Applies one match; true if the e-graph changed.
  bool apply(EGraph &graph, const Match &match) const;

  void print(llvm::raw_ostream &os, const Language &language) const;

private:
  Rewrite() = default;
  static llvm::Expected<Rewrite>
  parseSearcher(Language &language, llvm::StringRef name,
                llvm::ArrayRef<llvm::StringRef> lhs);
  llvm::Error parseBoundRhs(Language &language, llvm::StringRef text);

  std::string name;
  VarTable vars;
  std::vector<Pattern> lhs;
  /// Pattern appliers: (variable or none for the root, pattern).
  std::vector<std::pair<std::optional<unsigned>, Pattern>> rhs;
  ApplyFn customApply;
  std::vector<Condition> conditions;
};

} // namespace mirage::egraph

#endif // MIRAGE_EGRAPH_REWRITE_H
