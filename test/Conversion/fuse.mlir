// kn-fuse: one function per fusion pattern, then what must not fuse. Each
// fused group is one kn.kernel whose block graph the tb verifiers check;
// unfused ops are left for kn-default-block-graphs. The fused functions are
// proven or tested equivalent to these programs in
// unittests/Conversion/FusionTest.cpp; test/Target/fuse-ptx.mlir lowers them.
// RUN: mirage-opt %s --kn-fuse | FileCheck %s
// RUN: mirage-opt %s --kn-fuse --kn-default-block-graphs | mirage-opt | FileCheck %s --check-prefix=LOWER
// RUN: not mirage-opt %s --kn-fuse="device=a100" -o /dev/null 2>&1 | FileCheck %s --check-prefix=DEVICE
// RUN: not mirage-opt %s --kn-fuse="chip=sm_42" -o /dev/null 2>&1 | FileCheck %s --check-prefix=CHIP

// Every predefined op is in a kernel afterwards, but for concatenation
// views (kn.view), which their readers' kernels resolve.
// LOWER-LABEL: func.func @elementwise_chain
// LOWER-NOT: kn.{{(exp|mul|add|sub|div|matmul|rms_norm|reduce_sum|reduce_max|split|silu|neg)}} 
// LOWER-NOT: kn.concat {{[^{]*}} : 

// DEVICE: error: kn-fuse: unknown value 'a100' for option 'device'; valid values: h100, h200
// CHIP: error: kn-fuse: unknown value 'sm_42' for option 'chip'; valid values: sm_80, sm_86, sm_89, sm_90, sm_90a, sm_100a

// An elementwise chain with broadcast operands (a row vector, a column):
// one kernel, the broadcast operands replicated along the dims they lack.
// CHECK-LABEL: func.func @elementwise_chain
// CHECK: kn.kernel
// CHECK: tb.graph grid [{{[0-9]+}}, {{[0-9]+}}] threads 128 forloop 1
// CHECK: tb.exp
// CHECK: tb.mul_scalar
// CHECK: tb.input_iterator %{{.*}} imap <x -> 0, y -> replica> fmap <i -> replica> : tensor<256xf32>
// CHECK: tb.add
// CHECK: tb.input_iterator %{{.*}} imap <x -> replica, y -> 0> fmap <i -> replica> : tensor<64x1xf32>
// CHECK: tb.mul
// CHECK-NOT: kn.kernel
// CHECK: return
func.func @elementwise_chain(%a: tensor<64x256xf32>, %b: tensor<256xf32>, %r: tensor<64x1xf32>) -> tensor<64x256xf32> {
  %e = kn.exp %a : tensor<64x256xf32>
  %s = kn.mul_scalar %e, 0.5 : tensor<64x256xf32>
  %c = kn.add %s, %b : tensor<64x256xf32>, tensor<256xf32>
  %d = kn.mul %c, %r : tensor<64x256xf32>, tensor<64x1xf32>
  return %d : tensor<64x256xf32>
}

// Safe softmax: both reductions, their producers and consumers in one
// kernel; each block keeps whole rows of 512 on chip.
// CHECK-LABEL: func.func @softmax
// CHECK: kn.kernel
// CHECK: tb.input_iterator {{.*}} -> !tb.tile<1x1x512xf16>
// CHECK: tb.reduce_max
// CHECK: tb.sub
// CHECK: tb.exp
// CHECK: tb.reduce_sum
// CHECK: tb.div
// CHECK-NOT: kn.
// CHECK: return
func.func @softmax(%x: tensor<4x16x512xf16>) -> tensor<4x16x512xf16> {
  %m = kn.reduce_max %x dim 2 : tensor<4x16x512xf16>
  %d = kn.sub %x, %m : tensor<4x16x512xf16>, tensor<4x16x1xf16>
  %e = kn.exp %d : tensor<4x16x512xf16>
  %s = kn.reduce_sum %e dim 2 : tensor<4x16x512xf16>
  %p = kn.div %e, %s : tensor<4x16x512xf16>, tensor<4x16x1xf16>
  return %p : tensor<4x16x512xf16>
}

