"""Mirage MLIR from Python.

Build kernel graphs op by op (shapes come from the same operator records the
C++ verifiers use), parse and verify MLIR text, and run mirage-opt passes:

    import mirage_mlir as mm
    g = mm.KernelGraph("rmsnorm_linear")
    x = g.input([2, 4096], "f16")
    w = g.input([4096, 6144], "f16")
    g.output(g.matmul(g.rms_norm(x, eps=1e-6), w))
    module = g.to_module()
    print(module)

Invalid programs raise ``ValueError`` (a bad op) or ``MirageError`` (IR that
does not parse or verify, a failed pass) with the compiler's diagnostics.
``Module.run_reference`` evaluates a function in the float64 interpreter,
``Module.write_bundle`` compiles it for the GPU. Submodules:
``mirage_mlir.backend`` (``torch.compile(model, backend="mirage")``),
``mirage_mlir.fx`` (aten graphs as kn programs) and ``mirage_mlir.runtime``
(bundles on PyTorch CUDA tensors). docs/Python.md has the details.
"""

from ._mirage import KernelGraph, MirageError, Module, Tensor

__all__ = ["KernelGraph", "MirageError", "Module", "Tensor"]
