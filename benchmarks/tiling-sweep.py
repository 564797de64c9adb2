#!/usr/bin/env python3
"""Decode-shaped matmuls under many launch shapes, for the speed model.

Writes one .mlir file with a function per (shape, tiling): a hand-written
block graph computing x[M, K] @ w[K, N] with a given output tile width,
k chunk per for-loop iteration, threads per block and split-K factor
(split-K: the grid's second dim walks k, partial products go to a
[splits, M, N] tensor that a `kn.reduce_sum` adds up). Bundled with
`mirage-bundle --fuse=false` and run by the GPU package's runner, the
timings are what the speed model is fitted to and checked against
(docs/Search.md, section 4; unittests/Search/CostModelTest.cpp):

  benchmarks/tiling-sweep.py -o build/generated/tiling_sweep.mlir
  echo "build/generated/tiling_sweep.mlir --fuse=false" > build/sweep.txt
  scripts/gpu-package.sh build/sweep.txt
  # on the GPU machine: cd gpu-package && MIRAGE_PARTS=run ./run.sh

Other shapes: --shapes "16,4096,4096 1,12288,4096" (M,K,N triples; the
sweep of docs/results/2026-11-28-h200-vanilla.md, call 3).

Function names say the tiling: mm_m1_k4096_n12288__n64_k256_t128_s1 is
M=1, K=4096, N=12288 with 64-column tiles, 256-deep k chunks, 128 threads
and no split.
"""

import argparse
import itertools

# (M, K, N): the Qwen3-8B decode projections' shapes at batch 1 (QKV is
# 4096 x 6144, gate|up 4096 x 24576, down 12288 x 4096), at sizes whose
# weights exceed the 50 MB L2 so that every run streams from DRAM.
SHAPES = [(1, 4096, 12288), (8, 4096, 12288), (1, 12288, 4096)]
COLUMNS = [16, 32, 64, 128, 256]
CHUNKS = [64, 128, 256, 512, 1024]
THREADS = [128, 256]
SPLITS = [1, 2, 4]


def kernel(m, k, n, cols, chunk, threads, splits):
    name = f"mm_m{m}_k{k}_n{n}__n{cols}_k{chunk}_t{threads}_s{splits}"
    per_split = k // splits
    forloop = per_split // chunk
    x_t = f"tensor<{m}x{k}xf16>"
    w_t = f"tensor<{k}x{n}xf16>"
    lines = [f"func.func @{name}(%x: {x_t}, %w: {w_t}) -> tensor<{m}x{n}xf16> {{"]
    if splits == 1:
        out_t = f"tensor<{m}x{n}xf16>"
        grid = f"[{n // cols}]"
        x_map, w_map, o_map = "<x -> replica>", "<x -> 1>", "<x -> 1>"
        acc_t = f"!tb.tile<{m}x{cols}xf16>"
    else:
        out_t = f"tensor<{splits}x{m}x{n}xf16>"
        grid = f"[{n // cols}, {splits}]"
        x_map = "<x -> replica, y -> 1>"
        w_map = "<x -> 1, y -> 0>"
        o_map = "<x -> 2, y -> 0>"
        acc_t = f"!tb.tile<1x{m}x{cols}xf16>"
    lines += [
        f"  %p = kn.kernel(%x, %w) {{",
        f"    tb.graph grid {grid} threads {threads} forloop {forloop} {{",
        f"    ^bb0(%xd: {x_t}, %wd: {w_t}):",
        f"      %xt = tb.input_iterator %xd imap {x_map} fmap <i -> 1> : {x_t} -> !tb.tile<{m}x{chunk}xf16>",
        f"      %wt = tb.input_iterator %wd imap {w_map} fmap <i -> 0> : {w_t} -> !tb.tile<{chunk}x{cols}xf16>",
        f"      %mm = tb.matmul %xt, %wt : !tb.tile<{m}x{chunk}xf16>, !tb.tile<{chunk}x{cols}xf16>",
    ]
    if splits == 1:
        lines += [
            f"      %acc = tb.accum_sum %mm : {acc_t}",
        ]
    else:
        lines += [
            f"      %mm3 = tb.reshape %mm : !tb.tile<{m}x{cols}xf16> -> {acc_t}",
            f"      %acc = tb.accum_sum %mm3 : {acc_t}",
        ]
    lines += [
        f"      %o = tb.output_saver %acc omap {o_map} : {acc_t} -> {out_t}",
        f"      tb.yield %o : {out_t}",
        f"    }}",
        f"  }} : ({x_t}, {w_t}) -> {out_t}",
    ]
    if splits == 1:
        lines.append(f"  return %p : {out_t}")
    else:
        lines += [
            f"  %s = kn.reduce_sum %p dim 0 : {out_t}",
            f"  %y = kn.reshape %s : tensor<1x{m}x{n}xf16> -> tensor<{m}x{n}xf16>",
            f"  return %y : tensor<{m}x{n}xf16>",
        ]
    lines.append("}")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-o", "--output", required=True)
    parser.add_argument("--limit-smem", type=int, default=96 * 1024,
                        help="skip tilings whose stage exceeds this many bytes")
    parser.add_argument("--shapes", default="",
                        help="M,K,N triples separated by spaces (default: "
                        "the Qwen3-8B decode projections)")
    args = parser.parse_args()
    shapes = ([tuple(int(d) for d in s.split(",")) for s in args.shapes.split()]
              if args.shapes else SHAPES)
    funcs = []
    for (m, k, n), cols, chunk, threads, splits in itertools.product(
            shapes, COLUMNS, CHUNKS, THREADS, SPLITS):
        if n % cols or k % (chunk * splits):
            continue
        stage = chunk * cols * 2
        # Keep the sweep to plausible candidates: stages of 8 to 64 KiB,
        # a grid of at least half the SMs, 256 threads only where a tile
        # has work for eight warps (16-column jobs).
        if not 8 * 1024 <= stage <= 64 * 1024 or stage > args.limit_smem:
            continue
        if (n // cols) * splits < 66 or (n // cols) * splits > 4096:
            continue
        if threads == 256 and cols < 128:
            continue
        if splits > 1 and (n // cols) >= 264:
            continue
        funcs.append(kernel(m, k, n, cols, chunk, threads, splits))
    with open(args.output, "w") as f:
        f.write("// Generated by benchmarks/tiling-sweep.py; do not edit.\n\n")
        f.write("\n\n".join(funcs) + "\n")
    print(f"{len(funcs)} functions in {args.output}")


if __name__ == "__main__":
    main()
