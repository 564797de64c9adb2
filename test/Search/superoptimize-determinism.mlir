// The superoptimizer's output is byte-identical for one seed at 1, 2 and 4
// threads (Z3 bounded by resource limits, not wall-clock time; candidates
// ranked in a canonical order).
// RUN: mirage-opt %s --mirage-superoptimize="max-block-ops=3 threads=1 progress=0" -o %t.1 2>/dev/null
// RUN: mirage-opt %s --mirage-superoptimize="max-block-ops=3 threads=2 progress=0" -o %t.2 2>/dev/null
// RUN: mirage-opt %s --mirage-superoptimize="max-block-ops=3 threads=4 progress=0" -o %t.4 2>/dev/null
// RUN: diff %t.1 %t.2
// RUN: diff %t.1 %t.4
// RUN: FileCheck %s --input-file=%t.1

// The search replaced the program (so the comparison is of a search result).
// CHECK: kn.kernel
// CHECK-NOT: kn.matmul
func.func @rmsnorm_linear(%x: tensor<2x256xf16>, %g: tensor<256xf16>, %w: tensor<256x512xf16>) -> tensor<2x512xf16> {
  %y = kn.rms_norm %x weight %g {eps = 1.0e-6 : f64} : tensor<2x256xf16>, tensor<256xf16>
  %z = kn.matmul %y, %w : tensor<2x256xf16>, tensor<256x512xf16>
  return %z : tensor<2x512xf16>
}
