//===- Parallel.h - Data parallelism for the interpreter --------*- C++ -*-===//
//
// Part of the Mirage MLIR project.
//
//===----------------------------------------------------------------------===//

#ifndef MIRAGE_SEMANTICS_PARALLEL_H
#define MIRAGE_SEMANTICS_PARALLEL_H

#include "llvm/ADT/STLFunctionalExtras.h"

#include <cstdint>

namespace mirage {

/// Runs `body(i)` for every i in [0, count) on up to getParallelism()
/// threads. Calls nested inside a parallel region run inline, so callers may
/// parallelize at every level and only the outermost one spreads.
void parallelFor(int64_t count, llvm::function_ref<void(int64_t)> body);

/// The number of threads parallelFor uses (default: the hardware's).
unsigned getParallelism();
void setParallelism(unsigned threads);

} // namespace mirage

#endif // MIRAGE_SEMANTICS_PARALLEL_H
