//===- Rewrite.cpp - Rewrite rules: searchers, guards, appliers -----------===//
//
// Part of the Mirage MLIR project.
//
//===----------------------------------------------------------------------===//

#include "mirage/EGraph/Rewrite.h"

using namespace mirage::egraph;

namespace {
llvm::Error ruleError(llvm::StringRef rule, const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "rule '" + rule + "': " + message);
}

/// Splits `?v = pattern` into the variable name and the pattern text.
std::pair<std::optional<llvm::StringRef>, llvm::StringRef>
splitBinding(llvm::StringRef text) {
  llvm::StringRef trimmed = text.trim();
  if (!trimmed.starts_with("?"))
    return {std::nullopt, text};
  size_t eq = trimmed.find('=');
  if (eq == llvm::StringRef::npos)
    return {std::nullopt, text};
  return {trimmed.slice(1, eq).trim(), trimmed.drop_front(eq + 1)};
}
} // namespace

llvm::Expected<Rewrite>
Rewrite::parseSearcher(Language &language, llvm::StringRef name,
                       llvm::ArrayRef<llvm::StringRef> lhs) {
  Rewrite rule;
  rule.name = name.str();
  if (lhs.empty())
    return ruleError(name, "no left-hand pattern");
  for (llvm::StringRef text : lhs) {
    auto [binding, patternText] = splitBinding(text);
    llvm::Expected<Pattern> pattern =
        Pattern::parse(language, patternText, rule.vars);
    if (!pattern)
      return ruleError(name, llvm::toString(pattern.takeError()));
    if (binding) {
      llvm::Expected<unsigned> var =
          rule.vars.getOrAdd(*binding, VarTable::Kind::Class);
      if (!var)
        return ruleError(name, llvm::toString(var.takeError()));
      pattern->setRootBinding(*var);
    }
    rule.lhs.push_back(std::move(*pattern));
  }
  return rule;
}

llvm::Error Rewrite::parseBoundRhs(Language &language, llvm::StringRef text) {
  auto [binding, patternText] = splitBinding(text);
  std::optional<unsigned> target;
  if (binding) {
    target = vars.lookup(*binding);
    if (!target || vars.getKind(*target) != VarTable::Kind::Class)
      return ruleError(name, "right-hand side binds ?" + *binding +
                                 ", which the left-hand side does not bind");
  }
  unsigned varsBefore = vars.size();
  llvm::Expected<Pattern> pattern = Pattern::parse(language, patternText, vars);
  if (!pattern)
    return ruleError(name, llvm::toString(pattern.takeError()));
  if (vars.size() != varsBefore)
    return ruleError(name, "variable ?" + vars.getName(varsBefore) +
                               " of the right-hand side is not bound by the "
                               "left-hand side");
  rhs.emplace_back(target, std::move(*pattern));
  return llvm::Error::success();
}

llvm::Expected<Rewrite> Rewrite::create(Language &language,
                                        llvm::StringRef name,
                                        llvm::StringRef lhs,
                                        llvm::StringRef rhs) {
  llvm::Expected<Rewrite> rule = parseSearcher(language, name, lhs);
  if (!rule)
    return rule.takeError();
  if (splitBinding(rhs).first)
    return ruleError(name, "a single-pattern rule's right-hand side is merged "
                           "with the match; it cannot bind a variable");
  if (llvm::Error error = rule->parseBoundRhs(language, rhs))
    return std::move(error);
  return rule;
}

llvm::Expected<Rewrite>
Rewrite::createMulti(Language &language, llvm::StringRef name,
                     llvm::ArrayRef<llvm::StringRef> lhs,
                     llvm::ArrayRef<llvm::StringRef> rhs) {
  llvm::Expected<Rewrite> rule = parseSearcher(language, name, lhs);
  if (!rule)
    return rule.takeError();
  if (rhs.empty())
    return ruleError(name, "no right-hand side");
  for (llvm::StringRef text : rhs) {
    if (!splitBinding(text).first)
      return ruleError(name, "a multi-pattern right-hand side must be "
                             "written '?v = pattern'");
    if (llvm::Error error = rule->parseBoundRhs(language, text))
      return std::move(error);
  }
  return rule;
}

llvm::Expected<Rewrite>
Rewrite::createCustom(Language &language, llvm::StringRef name,
                      llvm::ArrayRef<llvm::StringRef> lhs, ApplyFn apply) {
  llvm::Expected<Rewrite> rule = parseSearcher(language, name, lhs);
  if (!rule)
    return rule.takeError();
  if (!apply)
    return ruleError(name, "no applier");
  rule->customApply = std::move(apply);
  return rule;
}

Rewrite &Rewrite::addCondition(Condition condition) {
  conditions.push_back(std::move(condition));
  return *this;
}

unsigned Rewrite::getVar(llvm::StringRef varName) const {
  std::optional<unsigned> var = vars.lookup(varName);
  assert(var && "no such variable in the rule");
  return *var;
}

size_t Rewrite::search(const EGraph &graph, MatchList &matches,
                       size_t limit) const {
  size_t found = 0;
  if (limit == 0)
    return 0;
  searchPatterns(graph, lhs, vars, [&](EClassId root, const Subst &subst) {
    for (const Condition &condition : conditions)
      if (!condition(graph, root, subst))
        return true;
    matches.push(root, subst);
    return ++found < limit;
  });
  return found;
}

bool Rewrite::apply(EGraph &graph, const Match &match) const {
  uint64_t before = graph.getVersion();
  if (customApply) {
    customApply(graph, match.root, match.subst);
  } else {
    for (const auto &[target, pattern] : rhs) {
      EClassId id = instantiate(graph, pattern, match.subst);
      graph.merge(target ? match.subst[*target] : match.root, id);
    }
  }
  return graph.getVersion() != before;
}

void Rewrite::print(llvm::raw_ostream &os, const Language &language) const {
  os << name << ": ";
  llvm::interleave(
      lhs, os, [&](const Pattern &p) { p.print(os, language, vars); }, ", ");
  os << " => ";
  if (customApply) {
    os << "<custom>";
  } else {
    llvm::interleave(
        rhs, os,
        [&](const auto &entry) {
          if (entry.first)
            os << "?" << vars.getName(*entry.first) << " = ";
          entry.second.print(os, language, vars);
        },
        ", ");
  }
  if (!conditions.empty())
    os << " if <" << conditions.size() << " conditions>";
}
