
func.func @vanilla(%x: tensor<16x512xf16>, %wq: tensor<512x512xf16>, %wk: tensor<512x512xf16>, %wv: tensor<512x512xf16>, %k_cache: tensor<4x1008x128xf16>, %v_cache: tensor<4x1008x128xf16>)
    -> (tensor<16x512xf16>, tensor<4x1024x128xf16>, tensor<4x1024x128xf16>) {
  %q_proj = kn.matmul %x, %wq : tensor<16x512xf16>, tensor<512x512xf16>
  %k_proj = kn.matmul %x, %wk : tensor<16x512xf16>, tensor<512x512xf16>
  %v_proj = kn.matmul %x, %wv : tensor<16x512xf16>, tensor<512x512xf16>
  %q_scaled = kn.mul_scalar %q_proj, 0.015625 : tensor<16x512xf16>
  %k_scaled = kn.mul_scalar %k_proj, 0.015625 : tensor<16x512xf16>
  %v_scaled = kn.mul_scalar %v_proj, 0.015625 : tensor<16x512xf16>
  %q_split = kn.reshape %q_scaled : tensor<16x512xf16> -> tensor<16x4x128xf16>
  %k_split = kn.reshape %k_scaled : tensor<16x512xf16> -> tensor<16x4x128xf16>
  %v_split = kn.reshape %v_scaled : tensor<16x512xf16> -> tensor<16x4x128xf16>
  %q_heads = kn.transpose %q_split permutation [1, 0, 2] : tensor<16x4x128xf16>
  %k_heads = kn.transpose %k_split permutation [1, 0, 2] : tensor<16x4x128xf16>
  %v_heads = kn.transpose %v_split permutation [1, 0, 2] : tensor<16x4x128xf16>
  %k_all = kn.concat %k_cache, %k_heads dim 1 : tensor<4x1008x128xf16>, tensor<4x16x128xf16>
  %v_all = kn.concat %v_cache, %v_heads dim 1 : tensor<4x1008x128xf16>, tensor<4x16x128xf16>
  %k_t = kn.transpose %k_all permutation [0, 2, 1] : tensor<4x1024x128xf16>
  %scores = kn.matmul %q_heads, %k_t : tensor<4x16x128xf16>, tensor<4x128x1024xf16>
  %scores_scaled = kn.mul_scalar %scores, 0.08838834764831843 : tensor<4x16x1024xf16>
  %scores_exp = kn.exp %scores_scaled : tensor<4x16x1024xf16>
  %scores_sum = kn.reduce_sum %scores_exp dim 2 : tensor<4x16x1024xf16>
  %probs = kn.div %scores_exp, %scores_sum : tensor<4x16x1024xf16>, tensor<4x16x1xf16>
  %attn = kn.matmul %probs, %v_all : tensor<4x16x1024xf16>, tensor<4x1024x128xf16>
  %attn_tokens = kn.transpose %attn permutation [1, 0, 2] : tensor<4x16x128xf16>
  %out = kn.reshape %attn_tokens : tensor<16x4x128xf16> -> tensor<16x512xf16>
  return %out, %k_all, %v_all : tensor<16x512xf16>, tensor<4x1024x128xf16>, tensor<4x1024x128xf16>
}