// A residual add and the norm of its result: one kernel with both outputs,
// a block of 512 threads per row (no matmul: the plan picks the threads).
// CHECK-LABEL: func.func @residual_rms_norm
// CHECK: %[[K:.*]]:2 = kn.kernel
// CHECK: tb.graph grid [8] threads 512 forloop 1
// CHECK: tb.add
// CHECK: tb.rms_norm {{.*}} : !tb.tile<1x4096xf16>, !tb.tile<4096xf16>
// CHECK: tb.yield %{{.*}}, %{{.*}} : tensor<8x4096xf16>, tensor<8x4096xf16>
// CHECK: return %[[K]]#0, %[[K]]#1
func.func @residual_rms_norm(%x: tensor<8x4096xf16>, %h: tensor<8x4096xf16>, %w: tensor<4096xf16>) -> (tensor<8x4096xf16>, tensor<8x4096xf16>) {
  %r = kn.add %x, %h : tensor<8x4096xf16>, tensor<8x4096xf16>
  %n = kn.rms_norm %r weight %w {eps = 1.0e-6 : f64} : tensor<8x4096xf16>, tensor<4096xf16>
  return %r, %n : tensor<8x4096xf16>, tensor<8x4096xf16>
}

// RoPE (rotate_half): split, neg, concat, mul and add in one kernel cut
// over the rows. The equal halves are a view with the half as a dim of its
// own, so the split keeps only that size-2 dim whole.
// CHECK-LABEL: func.func @rope
// CHECK: %[[V:.*]] = kn.reshape %arg0 : tensor<32x128xf16> -> tensor<32x2x64xf16>
// CHECK: kn.kernel(%[[V]], %arg0, %arg1, %arg2)
// CHECK: tb.graph grid [{{[0-9]+}}] threads 128 forloop 1
// CHECK: tb.split %{{.*}} dim 1 sizes [1, 1]
// CHECK: tb.neg
// CHECK: tb.concat
// CHECK: tb.mul
// CHECK: tb.mul
// CHECK: tb.add
// CHECK-NOT: kn.kernel
// CHECK: return
func.func @rope(%q: tensor<32x128xf16>, %cos: tensor<1x128xf16>, %sin: tensor<1x128xf16>) -> tensor<32x128xf16> {
  %h1, %h2 = kn.split %q dim 1 sizes [64, 64] : tensor<32x128xf16>
  %n = kn.neg %h2 : tensor<32x64xf16>
  %rot = kn.concat %n, %h1 dim 1 : tensor<32x64xf16>, tensor<32x64xf16>
  %a = kn.mul %q, %cos : tensor<32x128xf16>, tensor<1x128xf16>
  %b = kn.mul %rot, %sin : tensor<32x128xf16>, tensor<1x128xf16>
  %r = kn.add %a, %b : tensor<32x128xf16>, tensor<32x128xf16>
  return %r : tensor<32x128xf16>
}

// A matmul with an elementwise epilogue: one kernel, the epilogue on the
// product's tile.
// CHECK-LABEL: func.func @matmul_epilogue
// CHECK: kn.kernel
// CHECK: tb.matmul
// CHECK: tb.mul_scalar
// CHECK: tb.silu
// CHECK-NOT: kn.kernel
// CHECK: return
func.func @matmul_epilogue(%x: tensor<64x1024xf16>, %w: tensor<1024x1024xf16>) -> tensor<64x1024xf16> {
  %y = kn.matmul %x, %w : tensor<64x1024xf16>, tensor<1024x1024xf16>
  %s = kn.mul_scalar %y, 0.125 : tensor<64x1024xf16>
  %a = kn.silu %s : tensor<64x1024xf16>
  return %a : tensor<64x1024xf16>
}

// A residual add after a matmul whose k loops (16384 rows of the weight do
// not fit in one tile): the residual is read in slices over the loop and
// reassembled by accum_concat, so the add runs after the loop on the sum.
// CHECK-LABEL: func.func @matmul_residual
// CHECK: kn.kernel
// CHECK: tb.graph grid [{{[0-9]+}}] threads 128 forloop [[F:[0-9]+]]
// CHECK: tb.matmul
// CHECK: %[[SUM:.*]] = tb.accum_sum
// CHECK: %[[H:.*]] = tb.accum_concat %{{.*}} dim 1
// CHECK: tb.add %[[H]], %[[SUM]]
// CHECK-NOT: kn.kernel
// CHECK: return
func.func @matmul_residual(%x: tensor<1x16384xf16>, %w: tensor<16384x4096xf16>, %h: tensor<1x4096xf16>) -> tensor<1x4096xf16> {
  %y = kn.matmul %x, %w : tensor<1x16384xf16>, tensor<16384x4096xf16>
  %r = kn.add %h, %y : tensor<1x4096xf16>, tensor<1x4096xf16>
  return %r : tensor<1x4096xf16>
}

