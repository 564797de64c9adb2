// Every kn op the GPU lowering takes, over the element type ELT, which the
// tests element-types.mlir and element-types-cubin.mlir replace with f16,
// bf16 and f32 (the element types of kn, tb and th) before lowering.
// Shapes follow the default block graphs: matmuls with one k step and with a
// k loop (register sums), batched; elementwise ops with broadcasts;
// reductions over a for-loop; rms_norm with and without a weight; data
// movement (reshape stays a view on the host). sqrt and pow take squares,
// so that the programs compute finite values and can be run on a GPU.

func.func @matmul(%x: tensor<16x64xELT>, %w: tensor<64x64xELT>) -> tensor<16x64xELT> {
  %y = kn.matmul %x, %w : tensor<16x64xELT>, tensor<64x64xELT>
  return %y : tensor<16x64xELT>
}

func.func @matmul_loop(%x: tensor<64x1024xELT>, %w: tensor<1024x128xELT>) -> tensor<64x128xELT> {
  %y = kn.matmul %x, %w : tensor<64x1024xELT>, tensor<1024x128xELT>
  return %y : tensor<64x128xELT>
}

func.func @matmul_batched(%q: tensor<2x32x64xELT>, %k: tensor<2x64x128xELT>) -> tensor<2x32x128xELT> {
  %s = kn.matmul %q, %k : tensor<2x32x64xELT>, tensor<2x64x128xELT>
  return %s : tensor<2x32x128xELT>
}

func.func @unary(%x: tensor<16x64xELT>) -> (tensor<16x64xELT>, tensor<16x64xELT>, tensor<16x64xELT>, tensor<16x64xELT>, tensor<16x64xELT>, tensor<16x64xELT>, tensor<16x64xELT>, tensor<16x64xELT>, tensor<16x64xELT>, tensor<16x64xELT>, tensor<16x64xELT>, tensor<16x64xELT>) {
  %a = kn.exp %x : tensor<16x64xELT>
  %c = kn.square %x : tensor<16x64xELT>
  %b = kn.sqrt %c : tensor<16x64xELT>
  %d = kn.silu %x : tensor<16x64xELT>
  %e = kn.sigmoid %x : tensor<16x64xELT>
  %f = kn.gelu %x : tensor<16x64xELT>
  %g = kn.relu %x : tensor<16x64xELT>
  %h = kn.neg %x : tensor<16x64xELT>
  %i = kn.mul_scalar %x, 0.125 : tensor<16x64xELT>
  %j = kn.add_scalar %x, 1.0e-6 : tensor<16x64xELT>
  %k = kn.tanh %x : tensor<16x64xELT>
  %l = kn.rsqrt %c : tensor<16x64xELT>
  return %a, %b, %c, %d, %e, %f, %g, %h, %i, %j, %k, %l : tensor<16x64xELT>, tensor<16x64xELT>, tensor<16x64xELT>, tensor<16x64xELT>, tensor<16x64xELT>, tensor<16x64xELT>, tensor<16x64xELT>, tensor<16x64xELT>, tensor<16x64xELT>, tensor<16x64xELT>, tensor<16x64xELT>, tensor<16x64xELT>
}

func.func @binary(%x: tensor<16x64xELT>, %r: tensor<16x1xELT>, %c: tensor<64xELT>) -> (tensor<16x64xELT>, tensor<16x64xELT>, tensor<16x64xELT>, tensor<16x64xELT>, tensor<16x64xELT>, tensor<16x64xELT>) {
  %a = kn.add %x, %r : tensor<16x64xELT>, tensor<16x1xELT>
  %b = kn.sub %x, %c : tensor<16x64xELT>, tensor<64xELT>
  %m = kn.mul %x, %x : tensor<16x64xELT>, tensor<16x64xELT>
  %d = kn.div %x, %r : tensor<16x64xELT>, tensor<16x1xELT>
  %p = kn.pow %m, %c : tensor<16x64xELT>, tensor<64xELT>
  %q = kn.maximum %x, %r : tensor<16x64xELT>, tensor<16x1xELT>
  return %a, %b, %m, %d, %p, %q : tensor<16x64xELT>, tensor<16x64xELT>, tensor<16x64xELT>, tensor<16x64xELT>, tensor<16x64xELT>, tensor<16x64xELT>
}

func.func @reduce(%x: tensor<16x4096xELT>) -> (tensor<16x1xELT>, tensor<16xELT>) {
  %s = kn.reduce_sum %x dim 1 : tensor<16x4096xELT>
  %m = kn.reduce_max %x dim 1 keepdim = false : tensor<16x4096xELT>
  return %s, %m : tensor<16x1xELT>, tensor<16xELT>
}

func.func @rms_norm(%x: tensor<16x4096xELT>, %g: tensor<4096xELT>) -> (tensor<16x4096xELT>, tensor<16x4096xELT>) {
  %a = kn.rms_norm %x weight %g : tensor<16x4096xELT>, tensor<4096xELT>
  %b = kn.rms_norm %x {eps = 1.0e-6 : f64} : tensor<16x4096xELT>
  return %a, %b : tensor<16x4096xELT>, tensor<16x4096xELT>
}

func.func @data_movement(%w: tensor<256x64xELT>, %b: tensor<16x64xELT>) -> (tensor<272x64xELT>, tensor<256x64xELT>, tensor<64x256xELT>, tensor<16384xELT>) {
  %c = kn.concat %w, %b dim 0 : tensor<256x64xELT>, tensor<16x64xELT>
  %s:2 = kn.split %c dim 0 sizes [256, 16] : tensor<272x64xELT>
  %t = kn.transpose %w permutation [1, 0] : tensor<256x64xELT>
  %r = kn.reshape %w : tensor<256x64xELT> -> tensor<16384xELT>
  return %c, %s#0, %t, %r : tensor<272x64xELT>, tensor<256x64xELT>, tensor<64x256xELT>, tensor<16384xELT>
}
