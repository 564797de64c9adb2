"""PyTorch FX graphs at the aten level as Mirage kernel-graph (kn) programs.

``to_kernel_program(gm)`` turns a ``torch.fx.GraphModule`` of aten ops (what
``aot_autograd`` hands a backend; every node carries its ``meta["val"]``
fake tensor) into a verified ``kn`` program built through ``KernelGraph``,
so its shapes are checked by the same operator records as the C++
verifiers. ``is_supported(node)`` says whether one node converts; the
torch.compile backend (``mirage_mlir.backend``) uses it to split a graph
into the parts Mirage takes and the parts that stay in eager PyTorch.
``SUPPORTED_OPS`` lists the aten ops taken (docs/Python.md has the table).
"""

import math
import operator

import torch

from ._mirage import KernelGraph

aten = torch.ops.aten

DTYPES = {torch.float16: "f16", torch.bfloat16: "bf16", torch.float32: "f32"}


class Unsupported(Exception):
    """A node or graph Mirage cannot take (the message says why)."""


def _val(node):
    return node.meta.get("val") if isinstance(node, torch.fx.Node) else None


def _static_shape(value):
    shape = []
    for size in value.shape:
        if not isinstance(size, int):
            raise Unsupported("dynamic shape")
        shape.append(size)
    return shape


def _tensor_values(node):
    """The fake tensors a node produces (one, or several for a tuple)."""
    value = _val(node)
    if isinstance(value, (tuple, list)):
        return [v for v in value if isinstance(v, torch.Tensor)]
    return [value] if isinstance(value, torch.Tensor) else []


def _norm_dims(dims, rank):
    if isinstance(dims, int):
        dims = [dims]
    return sorted({d % rank for d in dims}, reverse=True)


# Handlers: (g, node, args, kwargs) -> PyTensor or a tuple of them. Args
# hold PyTensors where the node had tensor nodes, Python values elsewhere.
# A handler raises Unsupported for argument values it does not take; the
# check runs on fake values before any graph is built (see is_supported).


def _unary(name):
    return lambda g, node, args, kwargs: getattr(g, name)(args[0])


def _is_tensor(x):
    return not isinstance(x, (int, float, bool))


def _scalar(x):
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        raise Unsupported("a non-numeric scalar")
    return float(x)


def _add(g, node, args, kwargs):
    a, b = args[0], args[1]
    alpha = _scalar(kwargs.get("alpha", args[2] if len(args) > 2 else 1))
    if _is_tensor(a) and _is_tensor(b):
        return g.add(a, b if alpha == 1 else g.mul_scalar(b, alpha))
    if _is_tensor(a):
        return g.add_scalar(a, _scalar(b) * alpha)
    return g.add_scalar(b if alpha == 1 else g.mul_scalar(b, alpha), _scalar(a))


def _sub(g, node, args, kwargs):
    a, b = args[0], args[1]
    alpha = _scalar(kwargs.get("alpha", args[2] if len(args) > 2 else 1))
    if _is_tensor(a) and _is_tensor(b):
        return g.sub(a, b if alpha == 1 else g.mul_scalar(b, alpha))
    if _is_tensor(a):
        return g.add_scalar(a, -_scalar(b) * alpha)
    return g.add_scalar(g.mul_scalar(b, -alpha), _scalar(a))


def _rsub(g, node, args, kwargs):  # other - alpha * self
    alpha = _scalar(kwargs.get("alpha", args[2] if len(args) > 2 else 1))
    if _is_tensor(args[1]):
        return g.sub(args[1], g.mul_scalar(args[0], alpha))
    return g.add_scalar(g.mul_scalar(args[0], -alpha), _scalar(args[1]))


def _mul(g, node, args, kwargs):
    a, b = args
    if _is_tensor(a) and _is_tensor(b):
        return g.mul(a, b)
    return g.mul_scalar(a, _scalar(b)) if _is_tensor(a) else g.mul_scalar(b, _scalar(a))


def _div(g, node, args, kwargs):
    a, b = args[0], args[1]
    if kwargs.get("rounding_mode") is not None:
        raise Unsupported("div with a rounding mode")
    if not _is_tensor(a):
        raise Unsupported("a scalar divided by a tensor")
    if _is_tensor(b):
        return g.div(a, b)
    return g.mul_scalar(a, 1.0 / _scalar(b))