// Split-K: a decode matmul with too few output columns to fill the GPU
// (64 router logits) becomes partial products over 32 slices of k, cut over
// the grid, and their sum, which fuses into the softmax's kernel instead of
// into the products' (that would walk the slices in a loop again).
// CHECK-LABEL: func.func @split_k_router
// CHECK-SAME: (%[[X:.*]]: tensor<8x4096xf16>, %[[W:.*]]: tensor<4096x64xf16>)
// CHECK-DAG: %[[XV:.*]] = kn.reshape %[[X]] : tensor<8x4096xf16> -> tensor<8x32x128xf16>
// CHECK-DAG: %[[WV:.*]] = kn.reshape %[[W]] : tensor<4096x64xf16> -> tensor<32x128x64xf16>
// CHECK: %[[P:.*]] = kn.kernel(%[[XV]], %[[WV]])
// CHECK: tb.graph grid [{{[0-9]+, }}32] threads 128
// CHECK: tb.transpose %{{.*}} permutation [1, 0, 2]
// CHECK: tb.matmul
// CHECK-NOT: tb.reduce_sum
// CHECK: tb.output_saver {{.*}} -> tensor<32x8x64xf16>
// CHECK: kn.kernel(%[[P]])
// CHECK: tb.reduce_sum %{{.*}} dim 0 keepdim = false
// CHECK: tb.reduce_max
// CHECK: tb.exp
// CHECK-NOT: kn.kernel
// CHECK: return
func.func @split_k_router(%x: tensor<8x4096xf16>, %w: tensor<4096x64xf16>) -> tensor<8x64xf16> {
  %l = kn.matmul %x, %w : tensor<8x4096xf16>, tensor<4096x64xf16>
  %m = kn.reduce_max %l dim 1 : tensor<8x64xf16>
  %d = kn.sub %l, %m : tensor<8x64xf16>, tensor<8x1xf16>
  %e = kn.exp %d : tensor<8x64xf16>
  %s = kn.reduce_sum %e dim 1 : tensor<8x64xf16>
  %p = kn.div %e, %s : tensor<8x64xf16>, tensor<8x1xf16>
  return %p : tensor<8x64xf16>
}

// Split-K with a residual: the sum of the partial products and the add run
// in the second kernel.
// CHECK-LABEL: func.func @split_k_residual
// CHECK: kn.kernel
// CHECK: tb.matmul
// CHECK: tb.output_saver {{.*}} -> tensor<{{[0-9]+}}x1x512xf16>
// CHECK: kn.kernel
// CHECK-NOT: tb.matmul
// CHECK: tb.reduce_sum %{{.*}} dim 0 keepdim = false
// CHECK: tb.add
// CHECK-NOT: kn.kernel
// CHECK: return
func.func @split_k_residual(%x: tensor<1x16384xf16>, %w: tensor<16384x512xf16>, %h: tensor<1x512xf16>) -> tensor<1x512xf16> {
  %y = kn.matmul %x, %w : tensor<1x16384xf16>, tensor<16384x512xf16>
  %r = kn.add %h, %y : tensor<1x512xf16>, tensor<1x512xf16>
  return %r : tensor<1x512xf16>
}

