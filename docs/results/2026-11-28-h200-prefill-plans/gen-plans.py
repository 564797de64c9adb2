# prefill_linear with explicit plans: BM x BN output tiles, BK of k per
# loop step, T threads.
def t(*s): return "tensor<" + "x".join(map(str, s)) + "xf16>"
def tile(*s): return "!tb.tile<" + "x".join(map(str, s)) + "xf16>"
M, K, N = 512, 2048, 1024
out = []
for BM, BN, BK, T in [(128, 128, 64, 256), (128, 64, 64, 256), (64, 128, 64, 128), (128, 128, 32, 256),
                      (64, 64, 128, 128), (128, 64, 128, 256), (64, 128, 128, 128), (128, 256, 64, 256),
                      (128, 128, 64, 128), (64, 256, 64, 128), (128, 32, 128, 128), (64, 64, 64, 128)]:
    fn = f"prefill_linear_m{BM}_n{BN}_k{BK}_t{T}"
    out.append(f"""func.func @{fn}(%x: {t(M,K)}, %w: {t(K,N)}) -> {t(M,N)} attributes {{kn.reference = @prefill_linear}} {{
  %y = kn.kernel(%x, %w) {{
    tb.graph grid [{N//BN}, {M//BM}] threads {T} forloop {K//BK} {{
    ^bb0(%xd: {t(M,K)}, %wd: {t(K,N)}):
      %xt = tb.input_iterator %xd imap <x -> replica, y -> 0> fmap <i -> 1> : {t(M,K)} -> {tile(BM,BK)}
      %wt = tb.input_iterator %wd imap <x -> 1, y -> replica> fmap <i -> 0> : {t(K,N)} -> {tile(BK,BN)}
      %p = tb.matmul %xt, %wt : {tile(BM,BK)}, {tile(BK,BN)}
      %s = tb.accum_sum %p : {tile(BM,BN)}
      %o = tb.output_saver %s omap <x -> 1, y -> 0> : {tile(BM,BN)} -> {t(M,N)}
      tb.yield %o : {t(M,N)}
    }}
  }} : ({t(M,K)}, {t(K,N)}) -> {t(M,N)}
  return %y : {t(M,N)}
}}""")
print("\n\n".join(out))
