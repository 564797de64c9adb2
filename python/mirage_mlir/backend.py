"""``torch.compile(model, backend="mirage")``.

Importing this module registers the backend with TorchDynamo. The backend
lowers the captured graph to aten ops (``aot_autograd``, inference only),
splits it into the parts Mirage takes (``mirage_mlir.fx.is_supported``) and
the rest, converts every supported part to a verified ``kn`` program and
caches the program's text on disk by graph hash and options. Unsupported
ops, dtypes and dynamic shapes stay in eager PyTorch, with one warning.

How the Mirage parts run (option ``execute``):

- ``"gpu"``: each part is compiled into a bundle (``Module.write_bundle``,
  cached beside its program) and runs through the bundle runtime
  (``mirage_mlir.runtime``) on the caller's CUDA tensors and current stream.
- ``"eager"``: the converted parts run as the PyTorch ops they came from;
  the programs are built, verified and cached all the same.
- ``"reference"``: the parts run in Mirage's float64 reference interpreter
  (slow, any device; the outputs come from the kn programs, rounded to the
  graph's dtypes). For checking the conversion end to end.
- ``"auto"`` (default): ``"gpu"`` when the inputs are CUDA tensors and the
  runtime library loads, otherwise ``"eager"`` with one warning saying why.

Other options: ``cache_dir`` (default ``$MIRAGE_CACHE_DIR`` or
``~/.cache/mirage_mlir``; ``None``: a temporary directory for bundles and no
program cache), ``chip`` (the bundles' target, default ``sm_90a``),
``search`` (run ``mirage-superoptimize`` on each part's program before it
is cached, with ``time_budget`` seconds per searched subprogram, default
30; only verified candidates replace anything), ``megakernel`` (each
part's bundle is one persistent kernel, ``mirage-to-megakernel``, instead of
a kernel per operator; its first call waits and checks it ran without a
hang),
``export_dir``: each part writes, at its first call, ``<dir>/<part>/``
with its bundle (``bundle/``), its PyTorch graph (``part.pt``), the
arguments it was called with (``inputs.pt``) and what PyTorch computes for
them (``expected.pt``), or for arguments over 16 MiB (model-sized weights)
only their shapes (``input_specs.json``): everything to run and check the
part on another machine (runtime/python/run_torch_parts.py). ``last_compilation()`` returns what the
last call built, for inspection and tests.
"""

import hashlib
import json
import os
import warnings

import torch
import torch.fx
from torch.fx.passes.infra.partitioner import CapabilityBasedPartitioner
from torch.fx.passes.operator_support import OperatorSupportBase

from . import fx as _fx
from ._mirage import Module

_OPTIONS = {"execute": "auto", "cache_dir": "default", "search": False,
            "time_budget": 30.0, "megakernel": False, "chip": "sm_90a",
            "export_dir": None}
_warned = set()
# Above this, export_dir records the inputs' shapes instead of their values.
_EXPORTED_INPUT_BYTES = 16 << 20
_last = None


def _warn_once(key, message):
    if key not in _warned:
        _warned.add(key)
        warnings.warn(f"mirage: {message}", stacklevel=3)


class Compilation:
    """What one backend call built: the graph with its Mirage parts
    (``graph_module``), their programs (``programs``, one per part, in
    order), their bundles with execute="gpu" (``bundles``: paths, else
    None), the ops left to PyTorch with why (``fallbacks``: op name ->
    reason), how many programs came from the cache (``cache_hits``) and the
    superoptimizer's remarks with search=True (``search_remarks``)."""

    def __init__(self):
        self.graph_module = None
        self.programs = []
        self.fallbacks = {}
        self.cache_hits = 0
        self.bundles = []
        self.search_remarks = []


def last_compilation():
    return _last


class _Support(OperatorSupportBase):
    def is_node_supported(self, submodules, node):
        return node.op == "call_function" and _fx.is_supported(node)


