# A decode-shaped matmul y = x W (x [1, K], W [K, N]) with block graphs given
# by hand: plain (BN columns per block, BK of k per step) and split over k
# (S slices of k cut over the grid's y, partial products [S, 1, N] summed by
# a second kernel). Shapes of the Qwen3-8B output projection (K = N = 4096)
# and down projection (K = 12288, N = 4096).
def t(*s): return "tensor<" + "x".join(map(str, s)) + "xf16>"
def tile(*s): return "!tb.tile<" + "x".join(map(str, s)) + "xf16>"
out = []
for shape, K, N, plans in [
        ("oproj", 4096, 4096, [(1, 32, 512), (1, 64, 512), (2, 64, 512), (4, 64, 512),
                               (4, 64, 256), (4, 128, 256), (8, 64, 256), (8, 64, 128)]),
        ("down", 12288, 4096, [(1, 32, 1024), (1, 32, 512), (3, 64, 512), (4, 64, 512),
                               (6, 64, 512), (12, 64, 256)])]:
    for S, BN, BK in plans:
        fn = f"{shape}_s{S}_n{BN}_k{BK}"
        KS = K // S
        if S == 1:
            out.append(f"""func.func @{fn}(%x: {t(1,K)}, %w: {t(K,N)}) -> {t(1,N)} {{
  %y = kn.kernel(%x, %w) {{
    tb.graph grid [{N//BN}] threads 128 forloop {K//BK} {{
    ^bb0(%xd: {t(1,K)}, %wd: {t(K,N)}):
      %xt = tb.input_iterator %xd imap <x -> replica> fmap <i -> 1> : {t(1,K)} -> {tile(1,BK)}
      %wt = tb.input_iterator %wd imap <x -> 1> fmap <i -> 0> : {t(K,N)} -> {tile(BK,BN)}
      %p = tb.matmul %xt, %wt : {tile(1,BK)}, {tile(BK,BN)}
      %s = tb.accum_sum %p : {tile(1,BN)}
      %o = tb.output_saver %s omap <x -> 1> : {tile(1,BN)} -> {t(1,N)}
      tb.yield %o : {t(1,N)}
    }}
  }} : ({t(1,K)}, {t(K,N)}) -> {t(1,N)}
  return %y : {t(1,N)}
}}""")
            continue
        out.append(f"""func.func @{fn}(%x: {t(1,K)}, %w: {t(K,N)}) -> {t(1,N)} {{
  %xs = kn.reshape %x : {t(1,K)} -> {t(S,1,KS)}
  %ws = kn.reshape %w : {t(K,N)} -> {t(S,KS,N)}
  %part = kn.kernel(%xs, %ws) {{
    tb.graph grid [{N//BN}, {S}] threads 128 forloop {KS//BK} {{
    ^bb0(%xd: {t(S,1,KS)}, %wd: {t(S,KS,N)}):
      %xt = tb.input_iterator %xd imap <x -> replica, y -> 0> fmap <i -> 2> : {t(S,1,KS)} -> {tile(1,1,BK)}
      %wt = tb.input_iterator %wd imap <x -> 2, y -> 0> fmap <i -> 1> : {t(S,KS,N)} -> {tile(1,BK,BN)}
      %p = tb.matmul %xt, %wt : {tile(1,1,BK)}, {tile(1,BK,BN)}
      %s = tb.accum_sum %p : {tile(1,1,BN)}
      %o = tb.output_saver %s omap <x -> 2, y -> 0> : {tile(1,1,BN)} -> {t(S,1,N)}
      tb.yield %o : {t(S,1,N)}
    }}
  }} : ({t(S,1,KS)}, {t(S,KS,N)}) -> {t(S,1,N)}
  %y = kn.kernel(%part) {{
    tb.graph grid [{N//256}] threads 128 forloop 1 {{
    ^bb0(%pd: {t(S,1,N)}):
      %pt = tb.input_iterator %pd imap <x -> 2> fmap <i -> replica> : {t(S,1,N)} -> {tile(S,1,256)}
      %r = tb.reduce_sum %pt dim 0 keepdim = false : {tile(S,1,256)}
      %o = tb.output_saver %r omap <x -> 1> : {tile(1,256)} -> {t(1,N)}
      tb.yield %o : {t(1,N)}
    }}
  }} : ({t(S,1,N)}) -> {t(1,N)}
  return %y : {t(1,N)}
}}""")
print("\n\n".join(out))
