//===- Language.h - Operators, symbols and payloads of e-nodes --*- C++ -*-===//
//
// Part of the Mirage MLIR project.
//
// The vocabulary an e-graph is built over: operators and symbols are interned
// names with dense ids assigned in the order they are first seen, so that the
// ids (and everything ordered by them) depend only on the client's input.
// Operator 0 is reserved for integer constants ("num"): the s-expression `64`
// is the e-node `num` with the integer payload 64.
//
//===----------------------------------------------------------------------===//

#ifndef MIRAGE_EGRAPH_LANGUAGE_H
#define MIRAGE_EGRAPH_LANGUAGE_H

#include "llvm/ADT/Hashing.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mirage::egraph {

using OpId = uint32_t;
using SymbolId = uint32_t;

/// A small value carried by an e-node besides its operator and children: an
/// integer (a constant, a tile size, an axis) or an interned symbol (a loop
/// variable, a tensor name). Two e-nodes are equal only if their payloads are.
struct Payload {
  enum class Kind : uint8_t { None, Int, Symbol };

  Kind kind = Kind::None;
  int64_t value = 0;

  static Payload none() { return {}; }
  static Payload integer(int64_t v) { return {Kind::Int, v}; }
  static Payload symbol(SymbolId s) { return {Kind::Symbol, int64_t(s)}; }

  bool isNone() const { return kind == Kind::None; }
  bool isInt() const { return kind == Kind::Int; }
  bool isSymbol() const { return kind == Kind::Symbol; }
  int64_t getInt() const { return value; }
  SymbolId getSymbol() const { return SymbolId(value); }

  friend bool operator==(const Payload &a, const Payload &b) {
    return a.kind == b.kind && a.value == b.value;
  }
  friend bool operator!=(const Payload &a, const Payload &b) {
    return !(a == b);
  }
  friend bool operator<(const Payload &a, const Payload &b) {
    if (a.kind != b.kind)
      return a.kind < b.kind;
    return a.value < b.value;
  }
  friend llvm::hash_code hash_value(const Payload &p) {
    return llvm::hash_combine(uint8_t(p.kind), p.value);
  }
};

/// Interned operator names and symbols.
class Language {
public:
  /// The operator of integer constants (`64` is `num:64`).
  static constexpr OpId numOp = 0;

  Language();
  Language(const Language &) = delete;
  Language &operator=(const Language &) = delete;

  /// The id of operator `name`, added if new.
  OpId getOrAddOp(llvm::StringRef name);
  std::optional<OpId> lookupOp(llvm::StringRef name) const;
  llvm::StringRef getOpName(OpId op) const { return opNames[op]; }
  unsigned getNumOps() const { return opNames.size(); }

  /// The id of symbol `name`, added if new.
  SymbolId getOrAddSymbol(llvm::StringRef name);
  std::optional<SymbolId> lookupSymbol(llvm::StringRef name) const;
  llvm::StringRef getSymbolName(SymbolId s) const { return symbolNames[s]; }
  unsigned getNumSymbols() const { return symbolNames.size(); }

  /// Payload constructors by name.
  Payload symbol(llvm::StringRef name) {
    return Payload::symbol(getOrAddSymbol(name));
  }

  /// Writes `p` as the s-expression syntax spells it after the `:` (an
  /// integer or a symbol name); nothing for an empty payload.
  void printPayload(llvm::raw_ostream &os, Payload p) const;

private:
  llvm::StringMap<OpId> opIds;
  std::vector<std::string> opNames;
  llvm::StringMap<SymbolId> symbolIds;
  std::vector<std::string> symbolNames;
};

} // namespace mirage::egraph

#endif // MIRAGE_EGRAPH_LANGUAGE_H
