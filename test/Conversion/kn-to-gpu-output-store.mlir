// An elementwise result that only an output saver reads is computed inside
// the saver and stored straight to global memory: no shared-memory tile and
// no level of its own. An elementwise op or rms_norm whose result other ops
// read too keeps its tile and stores to global memory in the same pass, and
// the saver is no step of its own.
// RUN: mirage-opt %s --split-input-file --convert-kn-to-gpu --canonicalize --cse | FileCheck %s

// Its inputs too are read only by that expression: global memory to global
// memory, no shared memory, no barrier before the work.
// CHECK-LABEL: gpu.func @bias_silu_k0(
// CHECK-SAME: %[[X:[^:]*]]: memref<8x16384xf16>, %[[B:[^:]*]]: memref<16384xf16>, %[[OUT:[^:]*]]: memref<8x16384xf16>)
// CHECK-NOT: memref.view
// CHECK-NOT: gpu.barrier
// CHECK: scf.for
// CHECK: vector.load %[[X]]
// CHECK: vector.load %[[B]]
// CHECK: math.exp {{.*}} : vector<8xf32>
// CHECK: vector.store %{{.*}}, %[[OUT]]{{.*}} : memref<8x16384xf16>, vector<8xf16>
// CHECK-NEXT: }
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: gpu.return
func.func @bias_silu(%x: tensor<8x16384xf16>, %b: tensor<16384xf16>) -> tensor<8x16384xf16> {
  %y = kn.kernel(%x, %b) {
    tb.graph grid [128] threads 128 forloop 1 {
    ^bb0(%xd: tensor<8x16384xf16>, %bd: tensor<16384xf16>):
      %xt = tb.input_iterator %xd imap <x -> 1> fmap <i -> replica> : tensor<8x16384xf16> -> !tb.tile<8x128xf16>
      %bt = tb.input_iterator %bd imap <x -> 0> fmap <i -> replica> : tensor<16384xf16> -> !tb.tile<128xf16>
      %s = tb.add %xt, %bt : !tb.tile<8x128xf16>, !tb.tile<128xf16>
      %g = tb.silu %s : !tb.tile<8x128xf16>
      %o = tb.output_saver %g omap <x -> 1> : !tb.tile<8x128xf16> -> tensor<8x16384xf16>
      tb.yield %o : tensor<8x16384xf16>
    }
  } : (tensor<8x16384xf16>, tensor<16384xf16>) -> tensor<8x16384xf16>
  return %y : tensor<8x16384xf16>
}

// -----

// Read by the saver and by a reduction: exp writes its tile and the output
// in one pass; the reduction reads the tile.
// CHECK-LABEL: gpu.func @two_readers_k0(
// CHECK: math.exp
// CHECK-NEXT: arith.truncf
// CHECK-NEXT: arith.muli
// CHECK-NEXT: arith.addi
// CHECK-NEXT: vector.store %{{.*}} : memref<1024xf16, #gpu.address_space<workgroup>>, vector<8xf16>
// CHECK-NEXT: vector.store %{{.*}} : memref<8x16384xf16>, vector<8xf16>
// CHECK: gpu.barrier
// CHECK: vector.load %{{.*}} : memref<1024xf16, #gpu.address_space<workgroup>>, vector<8xf16>
// CHECK-NOT: memref<8x16384xf16>
// CHECK: gpu.return
func.func @two_readers(%x: tensor<8x16384xf16>) -> (tensor<8x16384xf16>, tensor<8x128xf16>) {
  %y:2 = kn.kernel(%x) {
    tb.graph grid [128] threads 128 forloop 1 {
    ^bb0(%xd: tensor<8x16384xf16>):
      %xt = tb.input_iterator %xd imap <x -> 1> fmap <i -> replica> : tensor<8x16384xf16> -> !tb.tile<8x128xf16>
      %e = tb.exp %xt : !tb.tile<8x128xf16>
      %s = tb.reduce_sum %e dim 1 : !tb.tile<8x128xf16>
      %o1 = tb.output_saver %e omap <x -> 1> : !tb.tile<8x128xf16> -> tensor<8x16384xf16>
      %o2 = tb.output_saver %s omap <x -> 1> : !tb.tile<8x1xf16> -> tensor<8x128xf16>
      tb.yield %o1, %o2 : tensor<8x16384xf16>, tensor<8x128xf16>
    }
  } : (tensor<8x16384xf16>) -> (tensor<8x16384xf16>, tensor<8x128xf16>)
  return %y#0, %y#1 : tensor<8x16384xf16>, tensor<8x128xf16>
}

// -----

