#!/usr/bin/env python3
"""Generate Trinity's six workloads (ASPLOS '26, section 6.1) as kn programs.

The attention blocks go from the hidden state of the new tokens to the
attention output, with the KV-cache append; the FFN is LLaMA's SwiGLU MLP.
Speculative decoding: `tokens` new tokens on a `past`-token prefix.

    examples/trinity/gen_trinity.py --preset llama3-8b --workload vanilla -o examples/trinity/vanilla.mlir
    examples/trinity/gen_trinity.py --preset small --workload keyformer

Workloads (docs/TileEqsat.md has the formulation):
  vanilla    QKV projection, heads, KV append, softmax(Q K^T / sqrt(d)) V, heads merged
  prenorm    RMSNorm before the QKV projection
  qknorm     RMSNorm of each head's q and k (over the head dim)
  keyformer  also the score of each cached token under softmax((Q K^T / sqrt(d) + noise) / 1.5),
             summed over the new tokens (Keyformer's eviction score)
  roco       also softmax(Q K^T / sqrt(d)) summed over the new tokens (RoCo's score)
  swiglu     silu(x W1) * (x W3), then W2

The projections' outputs are scaled by 1/sqrt(hidden) (1/sqrt(intermediate)
for the down projection): random inputs in [-1, 1) stand in for trained
weights of magnitude 1/sqrt(fan-in), so that the verifier's float64 and f16
range checks see values of the size a model sees (Trinity's IR has neither
these scales nor the 1/sqrt(d) of the softmax; without them exp overflows).
Bundle them with `mirage-bundle --scale-weights=false`, which keeps the
weights in [-1, 1) too (docs/Bundle.md).

Python 3 standard library only; the kn builder is examples/decoder/gen_decoder.py's.
"""

import argparse
import dataclasses
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "decoder"))
from gen_decoder import Builder, fmt_float, ttype  # noqa: E402

WORKLOADS = ("vanilla", "prenorm", "qknorm", "keyformer", "roco", "swiglu")


@dataclasses.dataclass(frozen=True)
class Config:
    hidden: int = 4096
    heads: int = 32
    head_dim: int = 128
    tokens: int = 16
    past: int = 1008
    intermediate: int = 14336
    eps: float = 1e-5
    dtype: str = "f16"


PRESETS = {
    # LLaMA-3-8B (hidden 4096, 32 heads of 128, MLP 14336), 16 new tokens on
    # a 1008-token prefix: Trinity's evaluation setting.
    "llama3-8b": Config(),
    # For lit tests (run with full-threshold=16).
    "small": Config(hidden=64, heads=4, head_dim=16, tokens=4, past=28,
                    intermediate=96),
}


def attention(cfg: Config, workload: str):
    H, N, D, T, P = cfg.hidden, cfg.heads, cfg.head_dim, cfg.tokens, cfg.past
    b = Builder(cfg.dtype)
    args = [("x", (T, H))]
    if workload == "prenorm":
        args.append(("norm_w", (H,)))
    args += [("wq", (H, H)), ("wk", (H, H)), ("wv", (H, H))]
    if workload == "qknorm":
        args += [("q_norm_w", (D,)), ("k_norm_w", (D,))]
    args += [("k_cache", (N, P, D)), ("v_cache", (N, P, D))]
    if workload == "keyformer":
        args.append(("noise", (N, T, P + T)))
    for name, shape in args:
        b.define(name, shape)

    x = "x"
    if workload == "prenorm":
        x = b.rms_norm("x_norm", "x", "norm_w", cfg.eps)
    scale = 1.0 / math.sqrt(H)
    heads = {}
    for t in ("q", "k", "v"):
        p = b.matmul(t + "_proj", x, "w" + t)
        heads[t] = p
    for t in ("q", "k", "v"):
        heads[t] = b.scalar("mul_scalar", t + "_scaled", heads[t], scale)
    for t in ("q", "k", "v"):
        heads[t] = b.reshape(t + "_split", heads[t], (T, N, D))
    for t in ("q", "k", "v"):
        heads[t] = b.transpose(t + "_heads", heads[t], (1, 0, 2))
    q, k, v = heads["q"], heads["k"], heads["v"]
    if workload == "qknorm":
        q = b.rms_norm("q_norm", q, "q_norm_w", cfg.eps)
        k = b.rms_norm("k_norm", k, "k_norm_w", cfg.eps)
    k_all = b.concat("k_all", ["k_cache", k], 1)
    v_all = b.concat("v_all", ["v_cache", v], 1)
    kt = b.transpose("k_t", k_all, (0, 2, 1))
    s = b.matmul("scores", q, kt)
    s = b.scalar("mul_scalar", "scores_scaled", s, 1.0 / math.sqrt(D))
    e = b.unary("exp", "scores_exp", s)
    l = b.reduce("reduce_sum", "scores_sum", e, 2)
    p = b.binary("div", "probs", e, l)
    o = b.matmul("attn", p, v_all)
    ot = b.transpose("attn_tokens", o, (1, 0, 2))
    out = b.reshape("out", ot, (T, H))
    results = [out, k_all, v_all]
    if workload == "roco":
        results.append(b.reduce("reduce_sum", "roco_score", p, 1))
    if workload == "keyformer":
        sn = b.binary("add", "perturbed", s, "noise")
        sn = b.scalar("mul_scalar", "perturbed_scaled", sn, 1.0 / 1.5)
        en = b.unary("exp", "perturbed_exp", sn)
        ln = b.reduce("reduce_sum", "perturbed_sum", en, 2)
        pn = b.binary("div", "perturbed_probs", en, ln)
        results.append(b.reduce("reduce_sum", "keyformer_score", pn, 1))
    return b, args, results


