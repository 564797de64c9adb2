"""The torch function built from a manifest's program, on CPU.

Ops run on float64 tensors and are compared with float64 NumPy math written
independently here; a last group runs whole bundles through the CLI.
"""

import json
import math

import pytest

np = pytest.importorskip("numpy")
torch = pytest.importorskip("torch")
import mirage_baselines as mb  # noqa: E402

RNG = np.random.default_rng(0)


def program(inputs, ops, outputs, types=None):
    ops = [{"op": op, "operands": operands, "results": results, "attrs": attrs}
           for op, operands, results, attrs in ops]
    return {"inputs": inputs, "ops": ops, "outputs": outputs, "types": types or {}}


def run(prog, *arrays):
    """The built function on float64 tensors, results back as NumPy arrays."""
    outputs = mb.build_program(prog, "test")(*(torch.from_numpy(a) for a in arrays))
    return [o.numpy() for o in outputs]


def rms_norm_ref(x, w, eps):
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps) * w


def test_rms_norm_then_matmul():
    x, g, w = RNG.standard_normal((4, 64)), RNG.standard_normal(64), \
        RNG.standard_normal((64, 48))
    prog = program(["x", "g", "w"], [
        ("rms_norm", ["x", "g"], ["v0"], {"eps": 1e-6}),
        ("matmul", ["v0", "w"], ["v1"], {}),
    ], ["v1"])
    (out,) = run(prog, x, g, w)
    np.testing.assert_allclose(out, rms_norm_ref(x, g, 1e-6) @ w, rtol=1e-12)


def test_rms_norm_without_weight_and_default_eps():
    x = RNG.standard_normal((2, 3, 16))
    (out,) = run(program(["x"], [("rms_norm", ["x"], ["v0"], {})], ["v0"]), x)
    np.testing.assert_allclose(out, rms_norm_ref(x, 1.0, 0.0), rtol=1e-12)


def test_softmax_chain():
    x = RNG.standard_normal((5, 33))
    prog = program(["x"], [
        ("reduce_max", ["x"], ["v0"], {"dim": 1}),
        ("sub", ["x", "v0"], ["v1"], {}),
        ("exp", ["v1"], ["v2"], {}),
        ("reduce_sum", ["v2"], ["v3"], {"dim": 1, "keepdim": True}),
        ("div", ["v2", "v3"], ["v4"], {}),
        ("reduce_sum", ["v4"], ["v5"], {"dim": 1, "keepdim": False}),
    ], ["v4", "v5"])
    probs, totals = run(prog, x)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(probs, e / e.sum(axis=1, keepdims=True), rtol=1e-12)
    assert totals.shape == (5,)
    np.testing.assert_allclose(totals, 1.0, rtol=1e-12)


def test_split_concat_transpose_reshape():
    x = RNG.standard_normal((4, 6))
    prog = program(["x"], [
        ("split", ["x"], ["v0", "v1"], {"dim": 1, "sizes": [2, 4]}),
        ("concat", ["v1", "v0"], ["v2"], {"dim": 1}),
        ("transpose", ["v2"], ["v3"], {"permutation": [1, 0]}),
        ("reshape", ["v3"], ["v4"], {}),
    ], ["v4", "v0"], {"v4": {"dtype": "f32", "shape": [3, 8]}})
    reshaped, first = run(prog, x)
    expected = np.concatenate([x[:, 2:], x[:, :2]], axis=1).T.reshape(3, 8)
    np.testing.assert_array_equal(reshaped, expected)
    np.testing.assert_array_equal(first, x[:, :2])


def test_split_with_one_piece():
    x = RNG.standard_normal((2, 3))
    prog = program(["x"], [("split", ["x"], ["v0"], {"dim": 0, "sizes": [2]})],
                   ["v0"])
    np.testing.assert_array_equal(run(prog, x)[0], x)


def test_transpose_of_three_dims():
    x = RNG.standard_normal((2, 3, 4))
    prog = program(["x"], [("transpose", ["x"], ["v0"], {"permutation": [2, 0, 1]})],
                   ["v0"])
    np.testing.assert_array_equal(run(prog, x)[0], np.transpose(x, (2, 0, 1)))


ERF = np.vectorize(math.erf)
UNARY = {
    "exp": np.exp,
    "sqrt": lambda x: np.sqrt(np.abs(x)),
    "square": lambda x: x * x,
    "neg": lambda x: -x,
    "relu": lambda x: np.maximum(x, 0.0),
    "sigmoid": lambda x: 1 / (1 + np.exp(-x)),
    "silu": lambda x: x / (1 + np.exp(-x)),
    "gelu": lambda x: 0.5 * x * (1 + ERF(x / math.sqrt(2))),
    "tanh": np.tanh,
    "rsqrt": lambda x: 1 / np.sqrt(np.abs(x)),
    "all_reduce": lambda x: x,
}


