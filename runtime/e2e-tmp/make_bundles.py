"""Makes test bundles for the runtime's end-to-end check: python3 make_bundles.py OUTDIR PTX CUBIN"""
import json, math, os, shutil, struct, sys

M = (1 << 64) - 1
N = 1 << 20

def sm(z):
    z = (z + 0x9E3779B97F4A7C15) & M
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M
    return z ^ (z >> 31)

def gen(seed, i, n, low=-1.0, high=1.0):
    key = sm(seed ^ sm(i + 1))
    return [low + (high - low) * ((sm((key + e) & M) >> 11) * 2.0 ** -53) for e in range(n)]

def f16(v):
    return struct.unpack('<e', struct.pack('<e', v))[0]

def bf16(v):
    if v == 0:
        return 0.0
    m, e = math.frexp(v)
    return round(v * 2.0 ** (8 - e)) * 2.0 ** (e - 8)

def bf16_bits(v):
    return struct.unpack('<I', struct.pack('<f', v))[0] >> 16

out_dir, ptx, cubin = sys.argv[1:4]
seed = 5
x = [f16(v) for v in gen(seed, 0, N)]
y = [bf16(v) for v in gen(seed, 1, N)]
ref = [2 * a + b for a, b in zip(x, y)]

def buffers_axpy():
    return [
        {"id": 0, "name": "x", "role": "input", "dtype": "f16", "shape": [N]},
        {"id": 1, "name": "y", "role": "input", "dtype": "bf16", "shape": [N]},
        {"id": 2, "name": "t", "role": "intermediate", "dtype": "f32", "shape": [N]},
        {"id": 3, "name": "tv", "role": "view", "base": 2, "dtype": "f32", "shape": [N // 2, 2]},
        {"id": 4, "name": "out", "role": "output", "dtype": "f32", "shape": [N]},
        {"id": 5, "name": "out2", "role": "output", "dtype": "f32", "shape": [1024, 1024]},
    ]

def manifest(name, kernels, buffers, inputs, outputs, steps, cubin_name="kernels.cubin", tol=1e-3):
    binary = {"ptx": "kernels.ptx"}
    if cubin_name:
        binary["cubin"] = cubin_name
    return {"format": "mirage-bundle", "version": 1, "name": name, "source": "e2e",
            "chip": "sm_90a", "binary": binary,
            "kernels": [{"name": k} for k in kernels], "buffers": buffers,
            "inputs": inputs, "outputs": outputs, "steps": steps,
            "inputs_generator": {"kind": "uniform", "seed": seed, "low": -1.0, "high": 1.0},
            "reference": {"file": "reference.bin", "function": name, "tolerance": {"rel_l2": tol}},
            "program": None}

def write(name, m, refs, with_cubin=True):
    d = os.path.join(out_dir, name)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "manifest.json"), "w") as f:
        json.dump(m, f, indent=1)
    shutil.copy(ptx, os.path.join(d, "kernels.ptx"))
    if with_cubin:
        shutil.copy(cubin, os.path.join(d, "kernels.cubin"))
    with open(os.path.join(d, "reference.bin"), "wb") as f:
        for r in refs:
            f.write(struct.pack('<%dd' % len(r), *r))

axpy_steps = [
    {"kind": "launch", "kernel": "k_scale", "grid": [N // 256, 1, 1], "block": [256, 1, 1],
     "dynamic_shared_bytes": 0, "args": [0, 2]},
    {"kind": "launch", "kernel": "k_add", "grid": [N // 256, 1, 1], "block": [256, 1, 1],
     "dynamic_shared_bytes": 65536, "args": [3, 1, 4]},
    {"kind": "copy", "src": 4, "dst": 5, "bytes": 4 * N},
]
m = manifest("axpy", ["k_scale", "k_add", "k_half", "k_fault"], buffers_axpy(), [0, 1], [4, 5], axpy_steps)
write("axpy", m, [ref, ref])
m = manifest("axpy_ptx", ["k_scale", "k_add"], buffers_axpy(), [0, 1], [4, 5], axpy_steps, cubin_name=None)
write("axpy_ptx", m, [ref, ref], with_cubin=False)

# Only half of the output written.
half_buffers = [
    {"id": 0, "name": "x", "role": "input", "dtype": "f16", "shape": [N]},
    {"id": 1, "name": "out", "role": "output", "dtype": "f16", "shape": [N]},
]
m = manifest("half_written", ["k_half"], half_buffers, [0], [1],
             [{"kind": "launch", "kernel": "k_half", "grid": [N // 256, 1, 1], "block": [256, 1, 1],
               "dynamic_shared_bytes": 0, "args": [0, 1]}])
write("half_written", m, [x])

# A kernel that faults.
fault_buffers = [{"id": 0, "name": "out", "role": "output", "dtype": "f32", "shape": [256]}]
m = manifest("fault", ["k_fault"], fault_buffers, [], [0],
             [{"kind": "launch", "kernel": "k_fault", "grid": [1, 1, 1], "block": [256, 1, 1],
               "dynamic_shared_bytes": 0, "args": [0]}])
write("fault", m, [[0.0] * 256])

# An invalid manifest.
m = manifest("bad", ["k_scale"], buffers_axpy(), [0, 1], [4, 5], axpy_steps)
m["buffers"][3]["base"] = 9
write("bad_manifest", m, [ref, ref])

import copy
steps = copy.deepcopy(axpy_steps); steps[1]["dynamic_shared_bytes"] = 300000
write("too_much_shared", manifest("too_much_shared", ["k_scale", "k_add"], buffers_axpy(), [0, 1], [4, 5], steps), [ref, ref])
steps = copy.deepcopy(axpy_steps); steps[0]["block"] = [2048, 1, 1]
write("bad_block", manifest("bad_block", ["k_scale", "k_add"], buffers_axpy(), [0, 1], [4, 5], steps), [ref, ref])

# Inputs as files (the generated ones, so outputs must match the reference).
d = os.path.join(out_dir, "inputs")
os.makedirs(d, exist_ok=True)
with open(os.path.join(d, "input0.bin"), "wb") as f:
    f.write(struct.pack('<%de' % N, *x))
with open(os.path.join(d, "input1.bin"), "wb") as f:
    f.write(struct.pack('<%dH' % N, *[bf16_bits(v) for v in y]))
with open(os.path.join(out_dir, "ref.bin"), "wb") as f:
    f.write(struct.pack('<%dd' % N, *ref))
print("bundles written to", out_dir)
