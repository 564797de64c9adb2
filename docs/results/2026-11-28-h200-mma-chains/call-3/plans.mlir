func.func @gated_n32_k512_t128(%x: tensor<8x4096xf16>, %w1: tensor<4096x4096xf16>, %w2: tensor<4096x4096xf16>) -> tensor<8x4096xf16> {
  %y = kn.kernel(%x, %w1, %w2) {
    tb.graph grid [128] threads 128 forloop 8 {
    ^bb0(%xd: tensor<8x4096xf16>, %w1d: tensor<4096x4096xf16>, %w2d: tensor<4096x4096xf16>):
      %xt = tb.input_iterator %xd imap <x -> replica> fmap <i -> 1> : tensor<8x4096xf16> -> !tb.tile<8x512xf16>
      %at = tb.input_iterator %w1d imap <x -> 1> fmap <i -> 0> : tensor<4096x4096xf16> -> !tb.tile<512x32xf16>
      %a = tb.matmul %xt, %at : !tb.tile<8x512xf16>, !tb.tile<512x32xf16>
      %as = tb.accum_sum %a : !tb.tile<8x32xf16>
      %bt = tb.input_iterator %w2d imap <x -> 1> fmap <i -> 0> : tensor<4096x4096xf16> -> !tb.tile<512x32xf16>
      %b = tb.matmul %xt, %bt : !tb.tile<8x512xf16>, !tb.tile<512x32xf16>
      %bs = tb.accum_sum %b : !tb.tile<8x32xf16>
      %g = tb.silu %as : !tb.tile<8x32xf16>
      %p = tb.mul %g, %bs : !tb.tile<8x32xf16>, !tb.tile<8x32xf16>
      %o = tb.output_saver %p omap <x -> 1> : !tb.tile<8x32xf16> -> tensor<8x4096xf16>
      tb.yield %o : tensor<8x4096xf16>
    }
  } : (tensor<8x4096xf16>, tensor<4096x4096xf16>, tensor<4096x4096xf16>) -> tensor<8x4096xf16>
  return %y : tensor<8x4096xf16>
}

func.func @gated_n32_k256_t128(%x: tensor<8x4096xf16>, %w1: tensor<4096x4096xf16>, %w2: tensor<4096x4096xf16>) -> tensor<8x4096xf16> {
  %y = kn.kernel(%x, %w1, %w2) {
    tb.graph grid [128] threads 128 forloop 16 {
    ^bb0(%xd: tensor<8x4096xf16>, %w1d: tensor<4096x4096xf16>, %w2d: tensor<4096x4096xf16>):
      %xt = tb.input_iterator %xd imap <x -> replica> fmap <i -> 1> : tensor<8x4096xf16> -> !tb.tile<8x256xf16>
      %at = tb.input_iterator %w1d imap <x -> 1> fmap <i -> 0> : tensor<4096x4096xf16> -> !tb.tile<256x32xf16>
      %a = tb.matmul %xt, %at : !tb.tile<8x256xf16>, !tb.tile<256x32xf16>
      %as = tb.accum_sum %a : !tb.tile<8x32xf16>
      %bt = tb.input_iterator %w2d imap <x -> 1> fmap <i -> 0> : tensor<4096x4096xf16> -> !tb.tile<256x32xf16>
      %b = tb.matmul %xt, %bt : !tb.tile<8x256xf16>, !tb.tile<256x32xf16>
      %bs = tb.accum_sum %b : !tb.tile<8x32xf16>
      %g = tb.silu %as : !tb.tile<8x32xf16>
      %p = tb.mul %g, %bs : !tb.tile<8x32xf16>, !tb.tile<8x32xf16>
      %o = tb.output_saver %p omap <x -> 1> : !tb.tile<8x32xf16> -> tensor<8x4096xf16>
      tb.yield %o : tensor<8x4096xf16>
    }
  } : (tensor<8x4096xf16>, tensor<4096x4096xf16>, tensor<4096x4096xf16>) -> tensor<8x4096xf16>
  return %y : tensor<8x4096xf16>
}

