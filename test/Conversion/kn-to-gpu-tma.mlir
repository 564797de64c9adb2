// With tma, a kernel whose pipelined input tiles the bulk tensor copy engine
// can write loads them with nvgpu.tma.async.load from tensor maps the host
// creates over the input buffers, completing on one mbarrier per stage.
// RUN: mirage-opt %s --convert-kn-to-gpu=tma=true | FileCheck %s
// Without it (the default), every kernel keeps cp.async.
// RUN: mirage-opt %s --convert-kn-to-gpu | FileCheck %s --check-prefix=OFF
// The emitted PTX has bulk tensor copies, the tensor-map fence, the mbarrier
// parity wait, and dynamic shared memory on the 128-byte swizzle's period.
// RUN: mirage-opt %s --mirage-to-ptx="chip=sm_90a tma=true fuse=false" | FileCheck %s --check-prefix=PTX
// A chip without the copy engine ignores the option.
// RUN: mirage-opt %s --mirage-to-ptx="chip=sm_80 tma=true fuse=false" | FileCheck %s --check-prefix=SM80

// The x tile (8 x 512, rows of 1 KiB) is stored as 8 column blocks of 64
// columns, one 8 x 64 box each; the w tile (512 x 64) as two boxes of 256
// rows. A stage expects both tiles' bytes: 8 * 512 * 2 + 512 * 64 * 2.
// CHECK-LABEL: func.func @decode(
// CHECK: %[[XU:.*]] = memref.cast %arg0 : memref<8x4096xf16> to memref<*xf16>
// CHECK: %[[XMAP:.*]] = nvgpu.tma.create.descriptor %[[XU]] box[%c8, %c64] : memref<*xf16> -> <tensor = memref<8x64xf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = l2promo_128b, oob = zero, interleave = none>
// CHECK: %[[WU:.*]] = memref.cast %arg1 : memref<4096x4096xf16> to memref<*xf16>
// CHECK: %[[WMAP:.*]] = nvgpu.tma.create.descriptor %[[WU]] box[%c256, %{{.*}}] : memref<*xf16> -> <tensor = memref<256x64xf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b
// CHECK: gpu.launch_func @decode_kernels::@decode_k0 {{.*}} args(%arg0 : memref<8x4096xf16>, %arg1 : memref<4096x4096xf16>, %arg2 : memref<8x4096xf16>, %[[XMAP]] : !nvgpu.tensormap.descriptor<{{.*}}>, %[[WMAP]] : !nvgpu.tensormap.descriptor<{{.*}}>)
// CHECK-LABEL: gpu.func @decode_k0(
// CHECK-SAME: %[[X:arg3]]: !nvgpu.tensormap.descriptor<tensor = memref<8x64xf16
// CHECK-SAME: %[[W:arg4]]: !nvgpu.tensormap.descriptor<tensor = memref<256x64xf16
// CHECK: %[[LEADER:.*]] = arith.cmpi eq, %thread_id_x, %c0
// CHECK: scf.if %[[LEADER]] {
// CHECK-NEXT: nvgpu.tma.fence.descriptor %[[X]]
// CHECK-NEXT: nvgpu.tma.prefetch.descriptor %[[X]]
// CHECK-NEXT: nvgpu.tma.fence.descriptor %[[W]]
// CHECK-NEXT: nvgpu.tma.prefetch.descriptor %[[W]]
// CHECK: %[[BARS:.*]] = nvgpu.mbarrier.create -> <memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
// CHECK: nvgpu.mbarrier.init %[[BARS]][%{{.*}}], %{{.*}}, predicate = %[[LEADER]]
// CHECK: nvgpu.mbarrier.init %[[BARS]][%{{.*}}], %{{.*}}, predicate = %[[LEADER]]
// CHECK: nvvm.fence.mbarrier.init
// CHECK-NEXT: gpu.barrier
// The first stage, before the loop.
// CHECK: nvgpu.mbarrier.arrive.expect_tx %[[BARS]][%{{.*}}], %c73728, predicate = %[[LEADER]]
// CHECK-COUNT-8: nvgpu.tma.async.load %[[X]][%{{.*}}, %{{.*}}], %[[BARS]][%{{.*}}] to %{{.*}}, predicate = %[[LEADER]] : {{.*}} -> memref<8x64xf16, #gpu.address_space<workgroup>>
// CHECK-COUNT-2: nvgpu.tma.async.load %[[W]][%{{.*}}, %{{.*}}], %[[BARS]][%{{.*}}] to %{{.*}}, predicate = %[[LEADER]] : {{.*}} -> memref<256x64xf16, #gpu.address_space<workgroup>>
// In the loop: request the next stage, then wait on this one's mbarrier.
// CHECK: scf.for
// CHECK: scf.if
// CHECK: nvgpu.mbarrier.arrive.expect_tx %[[BARS]]
// CHECK-COUNT-10: nvgpu.tma.async.load
// CHECK: nvgpu.mbarrier.try_wait.parity %[[BARS]][%{{.*}}], %{{.*}}, %c10000000
// CHECK-NOT: nvgpu.device_async_copy
// CHECK: func.func @narrow

