// One case per diagnostic of convert-tg-to-gpu.
// RUN: mirage-opt %s --convert-tg-to-gpu --split-input-file --verify-diagnostics
// RUN: not mirage-opt %s --convert-tg-to-gpu=chip=sm_00 -o /dev/null 2>&1 | FileCheck %s --check-prefix=CHIP
// RUN: not mirage-opt %s --convert-tg-to-gpu=prefetch-bytes=-1 -o /dev/null 2>&1 | FileCheck %s --check-prefix=PREFETCH

// expected-error @below {{must be linearized and scheduled to become a mega-kernel; run mirage-to-task-graph (or tg-normalize, tg-linearize and tg-schedule) first}}
tg.graph @unscheduled linearized {
  %x = tg.buffer input 0 : memref<4x64xf32>
  %y = tg.buffer output 0 : memref<4x64xf32>
  tg.kernel @k ins(%x : memref<4x64xf32>) outs(%y : memref<4x64xf32>) {
    tb.graph grid [1] threads 128 forloop 1 {
    ^bb0(%arg0: tensor<4x64xf32>):
      %0 = tb.input_iterator %arg0 imap <x -> 0> fmap <i -> replica> : tensor<4x64xf32> -> !tb.tile<4x64xf32>
      %1 = tb.exp %0 : !tb.tile<4x64xf32>
      %2 = tb.output_saver %1 omap <x -> 0> : !tb.tile<4x64xf32> -> tensor<4x64xf32>
      tb.yield %2 : tensor<4x64xf32>
    }
  }
  %start = tg.event triggers 0 tasks [0, 0]
  tg.task compute @k block [0] reads [#tg.box<[0, 0], [4, 64]>] writes [#tg.box<[0, 0], [4, 64]>] aot waits(%start)
}

// -----

tg.graph @unqueued workers 1 linearized {
  %x = tg.buffer input 0 : memref<4x64xf32>
  %y = tg.buffer output 0 : memref<4x64xf32>
  tg.kernel @k ins(%x : memref<4x64xf32>) outs(%y : memref<4x64xf32>) {
    tb.graph grid [1] threads 128 forloop 1 {
    ^bb0(%arg0: tensor<4x64xf32>):
      %0 = tb.input_iterator %arg0 imap <x -> 0> fmap <i -> replica> : tensor<4x64xf32> -> !tb.tile<4x64xf32>
      %1 = tb.exp %0 : !tb.tile<4x64xf32>
      %2 = tb.output_saver %1 omap <x -> 0> : !tb.tile<4x64xf32> -> tensor<4x64xf32>
      tb.yield %2 : tensor<4x64xf32>
    }
  }
  %start = tg.event triggers 0 tasks [0, 0]
  // expected-error @below {{is ahead of time but in no worker's queue: it would never run}}
  tg.task compute @k block [0] reads [#tg.box<[0, 0], [4, 64]>] writes [#tg.box<[0, 0], [4, 64]>] aot waits(%start)
}

// -----

tg.graph @threads workers 1 linearized {
  %x = tg.buffer input 0 : memref<4x64xf32>
  %t = tg.buffer temp : memref<4x64xf32>
  %y = tg.buffer output 0 : memref<4x64xf32>
  tg.kernel @k0 ins(%x : memref<4x64xf32>) outs(%t : memref<4x64xf32>) {
    tb.graph grid [1] threads 128 forloop 1 {
    ^bb0(%arg0: tensor<4x64xf32>):
      %0 = tb.input_iterator %arg0 imap <x -> 0> fmap <i -> replica> : tensor<4x64xf32> -> !tb.tile<4x64xf32>
      %1 = tb.exp %0 : !tb.tile<4x64xf32>
      %2 = tb.output_saver %1 omap <x -> 0> : !tb.tile<4x64xf32> -> tensor<4x64xf32>
      tb.yield %2 : tensor<4x64xf32>
    }
  }
  // expected-error @below {{runs 256 threads per block but other kernels of the graph run 128; a mega-kernel runs one block size}}
  tg.kernel @k1 ins(%t : memref<4x64xf32>) outs(%y : memref<4x64xf32>) {
    tb.graph grid [1] threads 256 forloop 1 {
    ^bb0(%arg0: tensor<4x64xf32>):
      %0 = tb.input_iterator %arg0 imap <x -> 0> fmap <i -> replica> : tensor<4x64xf32> -> !tb.tile<4x64xf32>
      %1 = tb.exp %0 : !tb.tile<4x64xf32>
      %2 = tb.output_saver %1 omap <x -> 0> : !tb.tile<4x64xf32> -> tensor<4x64xf32>
      tb.yield %2 : tensor<4x64xf32>
    }
  }
  %start = tg.event triggers 0 tasks [0, 0]
  tg.task compute @k0 block [0] reads [#tg.box<[0, 0], [4, 64]>] writes [#tg.box<[0, 0], [4, 64]>] aot waits(%start) triggers(%e)
  %e = tg.event triggers 1 tasks [1, 1]
  tg.task compute @k1 block [0] reads [#tg.box<[0, 0], [4, 64]>] writes [#tg.box<[0, 0], [4, 64]>] aot waits(%e)
  tg.queue worker 0 [0, 1]
}

// -----

// expected-error @below {{has no kernels: nothing to run}}
tg.graph @empty workers 1 linearized {
  %start = tg.event triggers 0 tasks [0, 0]
  tg.task empty aot waits(%start)
  tg.queue worker 0 [0]
}

// CHIP: error: convert-tg-to-gpu: unknown value 'sm_00' for option 'chip'; valid values: sm_80, sm_86, sm_89, sm_90, sm_90a, sm_100a
// PREFETCH: error: convert-tg-to-gpu: prefetch-bytes is -1; expected 0 to 1073741824

// -----

// A claimed just-in-time task runs before the first queued task that comes
// later in the graph's order: sound only for queues in that order.
tg.graph @unordered workers 1 linearized {
  %x = tg.buffer input 0 : memref<4x64xf32>
  %y = tg.buffer output 0 : memref<4x64xf32>
  tg.kernel @k ins(%x : memref<4x64xf32>) outs(%y : memref<4x64xf32>) {
    tb.graph grid [2] threads 128 forloop 1 {
    ^bb0(%arg0: tensor<4x64xf32>):
      %0 = tb.input_iterator %arg0 imap <x -> 0> fmap <i -> replica> : tensor<4x64xf32> -> !tb.tile<2x64xf32>
      %1 = tb.exp %0 : !tb.tile<2x64xf32>
      %2 = tb.output_saver %1 omap <x -> 0> : !tb.tile<2x64xf32> -> tensor<4x64xf32>
      tb.yield %2 : tensor<4x64xf32>
    }
  }
  %start = tg.event triggers 0 tasks [0, 1]
  tg.task compute @k block [0] reads [#tg.box<[0, 0], [2, 64]>] writes [#tg.box<[0, 0], [2, 64]>] aot waits(%start)
  tg.task compute @k block [1] reads [#tg.box<[2, 0], [2, 64]>] writes [#tg.box<[2, 0], [2, 64]>] aot waits(%start)
  // expected-error @below {{runs task 0 after task 1; a mega-kernel runs each queue in the graph's order}}
  tg.queue worker 0 [1, 0]
}