def _pow(g, node, args, kwargs):
    x, e = args
    if _is_tensor(e):
        if not _is_tensor(x):
            raise Unsupported("a scalar raised to a tensor")
        return g.pow(x, e)
    e = _scalar(e)
    if e == 1:
        return x
    if e == 2:
        return g.square(x)
    if e == 3:
        return g.mul(g.square(x), x)
    if e == 0.5:
        return g.sqrt(x)
    if e == -0.5:
        return g.rsqrt(x)
    raise Unsupported(f"pow with exponent {e}")


def _gelu(g, node, args, kwargs):
    approximate = kwargs.get("approximate", args[1] if len(args) > 1 else "none")
    x = args[0]
    if approximate == "none":
        return g.gelu(x)
    if approximate != "tanh":
        raise Unsupported(f"gelu approximate={approximate!r}")
    # 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3)))
    cube = g.mul(g.square(x), x)
    inner = g.mul_scalar(g.add(x, g.mul_scalar(cube, 0.044715)), math.sqrt(2 / math.pi))
    return g.mul(g.mul_scalar(x, 0.5), g.add_scalar(g.tanh(inner), 1.0))


def _matmul(g, node, args, kwargs):
    return g.matmul(args[0], args[1])


def _addmm(g, node, args, kwargs):
    bias, a, b = args[:3]
    beta = _scalar(kwargs.get("beta", 1))
    alpha = _scalar(kwargs.get("alpha", 1))
    product = g.matmul(a, b)
    if alpha != 1:
        product = g.mul_scalar(product, alpha)
    return g.add(product, bias if beta == 1 else g.mul_scalar(bias, beta))


def _reduce(name, mean=False):
    def handler(g, node, args, kwargs):
        x = args[0]
        rank = len(x.shape)
        dims = args[1] if len(args) > 1 else kwargs.get("dim")
        keepdim = args[2] if len(args) > 2 else kwargs.get("keepdim", False)
        if dims is None or dims == []:
            dims = list(range(rank))
        if kwargs.get("dtype") is not None:
            raise Unsupported(f"{name} with a dtype")
        count = 1
        for d in _norm_dims(dims, rank):
            count *= x.shape[d]
            x = getattr(g, name)(x, d, True)
        if mean:
            x = g.mul_scalar(x, 1.0 / count)
        if not keepdim:
            x = _reshape_to(g, node, x)
        return x

    return handler


def _reshape_to(g, node, x):
    shape = _static_shape(_val(node))
    if not shape:
        raise Unsupported("a rank-0 result")
    return x if list(x.shape) == shape else g.reshape(x, shape)


def _view(g, node, args, kwargs):
    return _reshape_to(g, node, args[0])


def _identity(g, node, args, kwargs):
    return args[0]


def _to_copy(g, node, args, kwargs):
    source, target = _val(node.args[0]), _val(node)
    if source.dtype != target.dtype or source.device != target.device:
        raise Unsupported("a dtype or device conversion")
    return args[0]


def _expand(g, node, args, kwargs):
    """Size-1 dims (and new leading ones) grown to the result's sizes, as
    concatenated copies: GQA's repeat_kv (expand, then reshape) becomes a
    concat of each KV head's copies, as PyTorch copies it in the reshape."""
    x, target = args[0], _static_shape(_val(node))
    shape = [1] * (len(target) - len(x.shape)) + list(x.shape)
    if list(x.shape) != shape:
        x = g.reshape(x, shape)
    for dim, (have, want) in enumerate(zip(shape, target)):
        if have == want:
            continue
        if have != 1:
            raise Unsupported(f"expand of a dim of size {have} to {want}")
        x = g.concat([x] * want, dim)
    return x


def _permute(g, node, args, kwargs):
    x, dims = args[0], args[1]
    return g.transpose(x, [d % len(x.shape) for d in dims])


def _transpose(g, node, args, kwargs):
    x = args[0]
    rank = len(x.shape)
    d0, d1 = (args[1] % rank, args[2] % rank) if len(args) > 2 else (0, 1)
    if rank < 2:
        return x
    perm = list(range(rank))
    perm[d0], perm[d1] = perm[d1], perm[d0]
    return g.transpose(x, perm)