// Split-K of nn.Linear's layout ([n, k] weight, transposed): the weight is
// sliced along k as stored and n moves last inside the products' kernel, so
// every block loads rows of the weight slice by slice; the transpose of the
// whole weight is gone.
// CHECK-LABEL: func.func @split_k_linear_weight
// CHECK-SAME: (%[[X:.*]]: tensor<1x16384xf16>, %[[W:.*]]: tensor<512x16384xf16>)
// CHECK-NOT: kn.transpose
// CHECK-DAG: %[[XV:.*]] = kn.reshape %[[X]] : tensor<1x16384xf16> -> tensor<1x[[S:[0-9]+]]x[[K:[0-9]+]]xf16>
// CHECK-DAG: %[[WV:.*]] = kn.reshape %[[W]] : tensor<512x16384xf16> -> tensor<512x[[S]]x[[K]]xf16>
// CHECK: kn.kernel(%[[XV]], %[[WV]])
// CHECK: tb.graph grid [{{[0-9]+}}, {{[0-9]+}}] threads 128 forloop {{[0-9]+}}
// CHECK: tb.transpose %{{.*}} permutation [1, 2, 0]
// CHECK: tb.matmul
// CHECK: kn.kernel
// CHECK: tb.reduce_sum %{{.*}} dim 0 keepdim = false
// CHECK: tb.silu
// CHECK-NOT: kn.kernel
// CHECK: return
func.func @split_k_linear_weight(%x: tensor<1x16384xf16>, %w: tensor<512x16384xf16>) -> tensor<1x512xf16> {
  %t = kn.transpose %w permutation [1, 0] : tensor<512x16384xf16>
  %y = kn.matmul %x, %t : tensor<1x16384xf16>, tensor<16384x512xf16>
  %r = kn.silu %y : tensor<1x512xf16>
  return %r : tensor<1x512xf16>
}

// Not split: slices of k shorter than 128 rows (k = 192).
// CHECK-LABEL: func.func @split_k_too_short
// CHECK-NOT: kn.reshape
// CHECK: return
func.func @split_k_too_short(%x: tensor<8x192xf16>, %w: tensor<192x64xf16>) -> tensor<8x64xf16> {
  %l = kn.matmul %x, %w : tensor<8x192xf16>, tensor<192x64xf16>
  return %l : tensor<8x64xf16>
}

// An elementwise prologue on the matmul's left operand runs in the loop
// body on each k chunk.
// CHECK-LABEL: func.func @matmul_prologue
// CHECK: kn.kernel
// CHECK: tb.graph grid [{{[0-9]+}}, {{[0-9]+}}] threads 128 forloop {{[0-9]+}}
// CHECK: tb.input_iterator %{{.*}} fmap <i -> 1> : tensor<16x4096xf16>
// CHECK: tb.silu
// CHECK: tb.input_iterator %{{.*}} fmap <i -> 0> : tensor<4096xf16>
// CHECK: tb.mul
// CHECK: tb.matmul
// CHECK: tb.accum_sum
// CHECK-NOT: kn.kernel
// CHECK: return
func.func @matmul_prologue(%x: tensor<16x4096xf16>, %g: tensor<4096xf16>, %w: tensor<4096x4096xf16>) -> tensor<16x4096xf16> {
  %s = kn.silu %x : tensor<16x4096xf16>
  %m = kn.mul %s, %g : tensor<16x4096xf16>, tensor<4096xf16>
  %y = kn.matmul %m, %w : tensor<16x4096xf16>, tensor<4096x4096xf16>
  return %y : tensor<16x4096xf16>
}

// An RMSNorm before a decode-sized matmul is not fused: the norm needs the
// whole row of x, so every block would load a 4096-row weight tile at once
// and walk it in one long mma chain per warp. Alone, the matmul walks k in
// pipelined chunks (the speed model's launch shape; docs/results,
// 2026-11-26: 36 us against 150 for the fused form's layout).
// The norm gets a kernel of its own, one block of 512 threads.
// CHECK-LABEL: func.func @norm_matmul
// CHECK: kn.kernel
// CHECK: tb.graph grid [1] threads 512 forloop 1 {
// CHECK: tb.rms_norm
// CHECK: kn.kernel
// CHECK: tb.graph grid [{{[0-9]+}}] threads 128 forloop {{[1-9][0-9]*}} {
// CHECK-NOT: forloop 1 {
// CHECK-NOT: tb.rms_norm
// CHECK: tb.matmul
// CHECK: tb.accum_sum
// CHECK: return
func.func @norm_matmul(%x: tensor<1x4096xf16>, %g: tensor<4096xf16>, %w: tensor<4096x6144xf16>) -> tensor<1x6144xf16> {
  %n = kn.rms_norm %x weight %g {eps = 1.0e-6 : f64} : tensor<1x4096xf16>, tensor<4096xf16>
  %y = kn.matmul %n, %w : tensor<1x4096xf16>, tensor<4096x6144xf16>
  return %y : tensor<1x6144xf16>
}

