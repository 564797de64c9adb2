// kn-fuse{persistent} costs plans as a persistent kernel runs them: a
// worker runs one task at a time, and an op left unfused becomes the
// tasks kn-default-block-graphs{persistent} cuts it into. On the Qwen3-8B
// decode layer the attention's softmax-times-V kernel is then 128 tasks,
// one per worker, not 256 run two after another (8.3 against 14.9 us in
// the H200 trace of docs/results/2026-11-27-h200-swizzle.md), and the
// first RMSNorm stays a task of its own: fused into the QKV matmul it
// would need the whole k extent in each task, unpipelined (31 against
// 17 us). Ops left alone take the speed model's plan, not the partition
// that only counts bytes (QKV: 96 tasks of 512x64 steps, 14.4 us, not 128
// of 128x48, 17.4 us). Where the cheapest plan leaves workers idle, one
// within 10% of it that gives (nearly) every worker a task in whole
// 128-byte rows goes first: the gate/up projection is 128 tasks of
// 256x192 steps, not 96 of 128x256, whose time varied from 45 to 58 us
// with where the buffers were allocated; QKV stays 96 tasks, as 128 would
// read 96-byte rows (docs/results/2026-11-27-h200-placement.md).
// RUN: mirage-opt %examples/qwen3_decode.mlir --pass-pipeline='builtin.module(func.func(kn-fuse{persistent=true},kn-default-block-graphs{persistent=true}))' | FileCheck %s

// CHECK-LABEL: func.func @qwen3_decode
// CHECK:       tb.graph grid [1] threads 128
// CHECK-NEXT:  ^bb0
// CHECK-NEXT:  tb.input_iterator
// CHECK-NEXT:  tb.input_iterator
// CHECK-NEXT:  tb.rms_norm
// CHECK-NEXT:  tb.output_saver
// CHECK:       tb.graph grid [96] threads 128 forloop 8
// CHECK:       tb.matmul %{{.*}}, %{{.*}} : !tb.tile<1x512xf16>, !tb.tile<512x64xf16>
// The softmax-times-V kernel, one task per worker.
// CHECK:       tb.graph grid [8, 8, 2] threads 128 forloop 1
// CHECK:       tb.exp
// CHECK:       tb.matmul
// The gate/up projection, one task per worker (of 132, the most a divisor
// of its 24576 columns allows).
// CHECK:       tb.graph grid [128] threads 128 forloop 16
// CHECK-NOT:   tb.graph
// CHECK:       tb.matmul %{{.*}}, %{{.*}} : !tb.tile<1x256xf16>, !tb.tile<256x192xf16>

// Matmuls side by side: Trinity Vanilla's q, k and v projections read x and
// none reads another's result, so the three run at once and each is planned
// for a third of the 132 workers: 32 tasks of 128 columns (256-byte rows),
// not 128 tasks of 32 columns each (64-byte rows); on an H200 the Vanilla
// mega-kernel went from 66.0 to 56.7 us (docs/Fusion.md). The attention's
// matmuls, which read the projections' results, keep their plans.
// RUN: mirage-opt %examples/trinity/vanilla.mlir --pass-pipeline='builtin.module(func.func(kn-fuse{persistent=true}))' | FileCheck %s --check-prefix=SIDE
// RUN: mirage-opt %examples/trinity/vanilla.mlir --pass-pipeline='builtin.module(func.func(kn-fuse))' | FileCheck %s --check-prefix=ALONE

// SIDE-LABEL: func.func @vanilla
// SIDE-COUNT-3: tb.graph grid [32] threads 128 forloop 16
// SIDE-NOT:     tb.graph grid [32] threads
// SIDE:         tb.graph grid [4, 32] threads 128 forloop 2
// SIDE:         tb.matmul
// SIDE:         return
// Kernels of their own (not persistent) are each planned for the whole GPU.
// ALONE-LABEL:  func.func @vanilla
// ALONE-NOT:    tb.graph grid [32] threads 128 forloop 16
// ALONE:        return
