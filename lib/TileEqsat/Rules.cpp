//===- Rules.cpp - Trinity's rewrite rules and hooks ----------------------===//
//
// Part of the Mirage MLIR project.
//
// Rules are written as patterns over the tile IR (TileIR.h); loop variables
// are payload variables (`loop:?v`), so two loops match the same variable
// only if they iterate the same one. Guards read the TileAnalysis of the
// matched classes (Analysis.h).
//
//===----------------------------------------------------------------------===//

#include "mirage/TileEqsat/Rules.h"

#include "mirage/EGraph/Pattern.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringExtras.h"

using namespace mirage;
using namespace mirage::tile;
using namespace mirage::egraph;
using llvm::ArrayRef;
using llvm::Expected;
using llvm::SmallVector;
using llvm::StringRef;
using llvm::Twine;
using Sort = TileData::Sort;

namespace {

const llvm::StringRef kLoopRules[] = {
    "seq-comm",
    "seq-comm-tail",
    "loop-fusion",
    "loop-fusion-tail",
    "loop-fission-tail",
    "loop-fission",
    "loop-insertion1-tail",
    "loop-insertion1",
    "loop-insertion2-tail",
    "loop-insertion2",
    "loop-invar-code-motion",
    "alge-factor-loop-body-div",
    "alge-factor-loop-body-div-tail",
    "alge-factor-loop-body-mul",
    "alge-factor-loop-body-mul-tail",
    "alge-factor-loop-body-div-seq",
    "alge-factor-loop-body-div-seq-tail",
    "alge-factor-loop-body-mul-seq",
    "alge-factor-loop-body-mul-seq-tail",
    "loop-insertion2-init",
    "loop-insertion2-init-tail",
};

const llvm::StringRef kFusionRules[] = {
    "loop-fusion-fixed-tile",       "loop-fusion-fixed-tile-tail",
    "loop-fusion-reindex",          "loop-fusion-reindex-tail",
    "loop-fusion-reindex-rev",      "loop-fusion-reindex-rev-tail",
};

const llvm::StringRef kAlgebraRules[] = {
    "comm-add",
    "assoc-add",
    "assoc-add2",
    "comm-mul",
    "assoc-mul",
    "assoc-mul2",
    "assoc-matmul",
    "assoc-matmul2",
    "assoc-div-matmul",
    "dist-mul-add",
    "dist-mul-sub",
    "dist-matmul-add",
    "dist-matmul-sub",
    "factor-mul-add",
    "factor-mul-sub",
    "factor-matmul-add",
    "factor-matmul-sub",
    "exp-mul",
    "exp-div",
    "exp0",
    "recip-mul-div",
    "geometry-of-concat",
    "geometry-of-concat-inv",
    "operator-comm6",
    "operator-comm6-inv",
    "operator-comm7",
    "operator-comm7-inv",
    "concat-and-matmul0",
    "concat-and-matmul0-inv",
    "concat-and-matmul1",
    "concat-and-matmul1-inv",
};

/// What the guards need, captured by value: the context and analysis
/// outlive the rules.
struct Env {
  const TileContext *context;
  const TileAnalysis *analysis;
  TileOps ops;

  const TileData &data(const Subst &s, unsigned var) const {
    return analysis->get(s[var]);
  }
  static SymbolId loopVar(const Subst &s, unsigned var) {
    return s.getPayload(var).getSymbol();
  }
  bool isSeqClass(const EGraph &graph, EClassId id) const {
    return !graph.getClassNodesWithOp(id, ops.seq).empty();
  }
  bool isStmt(const Subst &s, unsigned var) const {
    return data(s, var).sort == Sort::Stmt;
  }
  /// Whether the class holds a loop over `var` at any depth (a statement
  /// that would shadow it when moved into a loop over `var`).
  bool bindsVar(const EGraph &graph, EClassId id, SymbolId var) const {
    return llvm::is_contained(analysis->get(id).boundVars, var);
  }
  /// No write of `writer` touches what `other` reads or writes.
  static bool writesClear(const TileData &writer, const TileData &other) {
    TileData writes;
    writes.writes = writer.writes;
    return !conflicts(writes, other);
  }
};

/// The indices of a rule's variables by name, filled after the rule is
/// created (appliers are given before the rule exists).
using VarIndex = std::shared_ptr<llvm::StringMap<unsigned>>;

class RuleBuilder {
public:
  RuleBuilder(TileContext &context, const TileAnalysis &analysis,
              const RuleSets &sets)
      : language(context.getLanguage()),
        env{&context, &analysis, context.getOps()}, sets(sets) {}

  std::vector<Rewrite> build() {
    if (sets.loops)
      addLoopRules();
    if (sets.fusion)
      addFusionRules();
    if (sets.algebra)
      addAlgebraRules();
    return std::move(rules);
  }

private:
  bool selected(StringRef name) const {
    return sets.only.empty() || llvm::is_contained(sets.only, name.str());
  }
  Rewrite &add(Rewrite rule) {
    rules.push_back(std::move(rule));
    return rules.back();
  }
  Rewrite *rule(StringRef name, StringRef lhs, StringRef rhs) {
    if (!selected(name))
      return nullptr;
    return &add(llvm::cantFail(Rewrite::create(language, name, lhs, rhs)));
  }
  /// A custom rule; `vars` is filled with its variables' indices.
  Rewrite *custom(StringRef name, StringRef lhs, VarIndex vars,
                  Rewrite::ApplyFn apply) {
    if (!selected(name))
      return nullptr;
    Rewrite &r = add(llvm::cantFail(
        Rewrite::createCustom(language, name, {lhs}, std::move(apply))));
    const VarTable &table = r.getVars();
    for (unsigned i = 0; i < table.size(); ++i)
      (*vars)[table.getName(i)] = i;
    return &r;
  }

