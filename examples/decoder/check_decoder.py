#!/usr/bin/env python3
"""Check the generated decoder against an independent NumPy decoder.

    examples/decoder/check_decoder.py [--build-dir build] [--seeds 1 2 3 4 5]

For each seed:

1. render the small decoder (examples/decoder_small.mlir; the script first
   checks that the generator still writes exactly that file) behind a
   *prologue* of kn ops that turns the bundle generator's uniform [-1, 1)
   inputs into inputs at realistic scales: weights * sqrt(3 / fan_in)
   (standard deviation 1/sqrt(fan_in)), norm weights in [0.8, 1.2], hidden
   state and caches with standard deviation 1, and cos/sin of random angles
   (cos = a / r, sin = b / r with r = sqrt(a^2 + b^2), halves repeated as in
   HF's cos(concat(freqs, freqs) * pos)). The decoder body after the
   prologue is the generator's text, unchanged;
2. run `mirage-bundle --seed S --ptxas none`, which lowers the function to
   PTX and evaluates it with the project's float64 reference interpreter
   (reference.bin);
3. draw the same uniform inputs in NumPy (runtime/python/mirage_baselines.py,
   the runtime's own generator), apply the prologue in float64 and run an
   independent NumPy decoder written from the Qwen3 definition (slicing,
   a per-head loop over query heads with h // group as the KV head,
   softmax, silu as g * sigmoid(g)) on them;
4. compare every output (hidden state, new k and v of each layer) by
   relative L2 error and maximum absolute error. The interpreter computes in
   float64 (only the inputs are rounded to f16), so they must agree to about
   1e-12; the script fails above --tolerance (default 1e-9).

For information it also reports how far an emulation of f16 storage (every
op's result rounded to the element type) lands from the float64 result, and
that five plausible wrong decoders (MUTATIONS) are far from the interpreter.
--mlp / --dtype / --qkv-layout / --weight-layout check a generator variant
instead of the committed file.

The project's Python package (python/) has no interpreter binding, so the
interpreter is reached through mirage-bundle, which needs nothing but the
build. Needs numpy.
"""

import argparse
import dataclasses
import json
import math
import os
import pathlib
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT / "runtime" / "python"))

import gen_decoder as gen  # noqa: E402
from mirage_baselines import draw_input, storage_to_float64  # noqa: E402

SQRT3 = math.sqrt(3.0)
NORM_SPREAD = 0.2  # norm weights 1 + 0.2 * u: [0.8, 1.2]


# ------------------------------------------------------------- prologue ---

