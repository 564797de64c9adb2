//===- Pattern.cpp - Patterns, substitutions and e-matching ---------------===//
//
// Part of the Mirage MLIR project.
//
//===----------------------------------------------------------------------===//

#include "mirage/EGraph/Pattern.h"
#include "SExprReader.h"

#include "mirage/EGraph/SExpr.h"

using namespace mirage::egraph;
using namespace mirage::egraph::detail;

//===----------------------------------------------------------------------===//
// VarTable and Subst
//===----------------------------------------------------------------------===//

llvm::Expected<unsigned> VarTable::getOrAdd(llvm::StringRef name, Kind kind) {
  if (std::optional<unsigned> var = lookup(name)) {
    if (kinds[*var] != kind)
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "variable ?" + name + " is used both for a class and a payload");
    return *var;
  }
  names.push_back(name.str());
  kinds.push_back(kind);
  return names.size() - 1;
}

std::optional<unsigned> VarTable::lookup(llvm::StringRef name) const {
  name.consume_front("?");
  for (unsigned i = 0, e = names.size(); i < e; ++i)
    if (names[i] == name)
      return i;
  return std::nullopt;
}

Subst::Subst(const VarTable &vars)
    : classes(vars.size(), invalidId), bound(vars.size(), false) {
  for (unsigned i = 0, e = vars.size(); i < e; ++i) {
    if (vars.getKind(i) == VarTable::Kind::Payload) {
      payloads.resize(vars.size());
      break;
    }
  }
}

Subst::Subst(llvm::ArrayRef<EClassId> classes, llvm::ArrayRef<Payload> payloads)
    : classes(classes.begin(), classes.end()),
      payloads(payloads.begin(), payloads.end()), bound(classes.size(), true) {
  assert((payloads.empty() || payloads.size() == classes.size()) &&
         "one payload slot per variable");
}

MatchList::MatchList(const VarTable &vars) : numVars(vars.size()) {
  for (unsigned i = 0; i < numVars; ++i)
    hasPayloads |= vars.getKind(i) == VarTable::Kind::Payload;
}

void MatchList::push(EClassId root, const Subst &subst) {
  assert(subst.size() == numVars && "substitution of another rule");
  roots.push_back(root);
  for (unsigned v = 0; v < numVars; ++v) {
    assert(subst.isBound(v) && "a match binds every variable");
    classes.push_back(subst[v]);
    if (hasPayloads)
      payloads.push_back(subst.getPayload(v));
  }
}

void MatchList::truncate(size_t n) {
  if (n >= roots.size())
    return;
  roots.resize(n);
  classes.resize(n * numVars);
  if (hasPayloads)
    payloads.resize(n * numVars);
}

void MatchList::release() {
  std::vector<EClassId>().swap(roots);
  std::vector<EClassId>().swap(classes);
  std::vector<Payload>().swap(payloads);
}

Match MatchList::operator[](size_t i) const {
  llvm::ArrayRef<EClassId> matchClasses(classes.data() + i * numVars, numVars);
  llvm::ArrayRef<Payload> matchPayloads;
  if (hasPayloads)
    matchPayloads = llvm::ArrayRef(payloads.data() + i * numVars, numVars);
  return {roots[i], Subst(matchClasses, matchPayloads)};
}

//===----------------------------------------------------------------------===//
// Parsing and printing
//===----------------------------------------------------------------------===//

namespace {
class PatternBuilder {
public:
  PatternBuilder(Language &language, VarTable &vars,
                 std::vector<PatternNode> &nodes)
      : language(language), vars(vars), nodes(nodes) {}

