//===- TestUtil.h - Helpers for the tile e-graph tests ----------*- C++ -*-===//

#ifndef MIRAGE_UNITTESTS_TILEEQSAT_TESTUTIL_H
#define MIRAGE_UNITTESTS_TILEEQSAT_TESTUTIL_H

#include "mirage/TileEqsat/Evaluator.h"
#include "mirage/TileEqsat/TileIR.h"

#include "gtest/gtest.h"

namespace mirage::tile::test {

/// A context with the tensors the tests use: inputs A, B, C, D, E8 [8,8],
/// X [8,16], W [16,8], S [8,1], R1 [1,8], E [2,8,4]; variables T, U, Acc
/// [8,8], Sum [8,1], R [8,2,4], R2 [2,8,4]; outputs O, P [8,8], O16
/// [16,16], O816 [8,16], O3 [2,8,4], Acc2 [8,8], Q [8,1].
inline void declareTensors(TileContext &context) {
  auto declare = [&](const char *name, TensorKind kind, Shape shape) {
    llvm::cantFail(context.addTensor(name, kind, shape));
  };
  for (const char *name : {"A", "B", "C", "D"})
    declare(name, TensorKind::Input, {8, 8});
  declare("X", TensorKind::Input, {8, 16});
  declare("W", TensorKind::Input, {16, 8});
  declare("S", TensorKind::Input, {8, 1});
  declare("R1", TensorKind::Input, {1, 8});
  declare("E", TensorKind::Input, {2, 8, 4});
  for (const char *name : {"T", "U", "Acc"})
    declare(name, TensorKind::Variable, {8, 8});
  declare("Sum", TensorKind::Variable, {8, 1});
  declare("R", TensorKind::Variable, {8, 2, 4});
  declare("R2", TensorKind::Variable, {2, 8, 4});
  declare("O", TensorKind::Output, {8, 8});
  declare("P", TensorKind::Output, {8, 8});
  declare("Acc2", TensorKind::Output, {8, 8});
  declare("O16", TensorKind::Output, {16, 16});
  declare("O816", TensorKind::Output, {8, 16});
  declare("O3", TensorKind::Output, {2, 8, 4});
  declare("Q", TensorKind::Output, {8, 1});
}

inline Term parse(TileContext &context, llvm::StringRef text) {
  auto term = parseTileTerm(context, text);
  if (!term) {
    ADD_FAILURE() << llvm::toString(term.takeError()) << " in " << text.str();
    return Term();
  }
  return std::move(*term);
}

/// Runs `term` on the inputs of `seed`.
inline TensorStore run(const TileContext &context, const Term &term,
                       uint64_t seed, const TileSizes &sizes = {}) {
  TensorStore store = randomInputs(context, seed);
  if (llvm::Error e = evaluateProgram(context, term, store, sizes))
    ADD_FAILURE() << llvm::toString(std::move(e)) << " running "
                  << context.toString(term);
  return store;
}

} // namespace mirage::tile::test

#endif