func.func @gated_n32_k128_t128(%x: tensor<8x4096xf16>, %w1: tensor<4096x4096xf16>, %w2: tensor<4096x4096xf16>) -> tensor<8x4096xf16> {
  %y = kn.kernel(%x, %w1, %w2) {
    tb.graph grid [128] threads 128 forloop 32 {
    ^bb0(%xd: tensor<8x4096xf16>, %w1d: tensor<4096x4096xf16>, %w2d: tensor<4096x4096xf16>):
      %xt = tb.input_iterator %xd imap <x -> replica> fmap <i -> 1> : tensor<8x4096xf16> -> !tb.tile<8x128xf16>
      %at = tb.input_iterator %w1d imap <x -> 1> fmap <i -> 0> : tensor<4096x4096xf16> -> !tb.tile<128x32xf16>
      %a = tb.matmul %xt, %at : !tb.tile<8x128xf16>, !tb.tile<128x32xf16>
      %as = tb.accum_sum %a : !tb.tile<8x32xf16>
      %bt = tb.input_iterator %w2d imap <x -> 1> fmap <i -> 0> : tensor<4096x4096xf16> -> !tb.tile<128x32xf16>
      %b = tb.matmul %xt, %bt : !tb.tile<8x128xf16>, !tb.tile<128x32xf16>
      %bs = tb.accum_sum %b : !tb.tile<8x32xf16>
      %g = tb.silu %as : !tb.tile<8x32xf16>
      %p = tb.mul %g, %bs : !tb.tile<8x32xf16>, !tb.tile<8x32xf16>
      %o = tb.output_saver %p omap <x -> 1> : !tb.tile<8x32xf16> -> tensor<8x4096xf16>
      tb.yield %o : tensor<8x4096xf16>
    }
  } : (tensor<8x4096xf16>, tensor<4096x4096xf16>, tensor<4096x4096xf16>) -> tensor<8x4096xf16>
  return %y : tensor<8x4096xf16>
}

func.func @gated_n32_k256_t256(%x: tensor<8x4096xf16>, %w1: tensor<4096x4096xf16>, %w2: tensor<4096x4096xf16>) -> tensor<8x4096xf16> {
  %y = kn.kernel(%x, %w1, %w2) {
    tb.graph grid [128] threads 256 forloop 16 {
    ^bb0(%xd: tensor<8x4096xf16>, %w1d: tensor<4096x4096xf16>, %w2d: tensor<4096x4096xf16>):
      %xt = tb.input_iterator %xd imap <x -> replica> fmap <i -> 1> : tensor<8x4096xf16> -> !tb.tile<8x256xf16>
      %at = tb.input_iterator %w1d imap <x -> 1> fmap <i -> 0> : tensor<4096x4096xf16> -> !tb.tile<256x32xf16>
      %a = tb.matmul %xt, %at : !tb.tile<8x256xf16>, !tb.tile<256x32xf16>
      %as = tb.accum_sum %a : !tb.tile<8x32xf16>
      %bt = tb.input_iterator %w2d imap <x -> 1> fmap <i -> 0> : tensor<4096x4096xf16> -> !tb.tile<256x32xf16>
      %b = tb.matmul %xt, %bt : !tb.tile<8x256xf16>, !tb.tile<256x32xf16>
      %bs = tb.accum_sum %b : !tb.tile<8x32xf16>
      %g = tb.silu %as : !tb.tile<8x32xf16>
      %p = tb.mul %g, %bs : !tb.tile<8x32xf16>, !tb.tile<8x32xf16>
      %o = tb.output_saver %p omap <x -> 1> : !tb.tile<8x32xf16> -> tensor<8x4096xf16>
      tb.yield %o : tensor<8x4096xf16>
    }
  } : (tensor<8x4096xf16>, tensor<4096x4096xf16>, tensor<4096x4096xf16>) -> tensor<8x4096xf16>
  return %y : tensor<8x4096xf16>
}