// Two projections of the same activation and their gated product: one
// kernel, both matmuls in the loop body on the same x tile.
// CHECK-LABEL: func.func @gated_mlp
// CHECK: kn.kernel
// CHECK: %[[X:.*]] = tb.input_iterator %arg3
// CHECK: tb.matmul %[[X]],
// CHECK: tb.accum_sum
// CHECK: tb.matmul %[[X]],
// CHECK: tb.accum_sum
// CHECK: tb.silu
// CHECK: tb.mul
// CHECK-NOT: kn.kernel
// CHECK: return
func.func @gated_mlp(%x: tensor<8x4096xf16>, %w1: tensor<4096x4096xf16>, %w2: tensor<4096x4096xf16>) -> tensor<8x4096xf16> {
  %a = kn.matmul %x, %w1 : tensor<8x4096xf16>, tensor<4096x4096xf16>
  %b = kn.matmul %x, %w2 : tensor<8x4096xf16>, tensor<4096x4096xf16>
  %g = kn.silu %a : tensor<8x4096xf16>
  %o = kn.mul %g, %b : tensor<8x4096xf16>, tensor<8x4096xf16>
  return %o : tensor<8x4096xf16>
}

// The gate | up halves, SiLU and product as the down projection's prologue,
// the residual as its epilogue: one kernel looping over k.
// CHECK-LABEL: func.func @gate_up_down
// CHECK: %[[V:.*]] = kn.reshape %arg0 : tensor<1x24576xf16> -> tensor<1x2x12288xf16>
// CHECK: kn.kernel(%[[V]], %arg1, %arg2)
// CHECK: tb.input_iterator %{{.*}} fmap <i -> 2> : tensor<1x2x12288xf16>
// CHECK: tb.split %{{.*}} dim 1 sizes [1, 1]
// CHECK: tb.silu
// CHECK: tb.mul
// CHECK: tb.matmul
// CHECK: tb.accum_sum
// CHECK: tb.accum_concat
// CHECK: tb.add
// CHECK-NOT: kn.kernel
// CHECK: return
func.func @gate_up_down(%gu: tensor<1x24576xf16>, %wd: tensor<12288x4096xf16>, %h: tensor<1x4096xf16>) -> tensor<1x4096xf16> {
  %g, %u = kn.split %gu dim 1 sizes [12288, 12288] : tensor<1x24576xf16>
  %s = kn.silu %g : tensor<1x12288xf16>
  %a = kn.mul %s, %u : tensor<1x12288xf16>, tensor<1x12288xf16>
  %d = kn.matmul %a, %wd : tensor<1x12288xf16>, tensor<12288x4096xf16>
  %r = kn.add %h, %d : tensor<1x4096xf16>, tensor<1x4096xf16>
  return %r : tensor<1x4096xf16>
}

// Independent ops that read the same input: one kernel with three outputs.
// CHECK-LABEL: func.func @shared_input
// CHECK: kn.kernel
// CHECK-COUNT-1: tb.input_iterator
// CHECK: tb.exp
// CHECK: tb.neg
// CHECK: tb.reduce_sum
// CHECK-COUNT-3: tb.output_saver
// CHECK-NOT: kn.kernel
// CHECK: return
func.func @shared_input(%x: tensor<64x512xf32>) -> (tensor<64x512xf32>, tensor<64x512xf32>, tensor<64x1xf32>) {
  %e = kn.exp %x : tensor<64x512xf32>
  %n = kn.neg %x : tensor<64x512xf32>
  %s = kn.reduce_sum %x dim 1 : tensor<64x512xf32>
  return %e, %n, %s : tensor<64x512xf32>, tensor<64x512xf32>, tensor<64x1xf32>
}

