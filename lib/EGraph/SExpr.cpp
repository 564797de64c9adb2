//===- SExpr.cpp - Terms as s-expressions ---------------------------------===//
//
// Part of the Mirage MLIR project.
//
//===----------------------------------------------------------------------===//

#include "mirage/EGraph/SExpr.h"
#include "SExprReader.h"

#include "llvm/ADT/StringExtras.h"

#include <map>

using namespace mirage::egraph;
using namespace mirage::egraph::detail;

//===----------------------------------------------------------------------===//
// Reader
//===----------------------------------------------------------------------===//

llvm::Error detail::makeError(size_t offset, const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "at offset " + llvm::Twine(offset) + ": " +
                                     message);
}

bool detail::parseInteger(llvm::StringRef text, int64_t &value) {
  llvm::StringRef digits = text;
  digits.consume_front("-");
  if (digits.empty() || !llvm::all_of(digits, llvm::isDigit))
    return false;
  // getAsInteger fails on overflow.
  return !text.getAsInteger(10, value);
}

namespace {
class Reader {
public:
  explicit Reader(llvm::StringRef text) : text(text) {}

  llvm::Expected<SExpr> readOne() {
    llvm::Expected<SExpr> expr = read(0);
    if (!expr)
      return expr.takeError();
    skipSpace();
    if (pos != text.size())
      return makeError(pos, "unexpected text after the expression");
    return expr;
  }

private:
  static bool isDelimiter(char c) {
    return llvm::isSpace(c) || c == '(' || c == ')' || c == ';';
  }

  void skipSpace() {
    while (pos < text.size()) {
      if (llvm::isSpace(text[pos])) {
        ++pos;
      } else if (text[pos] == ';') {
        while (pos < text.size() && text[pos] != '\n')
          ++pos;
      } else {
        break;
      }
    }
  }

  llvm::Expected<SExpr> read(unsigned depth) {
    if (depth > 10000)
      return makeError(pos, "nesting too deep");
    skipSpace();
    if (pos == text.size())
      return makeError(pos, "expected an expression");
    SExpr expr;
    expr.offset = pos;
    if (text[pos] == ')')
      return makeError(pos, "unexpected ')'");
    if (text[pos] != '(') {
      size_t start = pos;
      while (pos < text.size() && !isDelimiter(text[pos]))
        ++pos;
      expr.atom = text.slice(start, pos);
      return expr;
    }
    ++pos;
    expr.isList = true;
    while (true) {
      skipSpace();
      if (pos == text.size())
        return makeError(expr.offset, "unclosed '('");
      if (text[pos] == ')') {
        ++pos;
        break;
      }
      llvm::Expected<SExpr> element = read(depth + 1);
      if (!element)
        return element.takeError();
      expr.elements.push_back(std::move(*element));
    }
    if (expr.elements.empty())
      return makeError(expr.offset, "empty list");
    if (expr.elements.front().isList)
      return makeError(expr.offset, "a list must start with an operator");
    return expr;
  }

  llvm::StringRef text;
  size_t pos = 0;
};
} // namespace

llvm::Expected<SExpr> detail::readSExpr(llvm::StringRef text) {
  return Reader(text).readOne();
}

llvm::Expected<Atom> detail::splitAtom(const SExpr &expr) {
  assert(!expr.isList && "not an atom");
  Atom atom;
  llvm::StringRef text = expr.atom;
  if (parseInteger(text, atom.intValue)) {
    atom.kind = Atom::Kind::Int;
    return atom;
  }
  if (text.consume_front("?")) {
    if (text.empty() || text.contains(':'))
      return makeError(expr.offset, "bad variable '" + expr.atom + "'");
    atom.kind = Atom::Kind::Var;
    atom.name = text;
    return atom;
  }
  atom.kind = Atom::Kind::Op;
  size_t colon = text.find(':');
  if (colon == 0)
    return makeError(expr.offset, "an operator name is missing before ':'");
  if (colon == llvm::StringRef::npos) {
    atom.name = text;
    return atom;
  }
  atom.name = text.take_front(colon);
  atom.payload = text.drop_front(colon + 1);
  atom.hasPayload = true;
  if (atom.payload.empty())
    return makeError(expr.offset, "empty payload after ':'");
  return atom;
}

