//===- TestParams.h - Operator parameters for the semantics tests --------===//

#ifndef MIRAGE_UNITTESTS_SEMANTICS_TESTPARAMS_H
#define MIRAGE_UNITTESTS_SEMANTICS_TESTPARAMS_H

#include "mirage/Semantics/OpSemantics.h"

namespace mirage::test {

inline OpParams withDim(int64_t dim, bool keepDim = true) {
  OpParams params;
  params.dim = dim;
  params.keepDim = keepDim;
  return params;
}

inline OpParams withScalar(double scalar) {
  OpParams params;
  params.scalar = scalar;
  return params;
}

inline OpParams withInts(int64_t dim, llvm::ArrayRef<int64_t> ints) {
  OpParams params;
  params.dim = dim;
  params.ints.assign(ints.begin(), ints.end());
  return params;
}

} // namespace mirage::test

#endif // MIRAGE_UNITTESTS_SEMANTICS_TESTPARAMS_H
