func.func @qkv_separate(%x: tensor<16x4096xf16>, %wq: tensor<4096x4096xf16>, %wk: tensor<4096x4096xf16>, %wv: tensor<4096x4096xf16>) -> (tensor<16x4096xf16>, tensor<16x4096xf16>, tensor<16x4096xf16>) {
  %q = kn.matmul %x, %wq : tensor<16x4096xf16>, tensor<4096x4096xf16>
  %k = kn.matmul %x, %wk : tensor<16x4096xf16>, tensor<4096x4096xf16>
  %v = kn.matmul %x, %wv : tensor<16x4096xf16>, tensor<4096x4096xf16>
  return %q, %k, %v : tensor<16x4096xf16>, tensor<16x4096xf16>, tensor<16x4096xf16>
}


func.func @qkv_fused_f8(%x: tensor<16x4096xf16>, %wq: tensor<4096x4096xf16>, %wk: tensor<4096x4096xf16>, %wv: tensor<4096x4096xf16>) -> (tensor<16x4096xf16>, tensor<16x4096xf16>, tensor<16x4096xf16>) {
  %r:3 = kn.kernel(%x, %wq, %wk, %wv) {
    tb.graph grid [128] threads 128 forloop 8 {
    ^bb0(%xd: tensor<16x4096xf16>, %a: tensor<4096x4096xf16>, %b: tensor<4096x4096xf16>, %c: tensor<4096x4096xf16>):
      %xt = tb.input_iterator %xd imap <x -> replica> fmap <i -> 1> : tensor<16x4096xf16> -> !tb.tile<16x512xf16>
      %at = tb.input_iterator %a imap <x -> 1> fmap <i -> 0> : tensor<4096x4096xf16> -> !tb.tile<512x32xf16>
      %am = tb.matmul %xt, %at : !tb.tile<16x512xf16>, !tb.tile<512x32xf16>
      %as = tb.accum_sum %am : !tb.tile<16x32xf16>
      %ao = tb.output_saver %as omap <x -> 1> : !tb.tile<16x32xf16> -> tensor<16x4096xf16>
      %bt = tb.input_iterator %b imap <x -> 1> fmap <i -> 0> : tensor<4096x4096xf16> -> !tb.tile<512x32xf16>
      %bm = tb.matmul %xt, %bt : !tb.tile<16x512xf16>, !tb.tile<512x32xf16>
      %bs = tb.accum_sum %bm : !tb.tile<16x32xf16>
      %bo = tb.output_saver %bs omap <x -> 1> : !tb.tile<16x32xf16> -> tensor<16x4096xf16>
      %ct = tb.input_iterator %c imap <x -> 1> fmap <i -> 0> : tensor<4096x4096xf16> -> !tb.tile<512x32xf16>
      %cm = tb.matmul %xt, %ct : !tb.tile<16x512xf16>, !tb.tile<512x32xf16>
      %cs = tb.accum_sum %cm : !tb.tile<16x32xf16>
      %co = tb.output_saver %cs omap <x -> 1> : !tb.tile<16x32xf16> -> tensor<16x4096xf16>
      tb.yield %ao, %bo, %co : tensor<16x4096xf16>, tensor<16x4096xf16>, tensor<16x4096xf16>
    }
  } : (tensor<16x4096xf16>, tensor<4096x4096xf16>, tensor<4096x4096xf16>, tensor<4096x4096xf16>) -> (tensor<16x4096xf16>, tensor<16x4096xf16>, tensor<16x4096xf16>)
  return %r#0, %r#1, %r#2 : tensor<16x4096xf16>, tensor<16x4096xf16>, tensor<16x4096xf16>
}

