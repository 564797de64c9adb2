// Tilings of the Qwen3-8B decode matmuls, one kernel each (1 block per SM at grid <= 132).
func.func @ref12288x4096(%x: tensor<1x12288xf16>, %w: tensor<12288x4096xf16>) -> tensor<1x4096xf16> {
  %o = kn.matmul %x, %w : tensor<1x12288xf16>, tensor<12288x4096xf16>
  return %o : tensor<1x4096xf16>
}
func.func @mm12288x4096_g128_t128_k1536_n32(%x: tensor<1x12288xf16>, %w: tensor<12288x4096xf16>) -> tensor<1x4096xf16> attributes {kn.reference = @ref12288x4096} {
  %o = kn.kernel(%x, %w) {
    tb.graph grid [128] threads 128 forloop 8 {
    ^bb0(%xd: tensor<1x12288xf16>, %wd: tensor<12288x4096xf16>):
      %xt = tb.input_iterator %xd imap <x -> replica> fmap <i -> 1> : tensor<1x12288xf16> -> !tb.tile<1x1536xf16>
      %wt = tb.input_iterator %wd imap <x -> 1> fmap <i -> 0> : tensor<12288x4096xf16> -> !tb.tile<1536x32xf16>
      %p = tb.matmul %xt, %wt : !tb.tile<1x1536xf16>, !tb.tile<1536x32xf16>
      %a = tb.accum_sum %p : !tb.tile<1x32xf16>
      %s = tb.output_saver %a omap <x -> 1> : !tb.tile<1x32xf16> -> tensor<1x4096xf16>
      tb.yield %s : tensor<1x4096xf16>
    }
  } : (tensor<1x12288xf16>, tensor<12288x4096xf16>) -> tensor<1x4096xf16>
  return %o : tensor<1x4096xf16>
}
func.func @mm12288x4096_g128_t128_k768_n32(%x: tensor<1x12288xf16>, %w: tensor<12288x4096xf16>) -> tensor<1x4096xf16> attributes {kn.reference = @ref12288x4096} {
  %o = kn.kernel(%x, %w) {
    tb.graph grid [128] threads 128 forloop 16 {
    ^bb0(%xd: tensor<1x12288xf16>, %wd: tensor<12288x4096xf16>):
      %xt = tb.input_iterator %xd imap <x -> replica> fmap <i -> 1> : tensor<1x12288xf16> -> !tb.tile<1x768xf16>
      %wt = tb.input_iterator %wd imap <x -> 1> fmap <i -> 0> : tensor<12288x4096xf16> -> !tb.tile<768x32xf16>
      %p = tb.matmul %xt, %wt : !tb.tile<1x768xf16>, !tb.tile<768x32xf16>
      %a = tb.accum_sum %p : !tb.tile<1x32xf16>
      %s = tb.output_saver %a omap <x -> 1> : !tb.tile<1x32xf16> -> tensor<1x4096xf16>
      tb.yield %s : tensor<1x4096xf16>
    }
  } : (tensor<1x12288xf16>, tensor<12288x4096xf16>) -> tensor<1x4096xf16>
  return %o : tensor<1x4096xf16>
}
func.func @mm12288x4096_g128_t128_k384_n32(%x: tensor<1x12288xf16>, %w: tensor<12288x4096xf16>) -> tensor<1x4096xf16> attributes {kn.reference = @ref12288x4096} {
  %o = kn.kernel(%x, %w) {
    tb.graph grid [128] threads 128 forloop 32 {
    ^bb0(%xd: tensor<1x12288xf16>, %wd: tensor<12288x4096xf16>):
      %xt = tb.input_iterator %xd imap <x -> replica> fmap <i -> 1> : tensor<1x12288xf16> -> !tb.tile<1x384xf16>
      %wt = tb.input_iterator %wd imap <x -> 1> fmap <i -> 0> : tensor<12288x4096xf16> -> !tb.tile<384x32xf16>
      %p = tb.matmul %xt, %wt : !tb.tile<1x384xf16>, !tb.tile<384x32xf16>
      %a = tb.accum_sum %p : !tb.tile<1x32xf16>
      %s = tb.output_saver %a omap <x -> 1> : !tb.tile<1x32xf16> -> tensor<1x4096xf16>
      tb.yield %s : tensor<1x4096xf16>
    }
  } : (tensor<1x12288xf16>, tensor<12288x4096xf16>) -> tensor<1x4096xf16>
  return %o : tensor<1x4096xf16>
}
func.func @mm12288x4096_g128_t256_k768_n32(%x: tensor<1x12288xf16>, %w: tensor<12288x4096xf16>) -> tensor<1x4096xf16> attributes {kn.reference = @ref12288x4096} {
  %o = kn.kernel(%x, %w) {
    tb.graph grid [128] threads 256 forloop 16 {
    ^bb0(%xd: tensor<1x12288xf16>, %wd: tensor<12288x4096xf16>):
      %xt = tb.input_iterator %xd imap <x -> replica> fmap <i -> 1> : tensor<1x12288xf16> -> !tb.tile<1x768xf16>
      %wt = tb.input_iterator %wd imap <x -> 1> fmap <i -> 0> : tensor<12288x4096xf16> -> !tb.tile<768x32xf16>
      %p = tb.matmul %xt, %wt : !tb.tile<1x768xf16>, !tb.tile<768x32xf16>
      %a = tb.accum_sum %p : !tb.tile<1x32xf16>
      %s = tb.output_saver %a omap <x -> 1> : !tb.tile<1x32xf16> -> tensor<1x4096xf16>
      tb.yield %s : tensor<1x4096xf16>
    }
  } : (tensor<1x12288xf16>, tensor<12288x4096xf16>) -> tensor<1x4096xf16>
  return %o : tensor<1x4096xf16>
}
func.func @mm12288x4096_g64_t128_k768_n64(%x: tensor<1x12288xf16>, %w: tensor<12288x4096xf16>) -> tensor<1x4096xf16> attributes {kn.reference = @ref12288x4096} {
  %o = kn.kernel(%x, %w) {
    tb.graph grid [64] threads 128 forloop 16 {
    ^bb0(%xd: tensor<1x12288xf16>, %wd: tensor<12288x4096xf16>):
      %xt = tb.input_iterator %xd imap <x -> replica> fmap <i -> 1> : tensor<1x12288xf16> -> !tb.tile<1x768xf16>
      %wt = tb.input_iterator %wd imap <x -> 1> fmap <i -> 0> : tensor<12288x4096xf16> -> !tb.tile<768x64xf16>
      %p = tb.matmul %xt, %wt : !tb.tile<1x768xf16>, !tb.tile<768x64xf16>
      %a = tb.accum_sum %p : !tb.tile<1x64xf16>
      %s = tb.output_saver %a omap <x -> 1> : !tb.tile<1x64xf16> -> tensor<1x4096xf16>
      tb.yield %s : tensor<1x4096xf16>
    }
  } : (tensor<1x12288xf16>, tensor<12288x4096xf16>) -> tensor<1x4096xf16>
  return %o : tensor<1x4096xf16>
}
func.func @mm12288x4096_g128_t128_k512_n32(%x: tensor<1x12288xf16>, %w: tensor<12288x4096xf16>) -> tensor<1x4096xf16> attributes {kn.reference = @ref12288x4096} {
  %o = kn.kernel(%x, %w) {
    tb.graph grid [128] threads 128 forloop 24 {
    ^bb0(%xd: tensor<1x12288xf16>, %wd: tensor<12288x4096xf16>):
      %xt = tb.input_iterator %xd imap <x -> replica> fmap <i -> 1> : tensor<1x12288xf16> -> !tb.tile<1x512xf16>
      %wt = tb.input_iterator %wd imap <x -> 1> fmap <i -> 0> : tensor<12288x4096xf16> -> !tb.tile<512x32xf16>
      %p = tb.matmul %xt, %wt : !tb.tile<1x512xf16>, !tb.tile<512x32xf16>
      %a = tb.accum_sum %p : !tb.tile<1x32xf16>
      %s = tb.output_saver %a omap <x -> 1> : !tb.tile<1x32xf16> -> tensor<1x4096xf16>
      tb.yield %s : tensor<1x4096xf16>
    }
  } : (tensor<1x12288xf16>, tensor<12288x4096xf16>) -> tensor<1x4096xf16>
  return %o : tensor<1x4096xf16>
}
func.func @ref4096x6144(%x: tensor<1x4096xf16>, %w: tensor<4096x6144xf16>) -> tensor<1x6144xf16> {
  %o = kn.matmul %x, %w : tensor<1x4096xf16>, tensor<4096x6144xf16>
  return %o : tensor<1x6144xf16>
}
func.func @mm4096x6144_g96_t128_k512_n64(%x: tensor<1x4096xf16>, %w: tensor<4096x6144xf16>) -> tensor<1x6144xf16> attributes {kn.reference = @ref4096x6144} {
  %o = kn.kernel(%x, %w) {
    tb.graph grid [96] threads 128 forloop 8 {
    ^bb0(%xd: tensor<1x4096xf16>, %wd: tensor<4096x6144xf16>):
      %xt = tb.input_iterator %xd imap <x -> replica> fmap <i -> 1> : tensor<1x4096xf16> -> !tb.tile<1x512xf16>
      %wt = tb.input_iterator %wd imap <x -> 1> fmap <i -> 0> : tensor<4096x6144xf16> -> !tb.tile<512x64xf16>
      %p = tb.matmul %xt, %wt : !tb.tile<1x512xf16>, !tb.tile<512x64xf16>
      %a = tb.accum_sum %p : !tb.tile<1x64xf16>
      %s = tb.output_saver %a omap <x -> 1> : !tb.tile<1x64xf16> -> tensor<1x6144xf16>
      tb.yield %s : tensor<1x6144xf16>
    }
  } : (tensor<1x4096xf16>, tensor<4096x6144xf16>) -> tensor<1x6144xf16>
  return %o : tensor<1x6144xf16>
}
func.func @mm4096x6144_g96_t128_k256_n64(%x: tensor<1x4096xf16>, %w: tensor<4096x6144xf16>) -> tensor<1x6144xf16> attributes {kn.reference = @ref4096x6144} {
  %o = kn.kernel(%x, %w) {
    tb.graph grid [96] threads 128 forloop 16 {
    ^bb0(%xd: tensor<1x4096xf16>, %wd: tensor<4096x6144xf16>):
      %xt = tb.input_iterator %xd imap <x -> replica> fmap <i -> 1> : tensor<1x4096xf16> -> !tb.tile<1x256xf16>
      %wt = tb.input_iterator %wd imap <x -> 1> fmap <i -> 0> : tensor<4096x6144xf16> -> !tb.tile<256x64xf16>
      %p = tb.matmul %xt, %wt : !tb.tile<1x256xf16>, !tb.tile<256x64xf16>
      %a = tb.accum_sum %p : !tb.tile<1x64xf16>
      %s = tb.output_saver %a omap <x -> 1> : !tb.tile<1x64xf16> -> tensor<1x6144xf16>
      tb.yield %s : tensor<1x6144xf16>
    }
  } : (tensor<1x4096xf16>, tensor<4096x6144xf16>) -> tensor<1x6144xf16>
  return %o : tensor<1x6144xf16>
}
func.func @mm4096x6144_g128_t128_k512_n48(%x: tensor<1x4096xf16>, %w: tensor<4096x6144xf16>) -> tensor<1x6144xf16> attributes {kn.reference = @ref4096x6144} {
  %o = kn.kernel(%x, %w) {
    tb.graph grid [128] threads 128 forloop 8 {
    ^bb0(%xd: tensor<1x4096xf16>, %wd: tensor<4096x6144xf16>):
      %xt = tb.input_iterator %xd imap <x -> replica> fmap <i -> 1> : tensor<1x4096xf16> -> !tb.tile<1x512xf16>
      %wt = tb.input_iterator %wd imap <x -> 1> fmap <i -> 0> : tensor<4096x6144xf16> -> !tb.tile<512x48xf16>
      %p = tb.matmul %xt, %wt : !tb.tile<1x512xf16>, !tb.tile<512x48xf16>
      %a = tb.accum_sum %p : !tb.tile<1x48xf16>
      %s = tb.output_saver %a omap <x -> 1> : !tb.tile<1x48xf16> -> tensor<1x6144xf16>
      tb.yield %s : tensor<1x6144xf16>
    }
  } : (tensor<1x4096xf16>, tensor<4096x6144xf16>) -> tensor<1x6144xf16>
  return %o : tensor<1x6144xf16>
}
func.func @mm4096x6144_g128_t128_k256_n48(%x: tensor<1x4096xf16>, %w: tensor<4096x6144xf16>) -> tensor<1x6144xf16> attributes {kn.reference = @ref4096x6144} {
  %o = kn.kernel(%x, %w) {
    tb.graph grid [128] threads 128 forloop 16 {
    ^bb0(%xd: tensor<1x4096xf16>, %wd: tensor<4096x6144xf16>):
      %xt = tb.input_iterator %xd imap <x -> replica> fmap <i -> 1> : tensor<1x4096xf16> -> !tb.tile<1x256xf16>
      %wt = tb.input_iterator %wd imap <x -> 1> fmap <i -> 0> : tensor<4096x6144xf16> -> !tb.tile<256x48xf16>
      %p = tb.matmul %xt, %wt : !tb.tile<1x256xf16>, !tb.tile<256x48xf16>
      %a = tb.accum_sum %p : !tb.tile<1x48xf16>
      %s = tb.output_saver %a omap <x -> 1> : !tb.tile<1x48xf16> -> tensor<1x6144xf16>
      tb.yield %s : tensor<1x6144xf16>
    }
  } : (tensor<1x4096xf16>, tensor<4096x6144xf16>) -> tensor<1x6144xf16>
  return %o : tensor<1x6144xf16>
}
func.func @ref4096x4096(%x: tensor<1x4096xf16>, %w: tensor<4096x4096xf16>) -> tensor<1x4096xf16> {
  %o = kn.matmul %x, %w : tensor<1x4096xf16>, tensor<4096x4096xf16>
  return %o : tensor<1x4096xf16>
}
func.func @mm4096x4096_g128_t128_k1024_n32(%x: tensor<1x4096xf16>, %w: tensor<4096x4096xf16>) -> tensor<1x4096xf16> attributes {kn.reference = @ref4096x4096} {
  %o = kn.kernel(%x, %w) {
    tb.graph grid [128] threads 128 forloop 4 {
    ^bb0(%xd: tensor<1x4096xf16>, %wd: tensor<4096x4096xf16>):
      %xt = tb.input_iterator %xd imap <x -> replica> fmap <i -> 1> : tensor<1x4096xf16> -> !tb.tile<1x1024xf16>
      %wt = tb.input_iterator %wd imap <x -> 1> fmap <i -> 0> : tensor<4096x4096xf16> -> !tb.tile<1024x32xf16>
      %p = tb.matmul %xt, %wt : !tb.tile<1x1024xf16>, !tb.tile<1024x32xf16>
      %a = tb.accum_sum %p : !tb.tile<1x32xf16>
      %s = tb.output_saver %a omap <x -> 1> : !tb.tile<1x32xf16> -> tensor<1x4096xf16>
      tb.yield %s : tensor<1x4096xf16>
    }
  } : (tensor<1x4096xf16>, tensor<4096x4096xf16>) -> tensor<1x4096xf16>
  return %o : tensor<1x4096xf16>
}
func.func @mm4096x4096_g128_t128_k512_n32(%x: tensor<1x4096xf16>, %w: tensor<4096x4096xf16>) -> tensor<1x4096xf16> attributes {kn.reference = @ref4096x4096} {
  %o = kn.kernel(%x, %w) {
    tb.graph grid [128] threads 128 forloop 8 {
    ^bb0(%xd: tensor<1x4096xf16>, %wd: tensor<4096x4096xf16>):
      %xt = tb.input_iterator %xd imap <x -> replica> fmap <i -> 1> : tensor<1x4096xf16> -> !tb.tile<1x512xf16>
      %wt = tb.input_iterator %wd imap <x -> 1> fmap <i -> 0> : tensor<4096x4096xf16> -> !tb.tile<512x32xf16>
      %p = tb.matmul %xt, %wt : !tb.tile<1x512xf16>, !tb.tile<512x32xf16>
      %a = tb.accum_sum %p : !tb.tile<1x32xf16>
      %s = tb.output_saver %a omap <x -> 1> : !tb.tile<1x32xf16> -> tensor<1x4096xf16>
      tb.yield %s : tensor<1x4096xf16>
    }
  } : (tensor<1x4096xf16>, tensor<4096x4096xf16>) -> tensor<1x4096xf16>
  return %o : tensor<1x4096xf16>
}
func.func @mm4096x4096_g128_t128_k256_n32(%x: tensor<1x4096xf16>, %w: tensor<4096x4096xf16>) -> tensor<1x4096xf16> attributes {kn.reference = @ref4096x4096} {
  %o = kn.kernel(%x, %w) {
    tb.graph grid [128] threads 128 forloop 16 {
    ^bb0(%xd: tensor<1x4096xf16>, %wd: tensor<4096x4096xf16>):
      %xt = tb.input_iterator %xd imap <x -> replica> fmap <i -> 1> : tensor<1x4096xf16> -> !tb.tile<1x256xf16>
      %wt = tb.input_iterator %wd imap <x -> 1> fmap <i -> 0> : tensor<4096x4096xf16> -> !tb.tile<256x32xf16>
      %p = tb.matmul %xt, %wt : !tb.tile<1x256xf16>, !tb.tile<256x32xf16>
      %a = tb.accum_sum %p : !tb.tile<1x32xf16>
      %s = tb.output_saver %a omap <x -> 1> : !tb.tile<1x32xf16> -> tensor<1x4096xf16>
      tb.yield %s : tensor<1x4096xf16>
    }
  } : (tensor<1x4096xf16>, tensor<4096x4096xf16>) -> tensor<1x4096xf16>
  return %o : tensor<1x4096xf16>
}