  void addLoopRules();
  void addFusionRules();
  void addAlgebraRules();
  using Extra = std::function<bool(const Env &, const VarTable &,
                                   const Subst &)>;
  void algebra(StringRef name, StringRef lhs, StringRef rhs,
               Extra extra = {});

  Language &language;
  Env env;
  const RuleSets &sets;
  std::vector<Rewrite> rules;
};

//===----------------------------------------------------------------------===//
// Loop and sequence rules (Trinity A.1)
//===----------------------------------------------------------------------===//

void RuleBuilder::addLoopRules() {
  Env env = this->env;
  // seq-comm: two statements that do not touch a common location, neither a
  // sequence (the canonical elements of a right-associated chain).
  auto commGuard = [env](Rewrite &r) {
    unsigned a = r.getVar("a"), b = r.getVar("b");
    r.addCondition([=](const EGraph &g, EClassId, const Subst &s) {
      return env.isStmt(s, a) && env.isStmt(s, b) && !env.isSeqClass(g, s[a]) &&
             !env.isSeqClass(g, s[b]) && s[a] != s[b] &&
             !conflicts(env.data(s, a), env.data(s, b));
    });
  };
  if (Rewrite *r = rule("seq-comm", "(seq ?a ?b)", "(seq ?b ?a)"))
    commGuard(*r);
  if (Rewrite *r = rule("seq-comm-tail", "(seq ?a (seq ?b ?t))",
                        "(seq ?b (seq ?a ?t))"))
    commGuard(*r);

  // Fusion and fission: no iteration of one body touches what another
  // iteration of the other body writes (or writes what it reads).
  auto fusionGuard = [env](Rewrite &r) {
    unsigned v = r.getVar("v"), b1 = r.getVar("b1"), b2 = r.getVar("b2");
    r.addCondition([=](const EGraph &, EClassId, const Subst &s) {
      return env.isStmt(s, b1) && env.isStmt(s, b2) &&
             !conflictsAcrossIterations(env.data(s, b1), env.data(s, b2),
                                        Env::loopVar(s, v));
    });
  };
  if (Rewrite *r = rule("loop-fusion",
                        "(seq (loop:?v ?s ?e ?t ?b1) (seq (loop:?v ?s ?e ?t "
                        "?b2) ?o))",
                        "(seq (loop:?v ?s ?e ?t (seq ?b1 ?b2)) ?o)"))
    fusionGuard(*r);
  if (Rewrite *r = rule("loop-fusion-tail",
                        "(seq (loop:?v ?s ?e ?t ?b1) (loop:?v ?s ?e ?t ?b2))",
                        "(loop:?v ?s ?e ?t (seq ?b1 ?b2))"))
    fusionGuard(*r);
  if (Rewrite *r = rule("loop-fission-tail",
                        "(seq (loop:?v ?s ?e ?t (seq ?b1 ?b2)) ?o)",
                        "(seq (loop:?v ?s ?e ?t ?b1) (seq (loop:?v ?s ?e ?t "
                        "?b2) ?o))"))
    fusionGuard(*r);
  if (Rewrite *r = rule("loop-fission", "(loop:?v ?s ?e ?t (seq ?b1 ?b2))",
                        "(seq (loop:?v ?s ?e ?t ?b1) (loop:?v ?s ?e ?t ?b2))"))
    fusionGuard(*r);

  // Loop insertion: a statement that does not depend on the loop variable
  // is run in every iteration. It must be idempotent (read nothing it writes
  // before writing all of it), and the loop body must not write what it
  // reads or writes, so every run of it sees the same inputs.
  // `before`: the moved statement runs before the body (insertion2), so the
  // body must not write what it reads or writes; after the body
  // (insertion1), it must not write what the body reads or writes.
  auto insertGuard = [env](Rewrite &r, StringRef moved, StringRef body) {
    bool before = moved == "b1";
    unsigned v = r.getVar("v"), m = r.getVar(moved), b = r.getVar(body);
    r.addCondition([=](const EGraph &g, EClassId, const Subst &s) {
      SymbolId var = Env::loopVar(s, v);
      const TileData &md = env.data(s, m);
      return env.isStmt(s, m) && env.isStmt(s, b) &&
             !env.isSeqClass(g, s[m]) && !md.dependsOn(var) &&
             !env.bindsVar(g, s[m], var) && isIdempotent(md) &&
             (before ? Env::writesClear(env.data(s, b), md)
                     : Env::writesClear(md, env.data(s, b)));
    });
  };
  if (Rewrite *r = rule("loop-insertion1-tail",
                        "(seq (loop:?v ?s ?e ?t ?b1) (seq ?b2 ?o))",
                        "(seq (loop:?v ?s ?e ?t (seq ?b1 ?b2)) ?o)"))
    insertGuard(*r, "b2", "b1");
  if (Rewrite *r = rule("loop-insertion1", "(seq (loop:?v ?s ?e ?t ?b1) ?b2)",
                        "(loop:?v ?s ?e ?t (seq ?b1 ?b2))"))
    insertGuard(*r, "b2", "b1");
  if (Rewrite *r = rule("loop-insertion2-tail",
                        "(seq ?b1 (seq (loop:?v ?s ?e ?t ?b2) ?o))",
                        "(seq (loop:?v ?s ?e ?t (seq ?b1 ?b2)) ?o)"))
    insertGuard(*r, "b1", "b2");
  if (Rewrite *r = rule("loop-insertion2", "(seq ?b1 (loop:?v ?s ?e ?t ?b2))",
                        "(loop:?v ?s ?e ?t (seq ?b1 ?b2))"))
    insertGuard(*r, "b1", "b2");

  // Loop-invariant code motion: the loop variable is not used and the body
  // is idempotent, so running it once is running it every iteration.
  if (Rewrite *r = rule("loop-invar-code-motion", "(loop:?v ?s ?e ?t ?b)",
                        "?b")) {
    unsigned v = r->getVar("v"), b = r->getVar("b");
    r->addCondition([=](const EGraph &, EClassId, const Subst &s) {
      const TileData &bd = env.data(s, b);
      return env.isStmt(s, b) && !bd.dependsOn(Env::loopVar(s, v)) &&
             isIdempotent(bd);
    });
  }

  // Algebraic factoring in a loop body: sum_v (p / q) = (sum_v p) / q when
  // q does not depend on v. The accumulator must start at zero, so the rule
  // matches its initialization right before the loop.
  auto factorGuard = [env](Rewrite &r) {
    unsigned v = r.getVar("v"), x = r.getVar("x"), i = r.getVar("i"),
             q = r.getVar("q");
    r.addCondition([=](const EGraph &, EClassId, const Subst &s) {
      SymbolId var = Env::loopVar(s, v);
      const TileData &qd = env.data(s, q);
      const TileData &xd = env.data(s, x);
      if (xd.sort != Sort::Tensor || qd.dependsOn(var) ||
          env.data(s, i).dependsOn(var))
        return false;
      const TensorInfo *info = env.context->getTensor(xd.symbol);
      if (!info || info->kind == TensorKind::Input)
        return false;
      return llvm::none_of(qd.reads, [&](const Access &a) {
        return a.tensor == xd.symbol;
      });
    });
  };
  for (auto [op, name] : {std::pair<StringRef, StringRef>{"/", "div"},
                          {"*", "mul"}}) {
    std::string init = "(store ?x 0 ?i)";
    std::string loopLhs = ("(loop:?v ?s ?e ?t (store ?x (+ (load ?x ?i) (" +
                           op + " ?p ?q)) ?i))")
                              .str();
    std::string loopRhs =
        "(loop:?v ?s ?e ?t (store ?x (+ (load ?x ?i) ?p) ?i))";
    std::string after = ("(store ?x (" + op + " (load ?x ?i) ?q) ?i)").str();
    std::string base = ("alge-factor-loop-body-" + name).str();
    if (Rewrite *r = rule(base, "(seq " + init + " " + loopLhs + ")",
                          "(seq " + init + " (seq " + loopRhs + " " + after +
                              "))"))
      factorGuard(*r);
    if (Rewrite *r = rule(base + "-tail",
                          "(seq " + init + " (seq " + loopLhs + " ?o))",
                          "(seq " + init + " (seq " + loopRhs + " (seq " +
                              after + " ?o)))"))
      factorGuard(*r);
  }

  // The same when the accumulation is the first of several statements of
  // the loop body (the grouped projections of the conversion): the others
  // must neither read the accumulator (they would see undivided partial
  // sums) nor write what the divisor reads.
  auto restGuard = [env](Rewrite &r) {
    unsigned x = r.getVar("x"), q = r.getVar("q"), rest = r.getVar("rest");
    r.addCondition([=](const EGraph &, EClassId, const Subst &s) {
      const TileData &rd = env.data(s, rest);
      SymbolId tensor = env.data(s, x).symbol;
      auto touches = [&](const AccessSet &set) {
        return llvm::any_of(
            set, [&](const Access &a) { return a.tensor == tensor; });
      };
      TileData reads;
      reads.reads = env.data(s, q).reads;
      return env.isStmt(s, rest) && !touches(rd.reads) && !touches(rd.writes) &&
             !conflicts(rd, reads);
    });
  };
  for (auto [op, name] :
       {std::pair<StringRef, StringRef>{"/", "div"}, {"*", "mul"}}) {
    std::string init = "(store ?x 0 ?i)";
    std::string loopLhs =
        ("(loop:?v ?s ?e ?t (seq (store ?x (+ (load ?x ?i) (" + op +
         " ?p ?q)) ?i) ?rest))")
            .str();
    std::string loopRhs =
        "(loop:?v ?s ?e ?t (seq (store ?x (+ (load ?x ?i) ?p) ?i) ?rest))";
    std::string after = ("(store ?x (" + op + " (load ?x ?i) ?q) ?i)").str();
    std::string base = ("alge-factor-loop-body-" + name + "-seq").str();
    if (Rewrite *r =
            rule(base, "(seq " + init + " " + loopLhs + ")",
                 "(seq " + init + " (seq " + loopRhs + " " + after + "))")) {
      factorGuard(*r);
      restGuard(*r);
    }
    if (Rewrite *r =
            rule(base + "-tail", "(seq " + init + " (seq " + loopLhs + " ?o))",
                 "(seq " + init + " (seq " + loopRhs + " (seq " + after +
                     " ?o)))")) {
      factorGuard(*r);
      restGuard(*r);
    }
  }

  // Loop insertion of an accumulation with its initialization: the pair
  // (store x 0 i); b1 is idempotent even though b1 alone is not.
  auto pairGuard = [env](Rewrite &r) {
    unsigned v = r.getVar("v"), x = r.getVar("x"), i = r.getVar("i"),
             b1 = r.getVar("b1"), b2 = r.getVar("b2"), z = r.getVar("z");
    r.addCondition([=](const EGraph &g, EClassId, const Subst &s) {
      SymbolId var = Env::loopVar(s, v);
      if (!env.isStmt(s, b1) || !env.isStmt(s, b2) ||
          env.isSeqClass(g, s[b1]) || env.data(s, x).sort != Sort::Tensor ||
          env.data(s, i).dependsOn(var) || env.bindsVar(g, s[b1], var))
        return false;
      TileData pair = sequenceData(env.data(s, z), env.data(s, b1));
      return !pair.dependsOn(var) && isIdempotent(pair) &&
             Env::writesClear(env.data(s, b2), pair);
    });
  };
  auto pairRule = [&](StringRef name, StringRef lhs, StringRef rhs) {
    if (!selected(name))
      return;
    std::string l = ("?r = " + lhs).str(), r = ("?r = " + rhs).str();
    pairGuard(add(llvm::cantFail(Rewrite::createMulti(
        language, name, {l, "?z = (store ?x 0 ?i)"}, {r}))));
  };
  pairRule("loop-insertion2-init", "(seq ?z (seq ?b1 (loop:?v ?s ?e ?t ?b2)))",
           "(loop:?v ?s ?e ?t (seq ?z (seq ?b1 ?b2)))");
  pairRule("loop-insertion2-init-tail",
           "(seq ?z (seq ?b1 (seq (loop:?v ?s ?e ?t ?b2) ?o)))",
           "(seq (loop:?v ?s ?e ?t (seq ?z (seq ?b1 ?b2))) ?o)");
}

//===----------------------------------------------------------------------===//
// The case study's fusions (Trinity 5.3, Fig. 4e and 4f)
//===----------------------------------------------------------------------===//

/// A copy of class `id` with every `tile:from`/`elem:from` renamed `to`
/// (classes that do not use `from` are shared). Nodes that would capture
/// `to` or that lie on a cycle are left out; nullopt if no node is left.
class Renamer {
public:
  Renamer(EGraph &graph, const TileAnalysis &analysis, SymbolId from,
          SymbolId to)
      : graph(graph), analysis(analysis), ops(analysis.getContext().getOps()),
        from(from), to(to) {}