// softmax(s) @ v: the division by the row sums moves past the matmul, so
// the loop walks the positions, summing exp(s) and exp(s) @ v, and the
// division follows it; here on slices of the 4096 positions side by side,
// whose sums a second kernel adds before it divides (flash decoding:
// fuse-split-sums.mlir).
// CHECK-LABEL: func.func @softmax_matmul
// CHECK: kn.kernel
// CHECK: tb.graph grid [{{.*}}] threads 128 forloop {{[0-9]+}}
// CHECK: tb.exp
// CHECK: tb.reduce_sum
// CHECK: tb.accum_sum
// CHECK: tb.matmul
// CHECK: tb.accum_sum
// CHECK: kn.kernel
// CHECK: %[[L:.*]] = tb.reduce_sum {{.*}} keepdim = false
// CHECK: %[[O:.*]] = tb.accum_sum
// CHECK: tb.div %[[O]], %[[L]]
// CHECK-NOT: kn.kernel
// CHECK: return
func.func @softmax_matmul(%s: tensor<2x256x4096xf16>, %v: tensor<2x4096x64xf16>) -> tensor<2x256x64xf16> {
  %e = kn.exp %s : tensor<2x256x4096xf16>
  %l = kn.reduce_sum %e dim 2 : tensor<2x256x4096xf16>
  %p = kn.div %e, %l : tensor<2x256x4096xf16>, tensor<2x256x1xf16>
  %o = kn.matmul %p, %v : tensor<2x256x4096xf16>, tensor<2x4096x64xf16>
  return %o : tensor<2x256x64xf16>
}

// A transpose read only as a matmul's right operand, of a value the
// function returns too (Trinity's updated K cache and the scores against
// it): the cache is stored once and the scores' kernel reads it in place
// (BlockGraphPlan::isTransposedRhs), with no transposed copy written.
// CHECK-LABEL: func.func @stored_then_transposed
// CHECK: kn.kernel
// CHECK-NOT: tb.transpose
// CHECK: tb.concat
// CHECK-NOT: tb.transpose
// CHECK: tb.yield
// CHECK: kn.kernel
// CHECK: tb.input_iterator {{.*}} tensor<8x1024x128xf16> -> !tb.tile<
// CHECK-NEXT: tb.transpose {{.*}} permutation [0, 2, 1]
// CHECK: tb.matmul
func.func @stored_then_transposed(%cache: tensor<8x1008x128xf16>, %new: tensor<8x16x128xf16>, %q: tensor<8x16x128xf16>) -> (tensor<8x1024x128xf16>, tensor<8x16x1024xf16>) {
  %k = kn.concat %cache, %new dim 1 : tensor<8x1008x128xf16>, tensor<8x16x128xf16>
  %kt = kn.transpose %k permutation [0, 2, 1] : tensor<8x1024x128xf16>
  %s = kn.matmul %q, %kt : tensor<8x16x128xf16>, tensor<8x128x1024xf16>
  %e = kn.exp %s : tensor<8x16x1024xf16>
  return %k, %e : tensor<8x1024x128xf16>, tensor<8x16x1024xf16>
}

// The cache read by another op too (a scaling whose result is returned) but
// not returned itself: a view (kn.view), and both readers share one kernel
// that reads the cache in place, cut along the positions.
// CHECK-LABEL: func.func @read_twice_then_transposed
// CHECK: %[[K:.*]] = kn.concat %arg0, %arg1 dim 1 {kn.view}
// CHECK: kn.kernel(%[[K]], %arg2)
// CHECK: tb.input_iterator {{.*}} tensor<8x1024x128xf16> -> !tb.tile<1x32x128xf16>
// CHECK: tb.mul_scalar
// CHECK: tb.transpose {{.*}} permutation [0, 2, 1]
// CHECK: tb.matmul
// CHECK-NOT: kn.kernel
// CHECK: return
func.func @read_twice_then_transposed(%cache: tensor<8x1008x128xf16>, %new: tensor<8x16x128xf16>, %q: tensor<8x16x128xf16>) -> (tensor<8x1024x128xf16>, tensor<8x16x1024xf16>) {
  %k = kn.concat %cache, %new dim 1 : tensor<8x1008x128xf16>, tensor<8x16x128xf16>
  %k2 = kn.mul_scalar %k, 2.0 : tensor<8x1024x128xf16>
  %kt = kn.transpose %k permutation [0, 2, 1] : tensor<8x1024x128xf16>
  %s = kn.matmul %q, %kt : tensor<8x16x128xf16>, tensor<8x128x1024xf16>
  %e = kn.exp %s : tensor<8x16x1024xf16>
  return %k2, %e : tensor<8x1024x128xf16>, tensor<8x16x1024xf16>
}