// OFF-NOT: nvgpu.tma
// OFF-NOT: mbarrier
// OFF: nvgpu.device_async_copy

// PTX-LABEL: gpu.binary @decode_kernels
// PTX-SAME: .extern .shared .align 1024 .b8 __dynamic_shmem__0[];
// PTX-SAME: .entry decode_k0(
// PTX-SAME: fence.proxy.tensormap::generic.acquire.sys
// PTX-SAME: prefetch.tensormap
// PTX-SAME: mbarrier.init.shared.b64
// PTX-SAME: mbarrier.arrive.expect_tx.shared.b64
// PTX-SAME: cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes
// PTX-SAME: mbarrier.try_wait.parity.shared.b64
// PTX-LABEL: gpu.binary @narrow_kernels
// PTX-NOT: cp.async.bulk
// PTX-SAME: cp.async.cg.shared.global

// SM80-NOT: cp.async.bulk
// SM80-NOT: mbarrier

func.func @decode(%x: tensor<8x4096xf16>, %w: tensor<4096x4096xf16>) -> tensor<8x4096xf16> {
  %0 = kn.kernel(%x, %w) {
    tb.graph grid [64] threads 128 forloop 8 {
    ^bb0(%a: tensor<8x4096xf16>, %b: tensor<4096x4096xf16>):
      %1 = tb.input_iterator %a imap <x -> replica> fmap <i -> 1> : tensor<8x4096xf16> -> !tb.tile<8x512xf16>
      %2 = tb.input_iterator %b imap <x -> 1> fmap <i -> 0> : tensor<4096x4096xf16> -> !tb.tile<512x64xf16>
      %3 = tb.matmul %1, %2 : !tb.tile<8x512xf16>, !tb.tile<512x64xf16>
      %4 = tb.accum_sum %3 : !tb.tile<8x64xf16>
      %5 = tb.output_saver %4 omap <x -> 1> : !tb.tile<8x64xf16> -> tensor<8x4096xf16>
      tb.yield %5 : tensor<8x4096xf16>
    }
  } : (tensor<8x4096xf16>, tensor<4096x4096xf16>) -> tensor<8x4096xf16>
  return %0 : tensor<8x4096xf16>
}

// Tiles whose rows are shorter than 128 bytes (the w tile's 32 here) keep
// cp.async, for every tile of the kernel.
// CHECK-LABEL: gpu.func @narrow_k0(
// CHECK-NOT: tensormap
// CHECK-NOT: mbarrier
// CHECK: nvgpu.device_async_copy
// CHECK-LABEL: func.func @small_box
func.func @narrow(%x: tensor<8x4096xf16>, %w: tensor<4096x4096xf16>) -> tensor<8x4096xf16> {
  %0 = kn.kernel(%x, %w) {
    tb.graph grid [256] threads 128 forloop 16 {
    ^bb0(%a: tensor<8x4096xf16>, %b: tensor<4096x4096xf16>):
      %1 = tb.input_iterator %a imap <x -> replica> fmap <i -> 1> : tensor<8x4096xf16> -> !tb.tile<8x256xf16>
      %2 = tb.input_iterator %b imap <x -> 1> fmap <i -> 0> : tensor<4096x4096xf16> -> !tb.tile<256x16xf16>
      %3 = tb.matmul %1, %2 : !tb.tile<8x256xf16>, !tb.tile<256x16xf16>
      %4 = tb.accum_sum %3 : !tb.tile<8x16xf16>
      %5 = tb.output_saver %4 omap <x -> 1> : !tb.tile<8x16xf16> -> tensor<8x4096xf16>
      tb.yield %5 : tensor<8x4096xf16>
    }
  } : (tensor<8x4096xf16>, tensor<4096x4096xf16>) -> tensor<8x4096xf16>
  return %0 : tensor<8x4096xf16>
}