  std::optional<EClassId> rename(EClassId id) {
    id = graph.find(id);
    bool uses = analysis.get(id).dependsOn(from);
    if (!uses)
      return id;
    if (auto it = memo.find(id); it != memo.end())
      return it->second;
    if (!active.insert(id).second)
      return std::nullopt;
    std::vector<ENodeId> nodes(graph.getClassNodes(id).begin(),
                               graph.getClassNodes(id).end());
    std::optional<EClassId> result;
    for (ENodeId nodeId : nodes) {
      ENode node = graph.canonicalize(graph.getNode(nodeId));
      if (node.op == ops.loop && node.payload.getSymbol() == to)
        continue;
      if ((node.op == ops.tile || node.op == ops.elem) &&
          node.payload.isSymbol() && node.payload.getSymbol() == from) {
        node.payload = Payload::symbol(to);
      } else {
        bool ok = true;
        for (EClassId &child : node.children) {
          std::optional<EClassId> renamed = rename(child);
          if (!renamed) {
            ok = false;
            break;
          }
          child = *renamed;
        }
        if (!ok)
          continue;
      }
      EClassId added = graph.add(std::move(node));
      if (result)
        graph.merge(*result, added);
      else
        result = added;
    }
    active.erase(id);
    memo[id] = result;
    return result;
  }

private:
  EGraph &graph;
  const TileAnalysis &analysis;
  const TileOps &ops;
  SymbolId from, to;
  llvm::DenseMap<EClassId, std::optional<EClassId>> memo;
  llvm::DenseSet<EClassId> active;
};

void RuleBuilder::addFusionRules() {
  Env env = this->env;
  // Fixed tile size: a loop with a symbolic step and one with a number over
  // the same variable and range fuse with the number (tile sizes are free
  // parameters: a program means the same for every step that divides its
  // ranges). The symbolic side must not use elements of the variable, whose
  // meaning depends on the step.
  for (bool tail : {false, true}) {
    std::string lhs =
        tail ? "(seq (loop:?v ?s ?e ?t1 ?b1) (seq (loop:?v ?s ?e ?t2 ?b2) ?o))"
             : "(seq (loop:?v ?s ?e ?t1 ?b1) (loop:?v ?s ?e ?t2 ?b2))";
    std::string name =
        tail ? "loop-fusion-fixed-tile-tail" : "loop-fusion-fixed-tile";
    auto vars = std::make_shared<llvm::StringMap<unsigned>>();
    Rewrite *r = custom(
        name, lhs, vars, [env, vars, tail](EGraph &g, EClassId root,
                                           const Subst &m) {
          const llvm::StringMap<unsigned> &x = *vars;
          EClassId step = env.data(m, x.at("t1")).sort == Sort::Num
                              ? m[x.at("t1")]
                              : m[x.at("t2")];
          EClassId body =
              g.add(ENode(env.ops.seq, {m[x.at("b1")], m[x.at("b2")]}));
          EClassId fused =
              g.add(ENode(env.ops.loop, {m[x.at("s")], m[x.at("e")], step, body},
                          m.getPayload(x.at("v"))));
          if (tail)
            fused = g.add(ENode(env.ops.seq, {fused, m[x.at("o")]}));
          g.merge(root, fused);
        });
    if (!r)
      continue;
    r->addCondition([env, vars](const EGraph &, EClassId, const Subst &m) {
      const llvm::StringMap<unsigned> &x = *vars;
      const TileData &d1 = env.data(m, x.at("t1")), &d2 = env.data(m, x.at("t2"));
      bool firstSymbolic = d1.sort == Sort::TileSize && d2.sort == Sort::Num;
      bool secondSymbolic = d2.sort == Sort::TileSize && d1.sort == Sort::Num;
      if (!firstSymbolic && !secondSymbolic)
        return false;
      const TileData &number = firstSymbolic ? d2 : d1;
      const TileData &symbolicBody =
          env.data(m, firstSymbolic ? x.at("b1") : x.at("b2"));
      SymbolId var = Env::loopVar(m, x.at("v"));
      std::optional<double> start = env.data(m, x.at("s")).constant,
                            end = env.data(m, x.at("e")).constant;
      if (!start || !end || !number.constant || *number.constant <= 0)
        return false;
      int64_t step = int64_t(*number.constant);
      if ((int64_t(*end) - int64_t(*start)) % step != 0)
        return false;
      return env.isStmt(m, x.at("b1")) && env.isStmt(m, x.at("b2")) &&
             !llvm::is_contained(symbolicBody.elemVars, var) &&
             !conflictsAcrossIterations(env.data(m, x.at("b1")),
                                        env.data(m, x.at("b2")), var);
    });
  }

  // Iteration-space reindexing: loops over v and w with numeric steps,
  // both from 0 and with equal trip counts, so that `elem v` and `elem w`
  // are the same iteration number. The body that uses its variable only
  // through elements is renamed to the other loop's variable and fused
  // (-rev keeps the second loop's variable).
  for (bool keepSecond : {false, true}) {
    for (bool tail : {false, true}) {
      std::string lhs =
          tail ? "(seq (loop:?v ?s1 ?e1 ?t1 ?b1) (seq (loop:?w ?s2 ?e2 ?t2 "
                 "?b2) ?o))"
               : "(seq (loop:?v ?s1 ?e1 ?t1 ?b1) (loop:?w ?s2 ?e2 ?t2 ?b2))";
      std::string name = std::string("loop-fusion-reindex") +
                         (keepSecond ? "-rev" : "") + (tail ? "-tail" : "");
      auto vars = std::make_shared<llvm::StringMap<unsigned>>();
      const TileAnalysis *analysis = env.analysis;
      Rewrite *r = custom(
          name, lhs, vars,
          [env, vars, tail, keepSecond, analysis](EGraph &g, EClassId root,
                                                  const Subst &m) {
            const llvm::StringMap<unsigned> &x = *vars;
            SymbolId vs = Env::loopVar(m, x.at("v")),
                     ws = Env::loopVar(m, x.at("w"));
            SymbolId kept = keepSecond ? ws : vs,
                     renamed = keepSecond ? vs : ws;
            Renamer renamer(g, *analysis, renamed, kept);
            std::optional<EClassId> body =
                renamer.rename(m[x.at(keepSecond ? "b1" : "b2")]);
            if (!body)
              return;
            EClassId first = keepSecond ? *body : m[x.at("b1")];
            EClassId second = keepSecond ? m[x.at("b2")] : *body;
            EClassId seqBody = g.add(ENode(env.ops.seq, {first, second}));
            StringRef k = keepSecond ? "2" : "1";
            EClassId fused = g.add(
                ENode(env.ops.loop,
                      {m[x.at(("s" + k).str())], m[x.at(("e" + k).str())],
                       m[x.at(("t" + k).str())], seqBody},
                      Payload::symbol(kept)));
            if (tail)
              fused = g.add(ENode(env.ops.seq, {fused, m[x.at("o")]}));
            g.merge(root, fused);
          });
      if (!r)
        continue;
      r->addCondition([env, vars, keepSecond](const EGraph &, EClassId,
                                              const Subst &m) {
        const llvm::StringMap<unsigned> &x = *vars;
        SymbolId vs = Env::loopVar(m, x.at("v")),
                 ws = Env::loopVar(m, x.at("w"));
        if (vs == ws || !env.isStmt(m, x.at("b1")) || !env.isStmt(m, x.at("b2")))
          return false;
        const TileData &ds1 = env.data(m, x.at("s1")),
                       &de1 = env.data(m, x.at("e1")),
                       &dt1 = env.data(m, x.at("t1")),
                       &ds2 = env.data(m, x.at("s2")),
                       &de2 = env.data(m, x.at("e2")),
                       &dt2 = env.data(m, x.at("t2"));
        if (dt1.sort != Sort::Num || dt2.sort != Sort::Num || !ds1.constant ||
            !ds2.constant || !de1.constant || !de2.constant ||
            *ds1.constant != 0 || *ds2.constant != 0)
          return false;
        int64_t n1 = int64_t(*de1.constant), n2 = int64_t(*de2.constant);
        int64_t step1 = int64_t(*dt1.constant),
                step2 = int64_t(*dt2.constant);
        if (step1 <= 0 || step2 <= 0 || n1 % step1 || n2 % step2 ||
            n1 / step1 != n2 / step2)
          return false;
        const TileData &db1 = env.data(m, x.at("b1")),
                       &db2 = env.data(m, x.at("b2"));
        SymbolId kept = keepSecond ? ws : vs, renamed = keepSecond ? vs : ws;
        const TileData &moved = keepSecond ? db1 : db2;
        if (llvm::is_contained(moved.tileVars, renamed) ||
            moved.dependsOn(kept))
          return false;
        TileData renamedData = renameVar(moved, renamed, kept);
        return keepSecond
                   ? !conflictsAcrossIterations(renamedData, db2, kept)
                   : !conflictsAcrossIterations(db1, renamedData, kept);
      });
    }
  }
}

//===----------------------------------------------------------------------===//
// Algebraic rules (Trinity A.2)
//===----------------------------------------------------------------------===//

/// The shape of `pattern` instantiated under `s`, by the operator records'
/// shape rules; nullopt if an operator does not take its operands.
std::optional<Shape> patternShape(const TileContext &context,
                                  const TileAnalysis &analysis,
                                  const Pattern &pattern, const Subst &s) {
  std::vector<Shape> shapes(pattern.getNodes().size());
  for (auto [i, node] : llvm::enumerate(pattern.getNodes())) {
    if (node.isVar) {
      const TileData &d = analysis.get(s[node.var]);
      if (!d.isValue() || d.shapeError)
        return std::nullopt;
      shapes[i] = d.shape;
      continue;
    }
    if (node.op == Language::numOp || node.op == context.getOps().fconst) {
      shapes[i] = {};
      continue;
    }
    if (!context.isValueOp(node.op) || node.op == context.getOps().permute)
      return std::nullopt;
    ENode head(node.op);
    head.payload =
        node.payloadVar ? s.getPayload(*node.payloadVar) : node.payload;
    SmallVector<ArrayRef<int64_t>> operands;
    for (unsigned child : node.children)
      operands.push_back(shapes[child]);
    auto record = getValueOpRecord(context, head, operands);
    if (!record) {
      llvm::consumeError(record.takeError());
      return std::nullopt;
    }
    auto results = inferShapes(record->first, operands, record->second);
    if (!results) {
      llvm::consumeError(results.takeError());
      return std::nullopt;
    }
    shapes[i] = (*results)[0];
  }
  return shapes.back();
}

void RuleBuilder::algebra(StringRef name, StringRef lhs, StringRef rhs,
                          Extra extra) {
  Rewrite *r = rule(name, lhs, rhs);
  if (!r)
    return;
  VarTable vars = r->getVars();
  Pattern rhsPattern = llvm::cantFail(Pattern::parse(language, rhs, vars));
  Env env = this->env;
  r->addCondition([env, vars, rhsPattern = std::move(rhsPattern),
                   extra](const EGraph &, EClassId root, const Subst &s) {
    const TileData &rootData = env.analysis->get(root);
    if (!rootData.isValue() || rootData.shapeError)
      return false;
    std::optional<Shape> shape =
        patternShape(*env.context, *env.analysis, rhsPattern, s);
    if (!shape || *shape != rootData.shape)
      return false;
    return !extra || extra(env, vars, s);
  });
}

void RuleBuilder::addAlgebraRules() {
  auto shapeOf = [](const Env &env, const VarTable &vars, const Subst &s,
                    StringRef var) -> const Shape & {
    return env.data(s, *vars.lookup(var)).shape;
  };
  auto rank2 = [shapeOf](std::initializer_list<StringRef> names) -> Extra {
    std::vector<std::string> list(names.begin(), names.end());
    return [shapeOf, list](const Env &env, const VarTable &vars,
                           const Subst &s) {
      return llvm::all_of(list, [&](const std::string &v) {
        return shapeOf(env, vars, s, v).size() == 2;
      });
    };
  };
  // The pieces of both concatenations line up (no broadcasting).
  Extra sameShapes = [shapeOf](const Env &env, const VarTable &vars,
                               const Subst &s) {
    return shapeOf(env, vars, s, "x") == shapeOf(env, vars, s, "y") &&
           shapeOf(env, vars, s, "z") == shapeOf(env, vars, s, "w");
  };

  algebra("comm-add", "(+ ?a ?b)", "(+ ?b ?a)");
  algebra("assoc-add", "(+ ?a (+ ?b ?c))", "(+ (+ ?a ?b) ?c)");
  algebra("assoc-add2", "(+ (+ ?a ?b) ?c)", "(+ ?a (+ ?b ?c))");
  algebra("comm-mul", "(* ?a ?b)", "(* ?b ?a)");
  algebra("assoc-mul", "(* ?a (* ?b ?c))", "(* (* ?a ?b) ?c)");
  algebra("assoc-mul2", "(* (* ?a ?b) ?c)", "(* ?a (* ?b ?c))");
  algebra("assoc-matmul", "(matmul ?a (matmul ?b ?c))",
          "(matmul (matmul ?a ?b) ?c)");
  algebra("assoc-matmul2", "(matmul (matmul ?a ?b) ?c)",
          "(matmul ?a (matmul ?b ?c))");
  // The divisor broadcasts along the contracted axis of a.
  algebra("assoc-div-matmul", "(matmul (/ ?a (bcast:?k ?b)) ?c)",
          "(/ (matmul ?a ?c) (bcast:?k ?b))",
          [](const Env &env, const VarTable &vars, const Subst &s) {
            int64_t k = s.getPayload(*vars.lookup("k")).getInt();
            return k + 1 ==
                   int64_t(env.data(s, *vars.lookup("a")).shape.size());
          });
  algebra("dist-mul-add", "(* ?a (+ ?b ?c))", "(+ (* ?a ?b) (* ?a ?c))");
  algebra("dist-mul-sub", "(* ?a (- ?b ?c))", "(- (* ?a ?b) (* ?a ?c))");
  algebra("dist-matmul-add", "(matmul ?a (+ ?b ?c))",
          "(+ (matmul ?a ?b) (matmul ?a ?c))");
  algebra("dist-matmul-sub", "(matmul ?a (- ?b ?c))",
          "(- (matmul ?a ?b) (matmul ?a ?c))");
  algebra("factor-mul-add", "(+ (* ?a ?b) (* ?a ?c))", "(* ?a (+ ?b ?c))");
  algebra("factor-mul-sub", "(- (* ?a ?b) (* ?a ?c))", "(* ?a (- ?b ?c))");
  algebra("factor-matmul-add", "(+ (matmul ?a ?b) (matmul ?a ?c))",
          "(matmul ?a (+ ?b ?c))");
  algebra("factor-matmul-sub", "(- (matmul ?a ?b) (matmul ?a ?c))",
          "(matmul ?a (- ?b ?c))");
  algebra("exp-mul", "(* (exp ?a) (exp ?b))", "(exp (+ ?a ?b))");
  algebra("exp-div", "(/ (exp ?a) (exp ?b))", "(exp (- ?a ?b))");
  algebra("exp0", "(exp 0)", "1");
  // x (1 / x) = 1 for x != 0, elementwise: only on scalars (the shape check
  // keeps a tile from becoming a scalar) and never for the constant 0.
  algebra("recip-mul-div", "(* ?x (/ 1 ?x))", "1",
          [](const Env &env, const VarTable &vars, const Subst &s) {
            const TileData &x = env.data(s, *vars.lookup("x"));
            return !x.constant || *x.constant != 0;
          });
  algebra("geometry-of-concat", "(concat:1 (concat:0 ?x ?z) (concat:0 ?y ?w))",
          "(concat:0 (concat:1 ?x ?y) (concat:1 ?z ?w))",
          rank2({"x", "y", "z", "w"}));
  algebra("geometry-of-concat-inv",
          "(concat:0 (concat:1 ?x ?y) (concat:1 ?z ?w))",
          "(concat:1 (concat:0 ?x ?z) (concat:0 ?y ?w))",
          rank2({"x", "y", "z", "w"}));
  algebra("operator-comm6", "(+ (concat:?k ?x ?z) (concat:?k ?y ?w))",
          "(concat:?k (+ ?x ?y) (+ ?z ?w))", sameShapes);
  algebra("operator-comm6-inv", "(concat:?k (+ ?x ?y) (+ ?z ?w))",
          "(+ (concat:?k ?x ?z) (concat:?k ?y ?w))", sameShapes);
  algebra("operator-comm7", "(* (concat:?k ?x ?z) (concat:?k ?y ?w))",
          "(concat:?k (* ?x ?y) (* ?z ?w))", sameShapes);
  algebra("operator-comm7-inv", "(concat:?k (* ?x ?y) (* ?z ?w))",
          "(* (concat:?k ?x ?z) (concat:?k ?y ?w))", sameShapes);
  algebra("concat-and-matmul0", "(matmul ?x (concat:1 ?y ?z))",
          "(concat:1 (matmul ?x ?y) (matmul ?x ?z))", rank2({"x", "y", "z"}));
  algebra("concat-and-matmul0-inv",
          "(concat:1 (matmul ?x ?y) (matmul ?x ?z))",
          "(matmul ?x (concat:1 ?y ?z))", rank2({"x", "y", "z"}));
  algebra("concat-and-matmul1", "(+ (matmul ?a ?b) (matmul ?c ?d))",
          "(matmul (concat:1 ?a ?c) (concat:0 ?b ?d))",
          rank2({"a", "b", "c", "d"}));
  algebra("concat-and-matmul1-inv",
          "(matmul (concat:1 ?a ?c) (concat:0 ?b ?d))",
          "(+ (matmul ?a ?b) (matmul ?c ?d))", rank2({"a", "b", "c", "d"}));
}

} // namespace

