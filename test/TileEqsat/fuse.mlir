// Tile-level equality saturation fuses a tiny attention into one
// graph-defined kernel (the softmax's division moved after the P V matmul,
// both sums accumulated in one for-loop) and a matmul with its epilogue; the
// pass's own verifier accepts them, and so does a separate run of the
// verifier against the original functions.
//
// RUN: mirage-opt %s --mlir-print-op-on-diagnostic=false --mirage-tile-eqsat="full-threshold=16 baseline=program" -o %t.out.mlir 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: FileCheck %s --input-file=%t.out.mlir --check-prefix=IR
// RUN: cat %s > %t.check.mlir
// RUN: grep -v -e '^module {$' -e '^}$' %t.out.mlir | sed -e 's/@attn(/@attn_eqsat(/' -e 's/@mm_silu(/@mm_silu_eqsat(/' >> %t.check.mlir
// RUN: mirage-opt %t.check.mlir --mlir-print-op-on-diagnostic=false --mirage-verify-equivalence="candidate=attn_eqsat reference=attn" -o /dev/null 2>&1 | FileCheck %s --check-prefix=VERIFY
// RUN: mirage-opt %t.check.mlir --mlir-print-op-on-diagnostic=false --mirage-verify-equivalence="candidate=mm_silu_eqsat reference=mm_silu" -o /dev/null 2>&1 | FileCheck %s --check-prefix=VERIFY

// REMARK: remark: @mm_silu: {{[0-9]+}} e-classes, {{[0-9]+}} e-nodes, {{.*}} programs represented; saturated in {{.*}} (saturated, {{[0-9]+}} iterations)
// REMARK-SAME: best: 1 kernel [grid c=2; loops bx4;
// REMARK-SAME: chose #1: 1 kernel [grid c=2; loops bx4;
// REMARK-SAME: proven (false-accept probability
// REMARK-NOT: kept the program
// REMARK: remark: @attn: {{[0-9]+}} e-classes
// REMARK-SAME: chose #1: 1 kernel [grid a=2; loops dx4;
// REMARK-SAME: proven (false-accept probability
// REMARK-NOT: kept the program

// IR-LABEL: func.func @mm_silu(
// IR: kn.kernel
// IR: tb.graph grid [2] threads 128 forloop 4
// IR: tb.matmul
// IR: tb.accum_sum
// IR: tb.mul_scalar
// IR: tb.sigmoid
// IR: tb.output_saver
// IR-NOT: kn.
// IR-LABEL: func.func @attn(
// IR: kn.kernel
// IR: tb.graph grid [2] threads 128 forloop 4
// IR: %[[S:.*]] = tb.matmul
// IR: %[[E:.*]] = tb.exp
// IR: %[[L:.*]] = tb.reduce_sum %[[E]] dim 2
// IR: %[[O:.*]] = tb.matmul %[[E]],
// IR: %[[AL:.*]] = tb.accum_sum %[[L]]
// IR: %[[AO:.*]] = tb.accum_sum %[[O]]
// IR: tb.div %[[AO]], %[[AL]]
// IR-NOT: kn.

// VERIFY: remark: proven: equivalent to

func.func @mm_silu(%x: tensor<16x256xf16>, %w: tensor<256x128xf16>) -> tensor<16x128xf16> {
  %y = kn.matmul %x, %w : tensor<16x256xf16>, tensor<256x128xf16>
  %s = kn.mul_scalar %y, 0.0625 : tensor<16x128xf16>
  %z = kn.silu %s : tensor<16x128xf16>
  return %z : tensor<16x128xf16>
}

func.func @attn(%q: tensor<2x8x16xf16>, %kt: tensor<2x16x256xf16>, %v: tensor<2x256x16xf16>) -> tensor<2x8x16xf16> {
  %s = kn.matmul %q, %kt : tensor<2x8x16xf16>, tensor<2x16x256xf16>
  %ss = kn.mul_scalar %s, 0.25 : tensor<2x8x256xf16>
  %e = kn.exp %ss : tensor<2x8x256xf16>
  %l = kn.reduce_sum %e dim 2 : tensor<2x8x256xf16>
  %p = kn.div %e, %l : tensor<2x8x256xf16>, tensor<2x8x1xf16>
  %o = kn.matmul %p, %v : tensor<2x8x256xf16>, tensor<2x256x16xf16>
  return %o : tensor<2x8x16xf16>
}
