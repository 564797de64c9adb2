// The pass options: an explicit pair, the number of trials, failures as
// errors, and the errors for bad requests.
// RUN: mirage-opt %s --mirage-verify-equivalence="candidate=twice reference=doubled trials=5 seed=7" -o /dev/null 2>&1 | FileCheck %s --check-prefix=PAIR
// RUN: not mirage-opt %s --mirage-verify-equivalence="candidate=tripled reference=doubled error-on-failure=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=ERROR
// RUN: not mirage-opt %s --mirage-verify-equivalence="candidate=twice reference=missing" -o /dev/null 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not mirage-opt %s --mirage-verify-equivalence="trials=0" -o /dev/null 2>&1 | FileCheck %s --check-prefix=TRIALS
// RUN: not mirage-opt %s --mirage-verify-equivalence="candidate=constant reference=doubled" -o /dev/null 2>&1 | FileCheck %s --check-prefix=FOREIGN
// RUN: not mirage-opt %s --mirage-verify-equivalence="candidate=halved reference=doubled" -o /dev/null 2>&1 | FileCheck %s --check-prefix=TYPES
// RUN: not mirage-opt %s --mirage-verify-equivalence="candidate=twice reference=doubled max-elements=15" -o /dev/null 2>&1 | FileCheck %s --check-prefix=LIMIT
// RUN: mirage-opt %s --mirage-verify-equivalence="candidate=twice reference=doubled max-elements=16" -o /dev/null 2>&1 | FileCheck %s --check-prefix=FITS

// PAIR: remark: proven: equivalent to @doubled (in the Lax fragment); 5 finite-field trials agree on all 8 output elements; false-accept probability <= 2^-305 (2^-61 per trial, degree 1)
// ERROR: error: not equivalent: differs from @doubled
// MISSING: error: mirage-verify-equivalence: no function named 'missing' (give both candidate and reference)
// TRIALS: error: mirage-verify-equivalence needs at least one trial
// FOREIGN: error: cannot check @constant against @doubled: the interpreter cannot run 'arith.constant'
// TYPES: error: cannot check @halved against @doubled: the candidate and the reference have different function types
// FITS: remark: proven: equivalent to @doubled
// LIMIT: error: cannot check @twice against @doubled: the program is too large to evaluate: its tensors hold 16 elements (the largest, argument #0 of type tensor<8xf32>, 8), more than the limit of 15; raise it with the option max-elements

func.func @doubled(%x: tensor<8xf32>) -> tensor<8xf32> {
  %y = kn.mul_scalar %x, 2.0 : tensor<8xf32>
  return %y : tensor<8xf32>
}

func.func @twice(%x: tensor<8xf32>) -> tensor<8xf32> {
  %y = kn.add %x, %x : tensor<8xf32>, tensor<8xf32>
  return %y : tensor<8xf32>
}

func.func @tripled(%x: tensor<8xf32>) -> tensor<8xf32> {
  %y = kn.mul_scalar %x, 3.0 : tensor<8xf32>
  return %y : tensor<8xf32>
}

func.func @constant(%x: tensor<8xf32>) -> tensor<8xf32> {
  %c = arith.constant dense<2.0> : tensor<8xf32>
  %y = kn.mul %x, %c : tensor<8xf32>, tensor<8xf32>
  return %y : tensor<8xf32>
}

func.func @halved(%x: tensor<8xf32>) -> tensor<4xf32> {
  %s:2 = kn.split %x dim 0 sizes [4, 4] : tensor<8xf32>
  return %s#0 : tensor<4xf32>
}