//===----------------------------------------------------------------------===//
// Terms
//===----------------------------------------------------------------------===//

namespace {
class TermBuilder {
public:
  explicit TermBuilder(Language &language) : language(language) {}

  llvm::Expected<unsigned> build(const SExpr &expr) {
    const SExpr &head = expr.isList ? expr.elements.front() : expr;
    llvm::Expected<Atom> atom = splitAtom(head);
    if (!atom)
      return atom.takeError();
    ENode node;
    switch (atom->kind) {
    case Atom::Kind::Var:
      return makeError(head.offset, "a term cannot contain variables");
    case Atom::Kind::Int:
      if (expr.isList)
        return makeError(head.offset, "an integer cannot have children");
      node = ENode(Language::numOp, {}, Payload::integer(atom->intValue));
      break;
    case Atom::Kind::Op: {
      node.op = language.getOrAddOp(atom->name);
      if (atom->hasPayload) {
        int64_t value;
        if (parseInteger(atom->payload, value))
          node.payload = Payload::integer(value);
        else if (atom->payload.starts_with("?"))
          return makeError(head.offset, "a term cannot contain variables");
        else
          node.payload = language.symbol(atom->payload);
      }
      break;
    }
    }
    if (expr.isList) {
      for (const SExpr &child : llvm::drop_begin(expr.elements)) {
        llvm::Expected<unsigned> index = build(child);
        if (!index)
          return index.takeError();
        node.children.push_back(*index);
      }
    }
    auto [it, inserted] = indices.try_emplace(node, term.size());
    if (inserted)
      term.add(std::move(node));
    return it->second;
  }

  Term take() { return std::move(term); }

private:
  Language &language;
  Term term;
  std::map<ENode, unsigned> indices;
};
} // namespace

llvm::Expected<Term> mirage::egraph::parseTerm(Language &language,
                                               llvm::StringRef text) {
  llvm::Expected<SExpr> expr = readSExpr(text);
  if (!expr)
    return expr.takeError();
  TermBuilder builder(language);
  llvm::Expected<unsigned> root = builder.build(*expr);
  if (!root)
    return root.takeError();
  Term term = builder.take();
  // Sharing can leave the root before the last node only if the root were a
  // subterm of itself, which a tree cannot be.
  assert(*root == term.getRoot());
  return term;
}

llvm::Expected<EClassId> mirage::egraph::addSExpr(EGraph &graph,
                                                  llvm::StringRef text) {
  llvm::Expected<Term> term = parseTerm(graph.getLanguage(), text);
  if (!term)
    return term.takeError();
  return graph.addTerm(*term);
}

void mirage::egraph::printHead(llvm::raw_ostream &os, const Language &language,
                               const ENode &node) {
  if (node.op == Language::numOp && node.payload.isInt() &&
      node.children.empty()) {
    os << node.payload.getInt();
    return;
  }
  os << language.getOpName(node.op);
  if (!node.payload.isNone()) {
    os << ":";
    language.printPayload(os, node.payload);
  }
}

void mirage::egraph::printTerm(llvm::raw_ostream &os, const Language &language,
                               const Term &term, std::optional<unsigned> root) {
  if (term.empty()) {
    os << "<empty>";
    return;
  }
  const ENode &node = term[root.value_or(term.getRoot())];
  if (node.children.empty()) {
    printHead(os, language, node);
    return;
  }
  os << "(";
  printHead(os, language, node);
  for (EClassId child : node.children) {
    os << " ";
    printTerm(os, language, term, child);
  }
  os << ")";
}

std::string mirage::egraph::printTerm(const Language &language,
                                      const Term &term,
                                      std::optional<unsigned> root) {
  std::string text;
  llvm::raw_string_ostream os(text);
  printTerm(os, language, term, root);
  return text;
}
