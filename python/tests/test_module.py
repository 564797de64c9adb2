"""Parsing, verifying and transforming modules from Python."""

import pathlib

import pytest

import mirage_mlir as mm

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples"


@pytest.mark.parametrize("name", sorted(p.name for p in EXAMPLES.glob("*.mlir")))
def test_examples_parse_and_verify(name):
    module = mm.Module.parse((EXAMPLES / name).read_text())
    assert module.functions
    # Printing and re-parsing gives the same text.
    assert str(mm.Module.parse(str(module))) == str(module)


@pytest.mark.parametrize(
    "pipeline", ["tb-report-resources", "builtin.module(tb-report-resources)"]
)
def test_report_resources_returns_remarks(pipeline):
    module = mm.Module.parse((EXAMPLES / "rmsnorm_linear.mlir").read_text())
    remarks = module.run(pipeline)
    assert len(remarks) == 2
    assert "remark: block graph: grid [96] = 96 blocks x 128 threads" in remarks[0]
    # The lowering's plan, as mirage-opt reports it (docs/Passes.md).
    assert (
        "shared memory 69248 / 232448 bytes (29.8%) on sm_90a with 8 pipeline stages"
        in remarks[0]
    )


def test_upstream_transforms_run():
    module = mm.Module.parse("""
    func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
      %dead = kn.exp %x : tensor<4xf32>
      return %x : tensor<4xf32>
    }""")
    assert module.run("builtin.module(func.func(canonicalize))") == []
    assert "kn.exp" not in str(module)


def test_invalid_ir_raises_with_the_diagnostic():
    text = """
    func.func @f(%x: tensor<8x4xf16>) -> tensor<8x4xf16> {
      %z = kn.kernel(%x) {
        tb.graph grid [3] threads 32 forloop 1 {
        ^bb0(%xd: tensor<8x4xf16>):
          %t = tb.input_iterator %xd imap <x -> 0> fmap <i -> replica> : tensor<8x4xf16> -> !tb.tile<2x4xf16>
          %o = tb.output_saver %t omap <x -> 0> : !tb.tile<2x4xf16> -> tensor<6x4xf16>
          tb.yield %o : tensor<6x4xf16>
        }
      } : (tensor<8x4xf16>) -> tensor<8x4xf16>
      return %z : tensor<8x4xf16>
    }
    """
    with pytest.raises(mm.MirageError, match="data dim 0 \\(size 8\\) is not "
                       "divisible by grid dim x \\(size 3\\)"):
        mm.Module.parse(text)


def test_invalid_pipeline_is_a_value_error():
    module = mm.Module.parse("func.func @f() { return }")
    with pytest.raises(ValueError, match="invalid pass pipeline"):
        module.run("builtin.module(no-such-pass)")



DOUBLED = """
func.func @doubled(%x: tensor<8xf32>) -> tensor<8xf32> {
  %y = kn.mul_scalar %x, 2.0 : tensor<8xf32>
  return %y : tensor<8xf32>
}
"""


def test_equivalence_verdicts_come_back_as_remarks():
    module = mm.Module.parse(DOUBLED + """
    func.func @twice(%x: tensor<8xf32>) -> tensor<8xf32> attributes {kn.reference = @doubled} {
      %y = kn.add %x, %x : tensor<8xf32>, tensor<8xf32>
      return %y : tensor<8xf32>
    }""")
    (remark,) = module.run("mirage-verify-equivalence")
    assert "remark: proven: equivalent to @doubled" in remark


def test_failed_equivalence_raises_with_the_mismatch():
    module = mm.Module.parse(DOUBLED + """
    func.func @tripled(%x: tensor<8xf32>) -> tensor<8xf32> attributes {kn.reference = @doubled} {
      %y = kn.mul_scalar %x, 3.0 : tensor<8xf32>
      return %y : tensor<8xf32>
    }""")
    with pytest.raises(mm.MirageError, match="not equivalent: differs from "
                       "@doubled.*first mismatch at output #0 element \\[0\\]"):
        module.run("mirage-verify-equivalence{error-on-failure=true}")


def test_kernel_graph_compiles_to_ptx():
    graph = mm.KernelGraph("scaled_exp")
    x = graph.input([16, 64])
    graph.output(graph.mul_scalar(graph.exp(x), 0.5))
    module = graph.to_module()
    module.run("mirage-to-ptx")
    text = str(module)
    assert "@scaled_exp_kernels::@scaled_exp_k0" in text
    assert ".target sm_90a" in text
    assert "ex2.approx" in text


def test_write_bundle_compiles_a_function(tmp_path):
    g = mm.KernelGraph("f")
    x = g.input([8, 64], "f16")
    g.output(g.exp(x))
    path = g.to_module().write_bundle("f", str(tmp_path), ptxas="none")
    assert path == str(tmp_path / "f") == str(tmp_path / mm.Module.bundle_name("f"))
    assert mm.Module.bundle_name("f", megakernel=True) == "f_megakernel"
    manifest = (tmp_path / "f" / "manifest.json").read_text()
    assert '"name": "f"' in manifest and '"chip": "sm_90a"' in manifest
    assert (tmp_path / "f" / "kernels.ptx").exists()
    with pytest.raises(ValueError, match="no function @g"):
        g.to_module().write_bundle("g", str(tmp_path))


def test_write_bundle_scales_weights_unless_told_not_to(tmp_path):
    import json

    g = mm.KernelGraph("mm")
    x = g.input([4, 64], "f16")
    w = g.input([64, 8], "f16")
    g.output(g.matmul(x, w))
    module = g.to_module()

    def scales(directory, **options):
        path = module.write_bundle("mm", str(directory), ptxas="none", **options)
        with open(path + "/manifest.json") as f:
            return json.load(f)["inputs_generator"]["scales"]

    # The weight's fan-in is 64: drawn at 1/8; the activation keeps 1.
    assert scales(tmp_path / "scaled") == [1, 0.125]
    assert scales(tmp_path / "unscaled", scale_weights=False) == [1, 1]
