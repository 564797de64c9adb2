# Split attention with explicit products-kernel plans: R query rows per
# block, P positions per loop step, S slices.
def t(*s): return "tensor<" + "x".join(map(str, s)) + "xf16>"
def tile(*s): return "!tb.tile<" + "x".join(map(str, s)) + "xf16>"
out = []
for name, B in [("gqa_bs8", 16), ("gqa_bs1", 2)]:
    M, D, N = 256, 64, 4096
    variants = [(8, 64, 16), (8, 64, 32), (8, 64, 64), (8, 64, 128), (16, 64, 64), (16, 64, 128), (4, 64, 64), (4, 64, 128),
                (8, 128, 64), (32, 64, 64), (32, 64, 128), (32, 16, 64), (32, 16, 128)]
    for S, R, P in variants:
        n = N // S
        if n % P: continue
        F = n // P
        threads = 128 * max(1, R // 64)
        fn = f"{name}_s{S}_r{R}_p{P}"
        L = [f"func.func @{fn}(%q: {t(B,M,D)}, %k: {t(B,D,N)}, %v: {t(B,N,D)}) -> {t(B,M,D)} attributes {{kn.reference = @{name}}} {{"]
        L.append(f"  %q4 = kn.reshape %q : {t(B,M,D)} -> {t(B,1,M,D)}")
        L.append(f"  %k4 = kn.reshape %k : {t(B,D,N)} -> {t(B,D,S,n)}")
        L.append(f"  %v4 = kn.reshape %v : {t(B,N,D)} -> {t(B,S,n,D)}")
        L.append(f"  %p:2 = kn.kernel(%k4, %q4, %v4) {{")
        L.append(f"    tb.graph grid [{M//R}, {B}, {S}] threads {threads} forloop {F} {{")
        L.append(f"    ^bb0(%a: {t(B,D,S,n)}, %b: {t(B,1,M,D)}, %c: {t(B,S,n,D)}):")
        L.append(f"      %kt = tb.input_iterator %a imap <x -> replica, y -> 0, z -> 2> fmap <i -> 3> : {t(B,D,S,n)} -> {tile(1,D,1,P)}")
        L.append(f"      %ktt = tb.transpose %kt permutation [0, 2, 1, 3] : {tile(1,D,1,P)}")
        L.append(f"      %qt = tb.input_iterator %b imap <x -> 2, y -> 0, z -> replica> fmap <i -> replica> : {t(B,1,M,D)} -> {tile(1,1,R,D)}")
        L.append(f"      %s = tb.matmul %qt, %ktt : {tile(1,1,R,D)}, {tile(1,1,D,P)}")
        L.append(f"      %sc = tb.mul_scalar %s, 0.125 : {tile(1,1,R,P)}")
        L.append(f"      %e = tb.exp %sc : {tile(1,1,R,P)}")
        L.append(f"      %l = tb.reduce_sum %e dim 3 : {tile(1,1,R,P)}")
        L.append(f"      %la = tb.accum_sum %l : {tile(1,1,R,1)}")
        L.append(f"      %vt = tb.input_iterator %c imap <x -> replica, y -> 0, z -> 1> fmap <i -> 2> : {t(B,S,n,D)} -> {tile(1,1,P,D)}")
        L.append(f"      %o = tb.matmul %e, %vt : {tile(1,1,R,P)}, {tile(1,1,P,D)}")
        L.append(f"      %oa = tb.accum_sum %o : {tile(1,1,R,D)}")
        L.append(f"      %ls = tb.output_saver %la omap <x -> 2, y -> 0, z -> 1> : {tile(1,1,R,1)} -> {t(B,S,M,1)}")
        L.append(f"      %os = tb.output_saver %oa omap <x -> 2, y -> 0, z -> 1> : {tile(1,1,R,D)} -> {t(B,S,M,D)}")
        L.append(f"      tb.yield %ls, %os : {t(B,S,M,1)}, {t(B,S,M,D)}")
        L.append(f"    }}")
        L.append(f"  }} : ({t(B,D,S,n)}, {t(B,1,M,D)}, {t(B,S,n,D)}) -> ({t(B,S,M,1)}, {t(B,S,M,D)})")
        L.append(f"  %lt = kn.reduce_sum %p#0 dim 1 keepdim = false : {t(B,S,M,1)}")
        L.append(f"  %ot = kn.reduce_sum %p#1 dim 1 keepdim = false : {t(B,S,M,D)}")
        L.append(f"  %r = kn.div %ot, %lt : {t(B,M,D)}, {t(B,M,1)}")
        L.append(f"  return %r : {t(B,M,D)}")
        L.append("}")
        out.append("\n".join(L))
print("\n\n".join(out))