class _MirageKernel(torch.nn.Module):
    """One supported part: its kn program, its bundle when it runs on the
    GPU, and the PyTorch ops it came from."""

    def __init__(self, program, eager, execute, bundle_path=None, export_dir=None,
                 megakernel=False):
        super().__init__()
        self.program = program
        self.eager = eager
        self.execute = execute
        self.bundle_path = bundle_path
        self.bundle = None
        self.export_dir = export_dir
        self.megakernel = megakernel

    def _export(self, args):
        directory = os.path.join(self.export_dir, self.program.name)
        os.makedirs(directory, exist_ok=True)
        bundle = self.program.module.write_bundle(self.program.name, directory,
                                                  megakernel=self.megakernel)
        os.replace(bundle, os.path.join(directory, "bundle"))
        torch.save(self.eager, os.path.join(directory, "part.pt"))
        self.export_dir = None
        if sum(a.numel() * a.element_size() for a in args) > _EXPORTED_INPUT_BYTES:
            # Model-sized weights: their shapes only; the checking machine
            # draws inputs and takes eager PyTorch there as the reference.
            specs = [{"shape": list(a.shape), "dtype": str(a.dtype).replace("torch.", "")}
                     for a in args]
            with open(os.path.join(directory, "input_specs.json"), "w") as f:
                json.dump(specs, f)
            return
        torch.save([a.detach().cpu() for a in args], os.path.join(directory, "inputs.pt"))
        with torch.no_grad():
            expected = self.eager(*args)
        torch.save(expected, os.path.join(directory, "expected.pt"))

    def forward(self, *args):
        if self.export_dir:
            self._export(args)
        if self.execute == "reference":
            return self.program.run_reference(*args)
        if self.execute == "gpu":
            from . import runtime

            if self.bundle is None:
                self.bundle = runtime.Bundle(self.bundle_path)
            results = self.bundle(*[a.contiguous() for a in args])
            results = results if isinstance(results, tuple) else (results,)
            return results if self.program.output_is_tuple else results[0]
        return self.eager(*args)


def _cache_path(cache_dir, gm, options):
    key = hashlib.sha256()
    key.update(gm.print_readable(print_output=False).encode())
    for node in gm.graph.nodes:
        value = node.meta.get("val")
        if isinstance(value, torch.Tensor):
            key.update(f"{node.name}:{list(value.shape)}:{value.dtype};".encode())
    key.update(repr(sorted(options.items())).encode())
    return os.path.join(cache_dir, key.hexdigest()[:32] + ".mlir")


def _cache_dir(options):
    cache_dir = options["cache_dir"]
    if cache_dir == "default":
        cache_dir = os.environ.get("MIRAGE_CACHE_DIR") or os.path.join(
            os.path.expanduser("~"), ".cache", "mirage_mlir")
    return cache_dir


def _bundle(program, options, path):
    """The part's bundle: next to its cached program, or in a temporary
    directory without a cache."""
    if path:
        directory = path[:-len(".mlir")] + "-" + options["chip"]
    else:
        import tempfile

        directory = tempfile.mkdtemp(prefix="mirage-bundles-")
    bundle = os.path.join(directory, Module.bundle_name(program.name, options["megakernel"]))
    if not os.path.exists(os.path.join(bundle, "manifest.json")):
        bundle = program.module.write_bundle(program.name, directory, chip=options["chip"],
                                             megakernel=options["megakernel"])
    return bundle


def _program(gm, name, options, compilation):
    cache_dir = _cache_dir(options)
    path = _cache_path(cache_dir, gm,
                       {k: options[k] for k in ("search", "time_budget", "megakernel")}) \
        if cache_dir else None
    outputs = [n for n in gm.graph.nodes if n.op == "output"][0].args[0]
    output_is_tuple = isinstance(outputs, (tuple, list))
    dtypes = [o.meta["val"].dtype for o in (outputs if output_is_tuple else [outputs])]
    if path and os.path.exists(path):
        with open(path) as f:
            module = Module.parse(f.read())
        compilation.cache_hits += 1
        return _fx.KernelProgram(module, name, output_is_tuple, dtypes), path
    program = _fx.to_kernel_program(gm, name)
    if options["search"]:
        compilation.search_remarks += program.module.run(
            f"mirage-superoptimize{{time-budget={float(options['time_budget'])} progress=0}}")
    if path:
        os.makedirs(cache_dir, exist_ok=True)
        with open(path + ".tmp", "w") as f:
            f.write(str(program.module))
        os.replace(path + ".tmp", path)
    return program, path


