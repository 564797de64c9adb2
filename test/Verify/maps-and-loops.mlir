// Mutants of the tiling itself (imap, fmap, omap, loop range) that keep
// every tile well typed, on a small matmul and a row sum; the re-tiled
// controls are equivalent and proven.
// RUN: mirage-opt %s --mirage-verify-equivalence -o /dev/null 2>&1 | FileCheck %s

func.func @matmul(%a: tensor<64x32xf32>, %b: tensor<32x64xf32>) -> tensor<64x64xf32> {
  %c = kn.matmul %a, %b : tensor<64x32xf32>, tensor<32x64xf32>
  return %c : tensor<64x64xf32>
}

// CHECK: remark: proven: equivalent to @matmul (in the Lax fragment)
func.func @matmul_fused(%a: tensor<64x32xf32>, %b: tensor<32x64xf32>) -> tensor<64x64xf32> attributes {kn.reference = @matmul} {
  %c = kn.kernel(%a, %b) {
    tb.graph grid [2, 2] threads 128 forloop 2 {
    ^bb0(%ad: tensor<64x32xf32>, %bd: tensor<32x64xf32>):
      %at = tb.input_iterator %ad imap <x -> 0, y -> replica> fmap <i -> 1> : tensor<64x32xf32> -> !tb.tile<32x16xf32>
      %bt = tb.input_iterator %bd imap <x -> replica, y -> 1> fmap <i -> 0> : tensor<32x64xf32> -> !tb.tile<16x32xf32>
      %p = tb.matmul %at, %bt : !tb.tile<32x16xf32>, !tb.tile<16x32xf32>
      %acc = tb.accum_sum %p : !tb.tile<32x32xf32>
      %o = tb.output_saver %acc omap <x -> 0, y -> 1> : !tb.tile<32x32xf32> -> tensor<64x64xf32>
      tb.yield %o : tensor<64x64xf32>
    }
  } : (tensor<64x32xf32>, tensor<32x64xf32>) -> tensor<64x64xf32>
  return %c : tensor<64x64xf32>
}

// Re-tiled: a longer loop over smaller tiles computes the same product.
// CHECK: remark: proven: equivalent to @matmul (in the Lax fragment)
func.func @matmul_retiled(%a: tensor<64x32xf32>, %b: tensor<32x64xf32>) -> tensor<64x64xf32> attributes {kn.reference = @matmul} {
  %c = kn.kernel(%a, %b) {
    tb.graph grid [4, 2] threads 128 forloop 4 {
    ^bb0(%ad: tensor<64x32xf32>, %bd: tensor<32x64xf32>):
      %at = tb.input_iterator %ad imap <x -> 0, y -> replica> fmap <i -> 1> : tensor<64x32xf32> -> !tb.tile<16x8xf32>
      %bt = tb.input_iterator %bd imap <x -> replica, y -> 1> fmap <i -> 0> : tensor<32x64xf32> -> !tb.tile<8x32xf32>
      %p = tb.matmul %at, %bt : !tb.tile<16x8xf32>, !tb.tile<8x32xf32>
      %acc = tb.accum_sum %p : !tb.tile<16x32xf32>
      %o = tb.output_saver %acc omap <x -> 0, y -> 1> : !tb.tile<16x32xf32> -> tensor<64x64xf32>
      tb.yield %o : tensor<64x64xf32>
    }
  } : (tensor<64x32xf32>, tensor<32x64xf32>) -> tensor<64x64xf32>
  return %c : tensor<64x64xf32>
}

// A wrong imap: A's rows follow grid dim y, not x (same 32x16 tiles).
// CHECK: warning: not equivalent: differs from @matmul: the finite-field fingerprints differ, which equivalent Lax programs never do; first mismatch at output #0 element [{{[0-9]+, [0-9]+}}] (finite field (homomorphic), trial 1)
func.func @wrong_imap(%a: tensor<64x32xf32>, %b: tensor<32x64xf32>) -> tensor<64x64xf32> attributes {kn.reference = @matmul} {
  %c = kn.kernel(%a, %b) {
    tb.graph grid [2, 2] threads 128 forloop 2 {
    ^bb0(%ad: tensor<64x32xf32>, %bd: tensor<32x64xf32>):
      %at = tb.input_iterator %ad imap <x -> replica, y -> 0> fmap <i -> 1> : tensor<64x32xf32> -> !tb.tile<32x16xf32>
      %bt = tb.input_iterator %bd imap <x -> replica, y -> 1> fmap <i -> 0> : tensor<32x64xf32> -> !tb.tile<16x32xf32>
      %p = tb.matmul %at, %bt : !tb.tile<32x16xf32>, !tb.tile<16x32xf32>
      %acc = tb.accum_sum %p : !tb.tile<32x32xf32>
      %o = tb.output_saver %acc omap <x -> 0, y -> 1> : !tb.tile<32x32xf32> -> tensor<64x64xf32>
      tb.yield %o : tensor<64x64xf32>
    }
  } : (tensor<64x32xf32>, tensor<32x64xf32>) -> tensor<64x64xf32>
  return %c : tensor<64x64xf32>
}

