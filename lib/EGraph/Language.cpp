//===- Language.cpp - Operators, symbols and payloads of e-nodes ----------===//
//
// Part of the Mirage MLIR project.
//
//===----------------------------------------------------------------------===//

#include "mirage/EGraph/Language.h"

using namespace mirage::egraph;

Language::Language() {
  [[maybe_unused]] OpId num = getOrAddOp("num");
  assert(num == numOp);
}

OpId Language::getOrAddOp(llvm::StringRef name) {
  auto [it, inserted] = opIds.try_emplace(name, opNames.size());
  if (inserted)
    opNames.push_back(name.str());
  return it->second;
}

std::optional<OpId> Language::lookupOp(llvm::StringRef name) const {
  auto it = opIds.find(name);
  if (it == opIds.end())
    return std::nullopt;
  return it->second;
}

SymbolId Language::getOrAddSymbol(llvm::StringRef name) {
  auto [it, inserted] = symbolIds.try_emplace(name, symbolNames.size());
  if (inserted)
    symbolNames.push_back(name.str());
  return it->second;
}

std::optional<SymbolId> Language::lookupSymbol(llvm::StringRef name) const {
  auto it = symbolIds.find(name);
  if (it == symbolIds.end())
    return std::nullopt;
  return it->second;
}

void Language::printPayload(llvm::raw_ostream &os, Payload p) const {
  switch (p.kind) {
  case Payload::Kind::None:
    return;
  case Payload::Kind::Int:
    os << p.getInt();
    return;
  case Payload::Kind::Symbol:
    os << getSymbolName(p.getSymbol());
    return;
  }
}
