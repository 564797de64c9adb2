# Decode-shaped matmuls with explicit plans: BN output columns per block,
# BK of k per loop step, T threads. gated_mlp_bs1's fused kernel (both
# weights streamed by one block, SiLU(x W1) * (x W2) stored) and
# rmsnorm_linear_bs1's Linear (x [2, 4096] @ W [4096, 6144]).
def t(*s): return "tensor<" + "x".join(map(str, s)) + "xf16>"
def tile(*s): return "!tb.tile<" + "x".join(map(str, s)) + "xf16>"
out = []
M, K, N = 8, 4096, 4096
for BN, BK, T in [(32, 512, 128), (32, 256, 128), (32, 128, 128), (32, 64, 128),
                  (16, 256, 128), (16, 128, 128), (32, 256, 256), (64, 128, 128)]:
    fn = f"gated_n{BN}_k{BK}_t{T}"
    out.append(f"""func.func @{fn}(%x: {t(M,K)}, %w1: {t(K,N)}, %w2: {t(K,N)}) -> {t(M,N)} {{
  %y = kn.kernel(%x, %w1, %w2) {{
    tb.graph grid [{N//BN}] threads {T} forloop {K//BK} {{
    ^bb0(%xd: {t(M,K)}, %w1d: {t(K,N)}, %w2d: {t(K,N)}):
      %xt = tb.input_iterator %xd imap <x -> replica> fmap <i -> 1> : {t(M,K)} -> {tile(M,BK)}
      %at = tb.input_iterator %w1d imap <x -> 1> fmap <i -> 0> : {t(K,N)} -> {tile(BK,BN)}
      %a = tb.matmul %xt, %at : {tile(M,BK)}, {tile(BK,BN)}
      %as = tb.accum_sum %a : {tile(M,BN)}
      %bt = tb.input_iterator %w2d imap <x -> 1> fmap <i -> 0> : {t(K,N)} -> {tile(BK,BN)}
      %b = tb.matmul %xt, %bt : {tile(M,BK)}, {tile(BK,BN)}
      %bs = tb.accum_sum %b : {tile(M,BN)}
      %g = tb.silu %as : {tile(M,BN)}
      %p = tb.mul %g, %bs : {tile(M,BN)}, {tile(M,BN)}
      %o = tb.output_saver %p omap <x -> 1> : {tile(M,BN)} -> {t(M,N)}
      tb.yield %o : {t(M,N)}
    }}
  }} : ({t(M,K)}, {t(K,N)}, {t(K,N)}) -> {t(M,N)}
  return %y : {t(M,N)}
}}""")
M, K, N = 2, 4096, 6144
for BN, BK, T in [(64, 512, 128), (48, 256, 128), (32, 512, 128), (32, 256, 128),
                  (32, 128, 128), (16, 256, 128), (64, 128, 128)]:
    fn = f"linear_n{BN}_k{BK}_t{T}"
    out.append(f"""func.func @{fn}(%x: {t(M,K)}, %w: {t(K,N)}) -> {t(M,N)} {{
  %y = kn.kernel(%x, %w) {{
    tb.graph grid [{N//BN}] threads {T} forloop {K//BK} {{
    ^bb0(%xd: {t(M,K)}, %wd: {t(K,N)}):
      %xt = tb.input_iterator %xd imap <x -> replica> fmap <i -> 1> : {t(M,K)} -> {tile(M,BK)}
      %wt = tb.input_iterator %wd imap <x -> 1> fmap <i -> 0> : {t(K,N)} -> {tile(BK,BN)}
      %p = tb.matmul %xt, %wt : {tile(M,BK)}, {tile(BK,BN)}
      %s = tb.accum_sum %p : {tile(M,BN)}
      %o = tb.output_saver %s omap <x -> 1> : {tile(M,BN)} -> {t(M,N)}
      tb.yield %o : {t(M,N)}
    }}
  }} : ({t(M,K)}, {t(K,N)}) -> {t(M,N)}
  return %y : {t(M,N)}
}}""")
print("\n\n".join(out))
