// Tilings of the decode gate/up matmul (1x4096 @ 4096x24576), one kernel each.
func.func @ref(%x: tensor<1x4096xf16>, %w: tensor<4096x24576xf16>) -> tensor<1x24576xf16> {
  %o = kn.matmul %x, %w : tensor<1x4096xf16>, tensor<4096x24576xf16>
  return %o : tensor<1x24576xf16>
}
func.func @mm_g128_t128_k128_n192(%x: tensor<1x4096xf16>, %w: tensor<4096x24576xf16>) -> tensor<1x24576xf16> attributes {kn.reference = @ref} {
  %o = kn.kernel(%x, %w) {
    tb.graph grid [128] threads 128 forloop 32 {
    ^bb0(%xd: tensor<1x4096xf16>, %wd: tensor<4096x24576xf16>):
      %xt = tb.input_iterator %xd imap <x -> replica> fmap <i -> 1> : tensor<1x4096xf16> -> !tb.tile<1x128xf16>
      %wt = tb.input_iterator %wd imap <x -> 1> fmap <i -> 0> : tensor<4096x24576xf16> -> !tb.tile<128x192xf16>
      %p = tb.matmul %xt, %wt : !tb.tile<1x128xf16>, !tb.tile<128x192xf16>
      %a = tb.accum_sum %p : !tb.tile<1x192xf16>
      %s = tb.output_saver %a omap <x -> 1> : !tb.tile<1x192xf16> -> tensor<1x24576xf16>
      tb.yield %s : tensor<1x24576xf16>
    }
  } : (tensor<1x4096xf16>, tensor<4096x24576xf16>) -> tensor<1x24576xf16>
  return %o : tensor<1x24576xf16>
}
func.func @mm_g384_t128_k128_n64(%x: tensor<1x4096xf16>, %w: tensor<4096x24576xf16>) -> tensor<1x24576xf16> attributes {kn.reference = @ref} {
  %o = kn.kernel(%x, %w) {
    tb.graph grid [384] threads 128 forloop 32 {
    ^bb0(%xd: tensor<1x4096xf16>, %wd: tensor<4096x24576xf16>):
      %xt = tb.input_iterator %xd imap <x -> replica> fmap <i -> 1> : tensor<1x4096xf16> -> !tb.tile<1x128xf16>
      %wt = tb.input_iterator %wd imap <x -> 1> fmap <i -> 0> : tensor<4096x24576xf16> -> !tb.tile<128x64xf16>
      %p = tb.matmul %xt, %wt : !tb.tile<1x128xf16>, !tb.tile<128x64xf16>
      %a = tb.accum_sum %p : !tb.tile<1x64xf16>
      %s = tb.output_saver %a omap <x -> 1> : !tb.tile<1x64xf16> -> tensor<1x24576xf16>
      tb.yield %s : tensor<1x24576xf16>
    }
  } : (tensor<1x4096xf16>, tensor<4096x24576xf16>) -> tensor<1x24576xf16>
  return %o : tensor<1x24576xf16>
}
func.func @mm_g128_t256_k128_n192(%x: tensor<1x4096xf16>, %w: tensor<4096x24576xf16>) -> tensor<1x24576xf16> attributes {kn.reference = @ref} {
  %o = kn.kernel(%x, %w) {
    tb.graph grid [128] threads 256 forloop 32 {
    ^bb0(%xd: tensor<1x4096xf16>, %wd: tensor<4096x24576xf16>):
      %xt = tb.input_iterator %xd imap <x -> replica> fmap <i -> 1> : tensor<1x4096xf16> -> !tb.tile<1x128xf16>
      %wt = tb.input_iterator %wd imap <x -> 1> fmap <i -> 0> : tensor<4096x24576xf16> -> !tb.tile<128x192xf16>
      %p = tb.matmul %xt, %wt : !tb.tile<1x128xf16>, !tb.tile<128x192xf16>
      %a = tb.accum_sum %p : !tb.tile<1x192xf16>
      %s = tb.output_saver %a omap <x -> 1> : !tb.tile<1x192xf16> -> tensor<1x24576xf16>
      tb.yield %s : tensor<1x24576xf16>
    }
  } : (tensor<1x4096xf16>, tensor<4096x24576xf16>) -> tensor<1x24576xf16>
  return %o : tensor<1x24576xf16>
}
func.func @mm_g128_t128_k64_n192(%x: tensor<1x4096xf16>, %w: tensor<4096x24576xf16>) -> tensor<1x24576xf16> attributes {kn.reference = @ref} {
  %o = kn.kernel(%x, %w) {
    tb.graph grid [128] threads 128 forloop 64 {
    ^bb0(%xd: tensor<1x4096xf16>, %wd: tensor<4096x24576xf16>):
      %xt = tb.input_iterator %xd imap <x -> replica> fmap <i -> 1> : tensor<1x4096xf16> -> !tb.tile<1x64xf16>
      %wt = tb.input_iterator %wd imap <x -> 1> fmap <i -> 0> : tensor<4096x24576xf16> -> !tb.tile<64x192xf16>
      %p = tb.matmul %xt, %wt : !tb.tile<1x64xf16>, !tb.tile<64x192xf16>
      %a = tb.accum_sum %p : !tb.tile<1x192xf16>
      %s = tb.output_saver %a omap <x -> 1> : !tb.tile<1x192xf16> -> tensor<1x24576xf16>
      tb.yield %s : tensor<1x24576xf16>
    }
  } : (tensor<1x4096xf16>, tensor<4096x24576xf16>) -> tensor<1x24576xf16>
  return %o : tensor<1x24576xf16>
}
func.func @mm_g128_t128_k256_n192(%x: tensor<1x4096xf16>, %w: tensor<4096x24576xf16>) -> tensor<1x24576xf16> attributes {kn.reference = @ref} {
  %o = kn.kernel(%x, %w) {
    tb.graph grid [128] threads 128 forloop 16 {
    ^bb0(%xd: tensor<1x4096xf16>, %wd: tensor<4096x24576xf16>):
      %xt = tb.input_iterator %xd imap <x -> replica> fmap <i -> 1> : tensor<1x4096xf16> -> !tb.tile<1x256xf16>
      %wt = tb.input_iterator %wd imap <x -> 1> fmap <i -> 0> : tensor<4096x24576xf16> -> !tb.tile<256x192xf16>
      %p = tb.matmul %xt, %wt : !tb.tile<1x256xf16>, !tb.tile<256x192xf16>
      %a = tb.accum_sum %p : !tb.tile<1x192xf16>
      %s = tb.output_saver %a omap <x -> 1> : !tb.tile<1x192xf16> -> tensor<1x24576xf16>
      tb.yield %s : tensor<1x24576xf16>
    }
  } : (tensor<1x4096xf16>, tensor<4096x24576xf16>) -> tensor<1x24576xf16>
  return %o : tensor<1x24576xf16>
}
func.func @mm_g256_t128_k128_n96(%x: tensor<1x4096xf16>, %w: tensor<4096x24576xf16>) -> tensor<1x24576xf16> attributes {kn.reference = @ref} {
  %o = kn.kernel(%x, %w) {
    tb.graph grid [256] threads 128 forloop 32 {
    ^bb0(%xd: tensor<1x4096xf16>, %wd: tensor<4096x24576xf16>):
      %xt = tb.input_iterator %xd imap <x -> replica> fmap <i -> 1> : tensor<1x4096xf16> -> !tb.tile<1x128xf16>
      %wt = tb.input_iterator %wd imap <x -> 1> fmap <i -> 0> : tensor<4096x24576xf16> -> !tb.tile<128x96xf16>
      %p = tb.matmul %xt, %wt : !tb.tile<1x128xf16>, !tb.tile<128x96xf16>
      %a = tb.accum_sum %p : !tb.tile<1x96xf16>
      %s = tb.output_saver %a omap <x -> 1> : !tb.tile<1x96xf16> -> tensor<1x24576xf16>
      tb.yield %s : tensor<1x24576xf16>
    }
  } : (tensor<1x4096xf16>, tensor<4096x24576xf16>) -> tensor<1x24576xf16>
  return %o : tensor<1x24576xf16>
}
