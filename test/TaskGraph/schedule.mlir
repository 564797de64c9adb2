// tg-check-schedule names the task and the event of a deadlock, and
// refuses graphs it cannot check.
// RUN: mirage-opt %s --split-input-file --verify-diagnostics --tg-check-schedule -o /dev/null

// A queue that puts a consumer before the producer it waits for on the
// same worker deadlocks.
// expected-error @+1 {{the schedule deadlocks: worker 0 waits at the head of its queue with task 1 (k1_exp, block [0]), which waits on event 1 (0 of 1 triggers arrived); 0 of 2 tasks ran}}
tg.graph @reversed workers 1 linearized {
  %x = tg.buffer input 0 : memref<4x64xf16>
  %h = tg.buffer temp : memref<4x64xf16>
  %y = tg.buffer output 0 : memref<4x64xf16>
  tg.kernel @k0_exp ins(%x : memref<4x64xf16>) outs(%h : memref<4x64xf16>) {
    tb.graph grid [1] threads 32 forloop 1 {
    ^bb0(%xd: tensor<4x64xf16>):
      %t = tb.input_iterator %xd imap <x -> 0> fmap <i -> replica> : tensor<4x64xf16> -> !tb.tile<4x64xf16>
      %e = tb.exp %t : !tb.tile<4x64xf16>
      %o = tb.output_saver %e omap <x -> 0> : !tb.tile<4x64xf16> -> tensor<4x64xf16>
      tb.yield %o : tensor<4x64xf16>
    }
  }
  tg.kernel @k1_exp ins(%h : memref<4x64xf16>) outs(%y : memref<4x64xf16>) {
    tb.graph grid [1] threads 32 forloop 1 {
    ^bb0(%hd: tensor<4x64xf16>):
      %t = tb.input_iterator %hd imap <x -> 0> fmap <i -> replica> : tensor<4x64xf16> -> !tb.tile<4x64xf16>
      %e = tb.exp %t : !tb.tile<4x64xf16>
      %o = tb.output_saver %e omap <x -> 0> : !tb.tile<4x64xf16> -> tensor<4x64xf16>
      tb.yield %o : tensor<4x64xf16>
    }
  }
  %start = tg.event triggers 0 tasks [0, 0]
  tg.task compute @k0_exp block [0] reads [#tg.box<[0, 0], [4, 64]>] writes [#tg.box<[0, 0], [4, 64]>] aot waits(%start) triggers(%done)
  %done = tg.event triggers 1 tasks [1, 1]
  tg.task compute @k1_exp block [0] reads [#tg.box<[0, 0], [4, 64]>] writes [#tg.box<[0, 0], [4, 64]>] aot waits(%done)
  tg.queue worker 0 [1, 0]
}

// -----

// expected-error @+1 {{tg-check-schedule needs a scheduled task graph; run tg-schedule first}}
tg.graph @unscheduled {
}