// A looped graph: the sum lives in an f32 tile across the loop; the scale
// after the loop reads it and is stored straight out.
// CHECK-LABEL: gpu.func @looped_k0(
// CHECK-SAME: %[[OUT:[^:]*]]: memref<8x128xf16>)
// CHECK: scf.for
// CHECK: vector.store %{{.*}} : memref<1024xf32, #gpu.address_space<workgroup>>
// CHECK: vector.load %{{.*}} : memref<1024xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT: arith.mulf
// CHECK-NOT: memref
// CHECK: vector.store %{{.*}}, %[[OUT]]{{.*}} : memref<8x128xf16>, vector<8xf16>
func.func @looped(%x: tensor<8x256xf16>) -> tensor<8x128xf16> {
  %y = kn.kernel(%x) {
    tb.graph grid [1] threads 128 forloop 2 {
    ^bb0(%xd: tensor<8x256xf16>):
      %xt = tb.input_iterator %xd imap <x -> replica> fmap <i -> 1> : tensor<8x256xf16> -> !tb.tile<8x128xf16>
      %acc = tb.accum_sum %xt : !tb.tile<8x128xf16>
      %m = tb.mul_scalar %acc, 2.0 : !tb.tile<8x128xf16>
      %o = tb.output_saver %m omap <x -> 1> : !tb.tile<8x128xf16> -> tensor<8x128xf16>
      tb.yield %o : tensor<8x128xf16>
    }
  } : (tensor<8x256xf16>) -> tensor<8x128xf16>
  return %y : tensor<8x128xf16>
}

// -----

// rms_norm read only by the saver writes its rows straight to the output:
// its input has a tile, its result none.
// CHECK-LABEL: gpu.func @norm_k0(
// CHECK-SAME: %[[OUT:[^:]*]]: memref<8x4096xf16>)
// CHECK-NOT: memref.view {{.*}} to memref<4096xf16, #gpu.address_space<workgroup>>
// CHECK: memref.view {{.*}} to memref<4096xf16, #gpu.address_space<workgroup>>
// CHECK-NOT: memref.view {{.*}} to memref<4096xf16, #gpu.address_space<workgroup>>
// CHECK: math.sqrt
// CHECK: vector.store %{{.*}}, %[[OUT]]{{.*}} : memref<8x4096xf16>, vector<8xf16>
// CHECK-NOT: vector.store
// CHECK: gpu.return
func.func @norm(%x: tensor<8x4096xf16>) -> tensor<8x4096xf16> {
  %y = kn.kernel(%x) {
    tb.graph grid [8] threads 512 forloop 1 {
    ^bb0(%xd: tensor<8x4096xf16>):
      %xt = tb.input_iterator %xd imap <x -> 0> fmap <i -> replica> : tensor<8x4096xf16> -> !tb.tile<1x4096xf16>
      %n = tb.rms_norm %xt {eps = 1.0e-6 : f64} : !tb.tile<1x4096xf16>
      %o = tb.output_saver %n omap <x -> 0> : !tb.tile<1x4096xf16> -> tensor<8x4096xf16>
      tb.yield %o : tensor<8x4096xf16>
    }
  } : (tensor<8x4096xf16>) -> tensor<8x4096xf16>
  return %y : tensor<8x4096xf16>
}

// -----

// A chain whose only input is a tensor-core product stays the matmul's
// epilogue, applied to the f32 sums before they are rounded: the saver
// copies the epilogue's tile rather than computing exp from a stored f16
// product.
// CHECK-LABEL: gpu.func @scores_k0(
// CHECK: nvgpu.mma.sync
// CHECK: math.exp {{.*}} : f32
// CHECK: gpu.barrier
// CHECK: vector.load %{{.*}} : memref<1024xf16, #gpu.address_space<workgroup>>, vector<8xf16>
// CHECK-NOT: math.exp
// CHECK: vector.store %{{.*}} : memref<16x64xf16>, vector<8xf16>
func.func @scores(%q: tensor<16x64xf16>, %k: tensor<64x64xf16>) -> tensor<16x64xf16> {
  %s = kn.kernel(%q, %k) {
    tb.graph grid [1] threads 128 forloop 1 {
    ^bb0(%qd: tensor<16x64xf16>, %kd: tensor<64x64xf16>):
      %qt = tb.input_iterator %qd imap <x -> replica> fmap <i -> replica> : tensor<16x64xf16> -> !tb.tile<16x64xf16>
      %kt = tb.input_iterator %kd imap <x -> replica> fmap <i -> replica> : tensor<64x64xf16> -> !tb.tile<64x64xf16>
      %p = tb.matmul %qt, %kt : !tb.tile<16x64xf16>, !tb.tile<64x64xf16>
      %m = tb.mul_scalar %p, 0.125 : !tb.tile<16x64xf16>
      %e = tb.exp %m : !tb.tile<16x64xf16>
      %o = tb.output_saver %e omap <x -> 1> : !tb.tile<16x64xf16> -> tensor<16x64xf16>
      tb.yield %o : tensor<16x64xf16>
    }
  } : (tensor<16x64xf16>, tensor<64x64xf16>) -> tensor<16x64xf16>
  return %s : tensor<16x64xf16>
}
