// convert-tg-to-gpu prefetch-bytes: a worker prefetches into L2 what a
// coming task reads of the buffers no kernel writes. @k0_exp reads the
// input %x (read-only: body 0 gets a prefetch function); @k1_sqrt reads
// %t, which @k0_exp writes (body 1 gets none). Off by default.
// RUN: mirage-opt %s --convert-tg-to-gpu=prefetch-bytes=256 | FileCheck %s
// RUN: mirage-opt %s --convert-tg-to-gpu | FileCheck %s --check-prefix=OFF
// RUN: mirage-opt %s --convert-tg-to-gpu="prefetch-bytes=1024 prefetch-ahead=0" | FileCheck %s --check-prefix=OWN

// Body 0's prefetch: thread index, block x, then the kernel's buffers as
// device addresses. A block reads 2 whole rows of 64 f32 (512 bytes, 512
// bytes apart per block), cut to the first 256: one run of 2 lines (one
// more where the run starts mid-line), taken by the threads in turn.
// CHECK-LABEL: func.func private @g_prefetch0(%{{.*}}: index, %{{.*}}: index, %{{.*}}: i64, %{{.*}}: i64)
// CHECK: arith.constant 512 : i64
// CHECK: arith.constant 3 : index
// CHECK: scf.for
// CHECK: arith.constant 256 : i64
// CHECK: llvm.inttoptr %{{.*}} : i64 to !llvm.ptr<1>
// CHECK: nvvm.prefetch level = L2, %{{.*}} : !llvm.ptr<1>
// CHECK-NOT: func.func private @g_prefetch1
// The worker prefetches (a switch over the bodies, on addresses) before
// thread 0 waits.
// CHECK-LABEL: gpu.func @g(
// CHECK: scf.for
// CHECK: scf.for
// CHECK: scf.index_switch
// CHECK: func.call @g_prefetch0
// CHECK: scf.while
// CHECK: func.call @g_body0

// OFF-NOT: prefetch

// All 512 bytes: 5 lines.
// OWN-LABEL: func.func private @g_prefetch0
// OWN: arith.constant 5 : index
tg.graph @g workers 2 linearized {
  %y = tg.buffer output 0 : memref<4x64xf32>
  %x = tg.buffer input 0 : memref<4x64xf32>
  %t = tg.buffer temp : memref<4x64xf32>
  tg.kernel @k0_exp ins(%x : memref<4x64xf32>) outs(%t : memref<4x64xf32>) {
    tb.graph grid [2] threads 128 forloop 1 {
    ^bb0(%arg0: tensor<4x64xf32>):
      %0 = tb.input_iterator %arg0 imap <x -> 0> fmap <i -> replica> : tensor<4x64xf32> -> !tb.tile<2x64xf32>
      %1 = tb.exp %0 : !tb.tile<2x64xf32>
      %2 = tb.output_saver %1 omap <x -> 0> : !tb.tile<2x64xf32> -> tensor<4x64xf32>
      tb.yield %2 : tensor<4x64xf32>
    }
  }
  tg.kernel @k1_sqrt ins(%t : memref<4x64xf32>) outs(%y : memref<4x64xf32>) {
    tb.graph grid [2] threads 128 forloop 1 {
    ^bb0(%arg0: tensor<4x64xf32>):
      %0 = tb.input_iterator %arg0 imap <x -> 0> fmap <i -> replica> : tensor<4x64xf32> -> !tb.tile<2x64xf32>
      %1 = tb.sqrt %0 : !tb.tile<2x64xf32>
      %2 = tb.output_saver %1 omap <x -> 0> : !tb.tile<2x64xf32> -> tensor<4x64xf32>
      tb.yield %2 : tensor<4x64xf32>
    }
  }
  %start = tg.event triggers 0 tasks [0, 1]
  tg.task compute @k0_exp block [0] reads [#tg.box<[0, 0], [2, 64]>] writes [#tg.box<[0, 0], [2, 64]>] aot waits(%start) triggers(%e0)
  tg.task compute @k0_exp block [1] reads [#tg.box<[2, 0], [2, 64]>] writes [#tg.box<[2, 0], [2, 64]>] aot waits(%start) triggers(%e1)
  %e0 = tg.event triggers 1 tasks [2, 2]
  tg.task compute @k1_sqrt block [0] reads [#tg.box<[0, 0], [2, 64]>] writes [#tg.box<[0, 0], [2, 64]>] aot waits(%e0)
  %e1 = tg.event triggers 1 tasks [3, 3]
  tg.task compute @k1_sqrt block [1] reads [#tg.box<[2, 0], [2, 64]>] writes [#tg.box<[2, 0], [2, 64]>] aot waits(%e1)
  tg.queue worker 0 [0, 2, 3]
  tg.queue worker 1 [1]
}
