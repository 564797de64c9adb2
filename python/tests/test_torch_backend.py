"""torch.compile(backend="mirage"): aten graphs become kn programs whose
float64 reference interpreter agrees with eager PyTorch on the CPU.

Every model runs with execute="reference", so its outputs come from the kn
programs (rounded to the graph's dtypes), not from PyTorch.
"""

import math
import warnings

import pytest

torch = pytest.importorskip("torch")
F = torch.nn.functional

import mirage_mlir.backend as backend  # noqa: E402  (registers "mirage")
import torch_models  # noqa: E402
from mirage_mlir import fx  # noqa: E402


def compile_and_run(fn, *inputs, **options):
    """Runs fn eagerly and through the backend; returns both results and what
    the backend built."""
    torch._dynamo.reset()
    options = {"execute": "reference", "cache_dir": None, **options}
    with torch.no_grad():
        expected = fn(*inputs)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got = torch.compile(fn, backend="mirage", options=options, dynamic=False)(*inputs)
    return expected, got, backend.last_compilation()


def assert_close(got, expected, rtol=1e-5, atol=1e-5):
    if isinstance(expected, torch.Tensor):
        got, expected = [got], [expected]
    for g, e in zip(got, expected):
        assert g.dtype == e.dtype and g.shape == e.shape
        torch.testing.assert_close(g, e, rtol=rtol, atol=atol)


def randn(*shape, dtype=torch.float32):
    return torch.randn(*shape, generator=GEN).to(dtype)


GEN = torch.Generator().manual_seed(0)

# One case per supported aten op (some reach it through a decomposition):
# name, function, input shapes.
OP_CASES = [
    ("exp", lambda x: torch.exp(x), [(4, 8)]),
    ("sqrt", lambda x: torch.sqrt(x.pow(2) + 1), [(4, 8)]),
    ("rsqrt", lambda x: torch.rsqrt(x.pow(2) + 1), [(4, 8)]),
    ("tanh", torch.tanh, [(4, 8)]),
    ("sigmoid", torch.sigmoid, [(4, 8)]),
    ("silu", F.silu, [(4, 8)]),
    ("relu", F.relu, [(4, 8)]),
    ("neg", lambda x: -x, [(4, 8)]),
    ("gelu", F.gelu, [(4, 8)]),
    ("gelu_tanh", lambda x: F.gelu(x, approximate="tanh"), [(4, 8)]),
    ("add", lambda x, y: x + 2 * y + 1.5, [(4, 8), (8,)]),
    ("sub", lambda x, y: 3 - x - y, [(4, 8), (4, 1)]),
    ("rsub", lambda x: torch.rsub(x, 2.0), [(4, 8)]),
    ("mul", lambda x, y: x * y * 0.5, [(4, 8), (4, 8)]),
    ("div", lambda x, y: x / (y.pow(2) + 1) / 4, [(4, 8), (4, 8)]),
    ("pow", lambda x: x.pow(2) + x.pow(3) + (x.pow(2) + 1).pow(0.5) + (x.pow(2) + 1).pow(-0.5), [(4, 8)]),
    ("maximum", torch.maximum, [(4, 8), (4, 8)]),
    ("mm", torch.mm, [(4, 8), (8, 16)]),
    ("bmm", torch.bmm, [(2, 4, 8), (2, 8, 16)]),
    ("linear", lambda x, w, b: F.linear(x, w, b), [(4, 8), (16, 8), (16,)]),
    ("sum", lambda x: x.sum(dim=(0, 2)), [(2, 4, 8)]),
    ("mean", lambda x: x.mean(-1, keepdim=True), [(4, 8)]),
    ("amax", lambda x: x.amax(1), [(4, 8)]),
    ("softmax", lambda x: torch.softmax(x, dim=-1), [(4, 8)]),
    ("rms_norm", lambda x, w: F.rms_norm(x, (8,), w, 1e-6), [(4, 8), (8,)]),
    ("view", lambda x: x.view(2, 16).exp(), [(4, 8)]),
    ("reshape_unsqueeze_squeeze", lambda x: x.reshape(32).unsqueeze(0).squeeze(0).exp(), [(4, 8)]),
    ("permute", lambda x: x.permute(2, 0, 1).exp(), [(2, 4, 8)]),
    ("transpose", lambda x: x.transpose(0, 1).exp(), [(4, 8)]),
    ("t", lambda x: x.t().exp(), [(4, 8)]),
    ("cat", lambda x, y: torch.cat((x, y), dim=1), [(4, 8), (4, 2)]),
    ("split", lambda x: torch.split(x, [3, 5], dim=1)[1].exp(), [(4, 8)]),
    ("chunk", lambda x: x.chunk(2, dim=-1)[0] * 2, [(4, 8)]),
    ("slice", lambda x: x[:, 2:6].exp(), [(4, 8)]),
    ("clone", lambda x: x.clone().exp(), [(4, 8)]),
    ("expand", lambda x, y: x.expand(3, 4, 8) * y, [(4, 1), (3, 4, 8)]),
    ("repeat_kv", lambda k: k[:, :, None, :, :].expand(1, 2, 3, 5, 8).reshape(1, 6, 5, 8),
     [(1, 2, 5, 8)]),
]


