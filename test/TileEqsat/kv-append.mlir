// An attention block whose KV-cache append is too large for one block's
// shared memory: 2 heads of 128, 16 new tokens on a 1008-token cache (a head's
// appended cache, 1024 x 128 in f16, is 256 KiB). The pass splits the append
// off into kernels of its own, kn.concat (which the default block graphs tile
// along the head dim), so the candidates build, and the chosen one is proven
// equivalent: the QKV projection (writing the new keys and values per head),
// the two appends, then the attention walking the keys.
// RUN: mirage-opt %s --mlir-print-op-on-diagnostic=false --mirage-tile-eqsat="max-built=4 baseline=program" -o %t.mlir 2>&1 | FileCheck %s
// RUN: FileCheck %s --input-file=%t.mlir --check-prefix=IR
// The chosen kernels lower per operator (the appends get default block graphs).
// RUN: mirage-opt %t.mlir --mirage-to-ptx -o /dev/null

// CHECK: remark: @attention:
// CHECK-SAME: not expressible as block graphs: kernel 1: a kernel has two sequential loops
// CHECK-SAME: chose #1: 4 kernels
// CHECK-SAME: proven (false-accept probability

// IR: func.func @attention(%[[X:.*]]: tensor<16x256xf16>, %{{.*}}: tensor<256x256xf16>, %{{.*}}: tensor<256x256xf16>, %{{.*}}: tensor<256x256xf16>, %[[KC:.*]]: tensor<2x1008x128xf16>, %[[VC:.*]]: tensor<2x1008x128xf16>)
// IR: %[[HEADS:.*]]:3 = kn.kernel
// IR: %[[K:.*]] = kn.concat %[[KC]], %[[HEADS]]#{{[0-9]}} dim 1 : tensor<2x1008x128xf16>, tensor<2x16x128xf16>
// IR: %[[V:.*]] = kn.concat %[[VC]], %[[HEADS]]#{{[0-9]}} dim 1 : tensor<2x1008x128xf16>, tensor<2x16x128xf16>
// IR: %[[OUT:.*]] = kn.kernel
// IR-NOT: tb.concat
// IR: return %[[OUT]], %[[K]], %[[V]]
func.func @attention(%x: tensor<16x256xf16>, %wq: tensor<256x256xf16>, %wk: tensor<256x256xf16>, %wv: tensor<256x256xf16>, %k_cache: tensor<2x1008x128xf16>, %v_cache: tensor<2x1008x128xf16>)
    -> (tensor<16x256xf16>, tensor<2x1024x128xf16>, tensor<2x1024x128xf16>) {
  %q_proj = kn.matmul %x, %wq : tensor<16x256xf16>, tensor<256x256xf16>
  %k_proj = kn.matmul %x, %wk : tensor<16x256xf16>, tensor<256x256xf16>
  %v_proj = kn.matmul %x, %wv : tensor<16x256xf16>, tensor<256x256xf16>
  %q_scaled = kn.mul_scalar %q_proj, 0.0625 : tensor<16x256xf16>
  %k_scaled = kn.mul_scalar %k_proj, 0.0625 : tensor<16x256xf16>
  %v_scaled = kn.mul_scalar %v_proj, 0.0625 : tensor<16x256xf16>
  %q_split = kn.reshape %q_scaled : tensor<16x256xf16> -> tensor<16x2x128xf16>
  %k_split = kn.reshape %k_scaled : tensor<16x256xf16> -> tensor<16x2x128xf16>
  %v_split = kn.reshape %v_scaled : tensor<16x256xf16> -> tensor<16x2x128xf16>
  %q_heads = kn.transpose %q_split permutation [1, 0, 2] : tensor<16x2x128xf16>
  %k_heads = kn.transpose %k_split permutation [1, 0, 2] : tensor<16x2x128xf16>
  %v_heads = kn.transpose %v_split permutation [1, 0, 2] : tensor<16x2x128xf16>
  %k_all = kn.concat %k_cache, %k_heads dim 1 : tensor<2x1008x128xf16>, tensor<2x16x128xf16>
  %v_all = kn.concat %v_cache, %v_heads dim 1 : tensor<2x1008x128xf16>, tensor<2x16x128xf16>
  %k_t = kn.transpose %k_all permutation [0, 2, 1] : tensor<2x1024x128xf16>
  %scores = kn.matmul %q_heads, %k_t : tensor<2x16x128xf16>, tensor<2x128x1024xf16>
  %scores_scaled = kn.mul_scalar %scores, 0.08838834764831843 : tensor<2x16x1024xf16>
  %scores_exp = kn.exp %scores_scaled : tensor<2x16x1024xf16>
  %scores_sum = kn.reduce_sum %scores_exp dim 2 : tensor<2x16x1024xf16>
  %probs = kn.div %scores_exp, %scores_sum : tensor<2x16x1024xf16>, tensor<2x16x1xf16>
  %attn = kn.matmul %probs, %v_all : tensor<2x16x1024xf16>, tensor<2x1024x128xf16>
  %attn_tokens = kn.transpose %attn permutation [1, 0, 2] : tensor<2x16x128xf16>
  %out = kn.reshape %attn_tokens : tensor<16x2x128xf16> -> tensor<16x256xf16>
  return %out, %k_all, %v_all : tensor<16x256xf16>, tensor<2x1024x128xf16>, tensor<2x1024x128xf16>
}