def swiglu(cfg: Config):
    H, I, T = cfg.hidden, cfg.intermediate, cfg.tokens
    b = Builder(cfg.dtype)
    args = [("x", (T, H)), ("w1", (H, I)), ("w3", (H, I)), ("w2", (I, H))]
    for name, shape in args:
        b.define(name, shape)
    g = b.matmul("gate", "x", "w1")
    u = b.matmul("up", "x", "w3")
    g = b.scalar("mul_scalar", "gate_scaled", g, 1.0 / math.sqrt(H))
    u = b.scalar("mul_scalar", "up_scaled", u, 1.0 / math.sqrt(H))
    a = b.unary("silu", "gate_silu", g)
    h = b.binary("mul", "act", a, u)
    d = b.matmul("down", h, "w2")
    d = b.scalar("mul_scalar", "out", d, 1.0 / math.sqrt(I))
    return b, args, [d]


def render(cfg: Config, workload: str, command: str) -> str:
    if workload == "swiglu":
        b, args, results = swiglu(cfg)
    else:
        b, args, results = attention(cfg, workload)
    sig = ", ".join(f"%{n}: {ttype(s, cfg.dtype)}" for n, s in args)
    res = ", ".join(b.t(r) for r in results)
    lines = [
        f"// Trinity's {workload} workload (ASPLOS '26, section 6.1): hidden {cfg.hidden}, "
        f"{cfg.heads} heads of {cfg.head_dim},",
        f"// {cfg.tokens} new tokens on a {cfg.past}-token prefix, MLP {cfg.intermediate}, "
        f"{cfg.dtype}.",
        "// Generated by examples/trinity/gen_trinity.py; do not edit. Regenerate with",
        f"//   {command}",
        "",
        f"func.func @{workload}({sig})",
        f"    -> ({res}) {{",
    ]
    lines += ["  " + line for line in b.lines]
    lines.append(f"  return {', '.join('%' + r for r in results)} : {res}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--preset", choices=sorted(PRESETS), default="llama3-8b")
    ap.add_argument("--workload", choices=WORKLOADS, required=True)
    ap.add_argument("--dtype", choices=("f16", "bf16", "f32"))
    ap.add_argument("-o", "--output", help="write here instead of stdout")
    ns = ap.parse_args(argv)
    cfg = PRESETS[ns.preset]
    if ns.dtype:
        cfg = dataclasses.replace(cfg, dtype=ns.dtype)
    command = (f"examples/trinity/gen_trinity.py --preset {ns.preset} "
               f"--workload {ns.workload}" + (f" --dtype {ns.dtype}" if ns.dtype else ""))
    text = render(cfg, ns.workload, command)
    if ns.output:
        with open(ns.output, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