@pytest.mark.parametrize("name,fn,shapes", OP_CASES, ids=[c[0] for c in OP_CASES])
def test_each_supported_op(name, fn, shapes):
    inputs = [randn(*shape) for shape in shapes]
    expected, got, compilation = compile_and_run(fn, *inputs)
    assert compilation.fallbacks == {}
    assert len(compilation.programs) == 1
    assert_close(got, expected)


def test_half_precision():
    x, w = randn(4, 64, dtype=torch.float16), randn(64, 32, dtype=torch.float16)
    expected, got, compilation = compile_and_run(lambda x, w: F.silu(x @ w), x, w)
    assert compilation.fallbacks == {}
    assert "xf16>" in str(compilation.programs[0].module)
    assert_close(got, expected, rtol=2e-2, atol=2e-2)


def models():
    return [(name, model, inputs) for name, model, inputs in torch_models.models(GEN)]


@pytest.mark.parametrize("index", range(4), ids=["mlp", "attention", "decoder_layer", "decoder_layer_gqa"])
def test_models_compile_without_fallback(index):
    name, model, inputs = models()[index]
    expected, got, compilation = compile_and_run(model, *inputs)
    assert compilation.fallbacks == {}, compilation.fallbacks
    assert len(compilation.programs) == 1
    assert_close(got, expected)


def grouped_query_attention(q, keys, values):
    groups, length, dim = keys.shape
    repeats = q.shape[0] // groups

    def repeat_kv(x):  # as Hugging Face's repeat_kv
        return x[:, None].expand(groups, repeats, length, dim).reshape(groups * repeats, length, dim)

    scores = q @ repeat_kv(keys).transpose(1, 2) / math.sqrt(dim)
    return torch.softmax(scores, dim=-1) @ repeat_kv(values)


def test_grouped_query_attention_reads_each_kv_head_once():
    # The 4 query heads of a group are stacked as rows against its K and V:
    # no repeated copies of K and V, two matmuls over the 2 groups.
    q, k, v = randn(8, 1, 16), randn(2, 5, 16), randn(2, 5, 16)
    expected, got, compilation = compile_and_run(grouped_query_attention, q, k, v)
    assert compilation.fallbacks == {}
    text = str(compilation.programs[0].module)
    assert "kn.concat" not in text
    assert "kn.matmul %1, %0 : tensor<2x4x16xf32>, tensor<2x16x5xf32>" in text
    assert text.count("kn.matmul") == 2
    assert_close(got, expected)


def test_repeated_heads_used_elsewhere_are_copied():
    # A repeated K that is also returned keeps its copies; the matmul still
    # reads the groups directly.
    def fn(q, keys):
        repeated = keys[:, None].expand(2, 4, 5, 16).reshape(8, 5, 16)
        return q @ repeated.transpose(1, 2), repeated * 2

    q, k = randn(8, 1, 16), randn(2, 5, 16)
    expected, got, compilation = compile_and_run(fn, q, k)
    assert compilation.fallbacks == {}
    text = str(compilation.programs[0].module)
    assert text.count("kn.concat") == 1
    assert "tensor<2x4x16xf32>, tensor<2x16x5xf32>" in text
    for a, b in zip(got, expected):
        assert_close(a, b)


def test_decoder_layer_program_is_one_function_of_kn_ops():
    _, model, inputs = models()[2]
    _, _, compilation = compile_and_run(model, *inputs)
    text = str(compilation.programs[0].module)
    assert text.count("func.func") == 1
    for op in ("kn.matmul", "kn.rsqrt", "kn.concat", "kn.split", "kn.reduce_max", "kn.silu"):
        assert op in text, op


def test_unsupported_ops_run_eagerly_with_one_warning():
    def fn(x, w):
        return torch.sin(x @ w).exp() * 2

    torch._dynamo.reset()
    x, w = randn(4, 8), randn(8, 8)
    with torch.no_grad(), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        compiled = torch.compile(fn, backend="mirage",
                                 options={"execute": "reference", "cache_dir": None},
                                 dynamic=False)
        got = compiled(x, w)
        compiled(x, w)
    compilation = backend.last_compilation()
    assert any("sin" in op for op in compilation.fallbacks)
    assert len(compilation.programs) == 2  # the matmul, then exp * 2
    fallback_warnings = [w for w in caught if "left to eager PyTorch" in str(w.message)]
    assert len(fallback_warnings) == 1
    assert_close(got, fn(x, w))


