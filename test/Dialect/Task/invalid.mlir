// One case per diagnostic of the tg dialect.
// RUN: mirage-opt %s -split-input-file -verify-diagnostics

tg.graph @box_rank {
  // expected-error @below {{a box has 2 offsets but 1 sizes}}
  %e = tg.event triggers 0 {b = #tg.box<[0, 0], [2]>}
}

// -----

tg.graph @box_negative {
  // expected-error @below {{box dim 1 has offset -1 and size 4; offsets must be non-negative and sizes positive}}
  %e = tg.event triggers 0 {b = #tg.box<[0, -1], [2, 4]>}
}

// -----

tg.graph @input_without_index {
  // expected-error @below {{'tg.buffer' op an input buffer needs its index}}
  %x = tg.buffer input : memref<4xf16>
}

// -----

tg.graph @temp_with_index {
  // expected-error @below {{'tg.buffer' op a temp buffer has no index}}
  %x = tg.buffer temp 3 : memref<4xf16>
}

// -----

tg.graph @negative_index {
  // expected-error @below {{'tg.buffer' op index must be non-negative, got -1}}
  %x = tg.buffer output -1 : memref<4xf16>
}

// -----

tg.graph @second_input {
  %x = tg.buffer input 0 : memref<4xf16>
  // expected-error @below {{'tg.buffer' op is a second input #0}}
  %z = tg.buffer input 0 : memref<4xf16>
}

// -----

tg.graph @view_type {
  %x = tg.buffer input 0 : memref<4x4xf16>
  // expected-error @below {{'tg.view' op views 'f16' elements as 'f32'}}
  %v = tg.view %x : memref<4x4xf16> to memref<16xf32>
}

// -----

tg.graph @view_count {
  %x = tg.buffer input 0 : memref<4x4xf16>
  // expected-error @below {{'tg.view' op views 16 elements as 12}}
  %v = tg.view %x : memref<4x4xf16> to memref<12xf16>
}

// -----

tg.graph @concat_one_part {
  %x = tg.buffer input 0 : memref<4x4xf16>
  // expected-error @below {{'tg.concat' op concatenates 1 part(s); it needs at least 2}}
  %c = tg.concat %x dim 0 : memref<4x4xf16> to memref<4x4xf16>
}

// -----

tg.graph @concat_dim {
  %x = tg.buffer input 0 : memref<4x4xf16>
  %y = tg.buffer input 1 : memref<4x4xf16>
  // expected-error @below {{'tg.concat' op concat dim 2 is out of range for rank 2}}
  %c = tg.concat %x, %y dim 2 : memref<4x4xf16>, memref<4x4xf16> to memref<8x4xf16>
}

// -----

tg.graph @concat_innermost {
  %x = tg.buffer input 0 : memref<4x4xf16>
  %y = tg.buffer input 1 : memref<4x4xf16>
  // expected-error @below {{'tg.concat' op joins its parts along the innermost dim; a kernel copies rows of 16 bytes, which would straddle two parts}}
  %c = tg.concat %x, %y dim 1 : memref<4x4xf16>, memref<4x4xf16> to memref<4x8xf16>
}

// -----

tg.graph @concat_element_type {
  %x = tg.buffer input 0 : memref<4x4xf16>
  %y = tg.buffer input 1 : memref<4x4xf32>
  // expected-error @below {{'tg.concat' op part #1 of type 'memref<4x4xf32>' differs in element type from 'memref<8x4xf16>'}}
  %c = tg.concat %x, %y dim 0 : memref<4x4xf16>, memref<4x4xf32> to memref<8x4xf16>
}

// -----

tg.graph @concat_other_dim {
  %x = tg.buffer input 0 : memref<4x4xf16>
  %y = tg.buffer input 1 : memref<4x2xf16>
  // expected-error @below {{'tg.concat' op concat operand #1 has size 2 in dim 1 but operand #0 has size 4; only the concat dim 0 may differ}}
  %c = tg.concat %x, %y dim 0 : memref<4x4xf16>, memref<4x2xf16> to memref<8x4xf16>
}

// -----

tg.graph @concat_size {
  %x = tg.buffer input 0 : memref<4x4xf16>
  %y = tg.buffer input 1 : memref<4x4xf16>
  // expected-error @below {{'tg.concat' op concatenates its parts to 8x4 but the result has shape 9x4}}
  %c = tg.concat %x, %y dim 0 : memref<4x4xf16>, memref<4x4xf16> to memref<9x4xf16>
}

// -----

tg.graph @concat_viewed {
  %x = tg.buffer input 0 : memref<4x4xf16>
  %y = tg.buffer input 1 : memref<4x4xf16>
  // expected-error @below {{'tg.concat' op has no storage: only kernels read it (as an input), nothing writes or views it}}
  %c = tg.concat %x, %y dim 0 : memref<4x4xf16>, memref<4x4xf16> to memref<8x4xf16>
  %v = tg.view %c : memref<8x4xf16> to memref<32xf16>
}

// -----

tg.graph @kernel_body {
  %x = tg.buffer input 0 : memref<4x64xf16>
  // expected-error @below {{'tg.kernel' op body must hold exactly one 'tb.graph'}}
  tg.kernel @k ins(%x : memref<4x64xf16>) {
  }
}

// -----

tg.graph @kernel_inputs {
  %x = tg.buffer input 0 : memref<4x64xf16>
  %y = tg.buffer output 0 : memref<4x64xf16>
  // expected-error @below {{'tg.kernel' op binds 2 input buffers but its block graph has 1 inputs}}
  tg.kernel @k ins(%x, %x : memref<4x64xf16>, memref<4x64xf16>) outs(%y : memref<4x64xf16>) {
    tb.graph grid [2] threads 32 forloop 1 {
    ^bb0(%xd: tensor<4x64xf16>):
      %t = tb.input_iterator %xd imap <x -> 0> fmap <i -> replica> : tensor<4x64xf16> -> !tb.tile<2x64xf16>
      %o = tb.output_saver %t omap <x -> 0> : !tb.tile<2x64xf16> -> tensor<4x64xf16>
      tb.yield %o : tensor<4x64xf16>
    }
  }
}

// -----

tg.graph @kernel_input_type {
  %x = tg.buffer input 0 : memref<4x64xf32>
  %y = tg.buffer output 0 : memref<4x64xf16>
  // expected-error @below {{'tg.kernel' op input buffer #0 of type 'memref<4x64xf32>' does not hold block graph input #0 of type 'tensor<4x64xf16>'}}
  tg.kernel @k ins(%x : memref<4x64xf32>) outs(%y : memref<4x64xf16>) {
    tb.graph grid [2] threads 32 forloop 1 {
    ^bb0(%xd: tensor<4x64xf16>):
      %t = tb.input_iterator %xd imap <x -> 0> fmap <i -> replica> : tensor<4x64xf16> -> !tb.tile<2x64xf16>
      %o = tb.output_saver %t omap <x -> 0> : !tb.tile<2x64xf16> -> tensor<4x64xf16>
      tb.yield %o : tensor<4x64xf16>
    }
  }
}

// -----

tg.graph @kernel_outputs {
  %x = tg.buffer input 0 : memref<4x64xf16>
  %y = tg.buffer output 0 : memref<4x64xf16>
  // expected-error @below {{'tg.kernel' op binds 0 output buffers but its block graph yields 1 outputs}}
  tg.kernel @k ins(%x : memref<4x64xf16>) {
    tb.graph grid [2] threads 32 forloop 1 {
    ^bb0(%xd: tensor<4x64xf16>):
      %t = tb.input_iterator %xd imap <x -> 0> fmap <i -> replica> : tensor<4x64xf16> -> !tb.tile<2x64xf16>
      %o = tb.output_saver %t omap <x -> 0> : !tb.tile<2x64xf16> -> tensor<4x64xf16>
      tb.yield %o : tensor<4x64xf16>
    }
  }
}

// -----

tg.graph @kernel_output_type {
  %x = tg.buffer input 0 : memref<4x64xf16>
  %y = tg.buffer output 0 : memref<64x4xf16>
  // expected-error @below {{'tg.kernel' op output buffer #0 of type 'memref<64x4xf16>' does not hold block graph output #0 of type 'tensor<4x64xf16>'}}
  tg.kernel @k ins(%x : memref<4x64xf16>) outs(%y : memref<64x4xf16>) {
    tb.graph grid [2] threads 32 forloop 1 {
    ^bb0(%xd: tensor<4x64xf16>):
      %t = tb.input_iterator %xd imap <x -> 0> fmap <i -> replica> : tensor<4x64xf16> -> !tb.tile<2x64xf16>
      %o = tb.output_saver %t omap <x -> 0> : !tb.tile<2x64xf16> -> tensor<4x64xf16>
      tb.yield %o : tensor<4x64xf16>
    }
  }
}

// -----

tg.graph @negative_triggers {
  // expected-error @below {{'tg.event' op trigger count must be non-negative, got -1}}
  %e = tg.event triggers -1
}

// -----

tg.graph @half_range linearized {
  // expected-error @below {{'tg.event' op a task range needs both its first and last task}}
  %e = "tg.event"() <{triggers = 0 : i64, first_task = 0 : i64}> : () -> !tg.event
}

// -----

tg.graph @range_not_linearized {
  // expected-error @below {{'tg.event' op a task range is only meaningful in a linearized task graph}}
  %e = tg.event triggers 0 tasks [0, 0]
  tg.task empty jit waits(%e)
}

// -----

tg.graph @empty_range linearized {
  // expected-error @below {{'tg.event' op task range [1, 0] is empty or negative}}
  %e = tg.event triggers 0 tasks [1, 0]
}

// -----

tg.graph @compute_without_kernel {
  %e = tg.event triggers 0
  // expected-error @below {{'tg.task' op a compute task names its kernel and block and the boxes it reads and writes}}
  tg.task compute aot waits(%e)
}

// -----

tg.graph @empty_with_kernel {
  %x = tg.buffer input 0 : memref<4x64xf16>
  %y = tg.buffer output 0 : memref<4x64xf16>
  tg.kernel @k ins(%x : memref<4x64xf16>) outs(%y : memref<4x64xf16>) {
    tb.graph grid [2] threads 32 forloop 1 {
    ^bb0(%xd: tensor<4x64xf16>):
      %t = tb.input_iterator %xd imap <x -> 0> fmap <i -> replica> : tensor<4x64xf16> -> !tb.tile<2x64xf16>
      %o = tb.output_saver %t omap <x -> 0> : !tb.tile<2x64xf16> -> tensor<4x64xf16>
      tb.yield %o : tensor<4x64xf16>
    }
  }
  %e = tg.event triggers 0
  tg.task compute @k block [0] reads [#tg.box<[0, 0], [2, 64]>] writes [#tg.box<[0, 0], [2, 64]>] aot waits(%e)
  tg.task compute @k block [1] reads [#tg.box<[2, 0], [2, 64]>] writes [#tg.box<[2, 0], [2, 64]>] aot waits(%e)
  // expected-error @below {{'tg.task' op an empty task runs no kernel and reads and writes nothing}}
  tg.task empty @k block [0] aot waits(%e)
}

// -----

tg.graph @wait_twice {
  %e = tg.event triggers 0
  // expected-error @below {{'tg.task' op waits twice on the same event}}
  tg.task empty jit waits(%e, %e)
}

// -----

tg.graph @trigger_twice {
  %s = tg.event triggers 0
  // expected-error @below {{'tg.task' op triggers the same event twice}}
  tg.task empty jit waits(%s) triggers(%e, %e)
  %e = tg.event triggers 2
}

// -----

tg.graph @wait_and_trigger {
  // expected-error @below {{'tg.task' op waits on and triggers the same event}}
  tg.task empty jit waits(%e) triggers(%e)
  %e = tg.event triggers 1
}

// -----

func.func private @f(tensor<4xf16>) -> tensor<4xf16>
tg.graph @source_not_function from @nowhere {
}
// expected-error @-2 {{'tg.graph' op is built from @nowhere, which is not a function}}

// -----

func.func private @f(tensor<4xf16>) -> tensor<4xf16>
tg.graph @source_index from @f {
  // expected-error @below {{'tg.buffer' op is input #1 but @f has 1 arguments}}
  %x = tg.buffer input 1 : memref<4xf16>
}

// -----

func.func private @f(tensor<4xf16>) -> tensor<4xf16>
tg.graph @source_type from @f {
  // expected-error @below {{'tg.buffer' op holds 'tensor<8xf16>' but result #0 of @f is 'tensor<4xf16>'}}
  %y = tg.buffer output 0 : memref<8xf16>
}

// -----

tg.graph @foreign_op {
  // expected-error @below {{'memref.alloc' op is not allowed in a task graph: only tg.buffer, tg.view, tg.concat, tg.kernel, tg.event, tg.task and tg.queue}}
  %m = memref.alloc() : memref<4xf16>
}

// -----

tg.graph @trigger_count {
  %s = tg.event triggers 0
  tg.task empty jit waits(%s) triggers(%e)
  // expected-error @below {{'tg.event' op expects 2 trigger(s) but 1 task(s) trigger it}}
  %e = tg.event triggers 2
}

// -----

tg.graph @unknown_kernel {
  %e = tg.event triggers 0
  // expected-error @below {{'tg.task' op runs @missing, which is no kernel of this graph}}
  tg.task compute @missing block [0] reads [] writes [] aot waits(%e)
}

// -----

tg.graph @block_outside {
  %x = tg.buffer input 0 : memref<4x64xf16>
  %y = tg.buffer output 0 : memref<4x64xf16>
  tg.kernel @k ins(%x : memref<4x64xf16>) outs(%y : memref<4x64xf16>) {
    tb.graph grid [2] threads 32 forloop 1 {
    ^bb0(%xd: tensor<4x64xf16>):
      %t = tb.input_iterator %xd imap <x -> 0> fmap <i -> replica> : tensor<4x64xf16> -> !tb.tile<2x64xf16>
      %o = tb.output_saver %t omap <x -> 0> : !tb.tile<2x64xf16> -> tensor<4x64xf16>
      tb.yield %o : tensor<4x64xf16>
    }
  }
  %e = tg.event triggers 0
  // expected-error @below {{'tg.task' op runs block [2], which is not in the grid [2] of @k}}
  tg.task compute @k block [2] reads [#tg.box<[0, 0], [2, 64]>] writes [#tg.box<[0, 0], [2, 64]>] aot waits(%e)
}

// -----

tg.graph @block_twice {
  %x = tg.buffer input 0 : memref<4x64xf16>
  %y = tg.buffer output 0 : memref<4x64xf16>
  tg.kernel @k ins(%x : memref<4x64xf16>) outs(%y : memref<4x64xf16>) {
    tb.graph grid [2] threads 32 forloop 1 {
    ^bb0(%xd: tensor<4x64xf16>):
      %t = tb.input_iterator %xd imap <x -> 0> fmap <i -> replica> : tensor<4x64xf16> -> !tb.tile<2x64xf16>
      %o = tb.output_saver %t omap <x -> 0> : !tb.tile<2x64xf16> -> tensor<4x64xf16>
      tb.yield %o : tensor<4x64xf16>
    }
  }
  %e = tg.event triggers 0
  tg.task compute @k block [0] reads [#tg.box<[0, 0], [2, 64]>] writes [#tg.box<[0, 0], [2, 64]>] aot waits(%e)
  // expected-error @below {{'tg.task' op runs the same block of @k as task 0}}
  tg.task compute @k block [0] reads [#tg.box<[0, 0], [2, 64]>] writes [#tg.box<[0, 0], [2, 64]>] aot waits(%e)
}

// -----

tg.graph @box_count {
  %x = tg.buffer input 0 : memref<4x64xf16>
  %y = tg.buffer output 0 : memref<4x64xf16>
  tg.kernel @k ins(%x : memref<4x64xf16>) outs(%y : memref<4x64xf16>) {
    tb.graph grid [2] threads 32 forloop 1 {
    ^bb0(%xd: tensor<4x64xf16>):
      %t = tb.input_iterator %xd imap <x -> 0> fmap <i -> replica> : tensor<4x64xf16> -> !tb.tile<2x64xf16>
      %o = tb.output_saver %t omap <x -> 0> : !tb.tile<2x64xf16> -> tensor<4x64xf16>
      tb.yield %o : tensor<4x64xf16>
    }
  }
  %e = tg.event triggers 0
  // expected-error @below {{'tg.task' op has 0 read and 1 written boxes but @k binds 1 inputs and 1 outputs}}
  tg.task compute @k block [0] reads [] writes [#tg.box<[0, 0], [2, 64]>] aot waits(%e)
}

// -----

tg.graph @box_rank_mismatch {
  %x = tg.buffer input 0 : memref<4x64xf16>
  %y = tg.buffer output 0 : memref<4x64xf16>
  tg.kernel @k ins(%x : memref<4x64xf16>) outs(%y : memref<4x64xf16>) {
    tb.graph grid [2] threads 32 forloop 1 {
    ^bb0(%xd: tensor<4x64xf16>):
      %t = tb.input_iterator %xd imap <x -> 0> fmap <i -> replica> : tensor<4x64xf16> -> !tb.tile<2x64xf16>
      %o = tb.output_saver %t omap <x -> 0> : !tb.tile<2x64xf16> -> tensor<4x64xf16>
      tb.yield %o : tensor<4x64xf16>
    }
  }
  %e = tg.event triggers 0
  // expected-error @below {{'tg.task' op read box #0 has rank 1 but its buffer 'memref<4x64xf16>' has rank 2}}
  tg.task compute @k block [0] reads [#tg.box<[0], [2]>] writes [#tg.box<[0, 0], [2, 64]>] aot waits(%e)
}

// -----

tg.graph @box_beyond {
  %x = tg.buffer input 0 : memref<4x64xf16>
  %y = tg.buffer output 0 : memref<4x64xf16>
  tg.kernel @k ins(%x : memref<4x64xf16>) outs(%y : memref<4x64xf16>) {
    tb.graph grid [2] threads 32 forloop 1 {
    ^bb0(%xd: tensor<4x64xf16>):
      %t = tb.input_iterator %xd imap <x -> 0> fmap <i -> replica> : tensor<4x64xf16> -> !tb.tile<2x64xf16>
      %o = tb.output_saver %t omap <x -> 0> : !tb.tile<2x64xf16> -> tensor<4x64xf16>
      tb.yield %o : tensor<4x64xf16>
    }
  }
  %e = tg.event triggers 0
  // expected-error @below {{'tg.task' op written box #0 covers [3, 5) of dim 0, beyond its buffer 'memref<4x64xf16>'}}
  tg.task compute @k block [0] reads [#tg.box<[0, 0], [2, 64]>] writes [#tg.box<[3, 0], [2, 64]>] aot waits(%e)
}

// -----

tg.graph @block_missing {
  %x = tg.buffer input 0 : memref<4x64xf16>
  %y = tg.buffer output 0 : memref<4x64xf16>
  // expected-error @below {{'tg.kernel' op has 2 blocks but 1 task(s) run them}}
  tg.kernel @k ins(%x : memref<4x64xf16>) outs(%y : memref<4x64xf16>) {
    tb.graph grid [2] threads 32 forloop 1 {
    ^bb0(%xd: tensor<4x64xf16>):
      %t = tb.input_iterator %xd imap <x -> 0> fmap <i -> replica> : tensor<4x64xf16> -> !tb.tile<2x64xf16>
      %o = tb.output_saver %t omap <x -> 0> : !tb.tile<2x64xf16> -> tensor<4x64xf16>
      tb.yield %o : tensor<4x64xf16>
    }
  }
  %e = tg.event triggers 0
  tg.task compute @k block [0] reads [#tg.box<[0, 0], [2, 64]>] writes [#tg.box<[0, 0], [2, 64]>] aot waits(%e)
}

// -----

tg.graph @cycle {
  %s = tg.event triggers 0
  // expected-error @below {{'tg.task' op is on a cycle of the task graph: it transitively waits for itself}}
  tg.task empty aot waits(%s, %b) triggers(%a)
  %a = tg.event triggers 1
  tg.task empty aot waits(%a) triggers(%b)
  %b = tg.event triggers 1
}

// -----

// expected-error @below {{'tg.graph' op has queues but no worker count}}
tg.graph @queue_without_workers {
  %s = tg.event triggers 0
  tg.task empty aot waits(%s)
  tg.queue worker 0 [0]
}

// -----

tg.graph @queue_worker workers 2 {
  %s = tg.event triggers 0
  tg.task empty aot waits(%s)
  // expected-error @below {{'tg.queue' op is for worker 2 of a graph with 2 workers}}
  tg.queue worker 2 [0]
}

// -----

tg.graph @second_queue workers 2 {
  %s = tg.event triggers 0
  tg.task empty aot waits(%s)
  tg.task empty aot waits(%s)
  tg.queue worker 0 [0]
  // expected-error @below {{'tg.queue' op is a second queue of worker 0}}
  tg.queue worker 0 [1]
}

// -----

tg.graph @queue_task workers 1 {
  %s = tg.event triggers 0
  tg.task empty aot waits(%s)
  // expected-error @below {{'tg.queue' op names task 1 of 1}}
  tg.queue worker 0 [0, 1]
}

// -----

tg.graph @aot_unqueued workers 1 {
  %s = tg.event triggers 0
  tg.task empty aot waits(%s)
  // expected-error @below {{'tg.task' op is ahead-of-time but in 0 queues; every AOT task is in exactly one}}
  tg.task empty aot waits(%s)
  tg.queue worker 0 [0]
}

// -----

tg.graph @jit_queued workers 1 {
  %s = tg.event triggers 0
  // expected-error @below {{'tg.task' op is just-in-time but queued}}
  tg.task empty jit waits(%s)
  tg.queue worker 0 [0]
}

// -----

tg.graph @waits_on_two linearized {
  %a = tg.event triggers 0 tasks [0, 0]
  %b = tg.event triggers 0
  // expected-error @below {{'tg.task' op waits on 2 events; in a linearized task graph every task waits on exactly one}}
  tg.task empty jit waits(%a, %b)
}

// -----

tg.graph @triggers_two linearized {
  %a = tg.event triggers 0 tasks [0, 0]
  // expected-error @below {{'tg.task' op triggers 2 events; in a linearized task graph a task triggers at most one}}
  tg.task empty jit waits(%a) triggers(%b, %c)
  %b = tg.event triggers 1
  %c = tg.event triggers 1
}

// -----

tg.graph @not_contiguous linearized {
  %a = tg.event triggers 0 tasks [0, 2]
  %b = tg.event triggers 0 tasks [1, 1]
  tg.task empty jit waits(%a)
  tg.task empty jit waits(%b)
  // expected-error @below {{'tg.task' op is not contiguous with the other tasks waiting on its event; a linearized task graph orders them consecutively}}
  tg.task empty jit waits(%a)
}

// -----

tg.graph @range_without_waiters linearized {
  %a = tg.event triggers 0 tasks [0, 0]
  tg.task empty jit waits(%a)
  // expected-error @below {{'tg.event' op has a task range but no task waits on it}}
  %b = tg.event triggers 0 tasks [0, 0]
}

// -----

tg.graph @waiters_without_range linearized {
  // expected-error @below {{'tg.event' op is awaited by tasks [0, 0] but has no task range}}
  %a = tg.event triggers 0
  tg.task empty jit waits(%a)
}

// -----

tg.graph @wrong_range linearized {
  // expected-error @below {{'tg.event' op has task range [0, 1] but the tasks waiting on it are [0, 0]}}
  %a = tg.event triggers 0 tasks [0, 1]
  tg.task empty jit waits(%a)
}

// -----

// Found by mirage-fuzz: tg-fuse-events sized its tables by this count.
// expected-error @below {{'tg.graph' op has -5 workers; a worker count is between 1 and 65536}}
tg.graph @negative_workers workers -5 {
}
