//===- Formula.cpp - Parsing and rewriting operator formulas --------------===//

#include "Primitives.h"
#include "Records.h"

#include "mirage/Semantics/Formula.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/Format.h"

#include <array>
#include <mutex>

using namespace mirage;
using namespace mirage::detail;

namespace {

constexpr unsigned kNumPrimitives =
    static_cast<unsigned>(Primitive::ReduceMax) + 1;

std::optional<Primitive> lookupPrimitive(llvm::StringRef name) {
  for (unsigned i = 0; i < kNumPrimitives; ++i) {
    auto primitive = static_cast<Primitive>(i);
    const PrimitiveInfo &info = getPrimitiveInfo(primitive);
    // Leaves are atoms, never applied.
    if (info.name == name && info.minOperands > 0)
      return primitive;
  }
  return std::nullopt;
}

bool isAtomEnd(char c) { return c == ' ' || c == '(' || c == ')'; }

struct Parser {
  llvm::StringRef text;

  void skipSpace() { text = text.ltrim(); }

  Expected<Formula> parse() {
    skipSpace();
    if (text.empty())
      return makeError("unexpected end of formula");
    if (text.consume_front("(")) {
      skipSpace();
      llvm::StringRef name = text.take_until(isAtomEnd);
      text = text.drop_front(name.size());
      std::optional<Primitive> primitive = lookupPrimitive(name);
      if (!primitive)
        return makeError("unknown primitive '" + name + "'");
      Formula formula{*primitive, {}};
      while (true) {
        skipSpace();
        if (text.empty())
          return makeError("missing ')' after '" + name + "'");
        if (text.consume_front(")"))
          break;
        Expected<Formula> operand = parse();
        if (!operand)
          return operand.takeError();
        formula.operands.push_back(std::move(*operand));
      }
      const PrimitiveInfo &info = getPrimitiveInfo(*primitive);
      size_t arity = formula.operands.size();
      if (arity < info.minOperands ||
          (info.maxOperands && arity > *info.maxOperands))
        return makeError(llvm::formatv(
            "'{0}' takes {1} operand{2}, not {3}", name,
            info.maxOperands ? std::to_string(info.minOperands) : "two or more",
            info.minOperands == 1 ? "" : "s", arity));
      return formula;
    }
    llvm::StringRef atom = text.take_until(isAtomEnd);
    if (atom.empty())
      return makeError("unexpected ')'");
    text = text.drop_front(atom.size());
    if (atom == "x0" || atom == "x1")
      return Formula{Primitive::Operand, {}, 0.0, atom == "x0" ? 0u : 1u};
    if (atom == "s")
      return Formula{Primitive::Scalar, {}};
    double value;
    if (atom.getAsDouble(value))
      return makeError("cannot read '" + atom + "'");
    return Formula{Primitive::Constant, {}, value};
  }
};

/// Replaces x0 in `expansion` by `operand`.
Formula substitute(const Formula &expansion, const Formula &operand) {
  if (expansion.primitive == Primitive::Operand)
    return operand;
  Formula out = expansion;
  for (Formula &child : out.operands)
    child = substitute(child, operand);
  return out;
}

void print(const Formula &formula, std::string &out) {
  switch (formula.primitive) {
  case Primitive::Operand:
    out += formula.index == 0 ? "x0" : "x1";
    return;
  case Primitive::Scalar:
    out += "s";
    return;
  case Primitive::Constant:
    out += formatv("{0}", llvm::format("%.17g", formula.value)).str();
    return;
  case Primitive::Add:
  case Primitive::Mul:
  case Primitive::Neg:
  case Primitive::Recip:
  case Primitive::Exp:
  case Primitive::Sqrt:
  case Primitive::Logistic:
  case Primitive::NormalCdf:
  case Primitive::Erf:
  case Primitive::Tanh:
  case Primitive::Max:
  case Primitive::Pow:
  case Primitive::ReduceAdd:
  case Primitive::ReduceMax:
    out += "(" + getPrimitiveInfo(formula.primitive).name.str();
    for (const Formula &operand : formula.operands) {
      out += " ";
      print(operand, out);
    }
    out += ")";
    return;
  }
}

} // namespace

Expected<Formula> mirage::parseFormula(llvm::StringRef text) {
  Parser parser{text};
  Expected<Formula> formula = parser.parse();
  if (!formula)
    return formula.takeError();
  parser.skipSpace();
  if (!parser.text.empty())
    return makeError("trailing text '" + parser.text + "'");
  return formula;
}

const Formula *mirage::getOpFormula(OpKind kind) {
  static std::vector<std::optional<Formula>> formulas;
  static std::once_flag parsed;
  std::call_once(parsed, [] {
    for (unsigned i = 0; i < kNumOpKinds; ++i) {
      const OpInfo &info = getOpInfo(static_cast<OpKind>(i));
      if (info.formula.empty()) {
        formulas.emplace_back();
        continue;
      }
      Expected<Formula> formula = parseFormula(info.formula);
      if (!formula)
        llvm::report_fatal_error(
            llvm::Twine("the formula of operator '") + info.name +
            "' is invalid: " + llvm::toString(formula.takeError()));
      formulas.emplace_back(std::move(*formula));
    }
  });
  const std::optional<Formula> &formula = formulas[static_cast<size_t>(kind)];
  return formula ? &*formula : nullptr;
}

Formula mirage::expandFormula(const Formula &formula) {
  Formula out{formula.primitive, {}, formula.value, formula.index};
  for (const Formula &operand : formula.operands) {
    Formula expanded = expandFormula(operand);
    bool sameChain =
        (out.primitive == Primitive::Add || out.primitive == Primitive::Mul) &&
        expanded.primitive == out.primitive;
    if (sameChain)
      llvm::append_range(out.operands, expanded.operands);
    else
      out.operands.push_back(std::move(expanded));
  }
  llvm::StringRef expansion = getPrimitiveInfo(out.primitive).expansion;
  if (expansion.empty())
    return out;
  Formula definition = cantFail(parseFormula(expansion));
  return expandFormula(substitute(definition, out.operands[0]));
}

std::optional<Primitive> mirage::getCombine(OpKind kind) {
  const Formula *formula = getOpFormula(kind);
  if (!formula)
    return std::nullopt;
  return getPrimitiveInfo(formula->primitive).combine;
}

bool mirage::hasReduction(const Formula &formula) {
  if (formula.primitive == Primitive::ReduceAdd ||
      formula.primitive == Primitive::ReduceMax)
    return true;
  return llvm::any_of(formula.operands, hasReduction);
}

bool mirage::usesScalar(const Formula &formula) {
  return formula.primitive == Primitive::Scalar ||
         llvm::any_of(formula.operands, usesScalar);
}

FingerprintClass mirage::getFingerprintClass(const Formula &formula) {
  // Strongest first.
  static constexpr std::array<FingerprintClass, 5> kOrder = {
      FingerprintClass::Outside, FingerprintClass::Exponential,
      FingerprintClass::SquareRoot, FingerprintClass::Division,
      FingerprintClass::Polynomial};
  auto rank = [](FingerprintClass cls) {
    return llvm::find(kOrder, cls) - kOrder.begin();
  };
  FingerprintClass strongest = getPrimitiveInfo(formula.primitive).fingerprint;
  for (const Formula &operand : formula.operands) {
    FingerprintClass cls = getFingerprintClass(operand);
    if (rank(cls) < rank(strongest))
      strongest = cls;
  }
  return strongest;
}

std::string mirage::printFormula(const Formula &formula) {
  std::string out;
  print(formula, out);
  return out;
}