//===----------------------------------------------------------------------===//
// Public interface
//===----------------------------------------------------------------------===//

Expected<RuleSets> RuleSets::parse(StringRef text) {
  RuleSets sets;
  sets.loops = sets.fusion = sets.algebra = false;
  SmallVector<StringRef> parts;
  text.split(parts, ',', -1, /*KeepEmpty=*/true);
  for (StringRef part : parts) {
    part = part.trim();
    if (part.empty())
      return llvm::createStringError(
          "empty rule set in '" + text.str() +
          "' for option 'rules'; valid values: loops, fusion, algebra "
          "(comma-separated), all, none");
    if (part == "all")
      sets.loops = sets.fusion = sets.algebra = true;
    else if (part == "none")
      ;
    else if (part == "loops")
      sets.loops = true;
    else if (part == "fusion")
      sets.fusion = true;
    else if (part == "algebra")
      sets.algebra = true;
    else
      return llvm::createStringError(
          "unknown value '" + part.str() +
          "' for option 'rules'; valid values: loops, fusion, algebra "
          "(comma-separated), all, none");
  }
  return sets;
}

std::vector<Rewrite> mirage::tile::makeTileRules(TileContext &context,
                                                 const TileAnalysis &analysis,
                                                 const RuleSets &sets) {
  return RuleBuilder(context, analysis, sets).build();
}