// A wrong fmap: B's loop walks its columns while its grid dim takes rows
// (same 16x32 tiles).
// CHECK: warning: not equivalent: differs from @matmul: the finite-field fingerprints differ, which equivalent Lax programs never do; first mismatch at output #0 element [{{[0-9]+, [0-9]+}}] (finite field (homomorphic), trial 1)
func.func @wrong_fmap(%a: tensor<64x32xf32>, %b: tensor<32x64xf32>) -> tensor<64x64xf32> attributes {kn.reference = @matmul} {
  %c = kn.kernel(%a, %b) {
    tb.graph grid [2, 2] threads 128 forloop 2 {
    ^bb0(%ad: tensor<64x32xf32>, %bd: tensor<32x64xf32>):
      %at = tb.input_iterator %ad imap <x -> 0, y -> replica> fmap <i -> 1> : tensor<64x32xf32> -> !tb.tile<32x16xf32>
      %bt = tb.input_iterator %bd imap <x -> replica, y -> 0> fmap <i -> 1> : tensor<32x64xf32> -> !tb.tile<16x32xf32>
      %p = tb.matmul %at, %bt : !tb.tile<32x16xf32>, !tb.tile<16x32xf32>
      %acc = tb.accum_sum %p : !tb.tile<32x32xf32>
      %o = tb.output_saver %acc omap <x -> 0, y -> 1> : !tb.tile<32x32xf32> -> tensor<64x64xf32>
      tb.yield %o : tensor<64x64xf32>
    }
  } : (tensor<64x32xf32>, tensor<32x64xf32>) -> tensor<64x64xf32>
  return %c : tensor<64x64xf32>
}

// A wrong omap: blocks write their tiles transposed in the grid.
// CHECK: warning: not equivalent: differs from @matmul: the finite-field fingerprints differ, which equivalent Lax programs never do; first mismatch at output #0 element [{{[0-9]+, [0-9]+}}] (finite field (homomorphic), trial 1)
func.func @wrong_omap(%a: tensor<64x32xf32>, %b: tensor<32x64xf32>) -> tensor<64x64xf32> attributes {kn.reference = @matmul} {
  %c = kn.kernel(%a, %b) {
    tb.graph grid [2, 2] threads 128 forloop 2 {
    ^bb0(%ad: tensor<64x32xf32>, %bd: tensor<32x64xf32>):
      %at = tb.input_iterator %ad imap <x -> 0, y -> replica> fmap <i -> 1> : tensor<64x32xf32> -> !tb.tile<32x16xf32>
      %bt = tb.input_iterator %bd imap <x -> replica, y -> 1> fmap <i -> 0> : tensor<32x64xf32> -> !tb.tile<16x32xf32>
      %p = tb.matmul %at, %bt : !tb.tile<32x16xf32>, !tb.tile<16x32xf32>
      %acc = tb.accum_sum %p : !tb.tile<32x32xf32>
      %o = tb.output_saver %acc omap <x -> 1, y -> 0> : !tb.tile<32x32xf32> -> tensor<64x64xf32>
      tb.yield %o : tensor<64x64xf32>
    }
  } : (tensor<64x32xf32>, tensor<32x64xf32>) -> tensor<64x64xf32>
  return %c : tensor<64x64xf32>
}

func.func @row_sum(%x: tensor<64x64xf32>) -> tensor<64x1xf32> {
  %s = kn.reduce_sum %x dim 1 : tensor<64x64xf32>
  return %s : tensor<64x1xf32>
}

// CHECK: remark: proven: equivalent to @row_sum (in the Lax fragment)
func.func @row_sum_fused(%x: tensor<64x64xf32>) -> tensor<64x1xf32> attributes {kn.reference = @row_sum} {
  %s = kn.kernel(%x) {
    tb.graph grid [4] threads 64 forloop 4 {
    ^bb0(%xd: tensor<64x64xf32>):
      %t = tb.input_iterator %xd imap <x -> 0> fmap <i -> 1> : tensor<64x64xf32> -> !tb.tile<16x16xf32>
      %r = tb.reduce_sum %t dim 1 : !tb.tile<16x16xf32>
      %acc = tb.accum_sum %r : !tb.tile<16x1xf32>
      %o = tb.output_saver %acc omap <x -> 0> : !tb.tile<16x1xf32> -> tensor<64x1xf32>
      tb.yield %o : tensor<64x1xf32>
    }
  } : (tensor<64x64xf32>) -> tensor<64x1xf32>
  return %s : tensor<64x1xf32>
}

// A wrong loop range: each block loads its whole rows every iteration, so
// the four iterations add every row four times.
// CHECK: warning: not equivalent: differs from @row_sum: the finite-field fingerprints differ, which equivalent Lax programs never do; first mismatch at output #0 element [0, 0] (finite field (homomorphic), trial 1)
func.func @wrong_loop_range(%x: tensor<64x64xf32>) -> tensor<64x1xf32> attributes {kn.reference = @row_sum} {
  %s = kn.kernel(%x) {
    tb.graph grid [4] threads 64 forloop 4 {
    ^bb0(%xd: tensor<64x64xf32>):
      %t = tb.input_iterator %xd imap <x -> 0> fmap <i -> replica> : tensor<64x64xf32> -> !tb.tile<16x64xf32>
      %r = tb.reduce_sum %t dim 1 : !tb.tile<16x64xf32>
      %acc = tb.accum_sum %r : !tb.tile<16x1xf32>
      %o = tb.output_saver %acc omap <x -> 0> : !tb.tile<16x1xf32> -> tensor<64x1xf32>
      tb.yield %o : tensor<64x1xf32>
    }
  } : (tensor<64x64xf32>) -> tensor<64x1xf32>
  return %s : tensor<64x1xf32>
}
