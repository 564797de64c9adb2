# gqa_bs8 as kn-fuse writes it (split sums: the partial sums' kernel, then
# the totals' kernel), with the totals' kernel given by hand: R query rows
# and H heads per block, the 8 slices of the sum in F loop steps, T threads.
# Reads kn-fuse's output of @gqa_bs8 on stdin.
import re, sys
fused = sys.stdin.read()
head, combine = fused.split("    %4 = kn.kernel(%3#0, %3#1) {", 1)
def t(*s): return "tensor<" + "x".join(map(str, s)) + "xf16>"
def tile(*s): return "!tb.tile<" + "x".join(map(str, s)) + "xf16>"
out = []
for R, H, F, T in [(2, 16, 2, 512), (2, 16, 1, 512), (1, 16, 1, 256), (1, 8, 1, 128), (4, 16, 1, 512)]:
    S = 8
    grid = f"[{256 // R}, {16 // H}]"
    if F == 1:
        lsum = f"""        %5 = tb.input_iterator %arg3 imap <x -> 2, y -> 0> fmap <i -> replica> : {t(16,8,256,1)} -> {tile(H,S,R,1)}
        %7 = tb.reduce_sum %5 dim 1 keepdim = false : {tile(H,S,R,1)}
        %8 = tb.input_iterator %arg4 imap <x -> 2, y -> 0> fmap <i -> replica> : {t(16,8,256,64)} -> {tile(H,S,R,64)}
        %10 = tb.reduce_sum %8 dim 1 keepdim = false : {tile(H,S,R,64)}
"""
    else:
        lsum = f"""        %5 = tb.input_iterator %arg3 imap <x -> 2, y -> 0> fmap <i -> 0> : {t(16,8,256,1)} -> {tile(H//F,S,R,1)}
        %6 = tb.accum_concat %5 dim 0 : {tile(H//F,S,R,1)} -> {tile(H,S,R,1)}
        %7 = tb.reduce_sum %6 dim 1 keepdim = false : {tile(H,S,R,1)}
        %8 = tb.input_iterator %arg4 imap <x -> 2, y -> 0> fmap <i -> 1> : {t(16,8,256,64)} -> {tile(H,S//F,R,64)}
        %9 = tb.reduce_sum %8 dim 1 keepdim = false : {tile(H,S//F,R,64)}
        %10 = tb.accum_sum %9 : {tile(H,R,64)}
"""
    name = f"gqa_bs8_r{R}_h{H}_f{F}_t{T}"
    body = head.replace("func.func @gqa_bs8(", f"func.func @{name}(").replace(
        ") -> tensor<16x256x64xf16> {", ") -> tensor<16x256x64xf16> attributes {kn.reference = @gqa_bs8} {", 1)
    out.append(body + f"""    %4 = kn.kernel(%3#0, %3#1) {{
      tb.graph grid {grid} threads {T} forloop {F} {{
      ^bb0(%arg3: {t(16,8,256,1)}, %arg4: {t(16,8,256,64)}):
{lsum}        %11 = tb.div %10, %7 : {tile(H,R,64)}, {tile(H,R,1)}
        %12 = tb.output_saver %11 omap <x -> 1, y -> 0> : {tile(H,R,64)} -> {t(16,256,64)}
        tb.yield %12 : {t(16,256,64)}
      }}
    }} : ({t(16,8,256,1)}, {t(16,8,256,64)}) -> {t(16,256,64)}
    return %4 : {t(16,256,64)}
  }}""")
print("module {")
print(open("examples/gqa.mlir").read().split("func.func @gqa_bs8(")[0].split("func.func @gqa_bs1(")[0])
print(re.search(r"func.func @gqa_bs8\(.*?\n}\n", open("examples/gqa.mlir").read(), re.S).group(0))
print("\n".join(out))
print("}")
