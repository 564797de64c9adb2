//===- AbstractExpr.cpp - Hash-consed abstract expressions ----------------===//
//
// Part of the Mirage MLIR project.
//
//===----------------------------------------------------------------------===//

#include "mirage/Semantics/AbstractExpr.h"

#include "Records.h"

#include "llvm/ADT/Hashing.h"
#include "llvm/ADT/bit.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

using namespace mirage;

ExprNode ExprContext::NodeInfo::getEmptyKey() {
  return ExprNode{ExprKind::Opaque, -1, {}};
}

ExprNode ExprContext::NodeInfo::getTombstoneKey() {
  return ExprNode{ExprKind::Opaque, -2, {}};
}

unsigned ExprContext::NodeInfo::getHashValue(const ExprNode &node) {
  return static_cast<unsigned>(llvm::hash_combine(
      static_cast<uint8_t>(node.kind), node.value,
      llvm::hash_combine_range(node.operands.begin(), node.operands.end())));
}

bool ExprContext::NodeInfo::isEqual(const ExprNode &lhs, const ExprNode &rhs) {
  return lhs == rhs;
}

ExprId ExprContext::intern(ExprNode node) {
  std::lock_guard<std::mutex> lock(mutex);
  auto [it, inserted] = ids.try_emplace(node, nodes.size());
  if (inserted) {
    // Opaque symbols hash by name: their ids depend on the order of use.
    uint64_t value = node.kind == ExprKind::Opaque
                         ? static_cast<uint64_t>(
                               llvm::hash_value(symbols[node.value]))
                         : static_cast<uint64_t>(node.value);
    uint64_t hash =
        llvm::hash_combine(static_cast<uint8_t>(node.kind), value);
    for (ExprId operand : node.operands)
      hash = llvm::hash_combine(hash, hashes[operand]);
    hashes.push_back(hash);
    nodes.push_back(std::move(node));
  }
  return it->second;
}

uint64_t ExprContext::getStructuralHash(ExprId id) const {
  std::lock_guard<std::mutex> lock(mutex);
  return hashes[id];
}

ExprId ExprContext::chain(ExprKind kind, ExprId lhs, ExprId rhs) {
  llvm::SmallVector<ExprId, 8> operands;
  auto flatten = [&](auto &self, ExprId id) -> void {
    ExprNode node = get(id);
    if (node.kind != kind) {
      operands.push_back(id);
      return;
    }
    for (ExprId operand : node.operands)
      self(self, operand);
  };
  flatten(flatten, lhs);
  flatten(flatten, rhs);
  llvm::SmallVector<std::pair<uint64_t, ExprId>, 8> keyed;
  for (ExprId operand : operands)
    keyed.push_back({getStructuralHash(operand), operand});
  llvm::sort(keyed);
  ExprId result = keyed.front().second;
  for (size_t i = 1; i < keyed.size(); ++i)
    result = intern({kind, 0, {result, keyed[i].second}});
  return result;
}

ExprNode ExprContext::get(ExprId id) const {
  std::lock_guard<std::mutex> lock(mutex);
  return nodes[id];
}

std::string ExprContext::getSymbol(int64_t symbol) const {
  std::lock_guard<std::mutex> lock(mutex);
  return symbols[symbol];
}

ExprId ExprContext::var(int64_t input) {
  return intern({ExprKind::Var, input, {}});
}
ExprId ExprContext::add(ExprId lhs, ExprId rhs) {
  return chain(ExprKind::Add, lhs, rhs);
}
ExprId ExprContext::mul(ExprId lhs, ExprId rhs) {
  return chain(ExprKind::Mul, lhs, rhs);
}
ExprId ExprContext::div(ExprId lhs, ExprId rhs) {
  return intern({ExprKind::Div, 0, {lhs, rhs}});
}
ExprId ExprContext::exp(ExprId operand) {
  return intern({ExprKind::Exp, 0, {operand}});
}
ExprId ExprContext::sqrt(ExprId operand) {
  return intern({ExprKind::Sqrt, 0, {operand}});
}
ExprId ExprContext::silu(ExprId operand) {
  return intern({ExprKind::Silu, 0, {operand}});
}

ExprId ExprContext::sum(int64_t terms, ExprId operand) {
  if (terms == 1)
    return operand;
  ExprNode node = get(operand);
  if (node.kind == ExprKind::Sum)
    return intern({ExprKind::Sum, terms * node.value, {node.operands[0]}});
  return intern({ExprKind::Sum, terms, {operand}});
}

ExprId ExprContext::opaque(llvm::StringRef symbol,
                           llvm::ArrayRef<ExprId> operands) {
  int64_t id;
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto [it, inserted] = symbolIds.try_emplace(symbol, symbols.size());
    if (inserted)
      symbols.push_back(symbol.str());
    id = it->second;
  }
  return intern({ExprKind::Opaque, id,
                 llvm::SmallVector<ExprId, 2>(operands.begin(), operands.end())});
}

ExprId ExprContext::constant(double value) {
  uint64_t bits = llvm::bit_cast<uint64_t>(value);
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = constants.find(bits);
    if (it != constants.end())
      return it->second;
  }
  ExprId id =
      opaque(llvm::formatv("c[{0}]", llvm::format("%.17g", value)).str(), {});
  std::lock_guard<std::mutex> lock(mutex);
  constants.try_emplace(bits, id);
  return id;
}

std::string ExprContext::print(ExprId id) const {
  ExprNode node = get(id);
  std::string text;
  llvm::raw_string_ostream os(text);
  auto operands = [&] {
    for (auto [index, operand] : llvm::enumerate(node.operands))
      os << (index ? ", " : "") << print(operand);
    os << ")";
  };
  switch (node.kind) {
  case ExprKind::Var:
    os << "v" << node.value;
    break;
  case ExprKind::Sum:
    os << "sum(" << node.value << ", ";
    operands();
    break;
  case ExprKind::Opaque:
    os << getSymbol(node.value);
    if (!node.operands.empty()) {
      os << "(";
      operands();
    }
    break;
  case ExprKind::Add:
  case ExprKind::Mul:
  case ExprKind::Div:
  case ExprKind::Exp:
  case ExprKind::Sqrt:
  case ExprKind::Silu: {
    static const char *names[] = {"", "add", "mul", "div", "exp", "sqrt",
                                  "silu"};
    os << names[static_cast<int>(node.kind)] << "(";
    operands();
    break;
  }
  }
  return text;
}
