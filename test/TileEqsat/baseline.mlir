// baseline=fused (the default): a candidate replaces the function only when
// the speed model has it at least 1% faster than kn-fuse's kernels for the
// same function; candidates that are not are never sent to the equivalence
// check.
//
// RUN: mirage-opt %s --mlir-print-op-on-diagnostic=false --mirage-tile-eqsat="tile-size=32" -o %t.mlir 2>&1 | FileCheck %s
// RUN: FileCheck %s --input-file=%t.mlir --check-prefix=IR

// x W + x W: the candidates built at tile size 32 take 7.4 us or more; with
// their tile sizes and threads tuned by the speed model the best is
// kn-fuse's own kernel (both products from the same tiles of x and W, 128
// blocks of 32 columns, 256 threads), which ties it: the program is kept.
// CHECK: remark: @same_product_twice:
// CHECK-SAME: kept the program (by the speed model, kn-fuse's kernels take [[US:[0-9.]+]] us; 8 of the 8 candidates built are not 1% faster, the fastest [[US]] us)
// IR-LABEL: func.func @same_product_twice
// IR-NOT: kn.kernel
// IR: kn.matmul
func.func @same_product_twice(%x: tensor<16x1024xf16>, %w: tensor<1024x4096xf16>) -> tensor<16x4096xf16> {
  %a = kn.matmul %x, %w : tensor<16x1024xf16>, tensor<1024x4096xf16>
  %b = kn.matmul %x, %w : tensor<16x1024xf16>, tensor<1024x4096xf16>
  %c = kn.add %a, %b : tensor<16x4096xf16>, tensor<16x4096xf16>
  return %c : tensor<16x4096xf16>
}

// A matmul with its epilogue: kn-fuse's one kernel is estimated faster than
// every candidate built, so the function is kept as written.
// CHECK: remark: @matmul_silu:
// CHECK-SAME: not 1% faster than kn-fuse's kernels; kept the program (by the speed model, kn-fuse's kernels take {{[0-9.]+}} us; {{[0-9]+}} of the {{[0-9]+}} candidates built are not 1% faster, the fastest {{[0-9.]+}} us)
// IR-LABEL: func.func @matmul_silu
// IR-NOT: kn.kernel
// IR: kn.matmul
func.func @matmul_silu(%x: tensor<16x256xf16>, %w: tensor<256x64xf16>) -> tensor<16x64xf16> {
  %y = kn.matmul %x, %w : tensor<16x256xf16>, tensor<256x64xf16>
  %z = kn.silu %y : tensor<16x64xf16>
  return %z : tensor<16x64xf16>
}