def _compile_aten(gm, example_inputs, options):
    global _last
    compilation = Compilation()
    _last = compilation
    _fx.fold_repeated_heads(gm)
    for node in gm.graph.nodes:
        reason = _fx.why_unsupported(node) if node.op == "call_function" else None
        if reason:
            compilation.fallbacks.setdefault(str(node.target), reason)
    if compilation.fallbacks:
        listed = "; ".join(f"{op} ({why})" for op, why in sorted(compilation.fallbacks.items()))
        _warn_once(("fallback", listed), f"left to eager PyTorch: {listed}")
    partitioner = CapabilityBasedPartitioner(gm, _Support(), allows_single_node_partition=True)
    partitioned = partitioner.partition_and_fuse()
    for node in list(partitioned.graph.nodes):
        if node.op != "call_module" or not node.target.startswith("fused_"):
            continue
        submodule = getattr(partitioned, node.target)
        _propagate_meta(submodule, node)
        try:
            program, path = _program(submodule, node.target, options, compilation)
        except _fx.Unsupported as error:
            compilation.fallbacks.setdefault(node.target, str(error))
            _warn_once(("part", str(error)), f"left to eager PyTorch: {error}")
            continue
        compilation.programs.append(program)
        bundle = _bundle(program, options, path) if options["execute"] == "gpu" else None
        compilation.bundles.append(bundle)
        setattr(partitioned, node.target,
                _MirageKernel(program, submodule, options["execute"], bundle,
                              options["export_dir"], options["megakernel"]))
    partitioned.recompile()
    compilation.graph_module = partitioned
    return partitioned


def _propagate_meta(submodule, call):
    """The fused submodule's placeholders take the fake values of the call's
    arguments (the partitioner does not copy them)."""
    placeholders = [n for n in submodule.graph.nodes if n.op == "placeholder"]
    for placeholder, arg in zip(placeholders, call.args):
        if "val" not in placeholder.meta and isinstance(arg, torch.fx.Node):
            placeholder.meta["val"] = arg.meta.get("val")


def _has_dynamic_shapes(gm):
    """Dynamo passes symbolic sizes as inputs of their own or in the shapes
    of its example values."""
    for node in gm.graph.nodes:
        if node.op != "placeholder":
            continue
        value = node.meta.get("example_value", node.meta.get("val"))
        if isinstance(value, torch.SymInt):
            return True
        if isinstance(value, torch.Tensor) and any(
                not isinstance(size, int) for size in value.shape):
            return True
    return False


def _choose_execution(example_inputs):
    """'gpu' when the inputs are CUDA tensors and the runtime loads."""
    tensors = [t for t in example_inputs if isinstance(t, torch.Tensor)]
    if not tensors or not all(t.is_cuda for t in tensors):
        _warn_once("eager", "no CUDA inputs: the converted parts run as the PyTorch ops "
                   "they came from (execute='eager')")
        return "eager"
    try:
        from . import runtime

        runtime._lib()
    except OSError as error:
        _warn_once("eager", f"{error}; the converted parts run as the PyTorch ops they "
                   "came from (execute='eager')")
        return "eager"
    return "gpu"


def mirage_backend(gm, example_inputs, options=None):
    """The TorchDynamo backend (see the module's docstring)."""
    options = {**_OPTIONS, **(options or {})}
    unknown = set(options) - set(_OPTIONS)
    if unknown:
        raise ValueError(f"mirage: unknown options {sorted(unknown)}; valid: {sorted(_OPTIONS)}")
    if options["execute"] not in ("auto", "gpu", "eager", "reference"):
        raise ValueError("mirage: execute must be 'auto', 'gpu', 'eager' or 'reference', "
                         f"got {options['execute']!r}")
    if options["execute"] == "auto":
        options["execute"] = _choose_execution(example_inputs)
    if _has_dynamic_shapes(gm):
        _warn_once("dynamic", "dynamic shapes are not supported; running eagerly "
                   "(torch.compile(..., dynamic=False) avoids this)")
        return gm.forward
    from torch._dynamo.backends.common import aot_autograd
    from torch._decomp import core_aten_decompositions

    def forward(aten_gm, aten_inputs):
        return _compile_aten(aten_gm, aten_inputs, options)

    # Operators kn has as such stay whole instead of their decompositions.
    kept = {torch.ops.aten.silu, torch.ops.aten.gelu, torch.ops.aten.rms_norm,
            torch.ops.aten._softmax}
    decompositions = {op: fn for op, fn in core_aten_decompositions().items()
                      if op.overloadpacket not in kept}
    compiler = aot_autograd(fw_compiler=forward, decompositions=decompositions)
    return compiler(gm, example_inputs)


def _installed_as_entry_point():
    """pip installs declare the backend as an entry point, which TorchDynamo
    registers itself when it loads this module."""
    from importlib.metadata import entry_points

    return "mirage" in entry_points(group="torch_dynamo_backends").names


if not _installed_as_entry_point():
    torch._dynamo.register_backend(name="mirage", compiler_fn=mirage_backend)
