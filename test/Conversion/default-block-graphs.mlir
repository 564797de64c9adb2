// Default block graphs: one scheme per operator family (see the pass
// description). The checks pin the tiling each scheme picks; their
// equivalence to the original ops is checked by the DefaultBlockGraphs unit
// test through the verifier.
// RUN: mirage-opt %s --kn-default-block-graphs --split-input-file --verify-diagnostics | FileCheck %s
// RUN: mirage-opt %s --kn-default-block-graphs=target-blocks=150 --split-input-file --verify-diagnostics | FileCheck %s --check-prefix=FEWER

// Elementwise with broadcasting: 8x256 tiles, the broadcast operand
// replicated over the rows.
// CHECK-LABEL: func.func @broadcast_add
// CHECK: kn.kernel
// CHECK: tb.graph grid [16, 2] threads 128 forloop 1
// CHECK: tb.input_iterator %{{.*}} imap <x -> 1, y -> 0> fmap <i -> replica> : tensor<16x4096xf16> -> !tb.tile<8x256xf16>
// CHECK: tb.input_iterator %{{.*}} imap <x -> 0, y -> replica> fmap <i -> replica> : tensor<4096xf16> -> !tb.tile<256xf16>
// CHECK: tb.add
// CHECK: tb.output_saver %{{.*}} omap <x -> 1, y -> 0> : !tb.tile<8x256xf16> -> tensor<16x4096xf16>
func.func @broadcast_add(%a: tensor<16x4096xf16>, %b: tensor<4096xf16>) -> tensor<16x4096xf16> {
  %c = kn.add %a, %b : tensor<16x4096xf16>, tensor<4096xf16>
  return %c : tensor<16x4096xf16>
}

// Reductions: the for-loop walks the reduced dim 1024 at a time into an
// accumulator; without keepdim the result is reshaped after the loop.
// CHECK-LABEL: func.func @row_sum
// CHECK: tb.graph grid [128, 2] threads 128 forloop 4
// CHECK: tb.input_iterator %{{.*}} imap <x -> 1, y -> 0> fmap <i -> 2> : tensor<2x256x4096xf16> -> !tb.tile<1x2x1024xf16>
// CHECK: %[[R:.*]] = tb.reduce_sum %{{.*}} dim 2 : !tb.tile<1x2x1024xf16>
// CHECK: %[[A:.*]] = tb.accum_sum %[[R]] : !tb.tile<1x2x1xf16>
// CHECK: %[[S:.*]] = tb.reshape %[[A]] : !tb.tile<1x2x1xf16> -> !tb.tile<1x2xf16>
// CHECK: tb.output_saver %[[S]] omap <x -> 1, y -> 0> : !tb.tile<1x2xf16> -> tensor<2x256xf16>
func.func @row_sum(%a: tensor<2x256x4096xf16>) -> tensor<2x256xf16> {
  %s = kn.reduce_sum %a dim 2 keepdim = false : tensor<2x256x4096xf16>
  return %s : tensor<2x256xf16>
}

// A small input fits one block (a grid dim of size 1 still names a dim).
// CHECK-LABEL: func.func @row_max
// CHECK: tb.graph grid [1] threads 128 forloop 1
// CHECK: tb.reduce_max %{{.*}} dim 1 : !tb.tile<16x64xf32>
// CHECK-NOT: tb.accum
func.func @row_max(%a: tensor<16x64xf32>) -> tensor<16x1xf32> {
  %s = kn.reduce_max %a dim 1 : tensor<16x64xf32>
  return %s : tensor<16x1xf32>
}

// rms_norm keeps whole rows; the weight is replicated.
// CHECK-LABEL: func.func @norm
// CHECK: tb.graph grid [64, 2] threads 128 forloop 1
// CHECK: tb.input_iterator %{{.*}} imap <x -> 1, y -> 0> fmap <i -> replica> : tensor<2x4096x64xf16> -> !tb.tile<1x64x64xf16>
// CHECK: tb.input_iterator %{{.*}} imap <x -> replica, y -> replica> fmap <i -> replica> : tensor<64xf16> -> !tb.tile<64xf16>
// CHECK: tb.rms_norm %{{.*}} weight %{{.*}} {eps = 1.000000e-05 : f64}
func.func @norm(%a: tensor<2x4096x64xf16>, %w: tensor<64xf16>) -> tensor<2x4096x64xf16> {
  %n = kn.rms_norm %a weight %w {eps = 1.0e-5 : f64} : tensor<2x4096x64xf16>, tensor<64xf16>
  return %n : tensor<2x4096x64xf16>
}

// Matmul: 64x64 output tiles, k by the loop 64 at a time into accum_sum;
// the batch over grid dim z, replicated for an unbatched operand.
// CHECK-LABEL: func.func @batched
// CHECK: tb.graph grid [64, 4, 2] threads 128 forloop 1
// CHECK: tb.input_iterator %{{.*}} imap <x -> replica, y -> 1, z -> 0> fmap <i -> replica> : tensor<2x256x64xf16> -> !tb.tile<1x64x64xf16>
// CHECK: tb.input_iterator %{{.*}} imap <x -> 1, y -> replica, z -> replica> fmap <i -> replica> : tensor<64x4096xf16> -> !tb.tile<64x64xf16>
// CHECK: tb.accum_sum
// CHECK: tb.output_saver %{{.*}} omap <x -> 2, y -> 1, z -> 0>
func.func @batched(%q: tensor<2x256x64xf16>, %k: tensor<64x4096xf16>) -> tensor<2x256x4096xf16> {
  %s = kn.matmul %q, %k : tensor<2x256x64xf16>, tensor<64x4096xf16>
  return %s : tensor<2x256x4096xf16>
}

