//===- TestUtil.h - Helpers for the e-graph unit tests ----------*- C++ -*-===//
//
// Part of the Mirage MLIR project.
//
//===----------------------------------------------------------------------===//

#ifndef MIRAGE_UNITTESTS_EGRAPH_TESTUTIL_H
#define MIRAGE_UNITTESTS_EGRAPH_TESTUTIL_H

#include "mirage/EGraph/EGraph.h"
#include "mirage/EGraph/Extract.h"
#include "mirage/EGraph/Rewrite.h"
#include "mirage/EGraph/SExpr.h"

#include "gtest/gtest.h"

#include <optional>
#include <string>

namespace mirage::egraph::test {

/// Adds an s-expression, failing the test on a parse error.
inline EClassId add(EGraph &graph, llvm::StringRef text) {
  llvm::Expected<EClassId> id = addSExpr(graph, text);
  if (!id) {
    ADD_FAILURE() << "cannot parse " << text.str() << ": "
                  << llvm::toString(id.takeError());
    return invalidId;
  }
  return *id;
}

/// The class of an s-expression already in the e-graph (invalidId if not).
inline EClassId lookup(EGraph &graph, llvm::StringRef text) {
  llvm::Expected<Term> term = parseTerm(graph.getLanguage(), text);
  if (!term) {
    ADD_FAILURE() << llvm::toString(term.takeError());
    return invalidId;
  }
  return graph.lookupTerm(*term).value_or(invalidId);
}

inline Rewrite rule(Language &language, llvm::StringRef name,
                    llvm::StringRef lhs, llvm::StringRef rhs) {
  return llvm::cantFail(Rewrite::create(language, name, lhs, rhs));
}

inline std::string print(const EGraph &graph) {
  std::string text;
  llvm::raw_string_ostream os(text);
  graph.print(os);
  return text;
}

inline std::string invariantProblems(const EGraph &graph) {
  std::string text;
  llvm::raw_string_ostream os(text);
  graph.checkInvariants(&os);
  return text;
}

#define EXPECT_INVARIANTS(graph)                                               \
  EXPECT_TRUE((graph).checkInvariants()) << invariantProblems(graph)

/// The smallest term of a class, printed.
inline std::string best(const EGraph &graph, EClassId id) {
  GreedyExtractor extractor(graph, astSizeCost);
  return printTerm(graph.getLanguage(), extractor.extract(id));
}

/// Integer constant folding over +, - and *: the classic analysis. Its
/// modify() adds the folded constant to the class.
class ConstantFolding : public AnalysisOf<std::optional<int64_t>> {
public:
  explicit ConstantFolding(Language &language)
      : plus(language.getOrAddOp("+")), minus(language.getOrAddOp("-")),
        times(language.getOrAddOp("*")) {}

  llvm::StringRef getName() const override { return "const"; }

  std::optional<int64_t> make(const EGraph &graph,
                              const ENode &node) const override {
    if (node.op == Language::numOp && node.payload.isInt())
      return node.payload.getInt();
    if (node.children.size() != 2)
      return std::nullopt;
    std::optional<int64_t> a = get(node.children[0]);
    std::optional<int64_t> b = get(node.children[1]);
    if (!a || !b)
      return std::nullopt;
    if (node.op == plus)
      return *a + *b;
    if (node.op == minus)
      return *a - *b;
    if (node.op == times)
      return *a * *b;
    return std::nullopt;
  }

  MergeResult merge(std::optional<int64_t> &into,
                    std::optional<int64_t> from) const override {
    if (into && from && *into != *from)
      ++conflicts;
    return mergeOptional(into, from);
  }

  void modify(EGraph &graph, EClassId id) override {
    if (std::optional<int64_t> value = get(id))
      graph.merge(
          id, graph.add(ENode(Language::numOp, {}, Payload::integer(*value))));
  }

  void print(llvm::raw_ostream &os,
             const std::optional<int64_t> &value) const override {
    if (value)
      os << *value;
    else
      os << "?";
  }

  mutable unsigned conflicts = 0;

private:
  OpId plus, minus, times;
};

} // namespace mirage::egraph::test

#endif // MIRAGE_UNITTESTS_EGRAPH_TESTUTIL_H
