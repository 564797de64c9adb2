#!/usr/bin/env python3
"""Generate a Qwen3-shaped single-token decode step as a kn kernel graph.

Writes one `func.func` of `kn` ops over static tensors: a batch-1 decode step
of a Qwen3-style decoder (RMSNorm, fused QKV projection, QK-norm, RoPE from
given cos/sin tables, grouped-query attention of the new token over a static
KV cache that the new k and v are appended to, output projection, residual,
RMSNorm, gated SiLU MLP, residual) for any number of layers.

    examples/decoder/gen_decoder.py --preset qwen3-8b -o examples/qwen3_decode.mlir
    examples/decoder/gen_decoder.py --preset small -o examples/decoder_small.mlir
    examples/decoder/gen_decoder.py --preset qwen3-8b --layers 36 -o /tmp/qwen3_decode_36.mlir

The formulation (inputs, ops, cos/sin convention) is documented in
examples/decoder/README.md. Python 3 standard library only.

Other scripts may import this file: `Config`, `build(config)` (the argument
list, the result list and the body lines) and `render(config, prologue=...)`
(the text; `prologue` lets a checker derive the program's inputs from other
arguments with kn ops in front of the unchanged body).
"""

import argparse
import dataclasses
import math
import sys
from typing import Callable, List, Optional, Sequence, Tuple

DTYPES = ("f16", "bf16", "f32")


@dataclasses.dataclass(frozen=True)
class Config:
    layers: int = 1
    hidden: int = 4096
    q_heads: int = 32
    kv_heads: int = 8
    head_dim: int = 128
    intermediate: int = 12288
    cache_len: int = 1024  # cached entries including the new token
    eps: float = 1e-6
    dtype: str = "f16"
    name: str = "qwen3_decode"
    mlp: str = "fused"  # "fused": one [hidden, 2*intermediate] gate|up matmul; "separate"
    # "blocked": w_qkv's columns q | k | v, each head-major; "grouped": per KV
    # head its query heads, its k, its v (Megatron-LM's GQA layout)
    qkv_layout: str = "blocked"
    # "in-out": projection weights [in, out], multiplied as given; "out-in":
    # [out, in] as PyTorch's nn.Linear stores them, multiplied transposed
    weight_layout: str = "in-out"
    kv_outputs: bool = True  # return the new k and v of every layer too

    def check(self) -> None:
        def positive(field):
            if getattr(self, field) <= 0:
                raise ValueError(f"{field} must be positive, got {getattr(self, field)}")

        for field in ("layers", "hidden", "q_heads", "kv_heads", "head_dim",
                      "intermediate"):
            positive(field)
        if self.cache_len < 2:
            raise ValueError("cache_len counts the new token and at least one "
                             f"cached entry, so it must be >= 2; got {self.cache_len}")
        if self.q_heads % self.kv_heads:
            raise ValueError(f"q_heads ({self.q_heads}) must be a multiple of "
                             f"kv_heads ({self.kv_heads})")
        if self.head_dim % 2:
            raise ValueError(f"head_dim must be even for rotate_half, got {self.head_dim}")
        if self.eps < 0:
            raise ValueError(f"eps must be >= 0, got {self.eps}")
        if self.dtype not in DTYPES:
            raise ValueError(f"dtype must be one of {', '.join(DTYPES)}, got {self.dtype}")
        if self.mlp not in ("fused", "separate"):
            raise ValueError(f"mlp must be 'fused' or 'separate', got {self.mlp}")
        if self.weight_layout not in ("in-out", "out-in"):
            raise ValueError("weight_layout must be 'in-out' or 'out-in', got "
                             f"{self.weight_layout}")
        if self.qkv_layout not in ("blocked", "grouped"):
            raise ValueError("qkv_layout must be 'blocked' or 'grouped', got "
                             f"{self.qkv_layout}")
        if not self.name or not all(c.isalnum() or c in "_$." for c in self.name) \
                or self.name[0].isdigit():
            raise ValueError(f"'{self.name}' is not a valid function name")

    @property
    def group(self) -> int:
        return self.q_heads // self.kv_heads

    @property
    def past(self) -> int:
        return self.cache_len - 1


