// One case per diagnostic of convert-kn-to-gpu.
// RUN: mirage-opt %s --split-input-file --verify-diagnostics --convert-kn-to-gpu

func.func @unwrapped(%a: tensor<16x16xf16>) -> tensor<16x16xf16> {
  // expected-error @+1 {{'kn.exp' op must be a graph-defined kernel (kn.kernel) before lowering to the GPU; run kn-default-block-graphs first}}
  %b = kn.exp %a : tensor<16x16xf16>
  return %b : tensor<16x16xf16>
}

// -----

func.func @collective(%a: tensor<16x16xf16>) -> tensor<16x16xf16> {
  // expected-error @+1 {{'kn.all_reduce' op needs a multi-GPU runtime, which the GPU lowering does not target yet}}
  %b = kn.all_reduce %a : tensor<16x16xf16>
  return %b : tensor<16x16xf16>
}

// -----

func.func @partial_warp(%a: tensor<16x16xf16>) -> tensor<16x16xf16> {
  %b = kn.kernel(%a) {
    // expected-error @+1 {{'tb.graph' op has 48 threads per block; code generation needs a multiple of 32 (whole warps)}}
    tb.graph grid [1] threads 48 forloop 1 {
    ^bb0(%ad: tensor<16x16xf16>):
      %at = tb.input_iterator %ad imap <x -> 0> fmap <i -> replica> : tensor<16x16xf16> -> !tb.tile<16x16xf16>
      %e = tb.exp %at : !tb.tile<16x16xf16>
      %o = tb.output_saver %e omap <x -> 0> : !tb.tile<16x16xf16> -> tensor<16x16xf16>
      tb.yield %o : tensor<16x16xf16>
    }
  } : (tensor<16x16xf16>) -> tensor<16x16xf16>
  return %b : tensor<16x16xf16>
}

// -----

// expected-error @+1 {{a tensor of 4294967296 elements is too large for the GPU lowering, which indexes with 32-bit integers}}
func.func @huge(%a: tensor<65536x65536xf16>) -> tensor<65536x65536xf16> {
  %b = kn.kernel(%a) {
    tb.graph grid [65536] threads 128 forloop 1 {
    ^bb0(%ad: tensor<65536x65536xf16>):
      %at = tb.input_iterator %ad imap <x -> 0> fmap <i -> replica> : tensor<65536x65536xf16> -> !tb.tile<1x65536xf16>
      %o = tb.output_saver %at omap <x -> 0> : !tb.tile<1x65536xf16> -> tensor<65536x65536xf16>
      tb.yield %o : tensor<65536x65536xf16>
    }
  } : (tensor<65536x65536xf16>) -> tensor<65536x65536xf16>
  return %b : tensor<65536x65536xf16>
}

// -----

// An argument the kernels do not even read.
// expected-error @+1 {{a tensor of type 'tensor<4294967296x4294967296x16xf16>' has an element count beyond 2^63 - 1}}
func.func @wrapping(%a: tensor<16x16xf16>, %big: tensor<4294967296x4294967296x16xf16>) -> tensor<16x16xf16> {
  %b = kn.kernel(%a) {
    tb.graph grid [1] threads 32 forloop 1 {
    ^bb0(%ad: tensor<16x16xf16>):
      %at = tb.input_iterator %ad imap <x -> 0> fmap <i -> replica> : tensor<16x16xf16> -> !tb.tile<16x16xf16>
      %o = tb.output_saver %at omap <x -> 0> : !tb.tile<16x16xf16> -> tensor<16x16xf16>
      tb.yield %o : tensor<16x16xf16>
    }
  } : (tensor<16x16xf16>) -> tensor<16x16xf16>
  return %b : tensor<16x16xf16>
}

// -----

func.func @grid_y_beyond_cuda(%a: tensor<2x70000xf16>) -> tensor<2x70000xf16> {
  // expected-error @+1 {{'kn.kernel' op grid dim y has 70000 blocks, more than CUDA launches (65535)}}
  %b = kn.kernel(%a) {
    tb.graph grid [2, 70000] threads 32 forloop 1 {
    ^bb0(%ad: tensor<2x70000xf16>):
      %at = tb.input_iterator %ad imap <x -> 0, y -> 1> fmap <i -> replica> : tensor<2x70000xf16> -> !tb.tile<1x1xf16>
      %o = tb.output_saver %at omap <x -> 0, y -> 1> : !tb.tile<1x1xf16> -> tensor<2x70000xf16>
      tb.yield %o : tensor<2x70000xf16>
    }
  } : (tensor<2x70000xf16>) -> tensor<2x70000xf16>
  return %b : tensor<2x70000xf16>
}