  llvm::Expected<unsigned> build(const SExpr &expr) {
    const SExpr &head = expr.isList ? expr.elements.front() : expr;
    llvm::Expected<Atom> atom = splitAtom(head);
    if (!atom)
      return atom.takeError();
    PatternNode node;
    switch (atom->kind) {
    case Atom::Kind::Var: {
      if (expr.isList)
        return makeError(head.offset, "a variable cannot have children");
      llvm::Expected<unsigned> var =
          vars.getOrAdd(atom->name, VarTable::Kind::Class);
      if (!var)
        return var.takeError();
      node.isVar = true;
      node.var = *var;
      break;
    }
    case Atom::Kind::Int:
      if (expr.isList)
        return makeError(head.offset, "an integer cannot have children");
      node.op = Language::numOp;
      node.payload = Payload::integer(atom->intValue);
      break;
    case Atom::Kind::Op: {
      node.op = language.getOrAddOp(atom->name);
      if (!atom->hasPayload)
        break;
      int64_t value;
      llvm::StringRef payload = atom->payload;
      if (parseInteger(payload, value)) {
        node.payload = Payload::integer(value);
      } else if (payload.consume_front("?")) {
        llvm::Expected<unsigned> var =
            vars.getOrAdd(payload, VarTable::Kind::Payload);
        if (!var)
          return var.takeError();
        node.payloadVar = *var;
      } else {
        node.payload = language.symbol(payload);
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
    nodes.push_back(std::move(node));
    return nodes.size() - 1;
  }

private:
  Language &language;
  VarTable &vars;
  std::vector<PatternNode> &nodes;
};
} // namespace

llvm::Expected<Pattern> Pattern::parse(Language &language, llvm::StringRef text,
                                       VarTable &vars) {
  llvm::Expected<SExpr> expr = readSExpr(text);
  if (!expr)
    return expr.takeError();
  Pattern pattern;
  PatternBuilder builder(language, vars, pattern.nodes);
  if (llvm::Expected<unsigned> root = builder.build(*expr); !root)
    return root.takeError();
  return pattern;
}

namespace {
void printPatternNode(llvm::raw_ostream &os, const Language &language,
                      const VarTable &vars, llvm::ArrayRef<PatternNode> nodes,
                      unsigned index) {
  const PatternNode &node = nodes[index];
  if (node.isVar) {
    os << "?" << vars.getName(node.var);
    return;
  }
  if (!node.children.empty())
    os << "(";
  if (node.payloadVar) {
    os << language.getOpName(node.op) << ":?" << vars.getName(*node.payloadVar);
  } else {
    printHead(os, language, ENode(node.op, {}, node.payload));
  }
  for (unsigned child : node.children) {
    os << " ";
    printPatternNode(os, language, vars, nodes, child);
  }
  if (!node.children.empty())
    os << ")";
}
} // namespace

void Pattern::print(llvm::raw_ostream &os, const Language &language,
                    const VarTable &vars) const {
  if (rootBinding)
    os << "?" << vars.getName(*rootBinding) << " = ";
  printPatternNode(os, language, vars, nodes, getRootIndex());
}

//===----------------------------------------------------------------------===//
// E-matching
//===----------------------------------------------------------------------===//

namespace {
/// Backtracking matcher. Every function returns false once the client asked
/// to stop; `next` continues with the rest of the match.
class Matcher {
public:
  Matcher(const EGraph &graph, llvm::ArrayRef<Pattern> patterns,
          const VarTable &vars,
          llvm::function_ref<bool(EClassId, const Subst &)> onMatch)
      : graph(graph), patterns(patterns), subst(vars), onMatch(onMatch) {}

  bool matchPatternsFrom(unsigned k) {
    if (k == patterns.size())
      return onMatch(firstRoot, subst);
    const Pattern &pattern = patterns[k];
    std::optional<unsigned> binding = pattern.getRootBinding();
    auto tryClass = [&](EClassId cls) {
      return matchNode(pattern, pattern.getRootIndex(), cls, [&] {
        if (k == 0)
          firstRoot = cls;
        if (!binding || subst.isBound(*binding))
          return matchPatternsFrom(k + 1);
        subst.bind(*binding, cls);
        bool more = matchPatternsFrom(k + 1);
        subst.unbind(*binding);
        return more;
      });
    };
    if (binding && subst.isBound(*binding))
      return tryClass(graph.find(subst[*binding]));
    const PatternNode &root = pattern.getRoot();
    llvm::ArrayRef<EClassId> candidates =
        root.isVar ? graph.getClassIds() : graph.getClassesWithOp(root.op);
    for (EClassId cls : candidates)
      if (!tryClass(cls))
        return false;
    return true;
  }

private:
  bool matchNode(const Pattern &pattern, unsigned index, EClassId cls,
                 llvm::function_ref<bool()> next) {
    const PatternNode &node = pattern.getNodes()[index];
    cls = graph.find(cls);
    if (node.isVar) {
      if (subst.isBound(node.var))
        return subst[node.var] == cls ? next() : true;
      subst.bind(node.var, cls);
      bool more = next();
      subst.unbind(node.var);
      return more;
    }
    for (ENodeId id : graph.getClassNodesWithOp(cls, node.op)) {
      const ENode &enode = graph.getNode(id);
      if (enode.children.size() != node.children.size())
        continue;
      bool bindsPayload = false;
      if (node.payloadVar) {
        if (subst.isBound(*node.payloadVar)) {
          if (subst.getPayload(*node.payloadVar) != enode.payload)
            continue;
        } else {
          subst.bindPayload(*node.payloadVar, enode.payload);
          bindsPayload = true;
        }
      } else if (enode.payload != node.payload) {
        continue;
      }
      bool more = matchChildren(pattern, node, enode, 0, next);
      if (bindsPayload)
        subst.unbind(*node.payloadVar);
      if (!more)
        return false;
    }
    return true;
  }

  bool matchChildren(const Pattern &pattern, const PatternNode &node,
                     const ENode &enode, unsigned i,
                     llvm::function_ref<bool()> next) {
    if (i == node.children.size())
      return next();
    return matchNode(pattern, node.children[i], enode.children[i], [&] {
      return matchChildren(pattern, node, enode, i + 1, next);
    });
  }

  const EGraph &graph;
  llvm::ArrayRef<Pattern> patterns;
  Subst subst;
  llvm::function_ref<bool(EClassId, const Subst &)> onMatch;
  EClassId firstRoot = invalidId;
};
} // namespace

void mirage::egraph::searchPatterns(
    const EGraph &graph, llvm::ArrayRef<Pattern> patterns, const VarTable &vars,
    llvm::function_ref<bool(EClassId root, const Subst &subst)> onMatch) {
  assert(graph.isClean() && "rebuild() before searching");
  if (patterns.empty())
    return;
  Matcher(graph, patterns, vars, onMatch).matchPatternsFrom(0);
}

std::vector<Match> mirage::egraph::searchPattern(const EGraph &graph,
                                                 const Pattern &pattern,
                                                 const VarTable &vars) {
  std::vector<Match> matches;
  searchPatterns(graph, pattern, vars, [&](EClassId root, const Subst &subst) {
    matches.push_back({root, subst});
    return true;
  });
  return matches;
}

EClassId mirage::egraph::instantiate(EGraph &graph, const Pattern &pattern,
                                     const Subst &subst) {
  llvm::ArrayRef<PatternNode> nodes = pattern.getNodes();
  llvm::SmallVector<EClassId, 16> ids(nodes.size());
  for (unsigned i = 0, e = nodes.size(); i < e; ++i) {
    const PatternNode &node = nodes[i];
    if (node.isVar) {
      assert(subst.isBound(node.var) && "instantiating an unbound variable");
      ids[i] = subst[node.var];
      continue;
    }
    ENode enode(node.op, {},
                node.payloadVar ? subst.getPayload(*node.payloadVar)
                                : node.payload);
    for (unsigned child : node.children)
      enode.children.push_back(ids[child]);
    ids[i] = graph.add(std::move(enode));
  }
  return ids.back();
}