PRESETS = {
    # Qwen3-8B (config.json of Qwen/Qwen3-8B): 36 layers; one by default.
    "qwen3-8b": Config(layers=1, hidden=4096, q_heads=32, kv_heads=8, head_dim=128,
                       intermediate=12288, cache_len=1024, eps=1e-6,
                       name="qwen3_decode"),
    "small": Config(layers=2, hidden=256, q_heads=4, kv_heads=2, head_dim=64,
                    intermediate=768, cache_len=64, eps=1e-6, name="decoder_small"),
}


# ---------------------------------------------------------------- printing ---

def fmt_float(value: float) -> str:
    """An f64 literal MLIR parses back to exactly `value` (needs a '.')."""
    text = repr(float(value))
    if "inf" in text or "nan" in text:
        raise ValueError(f"cannot print {value}")
    mantissa, _, exponent = text.partition("e")
    if "." not in mantissa:
        mantissa += ".0"
    return mantissa + ("e" + exponent if exponent else "")


def ttype(shape: Sequence[int], dtype: str) -> str:
    return "tensor<" + "".join(f"{d}x" for d in shape) + dtype + ">"


@dataclasses.dataclass
class Arg:
    name: str  # SSA name without '%'
    shape: Tuple[int, ...]
    role: str  # what it is, for the checker: hidden, cos, sin, norm, weight, k_cache, v_cache
    layer: Optional[int] = None
    fan_in: Optional[int] = None  # weights: the contraction size


@dataclasses.dataclass
class Program:
    config: Config
    args: List[Arg]
    results: List[Tuple[str, Tuple[int, ...]]]
    body: List[str]


class Builder:
    """Emits kn ops with named SSA values and tracks their shapes."""

    def __init__(self, dtype: str):
        self.dtype = dtype
        self.shapes = {}
        self.lines: List[str] = []

    def t(self, value: str) -> str:
        return ttype(self.shapes[value], self.dtype)

    def define(self, name: str, shape) -> str:
        if name in self.shapes:
            raise ValueError(f"value %{name} defined twice")
        self.shapes[name] = tuple(shape)
        return name

    def comment(self, text: str) -> None:
        self.lines.append(f"// {text}")

    def emit(self, name: str, shape, text: str) -> str:
        self.define(name, shape)
        self.lines.append(f"%{name} = {text}")
        return name

    # Ops. Result shapes are computed here (and checked again by mirage-opt).
    def unary(self, op, name, x):
        return self.emit(name, self.shapes[x], f"kn.{op} %{x} : {self.t(x)}")

    def scalar(self, op, name, x, s):
        return self.emit(name, self.shapes[x],
                         f"kn.{op} %{x}, {fmt_float(s)} : {self.t(x)}")

    def binary(self, op, name, a, b):
        sa, sb = self.shapes[a], self.shapes[b]
        rank = max(len(sa), len(sb))
        pa = (1,) * (rank - len(sa)) + sa
        pb = (1,) * (rank - len(sb)) + sb
        out = []
        for da, db in zip(pa, pb):
            if da != db and 1 not in (da, db):
                raise ValueError(f"{op}: shapes {sa} and {sb} do not broadcast")
            out.append(max(da, db))
        return self.emit(name, out, f"kn.{op} %{a}, %{b} : {self.t(a)}, {self.t(b)}")

    def matmul(self, name, a, b):
        sa, sb = self.shapes[a], self.shapes[b]
        assert len(sa) == len(sb) and sa[:-2] == sb[:-2] and sa[-1] == sb[-2], (sa, sb)
        return self.emit(name, sa[:-2] + (sa[-2], sb[-1]),
                         f"kn.matmul %{a}, %{b} : {self.t(a)}, {self.t(b)}")

    def rms_norm(self, name, x, w, eps):
        assert self.shapes[w] == self.shapes[x][-1:]
        return self.emit(name, self.shapes[x],
                         f"kn.rms_norm %{x} weight %{w} {{eps = {fmt_float(eps)} : f64}}"
                         f" : {self.t(x)}, {self.t(w)}")

    def reduce(self, op, name, x, dim):
        shape = list(self.shapes[x])
        shape[dim] = 1
        return self.emit(name, shape, f"kn.{op} %{x} dim {dim} : {self.t(x)}")

    def reshape(self, name, x, shape):
        assert math.prod(shape) == math.prod(self.shapes[x])
        self.define(name, shape)
        self.lines.append(f"%{name} = kn.reshape %{x} : {self.t(x)} -> {self.t(name)}")
        return name

    def transpose(self, name, x, perm):
        shape = [self.shapes[x][p] for p in perm]
        return self.emit(name, shape, f"kn.transpose %{x} permutation "
                         f"[{', '.join(map(str, perm))}] : {self.t(x)}")

    def concat(self, name, xs, dim):
        shape = list(self.shapes[xs[0]])
        shape[dim] = sum(self.shapes[x][dim] for x in xs)
        return self.emit(name, shape, f"kn.concat {', '.join('%' + x for x in xs)} "
                         f"dim {dim} : {', '.join(self.t(x) for x in xs)}")

    def split(self, names, x, dim, sizes):
        assert sum(sizes) == self.shapes[x][dim] and len(names) == len(sizes)
        for n, s in zip(names, sizes):
            shape = list(self.shapes[x])
            shape[dim] = s
            self.define(n, shape)
        self.lines.append(f"{', '.join('%' + n for n in names)} = kn.split %{x} dim {dim} "
                          f"sizes [{', '.join(map(str, sizes))}] : {self.t(x)}")
        return names