// The same without the returned cache: the concatenation is a view, read
// in place (and transposed in shared memory) by the scores' kernel.
// CHECK-LABEL: func.func @transposed_once
// CHECK: %[[K:.*]] = kn.concat %arg0, %arg1 dim 1 {kn.view}
// CHECK: kn.kernel(%[[K]], %arg2)
// CHECK-NOT: tb.concat
// CHECK: tb.input_iterator {{.*}} tensor<8x1024x128xf16> -> !tb.tile<1x64x64xf16>
// CHECK-NEXT: tb.transpose {{.*}} permutation [0, 2, 1]
// CHECK: tb.matmul
// CHECK-NOT: kn.kernel
// CHECK: return
func.func @transposed_once(%cache: tensor<8x1008x128xf16>, %new: tensor<8x16x128xf16>, %q: tensor<8x16x128xf16>) -> tensor<8x16x1024xf16> {
  %k = kn.concat %cache, %new dim 1 : tensor<8x1008x128xf16>, tensor<8x16x128xf16>
  %kt = kn.transpose %k permutation [0, 2, 1] : tensor<8x1024x128xf16>
  %s = kn.matmul %q, %kt : tensor<8x16x128xf16>, tensor<8x128x1024xf16>
  %e = kn.exp %s : tensor<8x16x1024xf16>
  return %e : tensor<8x16x1024xf16>
}

// Not fused: rows of 1M floats do not fit in shared memory, and looping
// over them leaves the division without its rows after the loop. The sum
// gets a planned launch shape (its row walked by the loop), the division a
// kernel of its own.
// CHECK-LABEL: func.func @row_too_long
// CHECK: %[[S:.*]] = kn.kernel(%arg0)
// CHECK: tb.graph grid [2] threads 128 forloop {{[0-9]+}}
// CHECK: tb.reduce_sum
// CHECK: tb.accum_sum
// CHECK-NOT: tb.div
// CHECK: kn.{{kernel\(|div }}%arg0, %[[S]]
// CHECK: return
func.func @row_too_long(%x: tensor<2x1048576xf32>) -> tensor<2x1048576xf32> {
  %s = kn.reduce_sum %x dim 1 : tensor<2x1048576xf32>
  %y = kn.div %x, %s : tensor<2x1048576xf32>, tensor<2x1xf32>
  return %y : tensor<2x1048576xf32>
}

// Not fused: the norm needs its whole row, so the matmul could not loop over
// k, and a 32768-row weight tile (512 KiB at 8 columns) does not fit. The
// matmul, with 256 columns, is split over k instead.
// CHECK-LABEL: func.func @norm_k_too_long
// CHECK: tb.rms_norm
// CHECK-NOT: tb.matmul
// CHECK: kn.reshape %{{.*}} : tensor<1x32768xf16> -> tensor<1x{{[0-9]+}}x{{[0-9]+}}xf16>
// CHECK: kn.kernel
// CHECK-NOT: tb.rms_norm
// CHECK: tb.matmul
// CHECK: kn.reduce_sum %{{.*}} dim 0 keepdim = false
// CHECK: return
func.func @norm_k_too_long(%x: tensor<1x32768xf16>, %g: tensor<32768xf16>, %w: tensor<32768x256xf16>) -> tensor<1x256xf16> {
  %n = kn.rms_norm %x weight %g {eps = 1.0e-6 : f64} : tensor<1x32768xf16>, tensor<32768xf16>
  %y = kn.matmul %n, %w : tensor<1x32768xf16>, tensor<32768x256xf16>
  return %y : tensor<1x256xf16>
}

// A product needed by a reduction over its rows and one over its columns:
// no grid cuts both, so it is computed once (with the column sums), written,
// and read by the other reduction; never recomputed.
// CHECK-LABEL: func.func @shared_matmul
// CHECK: %[[K:.*]]:2 = kn.kernel
// CHECK-COUNT-1: tb.matmul
// CHECK: tb.reduce_sum
// CHECK-NOT: tb.matmul
// CHECK: {{kn.kernel\(|kn.reduce_max }}%[[K]]#0
// CHECK-NOT: matmul
// CHECK: return
func.func @shared_matmul(%x: tensor<1024x64xf16>, %w: tensor<64x4096xf16>) -> (tensor<1024x1xf16>, tensor<1x4096xf16>) {
  %m = kn.matmul %x, %w : tensor<1024x64xf16>, tensor<64x4096xf16>
  %r = kn.reduce_max %m dim 1 : tensor<1024x4096xf16>
  %c = kn.reduce_sum %m dim 0 : tensor<1024x4096xf16>
  return %r, %c : tensor<1024x1xf16>, tensor<1x4096xf16>
}