@pytest.mark.parametrize("op", sorted(UNARY))
def test_unary(op):
    x = RNG.standard_normal((3, 7))
    if op in ("sqrt", "rsqrt"):
        x = np.abs(x)
    (out,) = run(program(["x"], [(op, ["x"], ["v0"], {})], ["v0"]), x)
    np.testing.assert_allclose(out, UNARY[op](x), rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("op,ref", [("mul_scalar", lambda x: x * -2.5),
                                    ("add_scalar", lambda x: x + -2.5)])
def test_scalar(op, ref):
    x = RNG.standard_normal((3, 7))
    (out,) = run(program(["x"], [(op, ["x"], ["v0"], {"scalar": -2.5})], ["v0"]), x)
    np.testing.assert_allclose(out, ref(x), rtol=1e-15)


@pytest.mark.parametrize("op,ref", [("add", np.add), ("sub", np.subtract),
                                    ("mul", np.multiply), ("div", np.divide),
                                    ("pow", np.power), ("maximum", np.maximum)])
def test_binary_broadcasting(op, ref):
    a = np.abs(RNG.standard_normal((4, 1, 5))) + 0.1
    b = RNG.standard_normal((3, 1))
    (out,) = run(program(["a", "b"], [(op, ["a", "b"], ["v0"], {})], ["v0"]), a, b)
    assert out.shape == (4, 3, 5)
    np.testing.assert_allclose(out, ref(a, b), rtol=1e-12)


def test_batched_broadcasting_matmul():
    a, b = RNG.standard_normal((2, 1, 3, 4)), RNG.standard_normal((5, 4, 6))
    (out,) = run(program(["a", "b"], [("matmul", ["a", "b"], ["v0"], {})], ["v0"]),
                 a, b)
    assert out.shape == (2, 5, 3, 6)
    np.testing.assert_allclose(out, np.matmul(a, b), rtol=1e-12)


def test_unknown_op_names_op_and_bundle():
    prog = program(["x"], [("frobnicate", ["x"], ["v0"], {})], ["v0"])
    with pytest.raises(ValueError, match="frobnicate") as info:
        mb.build_program(prog, "my_bundle")
    assert "my_bundle" in str(info.value)


def test_rotation_sets():
    assert mb.rotation_sets(1 << 30, 50 << 20) == 2
    assert mb.rotation_sets(1 << 10, 50 << 20) == 64
    assert mb.rotation_sets(10 << 20, 50 << 20) == 10
    assert mb.rotation_sets(3 << 20, 50 << 20) == 34  # 34 * 3 MiB >= 100 MiB


# ---------------------------------------------------------- whole bundles ---


def write_bundle(root, name, prog, buffers, reference_fn=None, seed=1):
    """A bundle directory; reference.bin from reference_fn on the drawn inputs."""
    path = root / name
    path.mkdir()
    inputs = [b["id"] for b in buffers if b["role"] == "input"]
    outputs = [b["id"] for b in buffers if b["role"] == "output"]
    manifest = {"format": "mirage-bundle", "version": 1, "name": name,
                "buffers": buffers, "inputs": inputs, "outputs": outputs,
                "steps": [], "kernels": [],
                "inputs_generator": {"kind": "uniform", "seed": seed,
                                     "low": -1.0, "high": 1.0},
                "program": prog, "future_field": {"ignored": True}}
    if reference_fn is not None:
        generator = manifest["inputs_generator"]
        values = [mb.storage_to_float64(
            mb.draw_input(generator, i, buffers[b]["shape"], buffers[b]["dtype"]),
            buffers[b]["dtype"]) for i, b in enumerate(inputs)]
        refs = reference_fn(*values)
        np.concatenate([r.ravel() for r in refs]).astype("<f8").tofile(
            path / "reference.bin")
        manifest["reference"] = {"file": "reference.bin", "function": name,
                                 "tolerance": {"rel_l2": 0.01}}
    (path / "manifest.json").write_text(json.dumps(manifest))
    return path


def rmsnorm_linear_bundle(root, name, dtype, reference_fn=None):
    prog = program(["x", "g", "w"], [
        ("rms_norm", ["x", "g"], ["v0"], {"eps": 1e-6}),
        ("matmul", ["v0", "w"], ["v1"], {}),
    ], ["v1"], {"v0": {"dtype": dtype, "shape": [4, 64]},
                "v1": {"dtype": dtype, "shape": [4, 48]}})
    buffers = [
        {"id": 0, "name": "x", "role": "input", "dtype": dtype, "shape": [4, 64]},
        {"id": 1, "name": "g", "role": "input", "dtype": dtype, "shape": [64]},
        {"id": 2, "name": "w", "role": "input", "dtype": dtype, "shape": [64, 48]},
        {"id": 3, "name": "out0", "role": "output", "dtype": dtype, "shape": [4, 48]},
    ]
    if reference_fn is None:
        reference_fn = lambda x, g, w: [rms_norm_ref(x, g, 1e-6) @ w]  # noqa: E731
    return write_bundle(root, name, prog, buffers, reference_fn)


def run_cli(tmp_path, paths, *extra):
    out = tmp_path / "baselines.json"
    assert mb.main([str(p) for p in paths] + [
        "--json", str(out), "--device", "cpu", "--warmups", "1",
        "--repetitions", "2", "--copy-bytes", str(1 << 20), *extra]) == 0
    return json.loads(out.read_text())


def test_cli_bundles(tmp_path):
    good16 = rmsnorm_linear_bundle(tmp_path, "good_f16", "f16")
    good_bf16 = rmsnorm_linear_bundle(tmp_path, "good_bf16", "bf16")
    wrong_ref = rmsnorm_linear_bundle(tmp_path, "wrong_ref", "f16",
                                      lambda x, g, w: [2 * rms_norm_ref(x, g, 1e-6) @ w])
    unknown = write_bundle(
        tmp_path, "unknown_op",
        program(["x"], [("frobnicate", ["x"], ["v0"], {})], ["v0"]),
        [{"id": 0, "name": "x", "role": "input", "dtype": "f16", "shape": [8]},
         {"id": 1, "name": "y", "role": "output", "dtype": "f16", "shape": [8]}])
    no_program = write_bundle(
        tmp_path, "no_program", None,
        [{"id": 0, "name": "x", "role": "input", "dtype": "f32", "shape": [8]},
         {"id": 1, "name": "y", "role": "output", "dtype": "f32", "shape": [8]}])
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "manifest.json").write_text('{"format": "other", "version": 1}')

    document = run_cli(tmp_path, [unknown, broken, good16, no_program, good_bf16,
                                  wrong_ref])
    assert document["copy_bandwidth_bytes_per_s"] > 0
    assert document["device"]["type"] == "cpu"
    results = {r["name"]: r for r in document["results"]}
    assert list(results) == ["unknown_op", "broken", "good_f16", "no_program",
                             "good_bf16", "wrong_ref"]

    for name in ["good_f16", "good_bf16"]:
        r = results[name]
        assert r["errors"] == [], r["errors"]
        assert r["bytes"] == 2 * (4 * 64 + 64 + 64 * 48 + 4 * 48)
        assert r["floor_us"] > 0 and r["eager_us"] > 0
        assert r["eager_min_us"] <= r["eager_us"]
        assert r["eager_graph_us"] is None and r["compile_graph_us"] is None
        assert r["rotation_sets"] == 2
    assert results["good_f16"]["torch_rel_l2"] < 2e-3
    assert results["good_bf16"]["torch_rel_l2"] < 1e-2
    assert results["wrong_ref"]["torch_rel_l2"] == pytest.approx(0.5, abs=1e-2)

    assert any("frobnicate" in e and "unknown_op" in e
               for e in results["unknown_op"]["errors"])
    assert results["unknown_op"]["floor_us"] > 0
    assert any("format" in e for e in results["broken"]["errors"])
    assert results["no_program"]["skipped"] and results["no_program"]["errors"] == []


