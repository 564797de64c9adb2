
  func.func @vanilla_base(%arg0: tensor<16x4096xf16>, %arg1: tensor<4096x4096xf16>, %arg2: tensor<4096x4096xf16>, %arg3: tensor<4096x4096xf16>, %arg4: tensor<32x1008x128xf16>, %arg5: tensor<32x1008x128xf16>) -> (tensor<16x4096xf16>, tensor<32x1024x128xf16>, tensor<32x1024x128xf16>) {
    %0 = kn.kernel(%arg0, %arg1) {
      tb.graph grid [128] threads 128 forloop 4 {
      ^bb0(%arg6: tensor<16x4096xf16>, %arg7: tensor<4096x4096xf16>):
        %10 = tb.input_iterator %arg6 imap <x -> replica> fmap <i -> 1> : tensor<16x4096xf16> -> !tb.tile<16x1024xf16>
        %11 = tb.input_iterator %arg7 imap <x -> 1> fmap <i -> 0> : tensor<4096x4096xf16> -> !tb.tile<1024x32xf16>
        %12 = tb.matmul %10, %11 : !tb.tile<16x1024xf16>, !tb.tile<1024x32xf16>
        %13 = tb.accum_sum %12 : !tb.tile<16x32xf16>
        %14 = tb.mul_scalar %13, 1.562500e-02 : !tb.tile<16x32xf16>
        %15 = tb.output_saver %14 omap <x -> 1> : !tb.tile<16x32xf16> -> tensor<16x4096xf16>
        tb.yield %15 : tensor<16x4096xf16>
      }
    } : (tensor<16x4096xf16>, tensor<4096x4096xf16>) -> tensor<16x4096xf16>
    %1 = kn.kernel(%arg0, %arg2) {
      tb.graph grid [128] threads 128 forloop 4 {
      ^bb0(%arg6: tensor<16x4096xf16>, %arg7: tensor<4096x4096xf16>):
        %10 = tb.input_iterator %arg6 imap <x -> replica> fmap <i -> 1> : tensor<16x4096xf16> -> !tb.tile<16x1024xf16>
        %11 = tb.input_iterator %arg7 imap <x -> 1> fmap <i -> 0> : tensor<4096x4096xf16> -> !tb.tile<1024x32xf16>
        %12 = tb.matmul %10, %11 : !tb.tile<16x1024xf16>, !tb.tile<1024x32xf16>
        %13 = tb.accum_sum %12 : !tb.tile<16x32xf16>
        %14 = tb.mul_scalar %13, 1.562500e-02 : !tb.tile<16x32xf16>
        %15 = tb.output_saver %14 omap <x -> 1> : !tb.tile<16x32xf16> -> tensor<16x4096xf16>
        tb.yield %15 : tensor<16x4096xf16>
      }
    } : (tensor<16x4096xf16>, tensor<4096x4096xf16>) -> tensor<16x4096xf16>
    %2 = kn.kernel(%arg0, %arg3) {
      tb.graph grid [128] threads 128 forloop 4 {
      ^bb0(%arg6: tensor<16x4096xf16>, %arg7: tensor<4096x4096xf16>):
        %10 = tb.input_iterator %arg6 imap <x -> replica> fmap <i -> 1> : tensor<16x4096xf16> -> !tb.tile<16x1024xf16>
        %11 = tb.input_iterator %arg7 imap <x -> 1> fmap <i -> 0> : tensor<4096x4096xf16> -> !tb.tile<1024x32xf16>
        %12 = tb.matmul %10, %11 : !tb.tile<16x1024xf16>, !tb.tile<1024x32xf16>
        %13 = tb.accum_sum %12 : !tb.tile<16x32xf16>
        %14 = tb.mul_scalar %13, 1.562500e-02 : !tb.tile<16x32xf16>
        %15 = tb.output_saver %14 omap <x -> 1> : !tb.tile<16x32xf16> -> tensor<16x4096xf16>
        tb.yield %15 : tensor<16x4096xf16>
      }
    } : (tensor<16x4096xf16>, tensor<4096x4096xf16>) -> tensor<16x4096xf16>
    %3 = kn.reshape %0 : tensor<16x4096xf16> -> tensor<16x32x128xf16>
    %4 = kn.reshape %1 : tensor<16x4096xf16> -> tensor<16x32x128xf16>
    %5 = kn.reshape %2 : tensor<16x4096xf16> -> tensor<16x32x128xf16>
    %6 = kn.kernel(%4, %arg4) {
      tb.graph grid [4, 32] threads 512 forloop 1 {
      ^bb0(%arg6: tensor<16x32x128xf16>, %arg7: tensor<32x1008x128xf16>):
        %10 = tb.input_iterator %arg6 imap <x -> 2, y -> 1> fmap <i -> replica> : tensor<16x32x128xf16> -> !tb.tile<16x1x32xf16>
        %11 = tb.transpose %10 permutation [1, 0, 2] : !tb.tile<16x1x32xf16>
        %12 = tb.input_iterator %arg7 imap <x -> 2, y -> 0> fmap <i -> replica> : tensor<32x1008x128xf16> -> !tb.tile<1x1008x32xf16>
        %13 = tb.concat %12, %11 dim 1 : !tb.tile<1x1008x32xf16>, !tb.tile<1x16x32xf16>
        %14 = tb.output_saver %13 omap <x -> 2, y -> 0> : !tb.tile<1x1024x32xf16> -> tensor<32x1024x128xf16>
        tb.yield %14 : tensor<32x1024x128xf16>
      }
    } : (tensor<16x32x128xf16>, tensor<32x1008x128xf16>) -> tensor<32x1024x128xf16>
    %7 = kn.kernel(%3, %6) {
      tb.graph grid [8, 32] threads 128 forloop 2 {
      ^bb0(%arg6: tensor<16x32x128xf16>, %arg7: tensor<32x1024x128xf16>):
        %10 = tb.input_iterator %arg6 imap <x -> replica, y -> 1> fmap <i -> 2> : tensor<16x32x128xf16> -> !tb.tile<16x1x64xf16>
        %11 = tb.transpose %10 permutation [1, 0, 2] : !tb.tile<16x1x64xf16>
        %12 = tb.input_iterator %arg7 imap <x -> 1, y -> 0> fmap <i -> 2> : tensor<32x1024x128xf16> -> !tb.tile<1x128x64xf16>
        %13 = tb.transpose %12 permutation [0, 2, 1] : !tb.tile<1x128x64xf16>
        %14 = tb.matmul %11, %13 : !tb.tile<1x16x64xf16>, !tb.tile<1x64x128xf16>
        %15 = tb.accum_sum %14 : !tb.tile<1x16x128xf16>
        %16 = tb.mul_scalar %15, 0.088388347648318433 : !tb.tile<1x16x128xf16>
        %17 = tb.exp %16 : !tb.tile<1x16x128xf16>
        %18 = tb.output_saver %17 omap <x -> 2, y -> 0> : !tb.tile<1x16x128xf16> -> tensor<32x16x1024xf16>
        tb.yield %18 : tensor<32x16x1024xf16>
      }
    } : (tensor<16x32x128xf16>, tensor<32x1024x128xf16>) -> tensor<32x16x1024xf16>
    %8:2 = kn.kernel(%5, %arg5, %7) {
      tb.graph grid [4, 32] threads 128 forloop 1 {
      ^bb0(%arg6: tensor<16x32x128xf16>, %arg7: tensor<32x1008x128xf16>, %arg8: tensor<32x16x1024xf16>):
        %10 = tb.input_iterator %arg6 imap <x -> 2, y -> 1> fmap <i -> replica> : tensor<16x32x128xf16> -> !tb.tile<16x1x32xf16>
        %11 = tb.transpose %10 permutation [1, 0, 2] : !tb.tile<16x1x32xf16>
        %12 = tb.input_iterator %arg7 imap <x -> 2, y -> 0> fmap <i -> replica> : tensor<32x1008x128xf16> -> !tb.tile<1x1008x32xf16>
        %13 = tb.concat %12, %11 dim 1 : !tb.tile<1x1008x32xf16>, !tb.tile<1x16x32xf16>
        %14 = tb.input_iterator %arg8 imap <x -> replica, y -> 0> fmap <i -> replica> : tensor<32x16x1024xf16> -> !tb.tile<1x16x1024xf16>
        %15 = tb.reduce_sum %14 dim 2 : !tb.tile<1x16x1024xf16>
        %16 = tb.matmul %14, %13 : !tb.tile<1x16x1024xf16>, !tb.tile<1x1024x32xf16>
        %17 = tb.div %16, %15 : !tb.tile<1x16x32xf16>, !tb.tile<1x16x1xf16>
        %18 = tb.transpose %17 permutation [1, 0, 2] : !tb.tile<1x16x32xf16>
        %19 = tb.output_saver %13 omap <x -> 2, y -> 0> : !tb.tile<1x1024x32xf16> -> tensor<32x1024x128xf16>
        %20 = tb.output_saver %18 omap <x -> 2, y -> 1> : !tb.tile<16x1x32xf16> -> tensor<16x32x128xf16>
        tb.yield %19, %20 : tensor<32x1024x128xf16>, tensor<16x32x128xf16>
      }
    } : (tensor<16x32x128xf16>, tensor<32x1008x128xf16>, tensor<32x16x1024xf16>) -> (tensor<32x1024x128xf16>, tensor<16x32x128xf16>)
    %9 = kn.reshape %8#1 : tensor<16x32x128xf16> -> tensor<16x4096xf16>
    return %9, %6, %8#0 : tensor<16x4096xf16>, tensor<32x1024x128xf16>, tensor<32x1024x128xf16>
  }


  func.func @vanilla_k5t256(%arg0: tensor<16x4096xf16>, %arg1: tensor<4096x4096xf16>, %arg2: tensor<4096x4096xf16>, %arg3: tensor<4096x4096xf16>, %arg4: tensor<32x1008x128xf16>, %arg5: tensor<32x1008x128xf16>) -> (tensor<16x4096xf16>, tensor<32x1024x128xf16>, tensor<32x1024x128xf16>) {
    %0 = kn.kernel(%arg0, %arg1) {
      tb.graph grid [128] threads 128 forloop 4 {
      ^bb0(%arg6: tensor<16x4096xf16>, %arg7: tensor<4096x4096xf16>):
        %10 = tb.input_iterator %arg6 imap <x -> replica> fmap <i -> 1> : tensor<16x4096xf16> -> !tb.tile<16x1024xf16>
        %11 = tb.input_iterator %arg7 imap <x -> 1> fmap <i -> 0> : tensor<4096x4096xf16> -> !tb.tile<1024x32xf16>
        %12 = tb.matmul %10, %11 : !tb.tile<16x1024xf16>, !tb.tile<1024x32xf16>
        %13 = tb.accum_sum %12 : !tb.tile<16x32xf16>
        %14 = tb.mul_scalar %13, 1.562500e-02 : !tb.tile<16x32xf16>
        %15 = tb.output_saver %14 omap <x -> 1> : !tb.tile<16x32xf16> -> tensor<16x4096xf16>
        tb.yield %15 : tensor<16x4096xf16>
      }
    } : (tensor<16x4096xf16>, tensor<4096x4096xf16>) -> tensor<16x4096xf16>
    %1 = kn.kernel(%arg0, %arg2) {
      tb.graph grid [128] threads 128 forloop 4 {
      ^bb0(%arg6: tensor<16x4096xf16>, %arg7: tensor<4096x4096xf16>):
        %10 = tb.input_iterator %arg6 imap <x -> replica> fmap <i -> 1> : tensor<16x4096xf16> -> !tb.tile<16x1024xf16>
        %11 = tb.input_iterator %arg7 imap <x -> 1> fmap <i -> 0> : tensor<4096x4096xf16> -> !tb.tile<1024x32xf16>
        %12 = tb.matmul %10, %11 : !tb.tile<16x1024xf16>, !tb.tile<1024x32xf16>
        %13 = tb.accum_sum %12 : !tb.tile<16x32xf16>
        %14 = tb.mul_scalar %13, 1.562500e-02 : !tb.tile<16x32xf16>
        %15 = tb.output_saver %14 omap <x -> 1> : !tb.tile<16x32xf16> -> tensor<16x4096xf16>
        tb.yield %15 : tensor<16x4096xf16>
      }
    } : (tensor<16x4096xf16>, tensor<4096x4096xf16>) -> tensor<16x4096xf16>
    %2 = kn.kernel(%arg0, %arg3) {
      tb.graph grid [128] threads 128 forloop 4 {
      ^bb0(%arg6: tensor<16x4096xf16>, %arg7: tensor<4096x4096xf16>):
        %10 = tb.input_iterator %arg6 imap <x -> replica> fmap <i -> 1> : tensor<16x4096xf16> -> !tb.tile<16x1024xf16>
        %11 = tb.input_iterator %arg7 imap <x -> 1> fmap <i -> 0> : tensor<4096x4096xf16> -> !tb.tile<1024x32xf16>
        %12 = tb.matmul %10, %11 : !tb.tile<16x1024xf16>, !tb.tile<1024x32xf16>
        %13 = tb.accum_sum %12 : !tb.tile<16x32xf16>
        %14 = tb.mul_scalar %13, 1.562500e-02 : !tb.tile<16x32xf16>
        %15 = tb.output_saver %14 omap <x -> 1> : !tb.tile<16x32xf16> -> tensor<16x4096xf16>
        tb.yield %15 : tensor<16x4096xf16>
      }
    } : (tensor<16x4096xf16>, tensor<4096x4096xf16>) -> tensor<16x4096xf16>
    %3 = kn.reshape %0 : tensor<16x4096xf16> -> tensor<16x32x128xf16>
    %4 = kn.reshape %1 : tensor<16x4096xf16> -> tensor<16x32x128xf16>
    %5 = kn.reshape %2 : tensor<16x4096xf16> -> tensor<16x32x128xf16>
    %6 = kn.kernel(%4, %arg4) {
      tb.graph grid [4, 32] threads 512 forloop 1 {
      ^bb0(%arg6: tensor<16x32x128xf16>, %arg7: tensor<32x1008x128xf16>):
        %10 = tb.input_iterator %arg6 imap <x -> 2, y -> 1> fmap <i -> replica> : tensor<16x32x128xf16> -> !tb.tile<16x1x32xf16>
        %11 = tb.transpose %10 permutation [1, 0, 2] : !tb.tile<16x1x32xf16>
        %12 = tb.input_iterator %arg7 imap <x -> 2, y -> 0> fmap <i -> replica> : tensor<32x1008x128xf16> -> !tb.tile<1x1008x32xf16>
        %13 = tb.concat %12, %11 dim 1 : !tb.tile<1x1008x32xf16>, !tb.tile<1x16x32xf16>
        %14 = tb.output_saver %13 omap <x -> 2, y -> 0> : !tb.tile<1x1024x32xf16> -> tensor<32x1024x128xf16>
        tb.yield %14 : tensor<32x1024x128xf16>
      }
    } : (tensor<16x32x128xf16>, tensor<32x1008x128xf16>) -> tensor<32x1024x128xf16>
    %7 = kn.kernel(%3, %6) {
      tb.graph grid [8, 32] threads 128 forloop 2 {
      ^bb0(%arg6: tensor<16x32x128xf16>, %arg7: tensor<32x1024x128xf16>):
        %10 = tb.input_iterator %arg6 imap <x -> replica, y -> 1> fmap <i -> 2> : tensor<16x32x128xf16> -> !tb.tile<16x1x64xf16>
        %11 = tb.transpose %10 permutation [1, 0, 2] : !tb.tile<16x1x64xf16>
        %12 = tb.input_iterator %arg7 imap <x -> 1, y -> 0> fmap <i -> 2> : tensor<32x1024x128xf16> -> !tb.tile<1x128x64xf16>
        %13 = tb.transpose %12 permutation [0, 2, 1] : !tb.tile<1x128x64xf16>
        %14 = tb.matmul %11, %13 : !tb.tile<1x16x64xf16>, !tb.tile<1x64x128xf16>
        %15 = tb.accum_sum %14 : !tb.tile<1x16x128xf16>
        %16 = tb.mul_scalar %15, 0.088388347648318433 : !tb.tile<1x16x128xf16>
        %17 = tb.exp %16 : !tb.tile<1x16x128xf16>
        %18 = tb.output_saver %17 omap <x -> 2, y -> 0> : !tb.tile<1x16x128xf16> -> tensor<32x16x1024xf16>
        tb.yield %18 : tensor<32x16x1024xf16>
      }
    } : (tensor<16x32x128xf16>, tensor<32x1024x128xf16>) -> tensor<32x16x1024xf16>
    %8:2 = kn.kernel(%5, %arg5, %7) {
      tb.graph grid [4, 32] threads 256 forloop 1 {
      ^bb0(%arg6: tensor<16x32x128xf16>, %arg7: tensor<32x1008x128xf16>, %arg8: tensor<32x16x1024xf16>):
        %10 = tb.input_iterator %arg6 imap <x -> 2, y -> 1> fmap <i -> replica> : tensor<16x32x128xf16> -> !tb.tile<16x1x32xf16>
        %11 = tb.transpose %10 permutation [1, 0, 2] : !tb.tile<16x1x32xf16>
        %12 = tb.input_iterator %arg7 imap <x -> 2, y -> 0> fmap <i -> replica> : tensor<32x1008x128xf16> -> !tb.tile<1x1008x32xf16>
        %13 = tb.concat %12, %11 dim 1 : !tb.tile<1x1008x32xf16>, !tb.tile<1x16x32xf16>
        %14 = tb.input_iterator %arg8 imap <x -> replica, y -> 0> fmap <i -> replica> : tensor<32x16x1024xf16> -> !tb.tile<1x16x1024xf16>
        %15 = tb.reduce_sum %14 dim 2 : !tb.tile<1x16x1024xf16>
        %16 = tb.matmul %14, %13 : !tb.tile<1x16x1024xf16>, !tb.tile<1x1024x32xf16>
        %17 = tb.div %16, %15 : !tb.tile<1x16x32xf16>, !tb.tile<1x16x1xf16>
        %18 = tb.transpose %17 permutation [1, 0, 2] : !tb.tile<1x16x32xf16>
        %19 = tb.output_saver %13 omap <x -> 2, y -> 0> : !tb.tile<1x1024x32xf16> -> tensor<32x1024x128xf16>
        %20 = tb.output_saver %18 omap <x -> 2, y -> 1> : !tb.tile<16x1x32xf16> -> tensor<16x32x128xf16>
        tb.yield %19, %20 : tensor<32x1024x128xf16>, tensor<16x32x128xf16>
      }
    } : (tensor<16x32x128xf16>, tensor<32x1008x128xf16>, tensor<32x16x1024xf16>) -> (tensor<32x1024x128xf16>, tensor<16x32x128xf16>)
    %9 = kn.reshape %8#1 : tensor<16x32x128xf16> -> tensor<16x4096xf16>
    return %9, %6, %8#0 : tensor<16x4096xf16>, tensor<32x1024x128xf16>, tensor<32x1024x128xf16>
  }


  func.func @vanilla_k5t512(%arg0: tensor<16x4096xf16>, %arg1: tensor<4096x4096xf16>, %arg2: tensor<4096x4096xf16>, %arg3: tensor<4096x4096xf16>, %arg4: tensor<32x1008x128xf16>, %arg5: tensor<32x1008x128xf16>) -> (tensor<16x4096xf16>, tensor<32x1024x128xf16>, tensor<32x1024x128xf16>) {
    %0 = kn.kernel(%arg0, %arg1) {
      tb.graph grid [128] threads 128 forloop 4 {
      ^bb0(%arg6: tensor<16x4096xf16>, %arg7: tensor<4096x4096xf16>):
        %10 = tb.input_iterator %arg6 imap <x -> replica> fmap <i -> 1> : tensor<16x4096xf16> -> !tb.tile<16x1024xf16>
        %11 = tb.input_iterator %arg7 imap <x -> 1> fmap <i -> 0> : tensor<4096x4096xf16> -> !tb.tile<1024x32xf16>
        %12 = tb.matmul %10, %11 : !tb.tile<16x1024xf16>, !tb.tile<1024x32xf16>
        %13 = tb.accum_sum %12 : !tb.tile<16x32xf16>
        %14 = tb.mul_scalar %13, 1.562500e-02 : !tb.tile<16x32xf16>
        %15 = tb.output_saver %14 omap <x -> 1> : !tb.tile<16x32xf16> -> tensor<16x4096xf16>
        tb.yield %15 : tensor<16x4096xf16>
      }
    } : (tensor<16x4096xf16>, tensor<4096x4096xf16>) -> tensor<16x4096xf16>
    %1 = kn.kernel(%arg0, %arg2) {
      tb.graph grid [128] threads 128 forloop 4 {
      ^bb0(%arg6: tensor<16x4096xf16>, %arg7: tensor<4096x4096xf16>):
        %10 = tb.input_iterator %arg6 imap <x -> replica> fmap <i -> 1> : tensor<16x4096xf16> -> !tb.tile<16x1024xf16>
        %11 = tb.input_iterator %arg7 imap <x -> 1> fmap <i -> 0> : tensor<4096x4096xf16> -> !tb.tile<1024x32xf16>
        %12 = tb.matmul %10, %11 : !tb.tile<16x1024xf16>, !tb.tile<1024x32xf16>
        %13 = tb.accum_sum %12 : !tb.tile<16x32xf16>
        %14 = tb.mul_scalar %13, 1.562500e-02 : !tb.tile<16x32xf16>
        %15 = tb.output_saver %14 omap <x -> 1> : !tb.tile<16x32xf16> -> tensor<16x4096xf16>
        tb.yield %15 : tensor<16x4096xf16>
      }
    } : (tensor<16x4096xf16>, tensor<4096x4096xf16>) -> tensor<16x4096xf16>
    %2 = kn.kernel(%arg0, %arg3) {
      tb.graph grid [128] threads 128 forloop 4 {
      ^bb0(%arg6: tensor<16x4096xf16>, %arg7: tensor<4096x4096xf16>):
        %10 = tb.input_iterator %arg6 imap <x -> replica> fmap <i -> 1> : tensor<16x4096xf16> -> !tb.tile<16x1024xf16>
        %11 = tb.input_iterator %arg7 imap <x -> 1> fmap <i -> 0> : tensor<4096x4096xf16> -> !tb.tile<1024x32xf16>
        %12 = tb.matmul %10, %11 : !tb.tile<16x1024xf16>, !tb.tile<1024x32xf16>
        %13 = tb.accum_sum %12 : !tb.tile<16x32xf16>
        %14 = tb.mul_scalar %13, 1.562500e-02 : !tb.tile<16x32xf16>
        %15 = tb.output_saver %14 omap <x -> 1> : !tb.tile<16x32xf16> -> tensor<16x4096xf16>
        tb.yield %15 : tensor<16x4096xf16>
      }
    } : (tensor<16x4096xf16>, tensor<4096x4096xf16>) -> tensor<16x4096xf16>
    %3 = kn.reshape %0 : tensor<16x4096xf16> -> tensor<16x32x128xf16>
    %4 = kn.reshape %1 : tensor<16x4096xf16> -> tensor<16x32x128xf16>
    %5 = kn.reshape %2 : tensor<16x4096xf16> -> tensor<16x32x128xf16>
    %6 = kn.kernel(%4, %arg4) {
      tb.graph grid [4, 32] threads 512 forloop 1 {
      ^bb0(%arg6: tensor<16x32x128xf16>, %arg7: tensor<32x1008x128xf16>):
        %10 = tb.input_iterator %arg6 imap <x -> 2, y -> 1> fmap <i -> replica> : tensor<16x32x128xf16> -> !tb.tile<16x1x32xf16>
        %11 = tb.transpose %10 permutation [1, 0, 2] : !tb.tile<16x1x32xf16>
        %12 = tb.input_iterator %arg7 imap <x -> 2, y -> 0> fmap <i -> replica> : tensor<32x1008x128xf16> -> !tb.tile<1x1008x32xf16>
        %13 = tb.concat %12, %11 dim 1 : !tb.tile<1x1008x32xf16>, !tb.tile<1x16x32xf16>
        %14 = tb.output_saver %13 omap <x -> 2, y -> 0> : !tb.tile<1x1024x32xf16> -> tensor<32x1024x128xf16>
        tb.yield %14 : tensor<32x1024x128xf16>
      }
    } : (tensor<16x32x128xf16>, tensor<32x1008x128xf16>) -> tensor<32x1024x128xf16>
    %7 = kn.kernel(%3, %6) {
      tb.graph grid [8, 32] threads 128 forloop 2 {
      ^bb0(%arg6: tensor<16x32x128xf16>, %arg7: tensor<32x1024x128xf16>):
        %10 = tb.input_iterator %arg6 imap <x -> replica, y -> 1> fmap <i -> 2> : tensor<16x32x128xf16> -> !tb.tile<16x1x64xf16>
        %11 = tb.transpose %10 permutation [1, 0, 2] : !tb.tile<16x1x64xf16>
        %12 = tb.input_iterator %arg7 imap <x -> 1, y -> 0> fmap <i -> 2> : tensor<32x1024x128xf16> -> !tb.tile<1x128x64xf16>
        %13 = tb.transpose %12 permutation [0, 2, 1] : !tb.tile<1x128x64xf16>
        %14 = tb.matmul %11, %13 : !tb.tile<1x16x64xf16>, !tb.tile<1x64x128xf16>
        %15 = tb.accum_sum %14 : !tb.tile<1x16x128xf16>
        %16 = tb.mul_scalar %15, 0.088388347648318433 : !tb.tile<1x16x128xf16>
        %17 = tb.exp %16 : !tb.tile<1x16x128xf16>
        %18 = tb.output_saver %17 omap <x -> 2, y -> 0> : !tb.tile<1x16x128xf16> -> tensor<32x16x1024xf16>
        tb.yield %18 : tensor<32x16x1024xf16>
      }
    } : (tensor<16x32x128xf16>, tensor<32x1024x128xf16>) -> tensor<32x16x1024xf16>
    %8:2 = kn.kernel(%5, %arg5, %7) {
      tb.graph grid [4, 32] threads 512 forloop 1 {
      ^bb0(%arg6: tensor<16x32x128xf16>, %arg7: tensor<32x1008x128xf16>, %arg8: tensor<32x16x1024xf16>):
        %10 = tb.input_iterator %arg6 imap <x -> 2, y -> 1> fmap <i -> replica> : tensor<16x32x128xf16> -> !tb.tile<16x1x32xf16>
        %11 = tb.transpose %10 permutation [1, 0, 2] : !tb.tile<16x1x32xf16>
        %12 = tb.input_iterator %arg7 imap <x -> 2, y -> 0> fmap <i -> replica> : tensor<32x1008x128xf16> -> !tb.tile<1x1008x32xf16>
        %13 = tb.concat %12, %11 dim 1 : !tb.tile<1x1008x32xf16>, !tb.tile<1x16x32xf16>
        %14 = tb.input_iterator %arg8 imap <x -> replica, y -> 0> fmap <i -> replica> : tensor<32x16x1024xf16> -> !tb.tile<1x16x1024xf16>
        %15 = tb.reduce_sum %14 dim 2 : !tb.tile<1x16x1024xf16>
        %16 = tb.matmul %14, %13 : !tb.tile<1x16x1024xf16>, !tb.tile<1x1024x32xf16>
        %17 = tb.div %16, %15 : !tb.tile<1x16x32xf16>, !tb.tile<1x16x1xf16>
        %18 = tb.transpose %17 permutation [1, 0, 2] : !tb.tile<1x16x32xf16>
        %19 = tb.output_saver %13 omap <x -> 2, y -> 0> : !tb.tile<1x1024x32xf16> -> tensor<32x1024x128xf16>
        %20 = tb.output_saver %18 omap <x -> 2, y -> 1> : !tb.tile<16x1x32xf16> -> tensor<16x32x128xf16>
        tb.yield %19, %20 : tensor<32x1024x128xf16>, tensor<16x32x128xf16>
      }
    } : (tensor<16x32x128xf16>, tensor<32x1008x128xf16>, tensor<32x16x1024xf16>) -> (tensor<32x1024x128xf16>, tensor<16x32x128xf16>)
    %9 = kn.reshape %8#1 : tensor<16x32x128xf16> -> tensor<16x4096xf16>
    return %9, %6, %8#0 : tensor<16x4096xf16>, tensor<32x1024x128xf16>, tensor<32x1024x128xf16>
  }


  func.func @vanilla_k4t256(%arg0: tensor<16x4096xf16>, %arg1: tensor<4096x4096xf16>, %arg2: tensor<4096x4096xf16>, %arg3: tensor<4096x4096xf16>, %arg4: tensor<32x1008x128xf16>, %arg5: tensor<32x1008x128xf16>) -> (tensor<16x4096xf16>, tensor<32x1024x128xf16>, tensor<32x1024x128xf16>) {
    %0 = kn.kernel(%arg0, %arg1) {
      tb.graph grid [128] threads 128 forloop 4 {
      ^bb0(%arg6: tensor<16x4096xf16>, %arg7: tensor<4096x4096xf16>):
        %10 = tb.input_iterator %arg6 imap <x -> replica> fmap <i -> 1> : tensor<16x4096xf16> -> !tb.tile<16x1024xf16>
        %11 = tb.input_iterator %arg7 imap <x -> 1> fmap <i -> 0> : tensor<4096x4096xf16> -> !tb.tile<1024x32xf16>
        %12 = tb.matmul %10, %11 : !tb.tile<16x1024xf16>, !tb.tile<1024x32xf16>
        %13 = tb.accum_sum %12 : !tb.tile<16x32xf16>
        %14 = tb.mul_scalar %13, 1.562500e-02 : !tb.tile<16x32xf16>
        %15 = tb.output_saver %14 omap <x -> 1> : !tb.tile<16x32xf16> -> tensor<16x4096xf16>
        tb.yield %15 : tensor<16x4096xf16>
      }
    } : (tensor<16x4096xf16>, tensor<4096x4096xf16>) -> tensor<16x4096xf16>
    %1 = kn.kernel(%arg0, %arg2) {
      tb.graph grid [128] threads 128 forloop 4 {
      ^bb0(%arg6: tensor<16x4096xf16>, %arg7: tensor<4096x4096xf16>):
        %10 = tb.input_iterator %arg6 imap <x -> replica> fmap <i -> 1> : tensor<16x4096xf16> -> !tb.tile<16x1024xf16>
        %11 = tb.input_iterator %arg7 imap <x -> 1> fmap <i -> 0> : tensor<4096x4096xf16> -> !tb.tile<1024x32xf16>
        %12 = tb.matmul %10, %11 : !tb.tile<16x1024xf16>, !tb.tile<1024x32xf16>
        %13 = tb.accum_sum %12 : !tb.tile<16x32xf16>
        %14 = tb.mul_scalar %13, 1.562500e-02 : !tb.tile<16x32xf16>
        %15 = tb.output_saver %14 omap <x -> 1> : !tb.tile<16x32xf16> -> tensor<16x4096xf16>
        tb.yield %15 : tensor<16x4096xf16>
      }
    } : (tensor<16x4096xf16>, tensor<4096x4096xf16>) -> tensor<16x4096xf16>
    %2 = kn.kernel(%arg0, %arg3) {
      tb.graph grid [128] threads 128 forloop 4 {
      ^bb0(%arg6: tensor<16x4096xf16>, %arg7: tensor<4096x4096xf16>):
        %10 = tb.input_iterator %arg6 imap <x -> replica> fmap <i -> 1> : tensor<16x4096xf16> -> !tb.tile<16x1024xf16>
        %11 = tb.input_iterator %arg7 imap <x -> 1> fmap <i -> 0> : tensor<4096x4096xf16> -> !tb.tile<1024x32xf16>
        %12 = tb.matmul %10, %11 : !tb.tile<16x1024xf16>, !tb.tile<1024x32xf16>
        %13 = tb.accum_sum %12 : !tb.tile<16x32xf16>
        %14 = tb.mul_scalar %13, 1.562500e-02 : !tb.tile<16x32xf16>
        %15 = tb.output_saver %14 omap <x -> 1> : !tb.tile<16x32xf16> -> tensor<16x4096xf16>
        tb.yield %15 : tensor<16x4096xf16>
      }
    } : (tensor<16x4096xf16>, tensor<4096x4096xf16>) -> tensor<16x4096xf16>
    %3 = kn.reshape %0 : tensor<16x4096xf16> -> tensor<16x32x128xf16>
    %4 = kn.reshape %1 : tensor<16x4096xf16> -> tensor<16x32x128xf16>
    %5 = kn.reshape %2 : tensor<16x4096xf16> -> tensor<16x32x128xf16>
    %6 = kn.kernel(%4, %arg4) {
      tb.graph grid [4, 32] threads 512 forloop 1 {
      ^bb0(%arg6: tensor<16x32x128xf16>, %arg7: tensor<32x1008x128xf16>):
        %10 = tb.input_iterator %arg6 imap <x -> 2, y -> 1> fmap <i -> replica> : tensor<16x32x128xf16> -> !tb.tile<16x1x32xf16>
        %11 = tb.transpose %10 permutation [1, 0, 2] : !tb.tile<16x1x32xf16>
        %12 = tb.input_iterator %arg7 imap <x -> 2, y -> 0> fmap <i -> replica> : tensor<32x1008x128xf16> -> !tb.tile<1x1008x32xf16>
        %13 = tb.concat %12, %11 dim 1 : !tb.tile<1x1008x32xf16>, !tb.tile<1x16x32xf16>
        %14 = tb.output_saver %13 omap <x -> 2, y -> 0> : !tb.tile<1x1024x32xf16> -> tensor<32x1024x128xf16>
        tb.yield %14 : tensor<32x1024x128xf16>
      }
    } : (tensor<16x32x128xf16>, tensor<32x1008x128xf16>) -> tensor<32x1024x128xf16>
    %7 = kn.kernel(%3, %6) {
      tb.graph grid [8, 32] threads 256 forloop 2 {
      ^bb0(%arg6: tensor<16x32x128xf16>, %arg7: tensor<32x1024x128xf16>):
        %10 = tb.input_iterator %arg6 imap <x -> replica, y -> 1> fmap <i -> 2> : tensor<16x32x128xf16> -> !tb.tile<16x1x64xf16>
        %11 = tb.transpose %10 permutation [1, 0, 2] : !tb.tile<16x1x64xf16>
        %12 = tb.input_iterator %arg7 imap <x -> 1, y -> 0> fmap <i -> 2> : tensor<32x1024x128xf16> -> !tb.tile<1x128x64xf16>
        %13 = tb.transpose %12 permutation [0, 2, 1] : !tb.tile<1x128x64xf16>
        %14 = tb.matmul %11, %13 : !tb.tile<1x16x64xf16>, !tb.tile<1x64x128xf16>
        %15 = tb.accum_sum %14 : !tb.tile<1x16x128xf16>
        %16 = tb.mul_scalar %15, 0.088388347648318433 : !tb.tile<1x16x128xf16>
        %17 = tb.exp %16 : !tb.tile<1x16x128xf16>
        %18 = tb.output_saver %17 omap <x -> 2, y -> 0> : !tb.tile<1x16x128xf16> -> tensor<32x16x1024xf16>
        tb.yield %18 : tensor<32x16x1024xf16>
      }
    } : (tensor<16x32x128xf16>, tensor<32x1024x128xf16>) -> tensor<32x16x1024xf16>
    %8:2 = kn.kernel(%5, %arg5, %7) {
      tb.graph grid [4, 32] threads 128 forloop 1 {
      ^bb0(%arg6: tensor<16x32x128xf16>, %arg7: tensor<32x1008x128xf16>, %arg8: tensor<32x16x1024xf16>):
        %10 = tb.input_iterator %arg6 imap <x -> 2, y -> 1> fmap <i -> replica> : tensor<16x32x128xf16> -> !tb.tile<16x1x32xf16>
        %11 = tb.transpose %10 permutation [1, 0, 2] : !tb.tile<16x1x32xf16>
        %12 = tb.input_iterator %arg7 imap <x -> 2, y -> 0> fmap <i -> replica> : tensor<32x1008x128xf16> -> !tb.tile<1x1008x32xf16>
        %13 = tb.concat %12, %11 dim 1 : !tb.tile<1x1008x32xf16>, !tb.tile<1x16x32xf16>
        %14 = tb.input_iterator %arg8 imap <x -> replica, y -> 0> fmap <i -> replica> : tensor<32x16x1024xf16> -> !tb.tile<1x16x1024xf16>
        %15 = tb.reduce_sum %14 dim 2 : !tb.tile<1x16x1024xf16>
        %16 = tb.matmul %14, %13 : !tb.tile<1x16x1024xf16>, !tb.tile<1x1024x32xf16>
        %17 = tb.div %16, %15 : !tb.tile<1x16x32xf16>, !tb.tile<1x16x1xf16>
        %18 = tb.transpose %17 permutation [1, 0, 2] : !tb.tile<1x16x32xf16>
        %19 = tb.output_saver %13 omap <x -> 2, y -> 0> : !tb.tile<1x1024x32xf16> -> tensor<32x1024x128xf16>
        %20 = tb.output_saver %18 omap <x -> 2, y -> 1> : !tb.tile<16x1x32xf16> -> tensor<16x32x128xf16>
        tb.yield %19, %20 : tensor<32x1024x128xf16>, tensor<16x32x128xf16>
      }
    } : (tensor<16x32x128xf16>, tensor<32x1008x128xf16>, tensor<32x16x1024xf16>) -> (tensor<32x1024x128xf16>, tensor<16x32x128xf16>)
    %9 = kn.reshape %8#1 : tensor<16x32x128xf16> -> tensor<16x4096xf16>
    return %9, %6, %8#0 : tensor<16x4096xf16>, tensor<32x1024x128xf16>, tensor<32x1024x128xf16>
  }


  func.func @vanilla_k3t1024(%arg0: tensor<16x4096xf16>, %arg1: tensor<4096x4096xf16>, %arg2: tensor<4096x4096xf16>, %arg3: tensor<4096x4096xf16>, %arg4: tensor<32x1008x128xf16>, %arg5: tensor<32x1008x128xf16>) -> (tensor<16x4096xf16>, tensor<32x1024x128xf16>, tensor<32x1024x128xf16>) {
    %0 = kn.kernel(%arg0, %arg1) {
      tb.graph grid [128] threads 128 forloop 4 {
      ^bb0(%arg6: tensor<16x4096xf16>, %arg7: tensor<4096x4096xf16>):
        %10 = tb.input_iterator %arg6 imap <x -> replica> fmap <i -> 1> : tensor<16x4096xf16> -> !tb.tile<16x1024xf16>
        %11 = tb.input_iterator %arg7 imap <x -> 1> fmap <i -> 0> : tensor<4096x4096xf16> -> !tb.tile<1024x32xf16>
        %12 = tb.matmul %10, %11 : !tb.tile<16x1024xf16>, !tb.tile<1024x32xf16>
        %13 = tb.accum_sum %12 : !tb.tile<16x32xf16>
        %14 = tb.mul_scalar %13, 1.562500e-02 : !tb.tile<16x32xf16>
        %15 = tb.output_saver %14 omap <x -> 1> : !tb.tile<16x32xf16> -> tensor<16x4096xf16>
        tb.yield %15 : tensor<16x4096xf16>
      }
    } : (tensor<16x4096xf16>, tensor<4096x4096xf16>) -> tensor<16x4096xf16>
    %1 = kn.kernel(%arg0, %arg2) {
      tb.graph grid [128] threads 128 forloop 4 {
      ^bb0(%arg6: tensor<16x4096xf16>, %arg7: tensor<4096x4096xf16>):
        %10 = tb.input_iterator %arg6 imap <x -> replica> fmap <i -> 1> : tensor<16x4096xf16> -> !tb.tile<16x1024xf16>
        %11 = tb.input_iterator %arg7 imap <x -> 1> fmap <i -> 0> : tensor<4096x4096xf16> -> !tb.tile<1024x32xf16>
        %12 = tb.matmul %10, %11 : !tb.tile<16x1024xf16>, !tb.tile<1024x32xf16>
        %13 = tb.accum_sum %12 : !tb.tile<16x32xf16>
        %14 = tb.mul_scalar %13, 1.562500e-02 : !tb.tile<16x32xf16>
        %15 = tb.output_saver %14 omap <x -> 1> : !tb.tile<16x32xf16> -> tensor<16x4096xf16>
        tb.yield %15 : tensor<16x4096xf16>
      }
    } : (tensor<16x4096xf16>, tensor<4096x4096xf16>) -> tensor<16x4096xf16>
    %2 = kn.kernel(%arg0, %arg3) {
      tb.graph grid [128] threads 128 forloop 4 {
      ^bb0(%arg6: tensor<16x4096xf16>, %arg7: tensor<4096x4096xf16>):
        %10 = tb.input_iterator %arg6 imap <x -> replica> fmap <i -> 1> : tensor<16x4096xf16> -> !tb.tile<16x1024xf16>
        %11 = tb.input_iterator %arg7 imap <x -> 1> fmap <i -> 0> : tensor<4096x4096xf16> -> !tb.tile<1024x32xf16>
        %12 = tb.matmul %10, %11 : !tb.tile<16x1024xf16>, !tb.tile<1024x32xf16>
        %13 = tb.accum_sum %12 : !tb.tile<16x32xf16>
        %14 = tb.mul_scalar %13, 1.562500e-02 : !tb.tile<16x32xf16>
        %15 = tb.output_saver %14 omap <x -> 1> : !tb.tile<16x32xf16> -> tensor<16x4096xf16>
        tb.yield %15 : tensor<16x4096xf16>
      }
    } : (tensor<16x4096xf16>, tensor<4096x4096xf16>) -> tensor<16x4096xf16>
    %3 = kn.reshape %0 : tensor<16x4096xf16> -> tensor<16x32x128xf16>
    %4 = kn.reshape %1 : tensor<16x4096xf16> -> tensor<16x32x128xf16>
    %5 = kn.reshape %2 : tensor<16x4096xf16> -> tensor<16x32x128xf16>
    %6 = kn.kernel(%4, %arg4) {
      tb.graph grid [4, 32] threads 1024 forloop 1 {
      ^bb0(%arg6: tensor<16x32x128xf16>, %arg7: tensor<32x1008x128xf16>):
        %10 = tb.input_iterator %arg6 imap <x -> 2, y -> 1> fmap <i -> replica> : tensor<16x32x128xf16> -> !tb.tile<16x1x32xf16>
        %11 = tb.transpose %10 permutation [1, 0, 2] : !tb.tile<16x1x32xf16>
        %12 = tb.input_iterator %arg7 imap <x -> 2, y -> 0> fmap <i -> replica> : tensor<32x1008x128xf16> -> !tb.tile<1x1008x32xf16>
        %13 = tb.concat %12, %11 dim 1 : !tb.tile<1x1008x32xf16>, !tb.tile<1x16x32xf16>
        %14 = tb.output_saver %13 omap <x -> 2, y -> 0> : !tb.tile<1x1024x32xf16> -> tensor<32x1024x128xf16>
        tb.yield %14 : tensor<32x1024x128xf16>
      }
    } : (tensor<16x32x128xf16>, tensor<32x1008x128xf16>) -> tensor<32x1024x128xf16>
    %7 = kn.kernel(%3, %6) {
      tb.graph grid [8, 32] threads 128 forloop 2 {
      ^bb0(%arg6: tensor<16x32x128xf16>, %arg7: tensor<32x1024x128xf16>):
        %10 = tb.input_iterator %arg6 imap <x -> replica, y -> 1> fmap <i -> 2> : tensor<16x32x128xf16> -> !tb.tile<16x1x64xf16>
        %11 = tb.transpose %10 permutation [1, 0, 2] : !tb.tile<16x1x64xf16>
        %12 = tb.input_iterator %arg7 imap <x -> 1, y -> 0> fmap <i -> 2> : tensor<32x1024x128xf16> -> !tb.tile<1x128x64xf16>
        %13 = tb.transpose %12 permutation [0, 2, 1] : !tb.tile<1x128x64xf16>
        %14 = tb.matmul %11, %13 : !tb.tile<1x16x64xf16>, !tb.tile<1x64x128xf16>
        %15 = tb.accum_sum %14 : !tb.tile<1x16x128xf16>
        %16 = tb.mul_scalar %15, 0.088388347648318433 : !tb.tile<1x16x128xf16>
        %17 = tb.exp %16 : !tb.tile<1x16x128xf16>
        %18 = tb.output_saver %17 omap <x -> 2, y -> 0> : !tb.tile<1x16x128xf16> -> tensor<32x16x1024xf16>
        tb.yield %18 : tensor<32x16x1024xf16>
      }
    } : (tensor<16x32x128xf16>, tensor<32x1024x128xf16>) -> tensor<32x16x1024xf16>
    %8:2 = kn.kernel(%5, %arg5, %7) {
      tb.graph grid [4, 32] threads 128 forloop 1 {
      ^bb0(%arg6: tensor<16x32x128xf16>, %arg7: tensor<32x1008x128xf16>, %arg8: tensor<32x16x1024xf16>):
        %10 = tb.input_iterator %arg6 imap <x -> 2, y -> 1> fmap <i -> replica> : tensor<16x32x128xf16> -> !tb.tile<16x1x32xf16>
        %11 = tb.transpose %10 permutation [1, 0, 2] : !tb.tile<16x1x32xf16>
        %12 = tb.input_iterator %arg7 imap <x -> 2, y -> 0> fmap <i -> replica> : tensor<32x1008x128xf16> -> !tb.tile<1x1008x32xf16>
        %13 = tb.concat %12, %11 dim 1 : !tb.tile<1x1008x32xf16>, !tb.tile<1x16x32xf16>
        %14 = tb.input_iterator %arg8 imap <x -> replica, y -> 0> fmap <i -> replica> : tensor<32x16x1024xf16> -> !tb.tile<1x16x1024xf16>
        %15 = tb.reduce_sum %14 dim 2 : !tb.tile<1x16x1024xf16>
        %16 = tb.matmul %14, %13 : !tb.tile<1x16x1024xf16>, !tb.tile<1x1024x32xf16>
        %17 = tb.div %16, %15 : !tb.tile<1x16x32xf16>, !tb.tile<1x16x1xf16>
        %18 = tb.transpose %17 permutation [1, 0, 2] : !tb.tile<1x16x32xf16>
        %19 = tb.output_saver %13 omap <x -> 2, y -> 0> : !tb.tile<1x1024x32xf16> -> tensor<32x1024x128xf16>
        %20 = tb.output_saver %18 omap <x -> 2, y -> 1> : !tb.tile<16x1x32xf16> -> tensor<16x32x128xf16>
        tb.yield %19, %20 : tensor<32x1024x128xf16>, tensor<16x32x128xf16>
      }
    } : (tensor<16x32x128xf16>, tensor<32x1008x128xf16>, tensor<32x16x1024xf16>) -> (tensor<32x1024x128xf16>, tensor<16x32x128xf16>)
    %9 = kn.reshape %8#1 : tensor<16x32x128xf16> -> tensor<16x4096xf16>
    return %9, %6, %8#0 : tensor<16x4096xf16>, tensor<32x1024x128xf16>, tensor<32x1024x128xf16>
  }


  func.func @vanilla_all(%arg0: tensor<16x4096xf16>, %arg1: tensor<4096x4096xf16>, %arg2: tensor<4096x4096xf16>, %arg3: tensor<4096x4096xf16>, %arg4: tensor<32x1008x128xf16>, %arg5: tensor<32x1008x128xf16>) -> (tensor<16x4096xf16>, tensor<32x1024x128xf16>, tensor<32x1024x128xf16>) {
    %0 = kn.kernel(%arg0, %arg1) {
      tb.graph grid [128] threads 128 forloop 4 {
      ^bb0(%arg6: tensor<16x4096xf16>, %arg7: tensor<4096x4096xf16>):
        %10 = tb.input_iterator %arg6 imap <x -> replica> fmap <i -> 1> : tensor<16x4096xf16> -> !tb.tile<16x1024xf16>
        %11 = tb.input_iterator %arg7 imap <x -> 1> fmap <i -> 0> : tensor<4096x4096xf16> -> !tb.tile<1024x32xf16>
        %12 = tb.matmul %10, %11 : !tb.tile<16x1024xf16>, !tb.tile<1024x32xf16>
        %13 = tb.accum_sum %12 : !tb.tile<16x32xf16>
        %14 = tb.mul_scalar %13, 1.562500e-02 : !tb.tile<16x32xf16>
        %15 = tb.output_saver %14 omap <x -> 1> : !tb.tile<16x32xf16> -> tensor<16x4096xf16>
        tb.yield %15 : tensor<16x4096xf16>
      }
    } : (tensor<16x4096xf16>, tensor<4096x4096xf16>) -> tensor<16x4096xf16>
    %1 = kn.kernel(%arg0, %arg2) {
      tb.graph grid [128] threads 128 forloop 4 {
      ^bb0(%arg6: tensor<16x4096xf16>, %arg7: tensor<4096x4096xf16>):
        %10 = tb.input_iterator %arg6 imap <x -> replica> fmap <i -> 1> : tensor<16x4096xf16> -> !tb.tile<16x1024xf16>
        %11 = tb.input_iterator %arg7 imap <x -> 1> fmap <i -> 0> : tensor<4096x4096xf16> -> !tb.tile<1024x32xf16>
        %12 = tb.matmul %10, %11 : !tb.tile<16x1024xf16>, !tb.tile<1024x32xf16>
        %13 = tb.accum_sum %12 : !tb.tile<16x32xf16>
        %14 = tb.mul_scalar %13, 1.562500e-02 : !tb.tile<16x32xf16>
        %15 = tb.output_saver %14 omap <x -> 1> : !tb.tile<16x32xf16> -> tensor<16x4096xf16>
        tb.yield %15 : tensor<16x4096xf16>
      }
    } : (tensor<16x4096xf16>, tensor<4096x4096xf16>) -> tensor<16x4096xf16>
    %2 = kn.kernel(%arg0, %arg3) {
      tb.graph grid [128] threads 128 forloop 4 {
      ^bb0(%arg6: tensor<16x4096xf16>, %arg7: tensor<4096x4096xf16>):
        %10 = tb.input_iterator %arg6 imap <x -> replica> fmap <i -> 1> : tensor<16x4096xf16> -> !tb.tile<16x1024xf16>
        %11 = tb.input_iterator %arg7 imap <x -> 1> fmap <i -> 0> : tensor<4096x4096xf16> -> !tb.tile<1024x32xf16>
        %12 = tb.matmul %10, %11 : !tb.tile<16x1024xf16>, !tb.tile<1024x32xf16>
        %13 = tb.accum_sum %12 : !tb.tile<16x32xf16>
        %14 = tb.mul_scalar %13, 1.562500e-02 : !tb.tile<16x32xf16>
        %15 = tb.output_saver %14 omap <x -> 1> : !tb.tile<16x32xf16> -> tensor<16x4096xf16>
        tb.yield %15 : tensor<16x4096xf16>
      }
    } : (tensor<16x4096xf16>, tensor<4096x4096xf16>) -> tensor<16x4096xf16>
    %3 = kn.reshape %0 : tensor<16x4096xf16> -> tensor<16x32x128xf16>
    %4 = kn.reshape %1 : tensor<16x4096xf16> -> tensor<16x32x128xf16>
    %5 = kn.reshape %2 : tensor<16x4096xf16> -> tensor<16x32x128xf16>
    %6 = kn.kernel(%4, %arg4) {
      tb.graph grid [4, 32] threads 1024 forloop 1 {
      ^bb0(%arg6: tensor<16x32x128xf16>, %arg7: tensor<32x1008x128xf16>):
        %10 = tb.input_iterator %arg6 imap <x -> 2, y -> 1> fmap <i -> replica> : tensor<16x32x128xf16> -> !tb.tile<16x1x32xf16>
        %11 = tb.transpose %10 permutation [1, 0, 2] : !tb.tile<16x1x32xf16>
        %12 = tb.input_iterator %arg7 imap <x -> 2, y -> 0> fmap <i -> replica> : tensor<32x1008x128xf16> -> !tb.tile<1x1008x32xf16>
        %13 = tb.concat %12, %11 dim 1 : !tb.tile<1x1008x32xf16>, !tb.tile<1x16x32xf16>
        %14 = tb.output_saver %13 omap <x -> 2, y -> 0> : !tb.tile<1x1024x32xf16> -> tensor<32x1024x128xf16>
        tb.yield %14 : tensor<32x1024x128xf16>
      }
    } : (tensor<16x32x128xf16>, tensor<32x1008x128xf16>) -> tensor<32x1024x128xf16>
    %7 = kn.kernel(%3, %6) {
      tb.graph grid [8, 32] threads 256 forloop 2 {
      ^bb0(%arg6: tensor<16x32x128xf16>, %arg7: tensor<32x1024x128xf16>):
        %10 = tb.input_iterator %arg6 imap <x -> replica, y -> 1> fmap <i -> 2> : tensor<16x32x128xf16> -> !tb.tile<16x1x64xf16>
        %11 = tb.transpose %10 permutation [1, 0, 2] : !tb.tile<16x1x64xf16>
        %12 = tb.input_iterator %arg7 imap <x -> 1, y -> 0> fmap <i -> 2> : tensor<32x1024x128xf16> -> !tb.tile<1x128x64xf16>
        %13 = tb.transpose %12 permutation [0, 2, 1] : !tb.tile<1x128x64xf16>
        %14 = tb.matmul %11, %13 : !tb.tile<1x16x64xf16>, !tb.tile<1x64x128xf16>
        %15 = tb.accum_sum %14 : !tb.tile<1x16x128xf16>
        %16 = tb.mul_scalar %15, 0.088388347648318433 : !tb.tile<1x16x128xf16>
        %17 = tb.exp %16 : !tb.tile<1x16x128xf16>
        %18 = tb.output_saver %17 omap <x -> 2, y -> 0> : !tb.tile<1x16x128xf16> -> tensor<32x16x1024xf16>
        tb.yield %18 : tensor<32x16x1024xf16>
      }
    } : (tensor<16x32x128xf16>, tensor<32x1024x128xf16>) -> tensor<32x16x1024xf16>
    %8:2 = kn.kernel(%5, %arg5, %7) {
      tb.graph grid [4, 32] threads 512 forloop 1 {
      ^bb0(%arg6: tensor<16x32x128xf16>, %arg7: tensor<32x1008x128xf16>, %arg8: tensor<32x16x1024xf16>):
        %10 = tb.input_iterator %arg6 imap <x -> 2, y -> 1> fmap <i -> replica> : tensor<16x32x128xf16> -> !tb.tile<16x1x32xf16>
        %11 = tb.transpose %10 permutation [1, 0, 2] : !tb.tile<16x1x32xf16>
        %12 = tb.input_iterator %arg7 imap <x -> 2, y -> 0> fmap <i -> replica> : tensor<32x1008x128xf16> -> !tb.tile<1x1008x32xf16>
        %13 = tb.concat %12, %11 dim 1 : !tb.tile<1x1008x32xf16>, !tb.tile<1x16x32xf16>
        %14 = tb.input_iterator %arg8 imap <x -> replica, y -> 0> fmap <i -> replica> : tensor<32x16x1024xf16> -> !tb.tile<1x16x1024xf16>
        %15 = tb.reduce_sum %14 dim 2 : !tb.tile<1x16x1024xf16>
        %16 = tb.matmul %14, %13 : !tb.tile<1x16x1024xf16>, !tb.tile<1x1024x32xf16>
        %17 = tb.div %16, %15 : !tb.tile<1x16x32xf16>, !tb.tile<1x16x1xf16>
        %18 = tb.transpose %17 permutation [1, 0, 2] : !tb.tile<1x16x32xf16>
        %19 = tb.output_saver %13 omap <x -> 2, y -> 0> : !tb.tile<1x1024x32xf16> -> tensor<32x1024x128xf16>
        %20 = tb.output_saver %18 omap <x -> 2, y -> 1> : !tb.tile<16x1x32xf16> -> tensor<16x32x128xf16>
        tb.yield %19, %20 : tensor<32x1024x128xf16>, tensor<16x32x128xf16>
      }
    } : (tensor<16x32x128xf16>, tensor<32x1008x128xf16>, tensor<32x16x1024xf16>) -> (tensor<32x1024x128xf16>, tensor<16x32x128xf16>)
    %9 = kn.reshape %8#1 : tensor<16x32x128xf16> -> tensor<16x4096xf16>
    return %9, %6, %8#0 : tensor<16x4096xf16>, tensor<32x1024x128xf16>, tensor<32x1024x128xf16>
  }
