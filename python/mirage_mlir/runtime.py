"""Run compiled bundles on PyTorch CUDA tensors.

``Bundle(path)`` loads a bundle (what ``mirage-bundle`` writes: manifest,
cubin or PTX) into PyTorch's CUDA context through the runtime's C interface
(``libmirage_runtime_c.so``, loaded with ctypes, so this module needs no
compiled Python extension and runs where only the runtime is built).
Calling it runs the bundle on the caller's tensors: inputs are passed by
their device pointers, outputs are new tensors, and the kernels go on
PyTorch's current stream. Nothing is copied or synchronized, except for
a mega-kernel bundle's first call, which waits and checks that no task
waited past the bundle's deadline (``check()`` does so on demand).

The library is found at ``$MIRAGE_RUNTIME_LIB``, beside this package, or in
a build tree's ``lib/``.
"""

import ctypes
import json
import os
import pathlib

_DTYPES = {"f16": "float16", "bf16": "bfloat16", "f32": "float32"}
_library = None


def _find_library():
    candidates = []
    if os.environ.get("MIRAGE_RUNTIME_LIB"):
        candidates.append(pathlib.Path(os.environ["MIRAGE_RUNTIME_LIB"]))
    here = pathlib.Path(__file__).resolve().parent
    candidates += [here / "libmirage_runtime_c.so",
                   here.parent.parent / "lib" / "libmirage_runtime_c.so"]
    for candidate in candidates:
        if candidate.exists():
            return candidate
    raise OSError("mirage: libmirage_runtime_c.so not found (set MIRAGE_RUNTIME_LIB; "
                  "it is built with the CUDA toolkit: ninja mirage_runtime_c)")


def _lib():
    global _library
    if _library is None:
        lib = ctypes.CDLL(str(_find_library()))
        lib.mirage_executable_load.restype = ctypes.c_void_p
        lib.mirage_executable_load.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t]
        lib.mirage_executable_run.restype = ctypes.c_int
        lib.mirage_executable_run.argtypes = [
            ctypes.c_void_p, ctypes.POINTER(ctypes.c_uint64), ctypes.c_size_t,
            ctypes.POINTER(ctypes.c_uint64), ctypes.c_size_t, ctypes.c_void_p,
            ctypes.c_char_p, ctypes.c_size_t]
        lib.mirage_executable_check.restype = ctypes.c_int
        lib.mirage_executable_check.argtypes = [ctypes.c_void_p, ctypes.c_void_p,
                                                ctypes.c_char_p, ctypes.c_size_t]
        lib.mirage_executable_has_megakernel.restype = ctypes.c_int
        lib.mirage_executable_has_megakernel.argtypes = [ctypes.c_void_p]
        lib.mirage_executable_free.restype = None
        lib.mirage_executable_free.argtypes = [ctypes.c_void_p]
        _library = lib
    return _library


class MirageRuntimeError(RuntimeError):
    """A bundle that does not load or run (the runtime's message)."""


class Bundle:
    """A bundle loaded on the current CUDA device; call it with torch CUDA
    tensors of the manifest's shapes and dtypes, in order."""

    def __init__(self, path):
        import torch

        self.path = pathlib.Path(path)
        manifest = json.loads((self.path / "manifest.json").read_text())
        buffers = {b["id"]: b for b in manifest["buffers"]}
        self.name = manifest["name"]
        self.inputs = [(buffers[i]["shape"], getattr(torch, _DTYPES[buffers[i]["dtype"]]))
                       for i in manifest["inputs"]]
        self.outputs = [(buffers[i]["shape"], getattr(torch, _DTYPES[buffers[i]["dtype"]]))
                        for i in manifest["outputs"]]
        torch.cuda.init()  # the runtime loads into PyTorch's context
        torch.cuda.current_stream()
        error = ctypes.create_string_buffer(4096)
        handle = _lib().mirage_executable_load(str(self.path).encode(), error, len(error))
        if not handle:
            raise MirageRuntimeError(error.value.decode(errors="replace"))
        self._handle = handle
        self.megakernel = bool(_lib().mirage_executable_has_megakernel(handle))
        self._checked = not self.megakernel

    def __call__(self, *tensors):
        import torch

        if len(tensors) != len(self.inputs):
            raise ValueError(f"{self.name}: takes {len(self.inputs)} inputs, got {len(tensors)}")
        device = None
        for index, (tensor, (shape, dtype)) in enumerate(zip(tensors, self.inputs)):
            if not tensor.is_cuda:
                raise ValueError(f"{self.name}: input {index} is not on a CUDA device")
            if list(tensor.shape) != list(shape) or tensor.dtype != dtype:
                raise ValueError(f"{self.name}: input {index} is {list(tensor.shape)} "
                                 f"{tensor.dtype}, expected {shape} {dtype}")
            if not tensor.is_contiguous():
                raise ValueError(f"{self.name}: input {index} is not contiguous")
            device = device or tensor.device
        outputs = [torch.empty(shape, dtype=dtype, device=device or "cuda")
                   for shape, dtype in self.outputs]
        inputs_c = (ctypes.c_uint64 * len(tensors))(*[t.data_ptr() for t in tensors])
        outputs_c = (ctypes.c_uint64 * len(outputs))(*[t.data_ptr() for t in outputs])
        stream = torch.cuda.current_stream(device).cuda_stream
        error = ctypes.create_string_buffer(4096)
        if not _lib().mirage_executable_run(self._handle, inputs_c, len(tensors), outputs_c,
                                            len(outputs), ctypes.c_void_p(stream), error,
                                            len(error)):
            raise MirageRuntimeError(error.value.decode(errors="replace"))
        if not self._checked:
            self._checked = True
            self.check()
        return outputs[0] if len(outputs) == 1 else tuple(outputs)

    def check(self):
        """Waits for the current stream and raises MirageRuntimeError when a
        mega-kernel task waited past the bundle's deadline since the last
        check (the outputs of those calls are not valid). Returns at once for
        bundles without a mega-kernel."""
        import torch

        error = ctypes.create_string_buffer(4096)
        stream = torch.cuda.current_stream().cuda_stream
        if not _lib().mirage_executable_check(self._handle, ctypes.c_void_p(stream), error,
                                              len(error)):
            raise MirageRuntimeError(error.value.decode(errors="replace"))

    def __del__(self):
        handle = getattr(self, "_handle", None)
        if handle and _library is not None:
            _library.mirage_executable_free(handle)