def test_cli_measures_a_program_once(tmp_path):
    """The forms of one program (same program, inputs and reference) are
    measured once; the JSON holds what was measured even mid-run."""
    first = rmsnorm_linear_bundle(tmp_path, "prog", "f16")
    second = tmp_path / "prog_megakernel"
    second.mkdir()
    manifest = json.loads((first / "manifest.json").read_text())
    manifest["name"] = "prog_megakernel"
    (second / "manifest.json").write_text(json.dumps(manifest))
    (second / "reference.bin").write_bytes((first / "reference.bin").read_bytes())
    document = run_cli(tmp_path, [first, second])
    one, other = document["results"]
    assert other["name"] == "prog_megakernel" and other["same_program_as"] == "prog"
    assert other["bundle"] == str(second) and other["eager_us"] == one["eager_us"]
    assert "same_program_as" not in one


def test_cli_compile_on_cpu(tmp_path):
    """--compile on CPU: torch.compile timed without graphs, as compile_us."""
    pytest.importorskip("torch._inductor")
    bundle = rmsnorm_linear_bundle(tmp_path, "compiled", "f32")
    (result,) = run_cli(tmp_path, [bundle], "--compile")["results"]
    if result["errors"]:
        pytest.skip(f"torch.compile unavailable here: {result['errors']}")
    assert result["compile_us"] > 0 and result["compile_graph_us"] is None
