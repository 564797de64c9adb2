//===- AbstractExpr.cpp - Hash-consed abstract expressions ----------------===//
//
// Part of the Mirage MLIR project.
//
//===----------------------------------------------------------------------===//

#include "mirage/Semantics/AbstractExpr.h"

#include "Records.h"

#include "llvm/ADT/Hashing.h"
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
  if (inserted)
    nodes.push_back(std::move(node));
  return it->second;
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
  return intern({ExprKind::Add, 0, {lhs, rhs}});
}
ExprId ExprContext::mul(ExprId lhs, ExprId rhs) {
  return intern({ExprKind::Mul, 0, {lhs, rhs}});
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
    os << getSymbol(node.value) << "(";
    operands();
    break;
  default: {
    static const char *names[] = {"", "add", "mul", "div", "exp", "sqrt",
                                  "silu"};
    os << names[static_cast<int>(node.kind)] << "(";
    operands();
    break;
  }
  }
  return text;
}