ArrayRef<StringRef> mirage::tile::getLoopRuleNames() { return kLoopRules; }
ArrayRef<StringRef> mirage::tile::getFusionRuleNames() { return kFusionRules; }
ArrayRef<StringRef> mirage::tile::getAlgebraRuleNames() {
  return kAlgebraRules;
}

unsigned mirage::tile::canonicalizeSequences(EGraph &graph,
                                             const TileAnalysis &analysis) {
  const TileOps &ops = analysis.getContext().getOps();
  unsigned merges = 0;
  for (unsigned round = 0; round < 16; ++round) {
    graph.rebuild();
    struct Flatten {
      EClassId cls, a1, a2, rest;
    };
    std::vector<Flatten> work;
    for (EClassId cls : graph.getClassesWithOp(ops.seq)) {
      for (ENodeId n : graph.getClassNodesWithOp(cls, ops.seq)) {
        const ENode &node = graph.getNode(n);
        for (ENodeId m : graph.getClassNodesWithOp(node.children[0], ops.seq)) {
          const ENode &inner = graph.getNode(m);
          work.push_back(
              {cls, inner.children[0], inner.children[1], node.children[1]});
        }
      }
    }
    uint64_t version = graph.getVersion();
    for (const Flatten &f : work) {
      EClassId tail = graph.add(ENode(ops.seq, {f.a2, f.rest}));
      EClassId flat = graph.add(ENode(ops.seq, {f.a1, tail}));
      if (graph.merge(f.cls, flat))
        ++merges;
    }
    if (graph.getVersion() == version)
      break;
  }
  graph.rebuild();
  return merges;
}

