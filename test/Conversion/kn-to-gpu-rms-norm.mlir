// RMSNorm's lowering: a warp (or, for rows shorter than 32 vectors, a
// group of lanes) sums a row's squares; with fewer rows than
// warps each row gets up to warps / rows warps, each summing a slice of the
// columns (8-wide vectors, 256 columns a warp step) into shared scratch;
// after a barrier they combine the row's partials and write their slices.
// RUN: mirage-opt %s --split-input-file --kn-default-block-graphs --convert-kn-to-gpu --canonicalize --cse | FileCheck %s

// One row, four warps: each sums and writes every fourth 256 columns.
// CHECK-LABEL: gpu.func @one_row_k0
// CHECK: %[[SCRATCH:.*]] = memref.view {{.*}} to memref<4xf32, #gpu.address_space<workgroup>>
// CHECK: scf.for %{{.*}} = %{{.*}} to %c4096 step %c1024 iter_args
// CHECK: memref.store %{{.*}}, %[[SCRATCH]][%{{.*}}]
// CHECK-NEXT: }
// CHECK-NEXT: gpu.barrier
// CHECK-COUNT-4: memref.load %[[SCRATCH]]
// CHECK: math.sqrt
// CHECK: scf.for %{{.*}} = %{{.*}} to %c4096 step %c1024 {
func.func @one_row(%x: tensor<1x4096xf16>) -> tensor<1x4096xf16> {
  %y = kn.rms_norm %x {eps = 1.0e-6 : f64} : tensor<1x4096xf16>
  return %y : tensor<1x4096xf16>
}

// -----

// Two rows of 512 columns: two warps a row, each on 256 of them.
// CHECK-LABEL: gpu.func @two_rows_k0
// CHECK: scf.for %{{.*}} = %{{.*}} to %c512 step %c512 iter_args
// CHECK: gpu.barrier
// CHECK-COUNT-2: memref.load %{{.*}} : memref<4xf32, #gpu.address_space<workgroup>>
// CHECK: math.sqrt
// CHECK: scf.for %{{.*}} = %{{.*}} to %c512 step %c512 {
func.func @two_rows(%x: tensor<2x512xf16>) -> tensor<2x512xf16> {
  %y = kn.rms_norm %x {eps = 1.0e-6 : f64} : tensor<2x512xf16>
  return %y : tensor<2x512xf16>
}

// -----

// One row of 512 columns: two warps are enough (a vector per lane each);
// the other two skip both passes but still meet the barrier between them.
// CHECK-LABEL: gpu.func @short_row_k0
// CHECK: %[[TAKE:.*]] = arith.cmpi ult, %{{.*}}, %c2 : index
// CHECK: scf.if %[[TAKE]] {
// CHECK: scf.for %{{.*}} = %{{.*}} to %c512 step %c512 iter_args
// CHECK: memref.store %{{.*}} : memref<2xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: scf.if %[[TAKE]] {
// CHECK: math.sqrt
func.func @short_row(%x: tensor<1x512xf16>) -> tensor<1x512xf16> {
  %y = kn.rms_norm %x {eps = 1.0e-6 : f64} : tensor<1x512xf16>
  return %y : tensor<1x512xf16>
}

// -----

// As many rows as warps or more: a warp per row; the blocks' 8-row tiles
// take two trips of the four warps, evenly, so no guard.
// CHECK-LABEL: gpu.func @many_rows_k0
// CHECK-NOT: scf.if
// CHECK: scf.for %{{.*}} = %c0 to %c2 step %c1 {
// CHECK: scf.for %{{.*}} = %{{.*}} to %c512 step %c256 iter_args
// CHECK-COUNT-5: gpu.shuffle  xor
// CHECK: math.sqrt
// CHECK: scf.for %{{.*}} = %{{.*}} to %c512 step %c256 {
func.func @many_rows(%x: tensor<16x512xf16>) -> tensor<16x512xf16> {
  %y = kn.rms_norm %x {eps = 1.0e-6 : f64} : tensor<16x512xf16>
  return %y : tensor<16x512xf16>
}

// -----

// Rows of 64 (8 vectors): a group of 8 lanes per row, four rows per warp,
// 16 per trip of the block: the blocks' 34-row tiles take three trips, the
// last one guarded.
// CHECK-LABEL: gpu.func @short_rows_k0
// CHECK: scf.for %{{.*}} = %c0 to %c3 step %c1 {
// CHECK: arith.minui %{{.*}}, %c33 : index
// CHECK: %[[LAST:.*]] = arith.cmpi ult, %{{.*}}, %c34 : index
// CHECK: scf.for %{{.*}} = %{{.*}} to %c64 step %c64 iter_args
// CHECK-COUNT-3: gpu.shuffle  xor
// CHECK-NOT: gpu.shuffle
// CHECK: scf.if %[[LAST]] {
// CHECK: math.sqrt
func.func @short_rows(%x: tensor<68x64xf16>) -> tensor<68x64xf16> {
  %y = kn.rms_norm %x {eps = 1.0e-6 : f64} : tensor<68x64xf16>
  return %y : tensor<68x64xf16>
}