// An op with an explicit kn.partition is left to kn-default-block-graphs,
// so its consumer does not fuse with it. Alone, the neg gets the planned
// launch shape: 128 blocks of one row, where the fixed tiling would give
// 16 blocks of 8 rows on a chip of 132 SMs.
// CHECK-LABEL: func.func @partitioned
// CHECK: %[[E:.*]] = kn.exp %arg0 {kn.partition
// CHECK: kn.kernel(%[[E]])
// CHECK: tb.graph grid [64, 2] threads 128 forloop 1
// CHECK: tb.neg
// CHECK: return
func.func @partitioned(%x: tensor<64x512xf32>) -> tensor<64x512xf32> {
  %e = kn.exp %x {kn.partition = array<i64: 8, 1>} : tensor<64x512xf32>
  %n = kn.neg %e : tensor<64x512xf32>
  return %n : tensor<64x512xf32>
}

// A partitioned op between two that read the same value: the exp and the add
// do not fuse, since the kernel would both feed the neg and read it.
// CHECK-LABEL: func.func @partitioned_between
// CHECK: %[[E:.*]] = kn.kernel(%arg0)
// CHECK: tb.exp
// CHECK: %[[N:.*]] = kn.neg %[[E]] {kn.partition
// CHECK: kn.kernel(%[[E]], %[[N]])
// CHECK: tb.add
// CHECK: return
func.func @partitioned_between(%x: tensor<64x512xf32>) -> tensor<64x512xf32> {
  %e = kn.exp %x : tensor<64x512xf32>
  %n = kn.neg %e {kn.partition = array<i64: 8, 1>} : tensor<64x512xf32>
  %s = kn.add %e, %n : tensor<64x512xf32>, tensor<64x512xf32>
  return %s : tensor<64x512xf32>
}

// A collective separates what is before it from what is after it.
// CHECK-LABEL: func.func @all_reduce
// CHECK: %[[E:.*]] = kn.kernel(%arg0)
// CHECK: tb.exp
// CHECK: %[[A:.*]] = kn.all_reduce %[[E]]
// CHECK: kn.kernel(%[[A]])
// CHECK: tb.neg
// CHECK: return
func.func @all_reduce(%x: tensor<64x512xf32>) -> tensor<64x512xf32> {
  %e = kn.exp %x : tensor<64x512xf32>
  %a = kn.all_reduce %e : tensor<64x512xf32>
  %n = kn.neg %a : tensor<64x512xf32>
  return %n : tensor<64x512xf32>
}

// Plans whose tiles read rows straddling 128-byte lines are dropped where
// another plan fits. The speed model's cheapest plan for the Qwen3 decode
// step's norm and QKV projection computes the norm in 256 blocks reading
// 24-column (48-byte) rows of the weight; on an H200 the step took 140 us
// with it against 126 with the norm apart and the Linear reading 128-byte
// rows in 96 blocks, as planned here.
// CHECK-LABEL: func.func @whole_line_rows
// CHECK: tb.graph grid [1]
// CHECK-NEXT: ^bb0
// CHECK: tb.rms_norm
// CHECK: tb.graph grid [96] threads 128 forloop 8
// CHECK-NOT: tb.rms_norm
// CHECK: tb.input_iterator %{{.*}} imap <x -> 1> fmap <i -> 0> : tensor<4096x6144xf16> -> !tb.tile<512x64xf16>
func.func @whole_line_rows(%x: tensor<1x4096xf16>, %g: tensor<4096xf16>, %w: tensor<4096x6144xf16>) -> tensor<1x6144xf16> {
  %y = kn.rms_norm %x weight %g {eps = 1.0e-6 : f64} : tensor<1x4096xf16>, tensor<4096xf16>
  %z = kn.matmul %y, %w : tensor<1x4096xf16>, tensor<4096x6144xf16>
  return %z : tensor<1x6144xf16>
}