def _softmax(g, node, args, kwargs):
    x, dim = args[0], args[1] % len(args[0].shape)
    if len(args) > 2 and args[2]:
        raise Unsupported("softmax to a wider dtype")
    m = g.reduce_max(x, dim, True)
    e = g.exp(g.sub(x, m))
    return g.div(e, g.reduce_sum(e, dim, True))


def _cat(g, node, args, kwargs):
    tensors = args[0]
    dim = (args[1] if len(args) > 1 else kwargs.get("dim", 0)) % len(tensors[0].shape)
    return g.concat(list(tensors), dim)


def _split(g, node, args, kwargs):
    x, sizes = args[0], args[1]
    dim = (args[2] if len(args) > 2 else kwargs.get("dim", 0)) % len(x.shape)
    if isinstance(sizes, int):
        total, step = x.shape[dim], sizes
        sizes = [min(step, total - i) for i in range(0, total, step)]
    return tuple(g.split(x, dim, list(sizes)))


def _slice(g, node, args, kwargs):
    x = args[0]
    rank = len(x.shape)
    dim = (args[1] if len(args) > 1 else 0) % rank
    size = x.shape[dim]
    start = args[2] if len(args) > 2 and args[2] is not None else 0
    end = args[3] if len(args) > 3 and args[3] is not None else size
    step = args[4] if len(args) > 4 else 1
    if step != 1:
        raise Unsupported("slice with a step")
    start = max(0, min(size, start + size if start < 0 else start))
    end = max(start, min(size, end + size if end < 0 else end))
    if start == 0 and end == size:
        return x
    if start == end:
        raise Unsupported("an empty slice")
    sizes = [s for s in (start, end - start, size - end) if s > 0]
    pieces = g.split(x, dim, sizes)
    return pieces[1] if start > 0 else pieces[0]


def _rms_norm(g, node, args, kwargs):
    x, normalized = args[0], args[1]
    weight = args[2] if len(args) > 2 else kwargs.get("weight")
    eps = args[3] if len(args) > 3 else kwargs.get("eps")
    if len(normalized) != 1:
        raise Unsupported("rms_norm over more than the last dim")
    if eps is None:
        eps = torch.finfo(_val(node).dtype).eps
    return g.rms_norm(x, weight, float(eps))


_HANDLERS = {
    aten.exp: _unary("exp"),
    aten.sqrt: _unary("sqrt"),
    aten.rsqrt: _unary("rsqrt"),
    aten.tanh: _unary("tanh"),
    aten.sigmoid: _unary("sigmoid"),
    aten.silu: _unary("silu"),
    aten.relu: _unary("relu"),
    aten.neg: _unary("neg"),
    aten.gelu: _gelu,
    aten.add: _add,
    aten.sub: _sub,
    aten.rsub: _rsub,
    aten.mul: _mul,
    aten.div: _div,
    aten.pow: _pow,
    aten.maximum: lambda g, node, args, kwargs: g.maximum(args[0], args[1]),
    aten.mm: _matmul,
    aten.bmm: _matmul,
    aten.matmul: _matmul,
    aten.addmm: _addmm,
    aten.sum: _reduce("reduce_sum"),
    aten.mean: _reduce("reduce_sum", mean=True),
    aten.amax: _reduce("reduce_max"),
    aten._softmax: _softmax,
    aten.softmax: _softmax,
    aten.rms_norm: _rms_norm,
    aten.view: _view,
    aten._unsafe_view: _view,
    aten.reshape: _view,
    aten.unsqueeze: _view,
    aten.squeeze: _view,
    aten.flatten: _view,
    aten.permute: _permute,
    aten.t: _transpose,
    aten.transpose: _transpose,
    aten.cat: _cat,
    aten.split: _split,
    aten.split_with_sizes: _split,
    aten.slice: _slice,
    aten.clone: _identity,
    aten.alias: _identity,
    aten.detach: _identity,
    aten._to_copy: _to_copy,
    aten.expand: _expand,
}

SUPPORTED_OPS = sorted(str(packet).replace("aten.", "") for packet in _HANDLERS)