// Boxes under 1 KiB (one 128-byte row of x per column block) keep cp.async.
// CHECK-LABEL: gpu.func @small_box_k0(
// CHECK-NOT: tensormap
// CHECK: nvgpu.device_async_copy
func.func @small_box(%x: tensor<1x4096xf16>, %w: tensor<4096x4096xf16>) -> tensor<1x4096xf16> {
  %0 = kn.kernel(%x, %w) {
    tb.graph grid [64] threads 128 forloop 8 {
    ^bb0(%a: tensor<1x4096xf16>, %b: tensor<4096x4096xf16>):
      %1 = tb.input_iterator %a imap <x -> replica> fmap <i -> 1> : tensor<1x4096xf16> -> !tb.tile<1x512xf16>
      %2 = tb.input_iterator %b imap <x -> 1> fmap <i -> 0> : tensor<4096x4096xf16> -> !tb.tile<512x64xf16>
      %3 = tb.matmul %1, %2 : !tb.tile<1x512xf16>, !tb.tile<512x64xf16>
      %4 = tb.accum_sum %3 : !tb.tile<1x64xf16>
      %5 = tb.output_saver %4 omap <x -> 1> : !tb.tile<1x64xf16> -> tensor<1x4096xf16>
      tb.yield %5 : tensor<1x4096xf16>
    }
  } : (tensor<1x4096xf16>, tensor<4096x4096xf16>) -> tensor<1x4096xf16>
  return %0 : tensor<1x4096xf16>
}

// w's rows of 96 columns (192 bytes, 12 chunks) are swizzled for ldmatrix
// in groups of 4 chunks, which the copy engine cannot write: with tma such
// a tile is copied unswizzled, one 256 x 96 box per 256 rows, and x keeps
// its 128-byte swizzle.
// CHECK-LABEL: func.func @rows192(
// CHECK: nvgpu.tma.create.descriptor %{{.*}} box[%c8, %c64] : memref<*xf16> -> <tensor = memref<8x64xf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b
// CHECK: nvgpu.tma.create.descriptor %{{.*}} box[%c256, %c96] : memref<*xf16> -> <tensor = memref<256x96xf16, #gpu.address_space<workgroup>>, swizzle = none
func.func @rows192(%x: tensor<8x4096xf16>, %w: tensor<4096x6144xf16>) -> tensor<8x6144xf16> {
  %0 = kn.kernel(%x, %w) {
    tb.graph grid [64] threads 128 forloop 8 {
    ^bb0(%a: tensor<8x4096xf16>, %b: tensor<4096x6144xf16>):
      %1 = tb.input_iterator %a imap <x -> replica> fmap <i -> 1> : tensor<8x4096xf16> -> !tb.tile<8x512xf16>
      %2 = tb.input_iterator %b imap <x -> 1> fmap <i -> 0> : tensor<4096x6144xf16> -> !tb.tile<512x96xf16>
      %3 = tb.matmul %1, %2 : !tb.tile<8x512xf16>, !tb.tile<512x96xf16>
      %4 = tb.accum_sum %3 : !tb.tile<8x96xf16>
      %5 = tb.output_saver %4 omap <x -> 1> : !tb.tile<8x96xf16> -> tensor<8x6144xf16>
      tb.yield %5 : tensor<8x6144xf16>
    }
  } : (tensor<8x4096xf16>, tensor<4096x6144xf16>) -> tensor<8x6144xf16>
  return %0 : tensor<8x6144xf16>
}
