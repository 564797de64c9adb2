//===- MlirMutator.h - Structured mutations of MLIR text --------*- C++ -*-===//
//
// Random bytes rarely get past the parser, so the fuzzers mutate MLIR text the
// way a mistaken or hostile user would edit it: numbers (dims, grid and loop
// values, attribute values) replaced by boundary values, element types
// swapped, operation names replaced by other registered operations, SSA uses
// redirected, and lines deleted, duplicated, moved or spliced in from another
// input. Each mutation keeps the rest of the text intact, so most mutants
// still parse and reach the verifiers and passes.
//
//===----------------------------------------------------------------------===//

#ifndef MIRAGE_TOOLS_MIRAGE_FUZZ_MLIRMUTATOR_H
#define MIRAGE_TOOLS_MIRAGE_FUZZ_MLIRMUTATOR_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/StringSet.h"

#include <random>
#include <string>
#include <vector>

namespace mirage::fuzz {

class MlirMutator {
public:
  /// `opNames` are the registered operation names ("kn.matmul", ...) that an
  /// operation name may be replaced by. With `keepSyntax`, only tokens
  /// change (numbers, element types, SSA uses): upstream parsers (linalg's,
  /// in MLIR 22) crash on some malformed text, which is not what this
  /// project's fuzzing is after.
  MlirMutator(std::vector<std::string> opNames, bool keepSyntax);

  /// One to three structured mutations of `text`; the text unchanged when no
  /// mutation applies (the caller then falls back to byte mutations).
  std::string mutate(llvm::StringRef text, unsigned seed) const;

  /// `text` with a run of lines of `other` inserted at a random line (`text`
  /// itself with keepSyntax).
  std::string crossOver(llvm::StringRef text, llvm::StringRef other,
                        unsigned seed) const;

private:
  bool mutateOnce(std::string &text, std::mt19937 &random) const;

  std::vector<std::string> opNames;
  llvm::StringSet<> opNameSet;
  bool keepSyntax;
};

} // namespace mirage::fuzz

#endif // MIRAGE_TOOLS_MIRAGE_FUZZ_MLIRMUTATOR_H