def _packet(node):
    if not isinstance(node, torch.fx.Node) or node.op != "call_function":
        return None
    return getattr(node.target, "overloadpacket", None)


def _shape(node):
    return list(_val(node).shape)


def _source_of_same_shape(node):
    """Where a value comes from through ops that keep its shape (views,
    expands and copies to the same shape, as aten's bmm decomposition adds)."""
    while (_packet(node) in (aten.expand, aten.view, aten._unsafe_view, aten.reshape,
                             aten.clone)
           and _shape(node) == _shape(node.args[0])):
        node = node.args[0]
    return node


def _repeated_heads(node):
    """``(x, repeats, transposed)`` when ``node`` is ``x`` ([G, T, D]) with
    every head repeated ``repeats`` times in a row, as Hugging Face's
    repeat_kv makes it (``x[:, None].expand(G, r, T, D).reshape(G * r, T,
    D)``), transposed to [G * r, D, T] if ``transposed``; else None."""
    node = _source_of_same_shape(node)
    transposed = False
    swaps_last_two = (
        (_packet(node) == aten.transpose and sorted(d % 3 for d in node.args[1:3]) == [1, 2])
        or (_packet(node) == aten.permute and [d % 3 for d in node.args[1]] == [0, 2, 1]))
    if swaps_last_two:
        transposed = True
        node = _source_of_same_shape(node.args[0])
    if _packet(node) not in (aten.view, aten._unsafe_view, aten.reshape):
        return None
    expanded = node.args[0]
    if _packet(expanded) == aten.clone:
        expanded = expanded.args[0]
    if _packet(expanded) != aten.expand or _packet(expanded.args[0]) != aten.unsqueeze:
        return None
    unsqueezed = expanded.args[0]
    x = unsqueezed.args[0]
    if len(_shape(x)) != 3 or unsqueezed.args[1] % 4 != 1:
        return None
    groups, length, dim = _shape(x)
    repeats = _shape(expanded)[1]
    if (_shape(expanded) != [groups, repeats, length, dim]
            or _shape(node) != [groups * repeats, length, dim]):
        return None
    return x, repeats, transposed