// A decode-sized matmul (two rows) halves its 64-wide n tiles down to 16
// to give the GPU at least 264 blocks, and reads k 128 at a time; with a
// target of 150 blocks, n stops at 32.
// CHECK-LABEL: func.func @decode_matmul
// CHECK: tb.graph grid [384] threads 128 forloop 32
// CHECK: tb.input_iterator %{{.*}} imap <x -> replica> fmap <i -> 1> : tensor<2x4096xf16> -> !tb.tile<2x128xf16>
// CHECK: tb.input_iterator %{{.*}} imap <x -> 1> fmap <i -> 0> : tensor<4096x6144xf16> -> !tb.tile<128x16xf16>
// FEWER-LABEL: func.func @decode_matmul
// FEWER: tb.graph grid [192] threads 128 forloop 32
func.func @decode_matmul(%x: tensor<2x4096xf16>, %w: tensor<4096x6144xf16>) -> tensor<2x6144xf16> {
  %y = kn.matmul %x, %w : tensor<2x4096xf16>, tensor<4096x6144xf16>
  return %y : tensor<2x6144xf16>
}

// Data movement: concatenated and split dims stay whole; a transpose reads
// the input tile its output tile comes from.
// CHECK-LABEL: func.func @moves
// CHECK: tb.concat %{{.*}}, %{{.*}} dim 1 : !tb.tile<1x64x16xf16>, !tb.tile<1x64x16xf16>
// CHECK: tb.input_iterator %{{.*}} imap <x -> 2, y -> 0> fmap <i -> replica> : tensor<2x128x32xf16> -> !tb.tile<1x128x16xf16>
// CHECK: tb.transpose %{{.*}} permutation [0, 2, 1] : !tb.tile<1x128x16xf16>
// CHECK: tb.output_saver %{{.*}} omap <x -> 1, y -> 0> : !tb.tile<1x16x128xf16> -> tensor<2x32x128xf16>
// CHECK: tb.split %{{.*}} dim 2 sizes [80, 48] : !tb.tile<1x16x128xf16>
// CHECK-COUNT-2: tb.output_saver
// Reshapes are views, all_reduce is left to the runtime.
// CHECK: kn.reshape
// CHECK: kn.all_reduce
func.func @moves(%a: tensor<2x64x32xf16>, %b: tensor<2x64x32xf16>) -> (tensor<2x32x128xf16>, tensor<2x32x48xf16>, tensor<64x128xf16>, tensor<2x32x48xf16>) {
  %c = kn.concat %a, %b dim 1 : tensor<2x64x32xf16>, tensor<2x64x32xf16>
  %t = kn.transpose %c permutation [0, 2, 1] : tensor<2x128x32xf16>
  %p:2 = kn.split %t dim 2 sizes [80, 48] : tensor<2x32x128xf16>
  %r = kn.reshape %t : tensor<2x32x128xf16> -> tensor<64x128xf16>
  %s = kn.all_reduce %p#1 : tensor<2x32x48xf16>
  return %t, %p#1, %r, %s : tensor<2x32x128xf16>, tensor<2x32x48xf16>, tensor<64x128xf16>, tensor<2x32x48xf16>
}

// -----

func.func @two_batch_dims(%a: tensor<2x2x16x16xf16>, %b: tensor<2x2x16x16xf16>) -> tensor<2x2x16x16xf16> {
  // expected-error @+1 {{'kn.matmul' op has no default block graph: more than one batch dim}}
  %c = kn.matmul %a, %b : tensor<2x2x16x16xf16>, tensor<2x2x16x16xf16>
  return %c : tensor<2x2x16x16xf16>
}

// -----

func.func @tall_grid(%a: tensor<70000x256x256xf16>) -> tensor<70000x256x256xf16> {
  // expected-error @+1 {{'kn.exp' op has no default block graph: grid dim y would have 70000 blocks, more than 65535}}
  %c = kn.exp %a : tensor<70000x256x256xf16>
  return %c : tensor<70000x256x256xf16>
}

// -----

// A row sum whose one block covers the whole output maps its grid dim to
// the kept dim, not to the dropped one.
// CHECK-LABEL: func.func @small_row_sum
// CHECK: tb.graph grid [1] threads 128 forloop 4
// CHECK: tb.output_saver %{{.*}} omap <x -> 0> : !tb.tile<2xf16> -> tensor<2xf16>
func.func @small_row_sum(%a: tensor<2x4096xf16>) -> tensor<2xf16> {
  %s = kn.reduce_sum %a dim 1 keepdim = false : tensor<2x4096xf16>
  return %s : tensor<2xf16>
}

// -----

// A rank-1 sum that keeps its dim: the one block's grid dim maps to the
// kept dim of size 1 (an omap cannot replicate).
// CHECK-LABEL: func.func @kept_scalar_sum
// CHECK: tb.graph grid [1] threads 128 forloop 4
// CHECK: tb.output_saver %{{.*}} omap <x -> 0> : !tb.tile<1xf16> -> tensor<1xf16>
func.func @kept_scalar_sum(%a: tensor<4096xf16>) -> tensor<1xf16> {
  %s = kn.reduce_sum %a dim 0 : tensor<4096xf16>
  return %s : tensor<1xf16>
}

// -----

func.func @scalar_sum(%a: tensor<4096xf16>) -> tensor<f16> {
  // expected-error @+1 {{'kn.reduce_sum' op has no default block graph: it reduces its only dim to a rank-0 result}}
  %s = kn.reduce_sum %a dim 0 keepdim = false : tensor<4096xf16>
  return %s : tensor<f16>
}