def test_dynamic_shapes_fall_back_to_eager():
    torch._dynamo.reset()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        compiled = torch.compile(lambda x: x.exp(), backend="mirage", dynamic=True)
        x = randn(4, 8)
        assert_close(compiled(x), x.exp())
    assert any("dynamic shapes" in str(w.message) for w in caught)


def test_programs_are_cached_on_disk(tmp_path):
    fn = lambda x, w: F.silu(x @ w)  # noqa: E731
    x, w = randn(4, 8), randn(8, 8)
    _, _, first = compile_and_run(fn, x, w, cache_dir=str(tmp_path))
    assert first.cache_hits == 0
    assert len(list(tmp_path.glob("*.mlir"))) == 1
    _, got, second = compile_and_run(fn, x, w, cache_dir=str(tmp_path))
    assert second.cache_hits == 1
    assert str(second.programs[0].module) == str(first.programs[0].module)
    assert_close(got, fn(x, w))


def test_unknown_option_is_an_error():
    torch._dynamo.reset()
    compiled = torch.compile(lambda x: x.exp(), backend="mirage", options={"serach": True})
    with pytest.raises(Exception, match="unknown options"):
        compiled(randn(2, 2))


def test_converter_names_the_unsupported_node():
    gm = torch.fx.symbolic_trace(lambda x: torch.sin(x))
    for node in gm.graph.nodes:
        if node.op == "placeholder":
            node.meta["val"] = torch.empty(2, 2)
        elif node.op == "call_function":
            node.meta["val"] = torch.empty(2, 2)
    with pytest.raises(fx.Unsupported, match="no kn form"):
        fx.to_kernel_program(gm)


def test_auto_execution_without_cuda_runs_eagerly_with_a_warning():
    torch._dynamo.reset()
    backend._warned.clear()  # each warning is given once per process
    x = randn(4, 8)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = torch.compile(lambda x: x.exp(), backend="mirage",
                            options={"cache_dir": None}, dynamic=False)(x)
    assert_close(got, x.exp())
    assert any("execute='eager'" in str(w.message) for w in caught)
    assert backend.last_compilation().bundles == [None]


def test_export_writes_what_a_gpu_check_needs(tmp_path):
    _, model, inputs = torch_models.models(torch.Generator().manual_seed(1))[0]
    expected, _, compilation = compile_and_run(model, *inputs, export_dir=str(tmp_path))
    (part,) = [p for p in tmp_path.iterdir()]
    manifest = part / "bundle" / "manifest.json"
    assert manifest.exists() and '"name": "fused_0"' in manifest.read_text()
    exported_inputs = torch.load(part / "inputs.pt")
    graph = torch.load(part / "part.pt", weights_only=False)
    with torch.no_grad():
        assert_close(graph(*exported_inputs), torch.load(part / "expected.pt"))
    assert len(exported_inputs) == len(
        [n for n in graph.graph.nodes if n.op == "placeholder"])
    assert compilation.programs[0].name == "fused_0"


def test_megakernel_parts_export_one_persistent_kernel(tmp_path):
    _, model, inputs = torch_models.models(torch.Generator().manual_seed(1))[0]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        expected, got, _ = compile_and_run(model, *inputs, export_dir=str(tmp_path),
                                           megakernel=True)
    assert not [w for w in caught if "megakernel" in str(w.message)]
    assert_close(got, expected)
    (part,) = [p for p in tmp_path.iterdir()]
    manifest = (part / "bundle" / "manifest.json").read_text()
    assert '"name": "fused_0_megakernel"' in manifest
    assert '"kind": "megakernel"' in manifest


def test_search_superoptimizes_each_part():
    def fn(x, g, w):
        return (x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * g) @ w

    x, g, w = randn(2, 256), torch.rand(256, generator=GEN) + 0.5, randn(256, 512) / 16
    expected, got, compilation = compile_and_run(fn, x, g, w, search=True, time_budget=5)
    assert compilation.fallbacks == {}
    # The remark says what the search weighed and chose (a verified
    # µGraph, or the program kept when nothing beat it).
    assert any("subprogram #1" in remark and "searched in" in remark
               and ("chose #" in remark or "kept the program" in remark)
               for remark in compilation.search_remarks), compilation.search_remarks
    assert_close(got, expected, rtol=1e-4, atol=1e-4)