func.func @qkv_fused_f16(%x: tensor<16x4096xf16>, %wq: tensor<4096x4096xf16>, %wk: tensor<4096x4096xf16>, %wv: tensor<4096x4096xf16>) -> (tensor<16x4096xf16>, tensor<16x4096xf16>, tensor<16x4096xf16>) {
  %r:3 = kn.kernel(%x, %wq, %wk, %wv) {
    tb.graph grid [128] threads 128 forloop 16 {
    ^bb0(%xd: tensor<16x4096xf16>, %a: tensor<4096x4096xf16>, %b: tensor<4096x4096xf16>, %c: tensor<4096x4096xf16>):
      %xt = tb.input_iterator %xd imap <x -> replica> fmap <i -> 1> : tensor<16x4096xf16> -> !tb.tile<16x256xf16>
      %at = tb.input_iterator %a imap <x -> 1> fmap <i -> 0> : tensor<4096x4096xf16> -> !tb.tile<256x32xf16>
      %am = tb.matmul %xt, %at : !tb.tile<16x256xf16>, !tb.tile<256x32xf16>
      %as = tb.accum_sum %am : !tb.tile<16x32xf16>
      %ao = tb.output_saver %as omap <x -> 1> : !tb.tile<16x32xf16> -> tensor<16x4096xf16>
      %bt = tb.input_iterator %b imap <x -> 1> fmap <i -> 0> : tensor<4096x4096xf16> -> !tb.tile<256x32xf16>
      %bm = tb.matmul %xt, %bt : !tb.tile<16x256xf16>, !tb.tile<256x32xf16>
      %bs = tb.accum_sum %bm : !tb.tile<16x32xf16>
      %bo = tb.output_saver %bs omap <x -> 1> : !tb.tile<16x32xf16> -> tensor<16x4096xf16>
      %ct = tb.input_iterator %c imap <x -> 1> fmap <i -> 0> : tensor<4096x4096xf16> -> !tb.tile<256x32xf16>
      %cm = tb.matmul %xt, %ct : !tb.tile<16x256xf16>, !tb.tile<256x32xf16>
      %cs = tb.accum_sum %cm : !tb.tile<16x32xf16>
      %co = tb.output_saver %cs omap <x -> 1> : !tb.tile<16x32xf16> -> tensor<16x4096xf16>
      tb.yield %ao, %bo, %co : tensor<16x4096xf16>, tensor<16x4096xf16>, tensor<16x4096xf16>
    }
  } : (tensor<16x4096xf16>, tensor<4096x4096xf16>, tensor<4096x4096xf16>, tensor<4096x4096xf16>) -> (tensor<16x4096xf16>, tensor<16x4096xf16>, tensor<16x4096xf16>)
  return %r#0, %r#1, %r#2 : tensor<16x4096xf16>, tensor<16x4096xf16>, tensor<16x4096xf16>
}

func.func @qkv_fused_f32(%x: tensor<16x4096xf16>, %wq: tensor<4096x4096xf16>, %wk: tensor<4096x4096xf16>, %wv: tensor<4096x4096xf16>) -> (tensor<16x4096xf16>, tensor<16x4096xf16>, tensor<16x4096xf16>) {
  %r:3 = kn.kernel(%x, %wq, %wk, %wv) {
    tb.graph grid [128] threads 128 forloop 32 {
    ^bb0(%xd: tensor<16x4096xf16>, %a: tensor<4096x4096xf16>, %b: tensor<4096x4096xf16>, %c: tensor<4096x4096xf16>):
      %xt = tb.input_iterator %xd imap <x -> replica> fmap <i -> 1> : tensor<16x4096xf16> -> !tb.tile<16x128xf16>
      %at = tb.input_iterator %a imap <x -> 1> fmap <i -> 0> : tensor<4096x4096xf16> -> !tb.tile<128x32xf16>
      %am = tb.matmul %xt, %at : !tb.tile<16x128xf16>, !tb.tile<128x32xf16>
      %as = tb.accum_sum %am : !tb.tile<16x32xf16>
      %ao = tb.output_saver %as omap <x -> 1> : !tb.tile<16x32xf16> -> tensor<16x4096xf16>
      %bt = tb.input_iterator %b imap <x -> 1> fmap <i -> 0> : tensor<4096x4096xf16> -> !tb.tile<128x32xf16>
      %bm = tb.matmul %xt, %bt : !tb.tile<16x128xf16>, !tb.tile<128x32xf16>
      %bs = tb.accum_sum %bm : !tb.tile<16x32xf16>
      %bo = tb.output_saver %bs omap <x -> 1> : !tb.tile<16x32xf16> -> tensor<16x4096xf16>
      %ct = tb.input_iterator %c imap <x -> 1> fmap <i -> 0> : tensor<4096x4096xf16> -> !tb.tile<128x32xf16>
      %cm = tb.matmul %xt, %ct : !tb.tile<16x128xf16>, !tb.tile<128x32xf16>
      %cs = tb.accum_sum %cm : !tb.tile<16x32xf16>
      %co = tb.output_saver %cs omap <x -> 1> : !tb.tile<16x32xf16> -> tensor<16x4096xf16>
      tb.yield %ao, %bo, %co : tensor<16x4096xf16>, tensor<16x4096xf16>, tensor<16x4096xf16>
    }
  } : (tensor<16x4096xf16>, tensor<4096x4096xf16>, tensor<4096x4096xf16>, tensor<4096x4096xf16>) -> (tensor<16x4096xf16>, tensor<16x4096xf16>, tensor<16x4096xf16>)
  return %r#0, %r#1, %r#2 : tensor<16x4096xf16>, tensor<16x4096xf16>, tensor<16x4096xf16>
}

