// Split-K tilings of the Qwen3-8B decode down projection (1x12288 @ 12288x4096).
func.func @down_ref(%x: tensor<1x12288xf16>, %w: tensor<12288x4096xf16>) -> tensor<1x4096xf16> {
  %o = kn.matmul %x, %w : tensor<1x12288xf16>, tensor<12288x4096xf16>
  return %o : tensor<1x4096xf16>
}
func.func @down_split2_n64_k384_t128(%x: tensor<1x12288xf16>, %w: tensor<12288x4096xf16>) -> tensor<1x4096xf16> attributes {kn.reference = @down_ref} {
  %x3 = kn.reshape %x : tensor<1x12288xf16> -> tensor<2x1x6144xf16>
  %w3 = kn.reshape %w : tensor<12288x4096xf16> -> tensor<2x6144x4096xf16>
  %p = kn.kernel(%x3, %w3) {
    tb.graph grid [64, 2] threads 128 forloop 16 {
    ^bb0(%xd: tensor<2x1x6144xf16>, %wd: tensor<2x6144x4096xf16>):
      %xt = tb.input_iterator %xd imap <x -> replica, y -> 0> fmap <i -> 2> : tensor<2x1x6144xf16> -> !tb.tile<1x1x384xf16>
      %wt = tb.input_iterator %wd imap <x -> 2, y -> 0> fmap <i -> 1> : tensor<2x6144x4096xf16> -> !tb.tile<1x384x64xf16>
      %m = tb.matmul %xt, %wt : !tb.tile<1x1x384xf16>, !tb.tile<1x384x64xf16>
      %a = tb.accum_sum %m : !tb.tile<1x1x64xf16>
      %s = tb.output_saver %a omap <x -> 2, y -> 0> : !tb.tile<1x1x64xf16> -> tensor<2x1x4096xf16>
      tb.yield %s : tensor<2x1x4096xf16>
    }
  } : (tensor<2x1x6144xf16>, tensor<2x6144x4096xf16>) -> tensor<2x1x4096xf16>
  %r = kn.reduce_sum %p dim 0 : tensor<2x1x4096xf16>
  %o = kn.reshape %r : tensor<1x1x4096xf16> -> tensor<1x4096xf16>
  return %o : tensor<1x4096xf16>
}
func.func @down_split2_n64_k192_t128(%x: tensor<1x12288xf16>, %w: tensor<12288x4096xf16>) -> tensor<1x4096xf16> attributes {kn.reference = @down_ref} {
  %x3 = kn.reshape %x : tensor<1x12288xf16> -> tensor<2x1x6144xf16>
  %w3 = kn.reshape %w : tensor<12288x4096xf16> -> tensor<2x6144x4096xf16>
  %p = kn.kernel(%x3, %w3) {
    tb.graph grid [64, 2] threads 128 forloop 32 {
    ^bb0(%xd: tensor<2x1x6144xf16>, %wd: tensor<2x6144x4096xf16>):
      %xt = tb.input_iterator %xd imap <x -> replica, y -> 0> fmap <i -> 2> : tensor<2x1x6144xf16> -> !tb.tile<1x1x192xf16>
      %wt = tb.input_iterator %wd imap <x -> 2, y -> 0> fmap <i -> 1> : tensor<2x6144x4096xf16> -> !tb.tile<1x192x64xf16>
      %m = tb.matmul %xt, %wt : !tb.tile<1x1x192xf16>, !tb.tile<1x192x64xf16>
      %a = tb.accum_sum %m : !tb.tile<1x1x64xf16>
      %s = tb.output_saver %a omap <x -> 2, y -> 0> : !tb.tile<1x1x64xf16> -> tensor<2x1x4096xf16>
      tb.yield %s : tensor<2x1x4096xf16>
    }
  } : (tensor<2x1x6144xf16>, tensor<2x6144x4096xf16>) -> tensor<2x1x4096xf16>
  %r = kn.reduce_sum %p dim 0 : tensor<2x1x4096xf16>
  %o = kn.reshape %r : tensor<1x1x4096xf16> -> tensor<1x4096xf16>
  return %o : tensor<1x4096xf16>
}
func.func @down_split4_n128_k384_t128(%x: tensor<1x12288xf16>, %w: tensor<12288x4096xf16>) -> tensor<1x4096xf16> attributes {kn.reference = @down_ref} {
  %x3 = kn.reshape %x : tensor<1x12288xf16> -> tensor<4x1x3072xf16>
  %w3 = kn.reshape %w : tensor<12288x4096xf16> -> tensor<4x3072x4096xf16>
  %p = kn.kernel(%x3, %w3) {
    tb.graph grid [32, 4] threads 128 forloop 8 {
    ^bb0(%xd: tensor<4x1x3072xf16>, %wd: tensor<4x3072x4096xf16>):
      %xt = tb.input_iterator %xd imap <x -> replica, y -> 0> fmap <i -> 2> : tensor<4x1x3072xf16> -> !tb.tile<1x1x384xf16>
      %wt = tb.input_iterator %wd imap <x -> 2, y -> 0> fmap <i -> 1> : tensor<4x3072x4096xf16> -> !tb.tile<1x384x128xf16>
      %m = tb.matmul %xt, %wt : !tb.tile<1x1x384xf16>, !tb.tile<1x384x128xf16>
      %a = tb.accum_sum %m : !tb.tile<1x1x128xf16>
      %s = tb.output_saver %a omap <x -> 2, y -> 0> : !tb.tile<1x1x128xf16> -> tensor<4x1x4096xf16>
      tb.yield %s : tensor<4x1x4096xf16>
    }
  } : (tensor<4x1x3072xf16>, tensor<4x3072x4096xf16>) -> tensor<4x1x4096xf16>
  %r = kn.reduce_sum %p dim 0 : tensor<4x1x4096xf16>
  %o = kn.reshape %r : tensor<1x1x4096xf16> -> tensor<1x4096xf16>
  return %o : tensor<1x4096xf16>
}
func.func @down_split4_n128_k192_t128(%x: tensor<1x12288xf16>, %w: tensor<12288x4096xf16>) -> tensor<1x4096xf16> attributes {kn.reference = @down_ref} {
  %x3 = kn.reshape %x : tensor<1x12288xf16> -> tensor<4x1x3072xf16>
  %w3 = kn.reshape %w : tensor<12288x4096xf16> -> tensor<4x3072x4096xf16>
  %p = kn.kernel(%x3, %w3) {
    tb.graph grid [32, 4] threads 128 forloop 16 {
    ^bb0(%xd: tensor<4x1x3072xf16>, %wd: tensor<4x3072x4096xf16>):
      %xt = tb.input_iterator %xd imap <x -> replica, y -> 0> fmap <i -> 2> : tensor<4x1x3072xf16> -> !tb.tile<1x1x192xf16>
      %wt = tb.input_iterator %wd imap <x -> 2, y -> 0> fmap <i -> 1> : tensor<4x3072x4096xf16> -> !tb.tile<1x192x128xf16>
      %m = tb.matmul %xt, %wt : !tb.tile<1x1x192xf16>, !tb.tile<1x192x128xf16>
      %a = tb.accum_sum %m : !tb.tile<1x1x128xf16>
      %s = tb.output_saver %a omap <x -> 2, y -> 0> : !tb.tile<1x1x128xf16> -> tensor<4x1x4096xf16>
      tb.yield %s : tensor<4x1x4096xf16>
    }
  } : (tensor<4x1x3072xf16>, tensor<4x3072x4096xf16>) -> tensor<4x1x4096xf16>
  %r = kn.reduce_sum %p dim 0 : tensor<4x1x4096xf16>
  %o = kn.reshape %r : tensor<1x1x4096xf16> -> tensor<1x4096xf16>
  return %o : tensor<1x4096xf16>
}
func.func @down_split2_n64_k768_t128(%x: tensor<1x12288xf16>, %w: tensor<12288x4096xf16>) -> tensor<1x4096xf16> attributes {kn.reference = @down_ref} {
  %x3 = kn.reshape %x : tensor<1x12288xf16> -> tensor<2x1x6144xf16>
  %w3 = kn.reshape %w : tensor<12288x4096xf16> -> tensor<2x6144x4096xf16>
  %p = kn.kernel(%x3, %w3) {
    tb.graph grid [64, 2] threads 128 forloop 8 {
    ^bb0(%xd: tensor<2x1x6144xf16>, %wd: tensor<2x6144x4096xf16>):
      %xt = tb.input_iterator %xd imap <x -> replica, y -> 0> fmap <i -> 2> : tensor<2x1x6144xf16> -> !tb.tile<1x1x768xf16>
      %wt = tb.input_iterator %wd imap <x -> 2, y -> 0> fmap <i -> 1> : tensor<2x6144x4096xf16> -> !tb.tile<1x768x64xf16>
      %m = tb.matmul %xt, %wt : !tb.tile<1x1x768xf16>, !tb.tile<1x768x64xf16>
      %a = tb.accum_sum %m : !tb.tile<1x1x64xf16>
      %s = tb.output_saver %a omap <x -> 2, y -> 0> : !tb.tile<1x1x64xf16> -> tensor<2x1x4096xf16>
      tb.yield %s : tensor<2x1x4096xf16>
    }
  } : (tensor<2x1x6144xf16>, tensor<2x6144x4096xf16>) -> tensor<2x1x4096xf16>
  %r = kn.reduce_sum %p dim 0 : tensor<2x1x4096xf16>
  %o = kn.reshape %r : tensor<1x1x4096xf16> -> tensor<1x4096xf16>
  return %o : tensor<1x4096xf16>
}
