// Functions the pass leaves alone, each with the reason in its remark; and
// replace=false, which reports the choice but keeps every function.
//
// RUN: mirage-opt %s --mlir-print-op-on-diagnostic=false --mirage-tile-eqsat="full-threshold=16 baseline=program" -o %t.mlir 2>&1 | FileCheck %s
// RUN: FileCheck %s --input-file=%t.mlir --check-prefix=IR
// RUN: mirage-opt %s --mlir-print-op-on-diagnostic=false --mirage-tile-eqsat="full-threshold=16 replace=false baseline=program" -o %t.noreplace.mlir 2>&1 | FileCheck %s --check-prefix=NOREPLACE
// RUN: FileCheck %s --input-file=%t.noreplace.mlir --check-prefix=NOREPLACE-IR

// Remarks come for the functions that name a reference first, then for the
// others in order.
// CHECK: remark: @exp_fused: kept, it names a reference (kn.reference): it is a candidate for the equivalence verifier, not a program to rewrite
// CHECK: remark: @identity: kept, no tile program: result 0 is an argument or another result; the tile IR writes every result once
// CHECK: remark: @already_fused: kept, no tile program: 'kn.kernel' at {{.*}}kept.mlir":[[@LINE+37]] is not a predefined kernel-graph operator
// CHECK: remark: @exp: {{[0-9]+}} e-classes
// CHECK-SAME: chose #1: 1 kernel
// CHECK-SAME: proven (false-accept probability
// CHECK-SAME: kept the program (its estimate, {{[0-9.]+}} us, is not above the candidate's {{[0-9.]+}} us)
// CHECK: remark: @mm_scale: {{[0-9]+}} e-classes
// CHECK-SAME: chose #1: 1 kernel
// CHECK-NOT: kept the program

// Only @mm_scale is rewritten.
// IR-LABEL: func.func @identity(
// IR-NEXT: return
// IR-LABEL: func.func @already_fused(
// IR-NEXT: kn.kernel
// IR-LABEL: func.func @exp(
// IR-NEXT: kn.exp
// IR-NEXT: return
// IR-LABEL: func.func @exp_fused(
// IR-NEXT: kn.exp
// IR-NEXT: return
// IR-LABEL: func.func @mm_scale(
// IR-NEXT: kn.kernel
// IR-NOT: kn.matmul

// NOREPLACE: remark: @mm_scale: {{[0-9]+}} e-classes
// NOREPLACE-SAME: chose #1: 1 kernel
// NOREPLACE-SAME: ; not replaced (replace=false)
// NOREPLACE-IR-LABEL: func.func @mm_scale(
// NOREPLACE-IR-NEXT: kn.matmul
// NOREPLACE-IR-NEXT: kn.mul_scalar
// NOREPLACE-IR-NEXT: return

func.func @identity(%x: tensor<16x32xf16>) -> tensor<16x32xf16> {
  return %x : tensor<16x32xf16>
}

func.func @already_fused(%arg0: tensor<2x8x32xf16>, %arg1: tensor<2x32x256xf16>, %arg2: tensor<2x256x32xf16>) -> tensor<2x8x32xf16> {
  %0 = kn.kernel(%arg0, %arg1, %arg2) {
    tb.graph grid [2] threads 128 forloop 4 {
    ^bb0(%arg3: tensor<2x8x32xf16>, %arg4: tensor<2x32x256xf16>, %arg5: tensor<2x256x32xf16>):
      %1 = tb.input_iterator %arg3 imap <x -> 0> fmap <i -> replica> : tensor<2x8x32xf16> -> !tb.tile<1x8x32xf16>
      %2 = tb.input_iterator %arg4 imap <x -> 0> fmap <i -> 2> : tensor<2x32x256xf16> -> !tb.tile<1x32x64xf16>
      %3 = tb.matmul %1, %2 : !tb.tile<1x8x32xf16>, !tb.tile<1x32x64xf16>
      %4 = tb.mul_scalar %3, 0.17677669529663687 : !tb.tile<1x8x64xf16>
      %5 = tb.exp %4 : !tb.tile<1x8x64xf16>
      %6 = tb.reduce_sum %5 dim 2 : !tb.tile<1x8x64xf16>
      %7 = tb.input_iterator %arg5 imap <x -> 0> fmap <i -> 1> : tensor<2x256x32xf16> -> !tb.tile<1x64x32xf16>
      %8 = tb.matmul %5, %7 : !tb.tile<1x8x64xf16>, !tb.tile<1x64x32xf16>
      %9 = tb.accum_sum %6 : !tb.tile<1x8x1xf16>
      %10 = tb.accum_sum %8 : !tb.tile<1x8x32xf16>
      %11 = tb.div %10, %9 : !tb.tile<1x8x32xf16>, !tb.tile<1x8x1xf16>
      %12 = tb.output_saver %11 omap <x -> 0> : !tb.tile<1x8x32xf16> -> tensor<2x8x32xf16>
      tb.yield %12 : tensor<2x8x32xf16>
    }
  } : (tensor<2x8x32xf16>, tensor<2x32x256xf16>, tensor<2x256x32xf16>) -> tensor<2x8x32xf16>
  return %0 : tensor<2x8x32xf16>
}

func.func @exp(%x: tensor<16x16xf16>) -> tensor<16x16xf16> {
  %y = kn.exp %x : tensor<16x16xf16>
  return %y : tensor<16x16xf16>
}

func.func @exp_fused(%x: tensor<16x16xf16>) -> tensor<16x16xf16> attributes {kn.reference = @exp} {
  %y = kn.exp %x : tensor<16x16xf16>
  return %y : tensor<16x16xf16>
}

func.func @mm_scale(%x: tensor<16x256xf16>, %w: tensor<256x128xf16>) -> tensor<16x128xf16> {
  %y = kn.matmul %x, %w : tensor<16x256xf16>, tensor<256x128xf16>
  %z = kn.mul_scalar %y, 0.0625 : tensor<16x128xf16>
  return %z : tensor<16x128xf16>
}