func.func @gated_n64_k256_t128(%x: tensor<8x4096xf16>, %w1: tensor<4096x4096xf16>, %w2: tensor<4096x4096xf16>) -> tensor<8x4096xf16> {
  %y = kn.kernel(%x, %w1, %w2) {
    tb.graph grid [64] threads 128 forloop 16 {
    ^bb0(%xd: tensor<8x4096xf16>, %w1d: tensor<4096x4096xf16>, %w2d: tensor<4096x4096xf16>):
      %xt = tb.input_iterator %xd imap <x -> replica> fmap <i -> 1> : tensor<8x4096xf16> -> !tb.tile<8x256xf16>
      %at = tb.input_iterator %w1d imap <x -> 1> fmap <i -> 0> : tensor<4096x4096xf16> -> !tb.tile<256x64xf16>
      %a = tb.matmul %xt, %at : !tb.tile<8x256xf16>, !tb.tile<256x64xf16>
      %as = tb.accum_sum %a : !tb.tile<8x64xf16>
      %bt = tb.input_iterator %w2d imap <x -> 1> fmap <i -> 0> : tensor<4096x4096xf16> -> !tb.tile<256x64xf16>
      %b = tb.matmul %xt, %bt : !tb.tile<8x256xf16>, !tb.tile<256x64xf16>
      %bs = tb.accum_sum %b : !tb.tile<8x64xf16>
      %g = tb.silu %as : !tb.tile<8x64xf16>
      %p = tb.mul %g, %bs : !tb.tile<8x64xf16>, !tb.tile<8x64xf16>
      %o = tb.output_saver %p omap <x -> 1> : !tb.tile<8x64xf16> -> tensor<8x4096xf16>
      tb.yield %o : tensor<8x4096xf16>
    }
  } : (tensor<8x4096xf16>, tensor<4096x4096xf16>, tensor<4096x4096xf16>) -> tensor<8x4096xf16>
  return %y : tensor<8x4096xf16>
}

func.func @gated_n16_k256_t128(%x: tensor<8x4096xf16>, %w1: tensor<4096x4096xf16>, %w2: tensor<4096x4096xf16>) -> tensor<8x4096xf16> {
  %y = kn.kernel(%x, %w1, %w2) {
    tb.graph grid [256] threads 128 forloop 16 {
    ^bb0(%xd: tensor<8x4096xf16>, %w1d: tensor<4096x4096xf16>, %w2d: tensor<4096x4096xf16>):
      %xt = tb.input_iterator %xd imap <x -> replica> fmap <i -> 1> : tensor<8x4096xf16> -> !tb.tile<8x256xf16>
      %at = tb.input_iterator %w1d imap <x -> 1> fmap <i -> 0> : tensor<4096x4096xf16> -> !tb.tile<256x16xf16>
      %a = tb.matmul %xt, %at : !tb.tile<8x256xf16>, !tb.tile<256x16xf16>
      %as = tb.accum_sum %a : !tb.tile<8x16xf16>
      %bt = tb.input_iterator %w2d imap <x -> 1> fmap <i -> 0> : tensor<4096x4096xf16> -> !tb.tile<256x16xf16>
      %b = tb.matmul %xt, %bt : !tb.tile<8x256xf16>, !tb.tile<256x16xf16>
      %bs = tb.accum_sum %b : !tb.tile<8x16xf16>
      %g = tb.silu %as : !tb.tile<8x16xf16>
      %p = tb.mul %g, %bs : !tb.tile<8x16xf16>, !tb.tile<8x16xf16>
      %o = tb.output_saver %p omap <x -> 1> : !tb.tile<8x16xf16> -> tensor<8x4096xf16>
      tb.yield %o : tensor<8x4096xf16>
    }
  } : (tensor<8x4096xf16>, tensor<4096x4096xf16>, tensor<4096x4096xf16>) -> tensor<8x4096xf16>
  return %y : tensor<8x4096xf16>
}

func.func @linear_n64_k512_t128(%x: tensor<2x4096xf16>, %w: tensor<4096x6144xf16>) -> tensor<2x6144xf16> {
  %y = kn.kernel(%x, %w) {
    tb.graph grid [96] threads 128 forloop 8 {
    ^bb0(%xd: tensor<2x4096xf16>, %wd: tensor<4096x6144xf16>):
      %xt = tb.input_iterator %xd imap <x -> replica> fmap <i -> 1> : tensor<2x4096xf16> -> !tb.tile<2x512xf16>
      %wt = tb.input_iterator %wd imap <x -> 1> fmap <i -> 0> : tensor<4096x6144xf16> -> !tb.tile<512x64xf16>
      %p = tb.matmul %xt, %wt : !tb.tile<2x512xf16>, !tb.tile<512x64xf16>
      %s = tb.accum_sum %p : !tb.tile<2x64xf16>
      %o = tb.output_saver %s omap <x -> 1> : !tb.tile<2x64xf16> -> tensor<2x6144xf16>
      tb.yield %o : tensor<2x6144xf16>
    }
  } : (tensor<2x4096xf16>, tensor<4096x6144xf16>) -> tensor<2x6144xf16>
  return %y : tensor<2x6144xf16>
}