# ----------------------------------------------------------------- program ---

def build(cfg: Config) -> Program:
    """The decode step: arguments, results and body lines (without return)."""
    cfg.check()
    H, Hq, Hk, D, I = cfg.hidden, cfg.q_heads, cfg.kv_heads, cfg.head_dim, cfg.intermediate
    G, P, L = cfg.group, cfg.past, cfg.cache_len
    b = Builder(cfg.dtype)
    args: List[Arg] = []

    def arg(name, shape, role, layer=None, fan_in=None):
        b.define(name, shape)
        args.append(Arg(name, tuple(shape), role, layer, fan_in))
        return name

    def weight(name, fan_in, fan_out, layer):
        """A projection weight as the matmul's [in, out] operand."""
        if cfg.weight_layout == "in-out":
            return arg(name, (fan_in, fan_out), "weight", layer, fan_in)
        stored = arg(name, (fan_out, fan_in), "weight", layer, fan_in)
        return b.transpose(name + "_t", stored, (1, 0))

    x = arg("x", (1, H), "hidden")
    cos = arg("cos", (1, D), "cos")
    sin = arg("sin", (1, D), "sin")
    results = []
    new_kv = []
    if cfg.qkv_layout == "grouped":
        # The RoPE tables broadcast over [Hk, G, D] heads.
        cos_heads = b.reshape("cos_heads", cos, (1, 1, D))
        sin_heads = b.reshape("sin_heads", sin, (1, 1, D))
    for l in range(cfg.layers):
        p = f"l{l}_"
        attn_norm_w = arg(p + "attn_norm_w", (H,), "norm", l)
        w_qkv = weight(p + "w_qkv", H, (Hq + 2 * Hk) * D, l)
        q_norm_w = arg(p + "q_norm_w", (D,), "norm", l)
        k_norm_w = arg(p + "k_norm_w", (D,), "norm", l)
        k_cache = arg(p + "k_cache", (Hk, P, D), "k_cache", l)
        v_cache = arg(p + "v_cache", (Hk, P, D), "v_cache", l)
        w_o = weight(p + "w_o", Hq * D, H, l)
        mlp_norm_w = arg(p + "mlp_norm_w", (H,), "norm", l)
        if cfg.mlp == "fused":
            w_gate_up = weight(p + "w_gate_up", H, 2 * I, l)
        else:
            w_gate = weight(p + "w_gate", H, I, l)
            w_up = weight(p + "w_up", H, I, l)
        w_down = weight(p + "w_down", I, H, l)

        b.comment(f"---- layer {l}: attention")
        xn = b.rms_norm(p + "x_norm", x, attn_norm_w, cfg.eps)
        qkv = b.matmul(p + "qkv", xn, w_qkv)
        grouped = cfg.qkv_layout == "grouped"
        if grouped:
            # Heads stay grouped by KV head: [Hk, G, D] queries, [Hk, 1, D]
            # keys and values, so that the per-head work cuts along Hk.
            qkv = b.reshape(p + "qkv_groups", qkv, (Hk, G + 2, D))
            q, k, v = b.split([p + "q_heads", p + "k_heads", p + "v_new"], qkv, 1,
                              [G, 1, 1])
            head_dim, rope_cos, rope_sin = 2, cos_heads, sin_heads
        else:
            q, k, v = b.split([p + "q", p + "k", p + "v"], qkv, 1,
                              [Hq * D, Hk * D, Hk * D])
            q = b.reshape(p + "q_heads", q, (Hq, D))
            k = b.reshape(p + "k_heads", k, (Hk, D))
            v = b.reshape(p + "v_new", v, (Hk, 1, D))
            head_dim, rope_cos, rope_sin = 1, cos, sin
        q = b.rms_norm(p + "q_norm", q, q_norm_w, cfg.eps)
        k = b.rms_norm(p + "k_norm", k, k_norm_w, cfg.eps)

        def rope(tag, t):
            # t * cos + rotate_half(t) * sin, rotate_half(t) = concat(-t2, t1)
            t1, t2 = b.split([p + tag + "_half1", p + tag + "_half2"], t, head_dim,
                             [D // 2, D // 2])
            n2 = b.unary("neg", p + tag + "_half2_neg", t2)
            rot = b.concat(p + tag + "_rot", [n2, t1], head_dim)
            tc = b.binary("mul", p + tag + "_cos", t, rope_cos)
            rs = b.binary("mul", p + tag + "_rot_sin", rot, rope_sin)
            return b.binary("add", p + tag + "_rope", tc, rs)

        b.comment("RoPE (rotate_half) on q and k")
        q = rope("q", q)
        k = rope("k", k)
        k_new = k if grouped else b.reshape(p + "k_new", k, (Hk, 1, D))
        new_kv.append((k_new, v))

        b.comment(f"append the new k and v to the {P}-entry caches: {L} entries")
        k_all = b.concat(p + "k_all", [k_cache, k_new], 1)
        v_all = b.concat(p + "v_all", [v_cache, v], 1)

        b.comment(f"grouped-query attention: query head h uses KV head h / {G}")
        qg = q if grouped else b.reshape(p + "q_groups", q, (Hk, G, D))
        kt = b.transpose(p + "k_all_t", k_all, (0, 2, 1))
        s = b.matmul(p + "scores", qg, kt)
        s = b.scalar("mul_scalar", p + "scores_scaled", s, 1.0 / math.sqrt(D))
        m = b.reduce("reduce_max", p + "scores_max", s, 2)
        s = b.binary("sub", p + "scores_shifted", s, m)
        e = b.unary("exp", p + "probs_exp", s)
        z = b.reduce("reduce_sum", p + "probs_sum", e, 2)
        pr = b.binary("div", p + "probs", e, z)
        o = b.matmul(p + "attn_heads", pr, v_all)
        o = b.reshape(p + "attn_flat", o, (1, Hq * D))
        o = b.matmul(p + "attn_out", o, w_o)
        h = b.binary("add", p + "h", x, o)

        b.comment(f"---- layer {l}: MLP")
        hn = b.rms_norm(p + "h_norm", h, mlp_norm_w, cfg.eps)
        if cfg.mlp == "fused":
            gu = b.matmul(p + "gate_up", hn, w_gate_up)
            g, u = b.split([p + "gate", p + "up"], gu, 1, [I, I])
        else:
            g = b.matmul(p + "gate", hn, w_gate)
            u = b.matmul(p + "up", hn, w_up)
        g = b.unary("silu", p + "gate_silu", g)
        a = b.binary("mul", p + "act", g, u)
        d = b.matmul(p + "down", a, w_down)
        x = b.binary("add", f"x{l + 1}", h, d)

    results.append((x, b.shapes[x]))
    if cfg.kv_outputs:
        for k_new, v_new in new_kv:
            results.append((k_new, b.shapes[k_new]))
            results.append((v_new, b.shapes[v_new]))
    return Program(cfg, args, results, b.lines)


def header(cfg: Config, command: Optional[str]) -> List[str]:
    mlp = ("gate and up as one fused matmul, then split" if cfg.mlp == "fused"
           else "gate and up as two matmuls")
    results = "the hidden state after the last layer [1, hidden]"
    if cfg.kv_outputs:
        results += (",\n//   then per layer its new k (after QK-norm and RoPE) and new v,"
                    " each [KV heads, 1, head dim]")
    qkv_columns = ("columns per KV head: its query heads, its k, its v"
                   if cfg.qkv_layout == "grouped" else "columns q | k | v, head-major")
    gate_up = ("w_gate_up [hidden, 2 * intermediate] (columns gate | up)"
               if cfg.mlp == "fused" else "w_gate, w_up [hidden, intermediate]")
    lines = [
        f"// A Qwen3-shaped decode step: batch 1, one new token, {cfg.layers} "
        f"layer{'s' if cfg.layers != 1 else ''}.",
        "// Generated by examples/decoder/gen_decoder.py; do not edit (the formulation is",
        "// in examples/decoder/README.md). Regenerate with",
    ]
    if command:
        lines.append(f"//   {command}")
    lines += [
        "//",
        f"//   layers {cfg.layers}, hidden {cfg.hidden}, query heads {cfg.q_heads}, "
        f"KV heads {cfg.kv_heads}, head dim {cfg.head_dim},",
        f"//   intermediate {cfg.intermediate}, KV cache {cfg.cache_len} entries "
        f"({cfg.past} cached + the new token),",
        f"//   RMSNorm eps {fmt_float(cfg.eps)}, {cfg.dtype}; MLP: {mlp}",
        f"//   results: {results}",
        "//",
        "// Arguments: x [1, hidden]; cos, sin [1, head dim], the RoPE tables at the new",
        "// token's position (HF layout: cos(concat(freqs, freqs) * pos)); then per layer l:",
        "// attn_norm_w [hidden]; w_qkv [hidden, (query heads + 2 * KV heads) * head dim]",
        f"// ({qkv_columns}); q_norm_w, k_norm_w [head dim]; k_cache, v_cache",
        "// [KV heads, cache - 1, head dim] (keys after QK-norm and RoPE); w_o [query heads *",
        "// head dim, hidden]; mlp_norm_w [hidden];",
        f"// {gate_up}; w_down [intermediate, hidden].",
    ]
    if cfg.weight_layout == "out-in":
        lines += ["// Each projection weight (w_*) is stored with the two dims above swapped, [out, in]",
                  "// as PyTorch's nn.Linear keeps it, and multiplied through kn.transpose."]
    return lines


def render(cfg: Config, command: Optional[str] = None,
           prologue: Optional[Callable[[Program], Tuple[List[Tuple[str, str]], List[str]]]] = None,
           attributes: str = "") -> str:
    """The MLIR text. `prologue(program)`, when given, returns the function's
    arguments as (name, type) pairs and kn lines that define every program
    argument from them; the body that follows is unchanged."""
    prog = build(cfg)
    if prologue is None:
        params = [(a.name, ttype(a.shape, cfg.dtype)) for a in prog.args]
        pre: List[str] = []
    else:
        params, pre = prologue(prog)
    out = header(cfg, command)
    out.append("")
    sig = ",\n    ".join(f"%{n}: {t}" for n, t in params)
    rtypes = [ttype(s, cfg.dtype) for _, s in prog.results]
    rsig = rtypes[0] if len(rtypes) == 1 else "(" + ", ".join(rtypes) + ")"
    attrs = f" attributes {{{attributes}}}" if attributes else ""
    out.append(f"func.func @{cfg.name}(\n    {sig})\n    -> {rsig}{attrs} {{")
    for line in pre + prog.body:
        out.append("  " + line)
    out.append(f"  return {', '.join('%' + n for n, _ in prog.results)} : {', '.join(rtypes)}")
    out.append("}")
    return "\n".join(out) + "\n"


# --------------------------------------------------------------------- CLI ---

def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--preset", choices=sorted(PRESETS), default="qwen3-8b",
                    help="starting configuration (default qwen3-8b, 1 layer)")
    ap.add_argument("--layers", type=int)
    ap.add_argument("--hidden", type=int)
    ap.add_argument("--q-heads", type=int)
    ap.add_argument("--kv-heads", type=int)
    ap.add_argument("--head-dim", type=int)
    ap.add_argument("--intermediate", type=int)
    ap.add_argument("--cache-len", type=int,
                    help="KV-cache entries including the new token")
    ap.add_argument("--eps", type=float, help="RMSNorm epsilon")
    ap.add_argument("--dtype", choices=DTYPES)
    ap.add_argument("--name", help="function name")
    ap.add_argument("--mlp", choices=("fused", "separate"),
                    help="gate/up projection: one fused matmul then split (default), "
                         "or two matmuls")
    ap.add_argument("--qkv-layout", choices=("blocked", "grouped"),
                    help="w_qkv's columns: q | k | v, each head-major (default), or "
                         "grouped per KV head (its query heads, its k, its v), as "
                         "Megatron-LM lays out grouped-query attention")
    ap.add_argument("--weight-layout", choices=("in-out", "out-in"),
                    help="projection weights [in, out] multiplied as given (default), "
                         "or [out, in] as PyTorch's nn.Linear stores them, multiplied "
                         "transposed")
    ap.add_argument("--no-kv-outputs", action="store_true",
                    help="return only the hidden state, not the new k and v per layer")
    ap.add_argument("--reference", metavar="FUNC",
                    help="mark the function kn.reference = @FUNC (a second copy that "
                         "mirage-verify-equivalence checks against the first)")
    ap.add_argument("-o", "--output", default="-", help="output file (default stdout)")
    return ap.parse_args(argv)


def config_from_args(ns) -> Config:
    cfg = PRESETS[ns.preset]
    changes = {}
    for field in ("layers", "hidden", "q_heads", "kv_heads", "head_dim", "intermediate",
                  "cache_len", "eps", "dtype", "name", "mlp", "qkv_layout", "weight_layout"):
        value = getattr(ns, field)
        if value is not None:
            changes[field] = value
    if ns.no_kv_outputs:
        changes["kv_outputs"] = False
    return dataclasses.replace(cfg, **changes)


def command_line(ns) -> str:
    """The generator command that reproduces this configuration, for the header."""
    parts = ["examples/decoder/gen_decoder.py", f"--preset {ns.preset}"]
    for field in ("layers", "hidden", "q_heads", "kv_heads", "head_dim", "intermediate",
                  "cache_len", "eps", "dtype", "name", "mlp", "qkv_layout", "weight_layout"):
        value = getattr(ns, field)
        if value is not None:
            parts.append(f"--{field.replace('_', '-')} {value}")
    if ns.no_kv_outputs:
        parts.append("--no-kv-outputs")
    if ns.reference:
        parts.append(f"--reference {ns.reference}")
    return " ".join(parts)


def main(argv=None) -> int:
    ns = parse_args(sys.argv[1:] if argv is None else argv)
    try:
        cfg = config_from_args(ns)
        attributes = ""
        if ns.reference:
            Config(name=ns.reference).check()
            attributes = f"kn.reference = @{ns.reference}"
        text = render(cfg, command_line(ns), attributes=attributes)
    except ValueError as err:
        print(f"gen_decoder.py: error: {err}", file=sys.stderr)
        return 2
    if ns.output == "-":
        sys.stdout.write(text)
    else:
        with open(ns.output, "w") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