func.func @qkv_fused_f16_n64(%x: tensor<16x4096xf16>, %wq: tensor<4096x4096xf16>, %wk: tensor<4096x4096xf16>, %wv: tensor<4096x4096xf16>) -> (tensor<16x4096xf16>, tensor<16x4096xf16>, tensor<16x4096xf16>) {
  %r:3 = kn.kernel(%x, %wq, %wk, %wv) {
    tb.graph grid [64] threads 128 forloop 16 {
    ^bb0(%xd: tensor<16x4096xf16>, %a: tensor<4096x4096xf16>, %b: tensor<4096x4096xf16>, %c: tensor<4096x4096xf16>):
      %xt = tb.input_iterator %xd imap <x -> replica> fmap <i -> 1> : tensor<16x4096xf16> -> !tb.tile<16x256xf16>
      %at = tb.input_iterator %a imap <x -> 1> fmap <i -> 0> : tensor<4096x4096xf16> -> !tb.tile<256x64xf16>
      %am = tb.matmul %xt, %at : !tb.tile<16x256xf16>, !tb.tile<256x64xf16>
      %as = tb.accum_sum %am : !tb.tile<16x64xf16>
      %ao = tb.output_saver %as omap <x -> 1> : !tb.tile<16x64xf16> -> tensor<16x4096xf16>
      %bt = tb.input_iterator %b imap <x -> 1> fmap <i -> 0> : tensor<4096x4096xf16> -> !tb.tile<256x64xf16>
      %bm = tb.matmul %xt, %bt : !tb.tile<16x256xf16>, !tb.tile<256x64xf16>
      %bs = tb.accum_sum %bm : !tb.tile<16x64xf16>
      %bo = tb.output_saver %bs omap <x -> 1> : !tb.tile<16x64xf16> -> tensor<16x4096xf16>
      %ct = tb.input_iterator %c imap <x -> 1> fmap <i -> 0> : tensor<4096x4096xf16> -> !tb.tile<256x64xf16>
      %cm = tb.matmul %xt, %ct : !tb.tile<16x256xf16>, !tb.tile<256x64xf16>
      %cs = tb.accum_sum %cm : !tb.tile<16x64xf16>
      %co = tb.output_saver %cs omap <x -> 1> : !tb.tile<16x64xf16> -> tensor<16x4096xf16>
      tb.yield %ao, %bo, %co : tensor<16x4096xf16>, tensor<16x4096xf16>, tensor<16x4096xf16>
    }
  } : (tensor<16x4096xf16>, tensor<4096x4096xf16>, tensor<4096x4096xf16>, tensor<4096x4096xf16>) -> (tensor<16x4096xf16>, tensor<16x4096xf16>, tensor<16x4096xf16>)
  return %r#0, %r#1, %r#2 : tensor<16x4096xf16>, tensor<16x4096xf16>, tensor<16x4096xf16>
}