func.func @linear_n64_k256_t128(%x: tensor<2x4096xf16>, %w: tensor<4096x6144xf16>) -> tensor<2x6144xf16> {
  %y = kn.kernel(%x, %w) {
    tb.graph grid [96] threads 128 forloop 16 {
    ^bb0(%xd: tensor<2x4096xf16>, %wd: tensor<4096x6144xf16>):
      %xt = tb.input_iterator %xd imap <x -> replica> fmap <i -> 1> : tensor<2x4096xf16> -> !tb.tile<2x256xf16>
      %wt = tb.input_iterator %wd imap <x -> 1> fmap <i -> 0> : tensor<4096x6144xf16> -> !tb.tile<256x64xf16>
      %p = tb.matmul %xt, %wt : !tb.tile<2x256xf16>, !tb.tile<256x64xf16>
      %s = tb.accum_sum %p : !tb.tile<2x64xf16>
      %o = tb.output_saver %s omap <x -> 1> : !tb.tile<2x64xf16> -> tensor<2x6144xf16>
      tb.yield %o : tensor<2x6144xf16>
    }
  } : (tensor<2x4096xf16>, tensor<4096x6144xf16>) -> tensor<2x6144xf16>
  return %y : tensor<2x6144xf16>
}

func.func @linear_n64_k128_t128(%x: tensor<2x4096xf16>, %w: tensor<4096x6144xf16>) -> tensor<2x6144xf16> {
  %y = kn.kernel(%x, %w) {
    tb.graph grid [96] threads 128 forloop 32 {
    ^bb0(%xd: tensor<2x4096xf16>, %wd: tensor<4096x6144xf16>):
      %xt = tb.input_iterator %xd imap <x -> replica> fmap <i -> 1> : tensor<2x4096xf16> -> !tb.tile<2x128xf16>
      %wt = tb.input_iterator %wd imap <x -> 1> fmap <i -> 0> : tensor<4096x6144xf16> -> !tb.tile<128x64xf16>
      %p = tb.matmul %xt, %wt : !tb.tile<2x128xf16>, !tb.tile<128x64xf16>
      %s = tb.accum_sum %p : !tb.tile<2x64xf16>
      %o = tb.output_saver %s omap <x -> 1> : !tb.tile<2x64xf16> -> tensor<2x6144xf16>
      tb.yield %o : tensor<2x6144xf16>
    }
  } : (tensor<2x4096xf16>, tensor<4096x6144xf16>) -> tensor<2x6144xf16>
  return %y : tensor<2x6144xf16>
}

func.func @linear_n32_k256_t128(%x: tensor<2x4096xf16>, %w: tensor<4096x6144xf16>) -> tensor<2x6144xf16> {
  %y = kn.kernel(%x, %w) {
    tb.graph grid [192] threads 128 forloop 16 {
    ^bb0(%xd: tensor<2x4096xf16>, %wd: tensor<4096x6144xf16>):
      %xt = tb.input_iterator %xd imap <x -> replica> fmap <i -> 1> : tensor<2x4096xf16> -> !tb.tile<2x256xf16>
      %wt = tb.input_iterator %wd imap <x -> 1> fmap <i -> 0> : tensor<4096x6144xf16> -> !tb.tile<256x32xf16>
      %p = tb.matmul %xt, %wt : !tb.tile<2x256xf16>, !tb.tile<256x32xf16>
      %s = tb.accum_sum %p : !tb.tile<2x32xf16>
      %o = tb.output_saver %s omap <x -> 1> : !tb.tile<2x32xf16> -> tensor<2x6144xf16>
      tb.yield %o : tensor<2x6144xf16>
    }
  } : (tensor<2x4096xf16>, tensor<4096x6144xf16>) -> tensor<2x6144xf16>
  return %y : tensor<2x6144xf16>
}