unsigned mirage::tile::propagateExpressions(EGraph &graph,
                                            const TileAnalysis &analysis,
                                            std::set<SymbolId> *propagated) {
  const TileContext &context = analysis.getContext();
  const TileOps &ops = context.getOps();
  graph.rebuild();
  // Store nodes by tensor class, and load classes by (tensor, index).
  llvm::DenseMap<EClassId, SmallVector<ENodeId, 2>> stores;
  for (EClassId cls : graph.getClassesWithOp(ops.store))
    for (ENodeId n : graph.getClassNodesWithOp(cls, ops.store))
      stores[graph.find(graph.getNode(n).children[0])].push_back(n);
  std::map<std::pair<EClassId, EClassId>, SmallVector<EClassId, 2>> loads;
  for (EClassId cls : graph.getClassesWithOp(ops.load))
    for (ENodeId n : graph.getClassNodesWithOp(cls, ops.load)) {
      const ENode &node = graph.getNode(n);
      loads[{graph.find(node.children[0]), graph.find(node.children[1])}]
          .push_back(cls);
    }
  std::vector<std::pair<EClassId, EClassId>> merges;
  std::vector<EClassId> tensors;
  for (auto &entry : stores)
    tensors.push_back(entry.first);
  llvm::sort(tensors);
  for (EClassId tensor : tensors) {
    const SmallVector<ENodeId, 2> &nodes = stores[tensor];
    if (nodes.size() != 1)
      continue;
    const TileData &td = analysis.get(tensor);
    const TensorInfo *info = context.getTensor(td.symbol);
    if (td.sort != Sort::Tensor || !info || info->kind == TensorKind::Input)
      continue;
    const ENode &store = graph.getNode(nodes.front());
    EClassId value = graph.find(store.children[1]);
    EClassId index = graph.find(store.children[2]);
    const TileData &vd = analysis.get(value);
    const TileData &id = analysis.get(index);
    if (!vd.isValue() || vd.shapeError || id.shapeError)
      continue;
    if (llvm::any_of(vd.reads,
                     [&](const Access &a) { return a.tensor == td.symbol; }))
      continue;
    if (llvm::any_of(id.index, [](const RegionDim &d) {
          return d.kind == RegionDim::Kind::Range;
        }))
      continue;
    VarSet valueVars = vd.getVars(), indexVars = id.getVars();
    if (!llvm::all_of(valueVars, [&](SymbolId v) {
          return llvm::is_contained(indexVars, v);
        }))
      continue;
    auto it = loads.find({tensor, index});
    if (it == loads.end())
      continue;
    for (EClassId load : it->second) {
      // Only a value of the region's own shape (no broadcast in the store).
      const TileData &ld = analysis.get(load);
      if (ld.shapeError || ld.shape != vd.shape)
        continue;
      merges.push_back({load, value});
      analysis.markPropagated(td.symbol);
      if (propagated)
        propagated->insert(td.symbol);
    }
  }
  unsigned count = 0;
  for (auto [load, value] : merges)
    if (graph.merge(load, value))
      ++count;
  return count;
}
