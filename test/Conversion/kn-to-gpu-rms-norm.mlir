// RMSNorm's lowering: a warp sums a row's squares; with fewer rows than
// warps each row gets warps / rows warps, which all sum it and write a
// slice of its columns each (8-wide vectors, so a warp covers 256 columns).
// RUN: mirage-opt %s --split-input-file --kn-default-block-graphs --convert-kn-to-gpu --canonicalize --cse | FileCheck %s

// One row, four warps: all take part, the write pass strides 4 x 256.
// CHECK-LABEL: gpu.func @one_row_k0
// CHECK: %[[TAKE:.*]] = arith.cmpi ult, %{{.*}}, %c4 : index
// CHECK: scf.if %[[TAKE]] {
// CHECK: scf.for %{{.*}} = %{{.*}} to %c4096 step %c256 iter_args
// CHECK: math.sqrt
// CHECK: scf.for %{{.*}} = %{{.*}} to %c4096 step %c1024 {
func.func @one_row(%x: tensor<1x4096xf16>) -> tensor<1x4096xf16> {
  %y = kn.rms_norm %x {eps = 1.0e-6 : f64} : tensor<1x4096xf16>
  return %y : tensor<1x4096xf16>
}

// -----

// Two rows of 512 columns: two warps a row, each writing 256 of them.
// CHECK-LABEL: gpu.func @two_rows_k0
// CHECK: %[[TAKE:.*]] = arith.cmpi ult, %{{.*}}, %c4 : index
// CHECK: scf.if %[[TAKE]] {
// CHECK: math.sqrt
// CHECK: scf.for %{{.*}} = %{{.*}} to %c512 step %c512 {
func.func @two_rows(%x: tensor<2x512xf16>) -> tensor<2x512xf16> {
  %y = kn.rms_norm %x {eps = 1.0e-6 : f64} : tensor<2x512xf16>
  return %y : tensor<2x512xf16>
}

// -----

// As many rows as warps or more: a warp per row, looping over the rows.
// CHECK-LABEL: gpu.func @many_rows_k0
// CHECK-NOT: scf.if
// CHECK: scf.for %{{.*}} = %{{.*}} to %c{{[0-9]+}} step %c4 {
// CHECK: math.sqrt
// CHECK: scf.for %{{.*}} = %{{.*}} to %c512 step %c256 {
func.func @many_rows(%x: tensor<16x512xf16>) -> tensor<16x512xf16> {
  %y = kn.rms_norm %x {eps = 1.0e-6 : f64} : tensor<16x512xf16>
  return %y : tensor<16x512xf16>
}
