// Every tg op round-trips through the custom and the generic form.
// RUN: mirage-opt %s | mirage-opt | FileCheck %s
// RUN: mirage-opt %s --mlir-print-op-generic | mirage-opt | FileCheck %s

func.func @scale(%x: tensor<4x64xf16>) -> tensor<4x64xf16> {
  %y = kn.mul_scalar %x, 2.0 : tensor<4x64xf16>
  return %y : tensor<4x64xf16>
}

// A kernel of two blocks, each a task; the second op reads the first one's
// output through a view.
// CHECK-LABEL: tg.graph @scale_twice from @scale {
tg.graph @scale_twice from @scale {
  // CHECK: %[[X:.*]] = tg.buffer input 0 : memref<4x64xf16>
  %x = tg.buffer input 0 : memref<4x64xf16>
  // CHECK: %[[Y:.*]] = tg.buffer output 0 : memref<4x64xf16>
  %y = tg.buffer output 0 : memref<4x64xf16>
  // CHECK: %[[H:.*]] = tg.buffer temp : memref<4x64xf16>
  %h = tg.buffer temp : memref<4x64xf16>
  // CHECK: %[[V:.*]] = tg.view %[[H]] : memref<4x64xf16> to memref<256xf16>
  %v = tg.view %h : memref<4x64xf16> to memref<256xf16>
  // CHECK: tg.kernel @k0 ins(%[[X]] : memref<4x64xf16>) outs(%[[H]] : memref<4x64xf16>) {
  tg.kernel @k0 ins(%x : memref<4x64xf16>) outs(%h : memref<4x64xf16>) {
    tb.graph grid [2] threads 32 forloop 1 {
    ^bb0(%xd: tensor<4x64xf16>):
      %t = tb.input_iterator %xd imap <x -> 0> fmap <i -> replica> : tensor<4x64xf16> -> !tb.tile<2x64xf16>
      %s = tb.mul_scalar %t, 2.0 : !tb.tile<2x64xf16>
      %o = tb.output_saver %s omap <x -> 0> : !tb.tile<2x64xf16> -> tensor<4x64xf16>
      tb.yield %o : tensor<4x64xf16>
    }
  }
  tg.kernel @k1 ins(%h : memref<4x64xf16>) outs(%y : memref<4x64xf16>) {
    tb.graph grid [1] threads 32 forloop 1 {
    ^bb0(%hd: tensor<4x64xf16>):
      %t = tb.input_iterator %hd imap <x -> 0> fmap <i -> replica> : tensor<4x64xf16> -> !tb.tile<4x64xf16>
      %s = tb.mul_scalar %t, 1.0 : !tb.tile<4x64xf16>
      %o = tb.output_saver %s omap <x -> 0> : !tb.tile<4x64xf16> -> tensor<4x64xf16>
      tb.yield %o : tensor<4x64xf16>
    }
  }
  // CHECK: %[[START:.*]] = tg.event triggers 0
  %start = tg.event triggers 0
  // Events may be used before they are defined: the region is a graph.
  // CHECK: tg.task compute @k0 block [0] reads [#tg.box<[0, 0], [2, 64]>] writes [#tg.box<[0, 0], [2, 64]>] aot waits(%[[START]]) triggers(%[[DONE:.*]])
  tg.task compute @k0 block [0] reads [#tg.box<[0, 0], [2, 64]>] writes [#tg.box<[0, 0], [2, 64]>] aot waits(%start) triggers(%done)
  tg.task compute @k0 block [1] reads [#tg.box<[2, 0], [2, 64]>] writes [#tg.box<[2, 0], [2, 64]>] aot waits(%start) triggers(%done)
  // CHECK: %[[DONE]] = tg.event triggers 2
  %done = tg.event triggers 2
  // CHECK: tg.task compute @k1 block [0] reads [#tg.box<[0, 0], [4, 64]>] writes [#tg.box<[0, 0], [4, 64]>] jit waits(%[[DONE]])
  tg.task compute @k1 block [0] reads [#tg.box<[0, 0], [4, 64]>] writes [#tg.box<[0, 0], [4, 64]>] jit waits(%done)
}

// The linearized, scheduled form: each task waits on one event and triggers
// at most one; each event records the contiguous range of the tasks waiting
// on it; an empty task forks one event into two; queues list each worker's
// ahead-of-time tasks.
// CHECK-LABEL: tg.graph @linear workers 2 linearized {
tg.graph @linear workers 2 linearized {
  %x = tg.buffer input 0 : memref<4x64xf16>
  %h = tg.buffer temp : memref<4x64xf16>
  tg.kernel @k0 ins(%x : memref<4x64xf16>) outs(%h : memref<4x64xf16>) {
    tb.graph grid [2] threads 32 forloop 1 {
    ^bb0(%xd: tensor<4x64xf16>):
      %t = tb.input_iterator %xd imap <x -> 0> fmap <i -> replica> : tensor<4x64xf16> -> !tb.tile<2x64xf16>
      %o = tb.output_saver %t omap <x -> 0> : !tb.tile<2x64xf16> -> tensor<4x64xf16>
      tb.yield %o : tensor<4x64xf16>
    }
  }
  // CHECK: tg.event triggers 0 tasks [0, 1]
  %start = tg.event triggers 0 tasks [0, 1]
  tg.task compute @k0 block [0] reads [#tg.box<[0, 0], [2, 64]>] writes [#tg.box<[0, 0], [2, 64]>] aot waits(%start) triggers(%both)
  tg.task compute @k0 block [1] reads [#tg.box<[2, 0], [2, 64]>] writes [#tg.box<[2, 0], [2, 64]>] aot waits(%start) triggers(%both)
  // CHECK: tg.event triggers 2 tasks [2, 2]
  %both = tg.event triggers 2 tasks [2, 2]
  // CHECK: tg.task empty aot waits(%{{.*}}) triggers(%{{.*}})
  tg.task empty aot waits(%both) triggers(%fork)
  %fork = tg.event triggers 1 tasks [3, 4]
  tg.task empty aot waits(%fork)
  tg.task empty jit waits(%fork)
  // CHECK: tg.queue worker 0 [0, 2, 3]
  tg.queue worker 0 [0, 2, 3]
  // CHECK: tg.queue worker 1 [1]
  tg.queue worker 1 [1]
}

// A concatenation without storage of its own, read by a kernel.
// CHECK-LABEL: tg.graph @concat_read {
tg.graph @concat_read {
  %x = tg.buffer input 0 : memref<4x64xf16>
  %r = tg.buffer input 1 : memref<1x64xf16>
  %y = tg.buffer output 0 : memref<5x64xf16>
  // CHECK: %[[C:.*]] = tg.concat %{{.*}}, %{{.*}} dim 0 : memref<4x64xf16>, memref<1x64xf16> to memref<5x64xf16>
  %c = tg.concat %x, %r dim 0 : memref<4x64xf16>, memref<1x64xf16> to memref<5x64xf16>
  // CHECK: tg.kernel @k0 ins(%[[C]] : memref<5x64xf16>)
  tg.kernel @k0 ins(%c : memref<5x64xf16>) outs(%y : memref<5x64xf16>) {
    tb.graph grid [1] threads 32 forloop 1 {
    ^bb0(%cd: tensor<5x64xf16>):
      %t = tb.input_iterator %cd imap <x -> replica> fmap <i -> replica> : tensor<5x64xf16> -> !tb.tile<5x64xf16>
      %o = tb.output_saver %t omap <x -> 0> : !tb.tile<5x64xf16> -> tensor<5x64xf16>
      tb.yield %o : tensor<5x64xf16>
    }
  }
  %start = tg.event triggers 0
  tg.task compute @k0 block [0] reads [#tg.box<[0, 0], [5, 64]>] writes [#tg.box<[0, 0], [5, 64]>] aot waits(%start)
}