def fold_repeated_heads(gm):
    """Rewrites, in place, batched matmuls whose right operand repeats every
    head of a [G, T, D] tensor r times (grouped-query attention's repeat_kv)
    into matmuls over the G groups with the r heads of a group stacked as
    rows: [G * r, S, K] @ repeat(x) = ([G, r * S, K] @ x) viewed back. The
    repeated copies of K and V are never made. Returns how many matmuls it
    rewrote."""
    graph = gm.graph
    rewritten = 0
    for node in list(graph.nodes):
        if _packet(node) != aten.bmm:
            continue
        lhs, rhs = node.args[:2]
        found = _repeated_heads(rhs)
        heads, rows, inner = _shape(lhs)
        if not found or heads % found[1] != 0:
            continue
        x, repeats, transposed = found
        like = _val(node)

        def add(target, args, shape):
            new = graph.call_function(target, args)
            new.meta["val"] = like.new_empty(shape)
            return new

        with graph.inserting_before(node):
            stacked = add(aten.reshape.default, (lhs, [heads // repeats, repeats * rows, inner]),
                          [heads // repeats, repeats * rows, inner])
            right = x
            if transposed:
                right = add(aten.transpose.int, (x, 1, 2), [_shape(x)[0], _shape(x)[2], _shape(x)[1]])
            product = add(aten.bmm.default, (stacked, right),
                          [heads // repeats, repeats * rows, _shape(right)[2]])
            result = add(aten.reshape.default, (product, _shape(node)), _shape(node))
        node.replace_all_uses_with(result)
        graph.erase_node(node)
        rewritten += 1
    if rewritten:
        graph.eliminate_dead_code()
        gm.recompile()
    return rewritten


def _handler(node):
    if node.op != "call_function":
        return None
    if node.target is operator.getitem:
        return lambda g, node, args, kwargs: args[0][args[1]]
    packet = getattr(node.target, "overloadpacket", None)
    return _HANDLERS.get(packet)


def _input_for(g, value):
    return g.input(_static_shape(value), DTYPES[value.dtype])


def why_unsupported(node):
    """None when `node` converts; otherwise the reason, for messages. The
    node's handler runs on a scratch graph of its inputs, so a value it does
    not take (an exponent, a step) or a shape the operator records refuse
    counts like an unknown op."""
    if node.op in ("placeholder", "output"):
        return None
    handler = _handler(node)
    if handler is None:
        return f"no kn form for {node.target}"
    dtypes = set()
    for arg in [node, *node.all_input_nodes]:
        for value in _tensor_values(arg):
            dtypes.add(value.dtype)
            if len(value.shape) == 0:
                return "a rank-0 tensor"
            try:
                _static_shape(value)
            except Unsupported as error:
                return str(error)
    if not dtypes <= DTYPES.keys():
        return f"dtype {sorted(map(str, dtypes - DTYPES.keys()))[0]}"
    if len(dtypes) > 1:
        return "mixed dtypes"
    g = KernelGraph("probe")
    env = {}
    for arg in node.all_input_nodes:
        value = _val(arg)
        if isinstance(value, (tuple, list)):
            env[arg] = tuple(_input_for(g, v) for v in value)
        elif isinstance(value, torch.Tensor):
            env[arg] = _input_for(g, value)
        else:
            return f"input {arg.name} is not a tensor"
    try:
        handler(g, node, torch.fx.node.map_arg(node.args, lambda n: env[n]),
                torch.fx.node.map_arg(node.kwargs, lambda n: env[n]))
    except (Unsupported, ValueError) as error:
        return str(error).strip()
    return None


def is_supported(node):
    return why_unsupported(node) is None


class KernelProgram:
    """A kn program made from an FX graph: ``module`` (a verified
    ``mirage_mlir.Module``) with one function ``name``, whose inputs are the
    graph's placeholders in order and whose outputs are its tensor outputs
    in order (``output_is_tuple`` says whether the graph returned a tuple)."""

    def __init__(self, module, name, output_is_tuple, output_dtypes):
        self.module = module
        self.name = name
        self.output_is_tuple = output_is_tuple
        self.output_dtypes = output_dtypes

    def run_reference(self, *tensors):
        """Runs the program in the float64 reference interpreter on torch
        tensors (any device) and returns torch tensors of the graph's output
        dtypes on the first input's device."""
        import numpy as np

        arrays = [np.asarray(t.detach().cpu().to(torch.float64).numpy()) for t in tensors]
        outputs = self.module.run_reference(self.name, arrays)
        device = tensors[0].device if tensors else "cpu"
        results = [
            torch.from_numpy(o).to(device=device, dtype=dtype)
            for o, dtype in zip(outputs, self.output_dtypes)
        ]
        return tuple(results) if self.output_is_tuple else results[0]


def to_kernel_program(gm, name="forward"):
    """Converts a GraphModule of aten ops, every node supported, to a
    KernelProgram; raises Unsupported naming the first node that is not."""
    g = KernelGraph(name)
    env = {}
    output_is_tuple, outputs = False, []
    for node in gm.graph.nodes:
        if node.op == "placeholder":
            value = _val(node)
            if not isinstance(value, torch.Tensor):
                raise Unsupported(f"input {node.name} is not a tensor")
            if value.dtype not in DTYPES:
                raise Unsupported(f"input {node.name} has dtype {value.dtype}")
            env[node] = g.input(_static_shape(value), DTYPES[value.dtype])
            continue
        if node.op == "output":
            result = node.args[0]
            output_is_tuple = isinstance(result, (tuple, list))
            outputs = list(result) if output_is_tuple else [result]
            break
        reason = why_unsupported(node)
        if reason:
            raise Unsupported(f"{node.format_node()}: {reason}")
        args = torch.fx.node.map_arg(node.args, lambda n: env[n])
        kwargs = torch.fx.node.map_arg(node.kwargs, lambda n: env[n])
        try:
            env[node] = _handler(node)(g, node, args, kwargs)
        except Unsupported as error:
            raise Unsupported(f"{node.format_node()}: {error}") from None
    if not outputs or any(not isinstance(o, torch.fx.Node) for o in outputs):
        raise Unsupported("an output that is not a tensor")
    g.output(*[env[o] for o in outputs])
    dtypes = [_val(o).dtype for o in outputs]
    return KernelProgram(g.to_module(), name, output_is_tuple, dtypes)
