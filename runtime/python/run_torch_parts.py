#!/usr/bin/env python3
"""Runs torch.compile parts exported by the mirage backend (its export_dir
option; scripts/torch-parts.py exports the test models) through the bundle
runtime on CUDA tensors: each part's outputs against what PyTorch computed
on the CPU (expected.pt, when the inputs were exported) and against eager
PyTorch on the GPU (part.pt). Parts exported with only their input shapes
(input_specs.json: model-sized weights) get inputs drawn here: normal, scaled
by 1/sqrt(last dim) for matrices (weights and caches at a model's scale).
Times, each replayed in a CUDA graph (CUDA events over --runs replays):
ours, eager PyTorch and torch.compile(mode="max-autotune-no-cudagraphs") of
the part's graph.

    run_torch_parts.py PARTS_DIR [--json OUT.json] [--runs N] [--no-compile]

Needs only PyTorch with CUDA and libmirage_runtime_c.so ($MIRAGE_RUNTIME_LIB):
no Mirage compiler. Exits nonzero when a part fails its check.
"""

import argparse
import importlib.util
import json
import pathlib
import sys

import torch

HERE = pathlib.Path(__file__).resolve().parent


def load_runtime():
    """mirage_mlir.runtime, by path: importing the package would load the
    compiler's extension, which this machine need not have."""
    for path in (HERE / "mirage_mlir_runtime.py",
                 HERE.parents[1] / "python" / "mirage_mlir" / "runtime.py"):
        if path.exists():
            spec = importlib.util.spec_from_file_location("mirage_mlir_runtime", path)
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            return module
    sys.exit("run_torch_parts.py: mirage_mlir's runtime.py not found")


def as_tuple(value):
    return value if isinstance(value, (tuple, list)) else (value,)


def relative_l2(got, want):
    got, want = got.double().cpu(), want.double().cpu()
    return float((got - want).norm() / max(float(want.norm()), 1e-30))


def graph_us(fn, runs):
    """Microseconds per replay of fn captured in a CUDA graph."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            fn()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        fn()
    for _ in range(5):
        graph.replay()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(runs):
        graph.replay()
    end.record()
    end.synchronize()
    return start.elapsed_time(end) * 1000 / runs


def draw_inputs(specs):
    generator = torch.Generator(device="cuda").manual_seed(0)
    inputs = []
    for spec in specs:
        value = torch.randn(spec["shape"], generator=generator, device="cuda")
        if len(spec["shape"]) >= 2:
            value = value / spec["shape"][-1] ** 0.5
        inputs.append(value.to(getattr(torch, spec["dtype"])))
    return inputs


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("parts", type=pathlib.Path)
    parser.add_argument("--json", type=pathlib.Path)
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--no-compile", action="store_true",
                        help="skip the torch.compile baseline")
    args = parser.parse_args()
    runtime = load_runtime()
    results, failed = [], False
    # PARTS_DIR/<model>/<part>/{bundle/, part.pt, inputs.pt, expected.pt}
    for directory in sorted(p.parent for p in args.parts.glob("*/*/bundle/manifest.json")):
        part = directory.parent
        entry = {"part": str(part.relative_to(args.parts))}
        try:
            bundle = runtime.Bundle(directory)
            eager = torch.load(part / "part.pt", weights_only=False).cuda()
            expected = None
            if (part / "inputs.pt").exists():
                inputs = [t.cuda() for t in torch.load(part / "inputs.pt")]
                expected = as_tuple(torch.load(part / "expected.pt"))
            else:
                inputs = draw_inputs(json.loads((part / "input_specs.json").read_text()))
            with torch.no_grad():
                got = as_tuple(bundle(*inputs))
                reference = as_tuple(eager(*inputs))
                entry["rel_l2_vs_eager_gpu"] = max(
                    relative_l2(g, r) for g, r in zip(got, reference))
                if expected is not None:
                    entry["rel_l2_vs_cpu"] = max(
                        relative_l2(g, e) for g, e in zip(got, expected))
                entry["finite"] = all(bool(torch.isfinite(g).all()) for g in got)
                entry["ours_us"] = graph_us(lambda: bundle(*inputs), args.runs)
                entry["eager_us"] = graph_us(lambda: eager(*inputs), args.runs)
                if not args.no_compile:
                    compiled = torch.compile(eager, mode="max-autotune-no-cudagraphs",
                                             dynamic=False)
                    entry["compile_us"] = graph_us(lambda: compiled(*inputs), args.runs)
            limit = 2e-2 if inputs[0].dtype != torch.float32 else 1e-3
            error = entry.get("rel_l2_vs_cpu", entry["rel_l2_vs_eager_gpu"])
            entry["pass"] = entry["finite"] and error <= limit
        except Exception as error:  # reported per part, the others still run
            entry["error"] = f"{type(error).__name__}: {error}"
            entry["pass"] = False
        failed |= not entry["pass"]
        results.append(entry)
        print(json.dumps(entry), flush=True)
    document = {"device": torch.cuda.get_device_name(), "torch": torch.__version__,
                "parts": results}
    if args.json:
        args.json.write_text(json.dumps(document, indent=2) + "\n")
    print(f"{sum(r['pass'] for r in results)} of {len(results)} parts passed")
    sys.exit(1 if failed or not results else 0)


if __name__ == "__main__":
    main()
