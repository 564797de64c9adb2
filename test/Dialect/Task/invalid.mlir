// One case per diagnostic of the tg dialect.
// RUN: mirage-opt %s -split-input-file -verify-diagnostics

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

tg.graph @compute_without_op {
  %e = tg.event triggers 0
  // expected-error @below {{'tg.task' op a compute task must name the operator it runs}}
  tg.task compute aot waits(%e)
}

// -----

func.func private @matmul() -> tensor<16x128xf16>
tg.graph @empty_with_op {
  %e = tg.event triggers 0
  // expected-error @below {{'tg.task' op an empty task runs no operator and owns no tile}}
  tg.task empty @matmul jit waits(%e)
}

// -----

func.func private @matmul() -> tensor<16x128xf16>
tg.graph @half_tile {
  %e = tg.event triggers 0
  // expected-error @below {{'tg.task' op tile offsets and sizes go together}}
  "tg.task"(%e) <{kind = 0 : i32, launch = 1 : i32, op = @matmul, tile_offsets = array<i64: 0, 0>, operandSegmentSizes = array<i32: 1, 0>}> : (!tg.event) -> ()
}

// -----

func.func private @matmul() -> tensor<16x128xf16>
tg.graph @tile_rank {
  %e = tg.event triggers 0
  // expected-error @below {{'tg.task' op tile has 2 offsets but 1 sizes}}
  tg.task compute @matmul tile [0, 0] sizes [16] aot waits(%e)
}

// -----

func.func private @matmul() -> tensor<16x128xf16>
tg.graph @tile_negative {
  %e = tg.event triggers 0
  // expected-error @below {{'tg.task' op tile dim 1 has offset -64 and size 64; offsets must be non-negative and sizes positive}}
  tg.task compute @matmul tile [0, -64] sizes [16, 64] aot waits(%e)
}

// -----

tg.graph @wait_twice {
  %e = tg.event triggers 0
  // expected-error @below {{'tg.task' op waits twice on the same event}}
  tg.task empty jit waits(%e, %e)
}

// -----

tg.graph @trigger_twice {
  %e = tg.event triggers 0
  %f = tg.event triggers 2
  // expected-error @below {{'tg.task' op triggers the same event twice}}
  tg.task empty jit waits(%e) triggers(%f, %f)
}

// -----

tg.graph @self_loop {
  %e = tg.event triggers 1
  // expected-error @below {{'tg.task' op waits on and triggers the same event}}
  tg.task empty jit waits(%e) triggers(%e)
}

// -----

tg.graph @undefined_operator {
  %e = tg.event triggers 0
  // expected-error @below {{'tg.task' op refers to @matmul, which is not defined}}
  tg.task compute @matmul tile [0, 0] sizes [16, 64] aot waits(%e)
}

// -----

func.func private @matmul() -> tensor<16x128xf16>
tg.graph @tile_rank_vs_operator {
  %e = tg.event triggers 0
  // expected-error @below {{'tg.task' op tile has rank 1 but @matmul returns 'tensor<16x128xf16>'}}
  tg.task compute @matmul tile [0] sizes [16] aot waits(%e)
}

// -----

func.func private @matmul() -> tensor<16x128xf16>
tg.graph @tile_out_of_bounds {
  %e = tg.event triggers 0
  // expected-error @below {{'tg.task' op tile dim 1 covers [96, 160) beyond the size 128 of @matmul's result}}
  tg.task compute @matmul tile [0, 96] sizes [16, 64] aot waits(%e)
}

// -----

tg.graph @foreign_op {
  // expected-error @below {{'func.call' op is not allowed in a task graph: only tg.event and tg.task}}
  func.call @nothing() : () -> ()
}
func.func private @nothing()

// -----

tg.graph @trigger_count {
  %start = tg.event triggers 0
  // expected-error @below {{'tg.event' op expects 2 trigger(s) but 1 task(s) trigger it}}
  %e = tg.event triggers 2
  tg.task empty jit waits(%start) triggers(%e)
}

// -----

tg.graph @cycle {
  %start = tg.event triggers 0
  %a = tg.event triggers 2
  %b = tg.event triggers 1
  tg.task empty jit waits(%start) triggers(%a)
  // expected-error @below {{'tg.task' op is on a cycle of the task graph: it transitively waits for itself}}
  tg.task empty jit waits(%a) triggers(%b)
  tg.task empty jit waits(%b) triggers(%a)
}

// -----

tg.graph @linear_two_waits linearized {
  %a = tg.event triggers 0 tasks [0, 0]
  %b = tg.event triggers 0
  // expected-error @below {{'tg.task' op waits on 2 events; in a linearized task graph every task waits on exactly one}}
  tg.task empty jit waits(%a, %b)
}

// -----

tg.graph @linear_two_triggers linearized {
  %a = tg.event triggers 0 tasks [0, 0]
  %b = tg.event triggers 1
  %c = tg.event triggers 1
  // expected-error @below {{'tg.task' op triggers 2 events; in a linearized task graph a task triggers at most one}}
  tg.task empty jit waits(%a) triggers(%b, %c)
}

// -----

tg.graph @linear_not_contiguous linearized {
  %a = tg.event triggers 0 tasks [0, 2]
  %b = tg.event triggers 0 tasks [1, 1]
  tg.task empty jit waits(%a)
  tg.task empty jit waits(%b)
  // expected-error @below {{'tg.task' op is not contiguous with the other tasks waiting on its event; a linearized task graph orders them consecutively}}
  tg.task empty jit waits(%a)
}

// -----

tg.graph @linear_range_without_waiters linearized {
  %a = tg.event triggers 0 tasks [0, 0]
  // expected-error @below {{'tg.event' op has a task range but no task waits on it}}
  %b = tg.event triggers 1 tasks [1, 1]
  tg.task empty jit waits(%a) triggers(%b)
}

// -----

tg.graph @linear_missing_range linearized {
  // expected-error @below {{'tg.event' op is awaited by tasks [0, 0] but has no task range}}
  %a = tg.event triggers 0
  tg.task empty jit waits(%a)
}

// -----

tg.graph @linear_wrong_range linearized {
  // expected-error @below {{'tg.event' op has task range [0, 0] but the tasks waiting on it are [0, 1]}}
  %a = tg.event triggers 0 tasks [0, 0]
  tg.task empty jit waits(%a)
  tg.task empty jit waits(%a)
}
