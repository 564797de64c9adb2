#!/usr/bin/env python3
"""Exports the torch.compile parts of the backend's test models
(python/tests/torch_models.py: an MLP, an attention block, a Qwen3-style
decoder layer, in f32 and f16; and the MLP and layer at Qwen3-8B's sizes in
f16) for a GPU check: per part its bundle, its PyTorch graph, the arguments
it was called with and PyTorch's outputs on the CPU, or for model-sized
weights their shapes (the backend's export_dir option). Each model is
exported twice: a kernel per operator, and as mega-kernels (`_megakernel`,
the backend's megakernel option). runtime/python/run_torch_parts.py
runs them on a GPU; scripts/gpu-package.sh --torch puts them in the package.

    scripts/torch-parts.py OUT_DIR     (with build/venv's python)
"""

import os
import pathlib
import sys
import warnings

ROOT = pathlib.Path(__file__).resolve().parents[1]
BUILD = pathlib.Path(os.environ.get("MIRAGE_BUILD_DIR", ROOT / "build"))
sys.path[:0] = [str(BUILD / "python_packages"), str(ROOT / "python" / "tests")]

import torch  # noqa: E402

import mirage_mlir.backend  # noqa: E402,F401  (registers "mirage")
import torch_models  # noqa: E402


def export(out, name, model, inputs, megakernel=False):
    torch._dynamo.reset()
    options = {"execute": "eager", "cache_dir": None, "export_dir": str(out / name),
               "megakernel": megakernel}
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.compile(model, backend="mirage", options=options, dynamic=False)(*inputs)
    compilation = mirage_mlir.backend.last_compilation()
    print(f"torch-parts: {name}: {len(compilation.programs)} part(s), "
          f"fallbacks {compilation.fallbacks or 'none'}")


def main():
    out = pathlib.Path(sys.argv[1])
    for megakernel, form in ((False, ""), (True, "_megakernel")):
        for dtype, suffix in ((torch.float32, "f32"), (torch.float16, "f16")):
            for name, model, inputs in torch_models.models(torch.Generator().manual_seed(0),
                                                           dtype):
                export(out, f"{name}_{suffix}{form}", model, inputs, megakernel)
        for name, model, inputs in torch_models.qwen3_sized(torch.Generator().manual_seed(0)):
            export(out, f"{name}_f16{form}", model, inputs, megakernel)


if __name__ == "__main__":
    main()
