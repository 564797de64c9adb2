// Every fused µGraph in examples/ verifies against the program it names.
// RUN: mirage-opt %examples/rmsnorm_linear.mlir --mirage-verify-equivalence -o /dev/null 2>&1 | FileCheck %s --check-prefix=RMS
// RUN: mirage-opt %examples/gated_mlp.mlir --mirage-verify-equivalence -o /dev/null 2>&1 | FileCheck %s --check-prefix=MLP
// RUN: mirage-opt %examples/gqa.mlir --mirage-verify-equivalence -o /dev/null 2>&1 | FileCheck %s --check-prefix=GQA

// RMS: remark: proven: equivalent to @rmsnorm_linear_bs1 (in the Lax fragment); 3 finite-field trials agree on all 12288 output elements; false-accept probability <= 2^-147 (2^-49 per trial, degree 4099)
// RMS: remark: proven: equivalent to @rmsnorm_linear_bs8 (in the Lax fragment); 3 finite-field trials agree on all 98304 output elements
// RMS-NOT: warning

// MLP: remark: proven: equivalent to @gated_mlp_bs1 (in the Lax fragment); 3 finite-field trials agree on all 32768 output elements
// MLP-NOT: warning

// GQA: remark: proven: equivalent to @gqa_bs1 (in the Lax fragment); 3 finite-field trials agree on all 32768 output elements; false-accept probability <= 2^-147
// GQA: remark: proven: equivalent to @gqa_bs8 (in the Lax fragment); 3 finite-field trials agree on all 262144 output elements
// The online-softmax form takes a maximum: tested, never reported as proven.
// GQA: remark: tested, not proven: agrees with @gqa_bs1 (outside the Lax fragment: 'tb.reduce_max' at {{.*}} has no finite-field semantics); the float64 check agrees on seeded inputs
// GQA-NOT: warning
