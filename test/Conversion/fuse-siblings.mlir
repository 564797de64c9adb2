// kn-fuse cuts same-shaped outputs computed side by side together: the q, k
// and v projections of one x become one kernel whose block b computes
// columns [32 b, 32 b + 32) of each (their N dims share the grid), reading
// x once. (FusionTest's SiblingProjections proves such a kernel equivalent
// to the unfused program.)
// RUN: mirage-opt %s --kn-fuse | FileCheck %s
// In a persistent kernel the projections stay three side-by-side sets of
// tasks (one set ran slower on an H200).
// RUN: mirage-opt %s --kn-fuse="persistent=true" | FileCheck %s --check-prefix=PERSISTENT

// CHECK-LABEL: func.func @qkv(
// CHECK: kn.kernel
// CHECK-NEXT: tb.graph grid [128] threads 128 forloop 16
// CHECK: %[[X:.*]] = tb.input_iterator %{{.*}} imap <x -> replica> fmap <i -> 1> : tensor<16x4096xf16> -> !tb.tile<16x256xf16>
// CHECK: tb.input_iterator %{{.*}} imap <x -> 1> fmap <i -> 0> : tensor<4096x4096xf16> -> !tb.tile<256x32xf16>
// CHECK-NEXT: tb.matmul %[[X]]
// CHECK: tb.input_iterator %{{.*}} imap <x -> 1> fmap <i -> 0> : tensor<4096x4096xf16> -> !tb.tile<256x32xf16>
// CHECK-NEXT: tb.matmul %[[X]]
// CHECK: tb.input_iterator %{{.*}} imap <x -> 1> fmap <i -> 0> : tensor<4096x4096xf16> -> !tb.tile<256x32xf16>
// CHECK-NEXT: tb.matmul %[[X]]
// CHECK-COUNT-3: tb.output_saver %{{.*}} omap <x -> 1> : !tb.tile<16x32xf16> -> tensor<16x4096xf16>
// CHECK-NOT: kn.kernel
// CHECK: return
// PERSISTENT-LABEL: func.func @qkv(
// PERSISTENT-COUNT-3: tb.graph grid
func.func @qkv(%x: tensor<16x4096xf16>, %wq: tensor<4096x4096xf16>, %wk: tensor<4096x4096xf16>, %wv: tensor<4096x4096xf16>) -> (tensor<16x4096xf16>, tensor<16x4096xf16>, tensor<16x4096xf16>) {
  %q = kn.matmul %x, %wq : tensor<16x4096xf16>, tensor<4096x4096xf16>
  %k = kn.matmul %x, %wk : tensor<16x4096xf16>, tensor<4096x4096xf16>
  %v = kn.matmul %x, %wv : tensor<16x4096xf16>, tensor<4096x4096xf16>
  return %q, %k, %v : tensor<16x4096xf16>, tensor<16x4096xf16>, tensor<16x4096xf16>
}

// Outputs of different shapes (grouped-query attention's 1024-wide k) keep
// their own dims: no class is in every output, and the projections stay
// apart.
// CHECK-LABEL: func.func @q_and_narrow_k(
// CHECK-COUNT-2: tb.graph grid [128]
// CHECK: return
func.func @q_and_narrow_k(%x: tensor<16x4096xf16>, %wq: tensor<4096x4096xf16>, %wk: tensor<4096x1024xf16>) -> (tensor<16x4096xf16>, tensor<16x1024xf16>) {
  %q = kn.matmul %x, %wq : tensor<16x4096xf16>, tensor<4096x4096xf16>
  %k = kn.matmul %x, %wk : tensor<16x4096xf16>, tensor<4096x1024xf16>
  return %q, %k : tensor<16x4096xf16>, tensor<16x1024xf16>
}