def prologue(prog):
    """The raw (uniform) arguments and the kn lines that make the program's
    arguments from them: ((name, type) list, lines). `raw_shapes` and
    `apply_prologue` below are its NumPy mirror."""
    cfg = prog.config
    dt = cfg.dtype
    D = cfg.head_dim
    params, lines = [], []
    for a in prog.args:
        ty = gen.ttype(a.shape, dt)
        if a.role == "cos":
            half = gen.ttype((1, D // 2), dt)
            params += [("rope_a", half), ("rope_b", half)]
            lines += [
                f"%rope_a2 = kn.square %rope_a : {half}",
                f"%rope_b2 = kn.square %rope_b : {half}",
                f"%rope_r2 = kn.add %rope_a2, %rope_b2 : {half}, {half}",
                f"%rope_r = kn.sqrt %rope_r2 : {half}",
                f"%rope_c = kn.div %rope_a, %rope_r : {half}, {half}",
                f"%rope_s = kn.div %rope_b, %rope_r : {half}, {half}",
                f"%cos = kn.concat %rope_c, %rope_c dim 1 : {half}, {half}",
                f"%sin = kn.concat %rope_s, %rope_s dim 1 : {half}, {half}",
            ]
            continue
        if a.role == "sin":
            continue
        raw = a.name + "_u"
        params.append((raw, ty))
        if a.role == "norm":
            lines += [f"%{a.name}_d = kn.mul_scalar %{raw}, {gen.fmt_float(NORM_SPREAD)} : {ty}",
                      f"%{a.name} = kn.add_scalar %{a.name}_d, 1.0 : {ty}"]
        else:
            lines.append(f"%{a.name} = kn.mul_scalar %{raw}, "
                         f"{gen.fmt_float(scale_of(a))} : {ty}")
    return params, lines


def scale_of(arg):
    if arg.role == "weight":
        return math.sqrt(3.0 / arg.fan_in)
    return SQRT3  # hidden state, k and v caches: standard deviation 1


def raw_shapes(prog):
    shapes = []
    for a in prog.args:
        if a.role == "cos":
            shapes += [(1, prog.config.head_dim // 2)] * 2
        elif a.role != "sin":
            shapes.append(a.shape)
    return shapes


def apply_prologue(prog, raw):
    """The program's arguments (float64) from the raw inputs, as the prologue
    computes them."""
    values, i = {}, 0
    for a in prog.args:
        if a.role == "cos":
            ra, rb = raw[i], raw[i + 1]
            i += 2
            r = np.sqrt(ra * ra + rb * rb)
            values["cos"] = np.concatenate([ra / r, ra / r], axis=1)
            values["sin"] = np.concatenate([rb / r, rb / r], axis=1)
        elif a.role == "sin":
            continue
        else:
            u = raw[i]
            i += 1
            values[a.name] = u * NORM_SPREAD + 1.0 if a.role == "norm" else u * scale_of(a)
    return values


# ------------------------------------------------- the NumPy decoder ---

MUTATIONS = {
    "kv_head=h%kv_heads": "query head h reads KV head h % kv_heads instead of h // group",
    "rotate_half=(x2,-x1)": "rotate_half(x) = concat(x2, -x1)",
    "no_new_token": "attention over the cached entries only",
    "no_qk_norm_weight": "QK-norm without its weights",
    "qkv_order_q|v|k": "fused QKV columns read as q | v | k",
}


def reference_decoder(cfg, w, rnd=None, mutation=None):
    """Qwen3 decode step for one token, written independently of the kn
    program. `rnd`, when given, rounds every intermediate result (to emulate
    f16 storage between kernels). `mutation` (a key of MUTATIONS) computes a
    plausible wrong decoder instead, to show that the comparison notices."""
    r = rnd or (lambda t: t)
    mut = mutation or ""
    H, Hq, Hk, D, I = cfg.hidden, cfg.q_heads, cfg.kv_heads, cfg.head_dim, cfg.intermediate
    group = Hq // Hk

    def rmsnorm(v, g):
        return r(v / np.sqrt(np.mean(v * v, axis=-1, keepdims=True) + cfg.eps) * g)

    def rotate_half(v):
        if mut == "rotate_half=(x2,-x1)":
            return np.concatenate([v[..., D // 2:], -v[..., :D // 2]], axis=-1)
        return np.concatenate([-v[..., D // 2:], v[..., :D // 2]], axis=-1)

    def weight(name):
        """A projection weight as the [in, out] matrix that x multiplies."""
        return w[name] if cfg.weight_layout == "in-out" else w[name].T

    cos, sin = w["cos"][0], w["sin"][0]
    x = w["x"][0]  # [H]
    new_kv = []
    for l in range(cfg.layers):
        p = f"l{l}_"
        xn = rmsnorm(x, w[p + "attn_norm_w"])
        qkv = r(xn @ weight(p + "w_qkv"))
        if cfg.qkv_layout == "grouped":
            # Per KV head: its query heads (h = kv_head * group + g), k, v.
            per_kv_head = qkv.reshape(Hk, group + 2, D)
            q = per_kv_head[:, :group].reshape(Hq, D)
            k = per_kv_head[:, group]
            v = per_kv_head[:, group + 1]
        else:
            q = qkv[:Hq * D].reshape(Hq, D)
            k = qkv[Hq * D:(Hq + Hk) * D].reshape(Hk, D)
            v = qkv[(Hq + Hk) * D:].reshape(Hk, D)
        if mut == "qkv_order_q|v|k":
            k, v = v, k
        qk_norm = mut != "no_qk_norm_weight"
        q = rmsnorm(q, w[p + "q_norm_w"] if qk_norm else 1.0)
        k = rmsnorm(k, w[p + "k_norm_w"] if qk_norm else 1.0)
        q = r(r(q * cos) + r(rotate_half(q) * sin))
        k = r(r(k * cos) + r(rotate_half(k) * sin))
        keys = np.concatenate([w[p + "k_cache"], k[:, None, :]], axis=1)    # [Hk, L, D]
        values = np.concatenate([w[p + "v_cache"], v[:, None, :]], axis=1)  # [Hk, L, D]
        if mut == "no_new_token":
            keys, values = w[p + "k_cache"], w[p + "v_cache"]
        heads = []
        for h in range(Hq):
            kvh = h % Hk if mut == "kv_head=h%kv_heads" else h // group
            s = r(r(keys[kvh] @ q[h]) * (1.0 / math.sqrt(D)))                # [L]
            e = r(np.exp(r(s - s.max())))
            prob = r(e / r(e.sum()))
            heads.append(r(prob @ values[kvh]))
        attn = r(np.concatenate(heads) @ weight(p + "w_o"))
        hid = r(x + attn)
        hn = rmsnorm(hid, w[p + "mlp_norm_w"])
        if cfg.mlp == "fused":
            gu = r(hn @ weight(p + "w_gate_up"))
            g, u = gu[:I], gu[I:]
        else:
            g, u = r(hn @ weight(p + "w_gate")), r(hn @ weight(p + "w_up"))
        act = r(r(g / (1.0 + np.exp(-g))) * u)
        x = r(hid + r(act @ weight(p + "w_down")))
        new_kv += [k[:, None, :], v[:, None, :]]
    outs = [x[None, :]]
    if cfg.kv_outputs:
        outs += new_kv
    return outs


def to_f16(t):
    return np.asarray(t, dtype=np.float64).astype(np.float16).astype(np.float64)


def storage_rounding(dtype):
    """Rounds float64 values to `dtype` storage (emulating every op's result
    being stored in that type)."""
    if dtype == "f16":
        return to_f16
    if dtype == "f32":
        return lambda t: np.asarray(t, dtype=np.float64).astype(np.float32).astype(np.float64)
    from mirage_baselines import round_to_dtype

    def rnd(t):
        t = np.asarray(t, dtype=np.float64)
        wide = storage_to_float64(round_to_dtype(np.atleast_1d(t), dtype), dtype)
        return wide.reshape(t.shape)
    return rnd


def rel_l2(out, ref):
    return float(np.linalg.norm(out - ref) / max(np.linalg.norm(ref), 1e-300))


# ------------------------------------------------------------- driver ---

def run_seed(cfg, bundle_tool, seed, workdir):
    prog = gen.build(cfg)
    text = gen.render(cfg, "(check_decoder.py: realistic-scale prologue)", prologue=prologue)
    src = workdir / f"{cfg.name}_seed{seed}.mlir"
    src.write_text(text)
    out = workdir / f"bundles_seed{seed}"
    start = time.monotonic()
    proc = subprocess.run([str(bundle_tool), str(src), "-o", str(out), "--ptxas", "none",
                           "--seed", str(seed)], capture_output=True, text=True)
    if proc.returncode:
        sys.stderr.write(proc.stdout + proc.stderr)
        raise SystemExit(f"mirage-bundle failed on {src} (exit {proc.returncode})")
    bundle_s = time.monotonic() - start
    bdir = out / cfg.name
    manifest = json.loads((bdir / "manifest.json").read_text())
    buffers = {b["id"]: b for b in manifest["buffers"]}
    gen_spec = manifest["inputs_generator"]
    shapes = raw_shapes(prog)
    raw = []
    for index, bid in enumerate(manifest["inputs"]):
        b = buffers[bid]
        assert tuple(b["shape"]) == tuple(shapes[index]), (b, shapes[index])
        raw.append(storage_to_float64(draw_input(gen_spec, index, b["shape"], b["dtype"]),
                                      b["dtype"]))
    ref_flat = np.fromfile(bdir / "reference.bin", dtype="<f8")
    interp, offset = [], 0
    for bid in manifest["outputs"]:
        shape = buffers[bid]["shape"]
        n = math.prod(shape)
        interp.append(ref_flat[offset:offset + n].reshape(shape))
        offset += n
    assert offset == ref_flat.size, "reference.bin has an unexpected size"

    weights = apply_prologue(prog, raw)
    numpy_out = reference_decoder(cfg, weights)
    rnd = storage_rounding(cfg.dtype)
    f16_out = reference_decoder(cfg, {k: rnd(v) for k, v in weights.items()}, rnd=rnd)
    names = [n for n, _ in prog.results]
    rows = []
    for name, a, b, c in zip(names, interp, numpy_out, f16_out):
        assert a.shape == b.shape, (name, a.shape, b.shape)
        rows.append((name, rel_l2(a, b), float(np.max(np.abs(a - b))),
                     float(np.sqrt(np.mean(b * b))), rel_l2(c, b)))
    # The smallest error a wrong decoder reaches on any output: must be large.
    mutants = {}
    for mutation in MUTATIONS:
        wrong = reference_decoder(cfg, weights, mutation=mutation)
        mutants[mutation] = max(rel_l2(a, b) for a, b in zip(interp, wrong))
    return rows, mutants, bundle_s, len(manifest["steps"])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build-dir", default=os.environ.get("MIRAGE_BUILD_DIR",
                                                          str(ROOT / "build")))
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3, 4, 5])
    ap.add_argument("--tolerance", type=float, default=1e-9,
                    help="largest relative L2 error accepted (default 1e-9)")
    ap.add_argument("--preset", choices=("small", "qwen3-8b"), default="small",
                    help="which committed program: examples/decoder_small.mlir (default) "
                         "or examples/qwen3_decode.mlir (1 layer, about 6 GiB and a minute "
                         "per seed)")
    ap.add_argument("--mlp", choices=("fused", "separate"),
                    help="check this generator variant instead of the committed program")
    ap.add_argument("--dtype", choices=gen.DTYPES,
                    help="check this generator variant instead of the committed program")
    ap.add_argument("--qkv-layout", choices=("blocked", "grouped"),
                    help="check this generator variant instead of the committed program")
    ap.add_argument("--weight-layout", choices=("in-out", "out-in"),
                    help="check this generator variant instead of the committed program")
    ap.add_argument("--keep", help="keep the generated programs and bundles here")
    ns = ap.parse_args(argv)

    cfg = gen.PRESETS[ns.preset]
    if ns.mlp or ns.dtype or ns.qkv_layout or ns.weight_layout:
        cfg = dataclasses.replace(cfg, mlp=ns.mlp or cfg.mlp, dtype=ns.dtype or cfg.dtype,
                                  qkv_layout=ns.qkv_layout or cfg.qkv_layout,
                                  weight_layout=ns.weight_layout or cfg.weight_layout)
        print(f"checking a variant of the {ns.preset} preset: mlp {cfg.mlp}, {cfg.dtype}, "
              f"QKV {cfg.qkv_layout}, weights {cfg.weight_layout}")
    else:
        committed = ROOT / "examples" / {"small": "decoder_small.mlir",
                                         "qwen3-8b": "qwen3_decode.mlir"}[ns.preset]
        expected = gen.render(cfg, f"examples/decoder/gen_decoder.py --preset {ns.preset}")
        if committed.read_text() != expected:
            print(f"FAIL: {committed} differs from the generator's output; regenerate it")
            return 1
        print(f"{committed.relative_to(ROOT)} is the generator's current output")

    bundle_tool = pathlib.Path(ns.build_dir) / "bin" / "mirage-bundle"
    worst, caught = 0.0, math.inf
    with tempfile.TemporaryDirectory() as tmp:
        workdir = pathlib.Path(ns.keep or tmp)
        workdir.mkdir(parents=True, exist_ok=True)
        for seed in ns.seeds:
            rows, mutants, secs, steps = run_seed(cfg, bundle_tool, seed, workdir)
            print(f"seed {seed}: mirage-bundle (lowering + float64 interpreter) {secs:.2f} s, "
                  f"{steps} steps")
            print(f"  {'output':<10} {'rel L2 (interp vs numpy)':>25} {'max abs diff':>13} "
                  f"{'rms':>8} {cfg.dtype + ' storage rel L2':>19}")
            for name, rel, mad, rms, f16 in rows:
                print(f"  {name:<10} {rel:>25.3e} {mad:>13.3e} {rms:>8.3f} {f16:>19.3e}")
                worst = max(worst, rel)
            print("  wrong decoders (largest rel L2 over the outputs; must not pass): "
                  + ", ".join(f"{m} {e:.2g}" for m, e in mutants.items()))
            caught = min(caught, min(mutants.values()))
    ok = worst <= ns.tolerance and caught > 1e3 * ns.tolerance
    if caught <= 1e3 * ns.tolerance:
        print(f"FAIL: a wrong decoder came within {caught:.3e} of the interpreter")
    print(f"{'PASS' if ok else 'FAIL'}: worst relative L2 error {worst:.3e} "
          f"(tolerance {ns.tolerance:.0e}) over {len(ns.seeds)} seeds")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
