import sys
def t(*s): return "tensor<" + "x".join(map(str, s)) + "xf16>"
out = []
for name, B, qk in [("gqa_bs1",2,False),("gqa_bs8",16,False),("qknorm_gqa_bs1",2,True),("qknorm_gqa_bs8",16,True)]:
    M, D, N = 256, 64, 4096
    for S in [4, 8, 16, 32, 64]:
        n = N // S
        ktype = t(B, N, D) if qk else t(B, D, N)
        L = [f"func.func @{name}_s{S}(%q: {t(B,M,D)}, %k: {ktype}, %v: {t(B,N,D)}) -> {t(B,M,D)} attributes {{kn.reference = @{name}}} {{"]
        if qk:
            L.append(f"  %qn = kn.rms_norm %q {{eps = 1.0e-6 : f64}} : {t(B,M,D)}")
            L.append(f"  %q4 = kn.reshape %qn : {t(B,M,D)} -> {t(B,1,M,D)}")
            L.append(f"  %kv = kn.reshape %k : {t(B,N,D)} -> {t(B,S,n,D)}")
            L.append(f"  %kn = kn.rms_norm %kv {{eps = 1.0e-6 : f64}} : {t(B,S,n,D)}")
            L.append(f"  %k4 = kn.transpose %kn permutation [0, 1, 3, 2] : {t(B,S,n,D)}")
        else:
            L.append(f"  %q4 = kn.reshape %q : {t(B,M,D)} -> {t(B,1,M,D)}")
            L.append(f"  %kv = kn.reshape %k : {t(B,D,N)} -> {t(B,D,S,n)}")
            L.append(f"  %k4 = kn.transpose %kv permutation [0, 2, 1, 3] : {t(B,D,S,n)}")
        L.append(f"  %v4 = kn.reshape %v : {t(B,N,D)} -> {t(B,S,n,D)}")
        L.append(f"  %s = kn.matmul %q4, %k4 : {t(B,1,M,D)}, {t(B,S,D,n)}")
        L.append(f"  %sc = kn.mul_scalar %s, 0.125 : {t(B,S,M,n)}")
        L.append(f"  %e = kn.exp %sc : {t(B,S,M,n)}")
        L.append(f"  %lp = kn.reduce_sum %e dim 3 : {t(B,S,M,n)}")
        L.append(f"  %op = kn.matmul %e, %v4 : {t(B,S,M,n)}, {t(B,S,n,D)}")
        L.append(f"  %l = kn.reduce_sum %lp dim 1 keepdim = false : {t(B,S,M,1)}")
        L.append(f"  %o = kn.reduce_sum %op dim 1 keepdim = false : {t(B,S,M,D)}")
        L.append(f"  %r = kn.div %o, %l : {t(B,M,D)}, {t(B,M,1)}")
        L.append(f"  return %r : {t(B,M,D)}")
        L.append("}")
        out.append("\n".join(L))
print("\n\n".join(out))
