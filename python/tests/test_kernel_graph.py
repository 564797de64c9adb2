"""Building kernel graphs from Python: shapes, errors, the resulting IR."""

import pytest

import mirage_mlir as mm


def test_rmsnorm_linear_builds_and_verifies():
    g = mm.KernelGraph("rmsnorm_linear")
    x = g.input([2, 4096], "f16")
    gain = g.input([4096], "f16")
    w = g.input([4096, 6144], "f16")
    y = g.rms_norm(x, gain, eps=1e-6)
    z = g.matmul(y, w)
    assert z.shape == [2, 6144]
    assert z.dtype == "f16"
    g.output(z)
    text = str(g.to_module())
    assert "func.func @rmsnorm_linear(%arg0: tensor<2x4096xf16>" in text
    assert "kn.rms_norm %arg0 weight %arg1" in text
    assert "-> tensor<2x6144xf16>" in text


@pytest.mark.parametrize(
    "build, shape",
    [
        (lambda g, a, b, r: g.exp(a), [2, 64]),
        (lambda g, a, b, r: g.sqrt(a), [2, 64]),
        (lambda g, a, b, r: g.square(a), [2, 64]),
        (lambda g, a, b, r: g.silu(a), [2, 64]),
        (lambda g, a, b, r: g.sigmoid(a), [2, 64]),
        (lambda g, a, b, r: g.gelu(a), [2, 64]),
        (lambda g, a, b, r: g.relu(a), [2, 64]),
        (lambda g, a, b, r: g.neg(a), [2, 64]),
        (lambda g, a, b, r: g.tanh(a), [2, 64]),
        (lambda g, a, b, r: g.rsqrt(a), [2, 64]),
        (lambda g, a, b, r: g.maximum(a, r), [2, 64]),
        (lambda g, a, b, r: g.all_reduce(a), [2, 64]),
        (lambda g, a, b, r: g.mul_scalar(a, 0.125), [2, 64]),
        (lambda g, a, b, r: g.add_scalar(a, 1.0), [2, 64]),
        (lambda g, a, b, r: g.add(a, r), [2, 64]),
        (lambda g, a, b, r: g.sub(r, a), [2, 64]),
        (lambda g, a, b, r: g.mul(a, a), [2, 64]),
        (lambda g, a, b, r: g.div(a, r), [2, 64]),
        (lambda g, a, b, r: g.pow(a, r), [2, 64]),
        (lambda g, a, b, r: g.matmul(a, b), [2, 16]),
        (lambda g, a, b, r: g.reduce_sum(a, 1), [2, 1]),
        (lambda g, a, b, r: g.reduce_max(a, 1, keepdim=False), [2]),
        (lambda g, a, b, r: g.rms_norm(a), [2, 64]),
        (lambda g, a, b, r: g.concat([a, a], 0), [4, 64]),
        (lambda g, a, b, r: g.split(a, 1, [48, 16])[1], [2, 16]),
        (lambda g, a, b, r: g.reshape(a, [128]), [128]),
        (lambda g, a, b, r: g.transpose(a, [1, 0]), [64, 2]),
    ],
)
def test_every_op_infers_its_shape(build, shape):
    g = mm.KernelGraph("f")
    a = g.input([2, 64], "f32")
    b = g.input([64, 16], "f32")
    r = g.input([2, 1], "f32")
    result = build(g, a, b, r)
    assert result.shape == shape
    g.output(result)
    g.to_module()  # verifies


def test_every_elementwise_operator_is_a_method():
    # The methods come from the operator table: each kn elementwise op has
    # one, with its operands (and the scalar where its formula reads one).
    g = mm.KernelGraph("f")
    a = g.input([2, 64], "f32")
    for name in ["exp", "sqrt", "square", "silu", "sigmoid", "gelu", "relu",
                 "neg", "tanh", "rsqrt"]:
        assert getattr(g, name)(a).shape == [2, 64]
    for name in ["add", "sub", "mul", "div", "pow", "maximum"]:
        assert getattr(g, name)(a, a).shape == [2, 64]
    for name in ["mul_scalar", "add_scalar"]:
        assert getattr(g, name)(a, 2.0).shape == [2, 64]
    g.output(g.maximum(g.tanh(a), g.rsqrt(a)))
    text = str(g.to_module())
    assert "kn.tanh" in text and "kn.rsqrt" in text and "kn.maximum" in text


def test_shape_errors_carry_the_rule_message():
    g = mm.KernelGraph("f")
    a = g.input([2, 64])
    b = g.input([32, 8])
    with pytest.raises(ValueError, match="contraction dims differ: lhs dim 1 "
                       "has size 64 but rhs dim 0 has size 32"):
        g.matmul(a, b)
    with pytest.raises(ValueError, match="reduction dim 2 is out of range"):
        g.reduce_sum(a, 2)
    with pytest.raises(ValueError, match="split sizes sum to 63"):
        g.split(a, 1, [32, 31])


def test_a_failed_op_leaves_the_graph_usable():
    g = mm.KernelGraph("f")
    a = g.input([2, 64])
    with pytest.raises(ValueError):
        g.transpose(a, [0, 0])
    g.output(g.exp(a))
    assert "kn.transpose" not in str(g.to_module())


def test_inputs_and_operands_are_checked():
    g = mm.KernelGraph("f")
    with pytest.raises(ValueError, match="dtype must be"):
        g.input([2], "f64")
    with pytest.raises(ValueError, match="sizes must be positive"):
        g.input([0, 2])
    a = g.input([2, 4], "f16")
    c = g.input([2, 4], "f32")
    with pytest.raises(ValueError, match="different element types"):
        g.add(a, c)
    other = mm.KernelGraph("other")
    with pytest.raises(ValueError, match="belongs to another graph"):
        g.exp(other.input([2, 4]))


def test_graph_lifecycle():
    g = mm.KernelGraph("f")
    a = g.input([4])
    with pytest.raises(mm.MirageError, match="call output"):
        g.to_module()
    g.output(a)
    with pytest.raises(mm.MirageError, match="finished"):
        g.exp(a)
