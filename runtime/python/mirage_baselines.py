#!/usr/bin/env python3
"""PyTorch baselines for Mirage bundles (docs/Bundle.md).

For every bundle whose manifest carries a `program`, this builds the same
computation from PyTorch ops, runs it on the inputs that `mirage-run` uses
(the bundle's seeded generator, reimplemented here in NumPy), checks it
against the bundle's float64 reference, and times it the way `mirage-run`
times the compiled kernels: eager, eager replayed from a CUDA graph, and
torch.compile (max-autotune) replayed from a CUDA graph. It also measures the
device-to-device copy bandwidth once, which gives each bundle a memory floor.

    python3 mirage_baselines.py BUNDLE_DIR... --json out.json [--device cpu]

On CPU (for testing without a GPU) there are no graphs or events, timing uses
time.perf_counter, and torch.compile runs only with --compile (it is then
timed without a graph, as compile_us).
"""

import argparse
import contextlib
import json
import math
import pathlib
import platform
import statistics
import sys
import time
import traceback

import numpy as np

# ---------------------------------------------------------------- inputs ---

_U64 = np.uint64
_GOLDEN = _U64(0x9E3779B97F4A7C15)
_MIX1 = _U64(0xBF58476D1CE4E5B9)
_MIX2 = _U64(0x94D049BB133111EB)
# Elements drawn per NumPy pass: bounds the uint64 temporaries to ~32 MiB.
_CHUNK = 1 << 22

DTYPE_BYTES = {"f16": 2, "bf16": 2, "f32": 4}
TORCH_DTYPES = {"f16": "torch.float16", "bf16": "torch.bfloat16",
                "f32": "torch.float32"}


def splitmix64(z):
    """SplitMix64 of a uint64 array, wrapping mod 2^64.

    Shift counts are uint64 too, so NumPy never promotes to float64.
    """
    with np.errstate(over="ignore"):
        z = np.asarray(z, dtype=_U64) + _GOLDEN
        z = (z ^ (z >> _U64(30))) * _MIX1
        z = (z ^ (z >> _U64(27))) * _MIX2
        return z ^ (z >> _U64(31))


def input_key(seed, index):
    """key(i) = splitmix64(seed ^ splitmix64(i + 1)), as a uint64 scalar."""
    inner = splitmix64(np.array([index + 1], dtype=_U64))
    return splitmix64(_U64(seed) ^ inner)[0]


def draw_float64(seed, index, count, low=-1.0, high=1.0, start=0):
    """Elements start..start+count-1 of input `index`, in float64."""
    key = input_key(seed, index)
    elements = np.arange(start, start + count, dtype=_U64)
    with np.errstate(over="ignore"):
        u = splitmix64(key + elements)
    unit = (u >> _U64(11)).astype(np.float64) * 2.0**-53
    return low + (high - low) * unit


def round_to_bf16_bits(x):
    """Round float64 values to bfloat16 (nearest even), as uint16 bits.

    Rounding to float32 first and then to bf16 would round twice; float64 ->
    float32 is therefore done round-to-odd (the float32 neighbour with an odd
    mantissa when inexact), which makes the second, nearest-even step exact.
    """
    x = np.asarray(x, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        f = x.astype(np.float32)
        bits = f.view(np.uint32).copy()
        inexact = np.isfinite(f) & (f.astype(np.float64) != x) & (bits & 1 == 0)
        away = np.abs(f.astype(np.float64)) > np.abs(x)
        bits[inexact & away] -= np.uint32(1)
        bits[inexact & ~away] += np.uint32(1)
    nan = np.isnan(x)
    rounded = (bits + np.uint32(0x7FFF) + ((bits >> np.uint32(16)) & np.uint32(1)))
    out = (rounded >> np.uint32(16)).astype(np.uint16)
    out[nan] = np.uint16(0x7FC0)
    return out


def bf16_bits_to_float64(bits):
    """Widen bf16 bit patterns (uint16) to float64."""
    wide = np.asarray(bits, dtype=np.uint16).astype(np.uint32) << np.uint32(16)
    return wide.view(np.float32).astype(np.float64)


def round_to_dtype(x, dtype):
    """float64 -> the buffer's storage: float16, float32, or bf16 as uint16."""
    if dtype == "f16":
        return x.astype(np.float16)  # NumPy rounds float64 -> half directly, RNE
    if dtype == "f32":
        return x.astype(np.float32)
    if dtype == "bf16":
        return round_to_bf16_bits(x)
    raise ValueError(f"unknown dtype '{dtype}'")


def storage_to_float64(storage, dtype):
    """The values of a storage array from round_to_dtype, in float64."""
    if dtype == "bf16":
        return bf16_bits_to_float64(storage)
    return storage.astype(np.float64)


def draw_input(generator, index, shape, dtype):
    """Input `index` of a bundle: its storage array (see round_to_dtype)."""
    if generator.get("kind") != "uniform":
        raise ValueError(f"unknown inputs_generator kind '{generator.get('kind')}'")
    count = math.prod(shape)
    scales = generator.get("scales")
    scale = scales[index] if scales is not None else 1.0
    parts = []
    for start in range(0, count, _CHUNK):
        values = draw_float64(generator["seed"], index, min(_CHUNK, count - start),
                              generator.get("low", -1.0), generator.get("high", 1.0),
                              start)
        parts.append(round_to_dtype(scale * values, dtype))
    if not parts:
        parts.append(round_to_dtype(np.zeros(0), dtype))
    return np.concatenate(parts).reshape(shape)


# --------------------------------------------------------------- bundles ---


# The manifest versions the baselines read: those of the runtime
# (runtime/include/mirage_runtime/Manifest.h, checked by
# tests/test_bundle.py).
MANIFEST_VERSIONS = range(1, 7)


class Bundle:
    """A bundle directory's manifest, with the lookups the baselines need."""

    def __init__(self, path):
        self.path = pathlib.Path(path)
        self.manifest = json.loads((self.path / "manifest.json").read_text())
        if self.manifest.get("format") != "mirage-bundle":
            raise ValueError(f"{self.path}: format is not 'mirage-bundle'")
        # Versions 2 to 5 add mega-kernel steps (and change their tables)
        # and tensor map launch arguments, which the baselines never read.
        if self.manifest.get("version") not in MANIFEST_VERSIONS:
            raise ValueError(f"{self.path}: unknown manifest version "
                             f"{self.manifest.get('version')}")
        self.name = self.manifest.get("name") or self.path.name
        self.buffers = {b["id"]: b for b in self.manifest["buffers"]}
        self.inputs = [self.buffers[i] for i in self.manifest["inputs"]]
        self.outputs = [self.buffers[i] for i in self.manifest["outputs"]]
        self.program = self.manifest.get("program")

    def io_bytes(self):
        """Bytes of all inputs and outputs: what one run must move at least."""
        return sum(math.prod(b["shape"]) * DTYPE_BYTES[b["dtype"]]
                   for b in self.inputs + self.outputs)

    def draw_inputs(self):
        """Every input's storage array, drawn as mirage-run draws it."""
        generator = self.manifest["inputs_generator"]
        return [draw_input(generator, i, b["shape"], b["dtype"])
                for i, b in enumerate(self.inputs)]

    def reference(self):
        """The float64 reference outputs, one array per output, or None."""
        ref = self.manifest.get("reference")
        if not ref or not (self.path / ref["file"]).exists():
            return None
        flat = np.fromfile(self.path / ref["file"], dtype="<f8")
        sizes = [math.prod(b["shape"]) for b in self.outputs]
        if flat.size != sum(sizes):
            raise ValueError(f"{ref['file']} holds {flat.size} values, "
                             f"the outputs {sum(sizes)}")
        offsets = np.cumsum([0] + sizes)
        return [flat[offsets[k]:offsets[k + 1]].reshape(b["shape"])
                for k, b in enumerate(self.outputs)]


def rel_l2(out, ref):
    """‖out − ref‖₂ / ‖ref‖₂ in float64 (the plain norm when ref is zero)."""
    out = np.asarray(out, dtype=np.float64).ravel()
    ref = np.asarray(ref, dtype=np.float64).ravel()
    diff = float(np.linalg.norm(out - ref))
    norm = float(np.linalg.norm(ref))
    return diff / norm if norm > 0 else diff


# --------------------------------------------------------------- program ---


def _plain(fn):
    """An op without attributes: the torch function itself."""
    return lambda attrs, types, results: fn


def _scalar(combine):
    """mul_scalar / add_scalar: the f64 attribute applied as a Python float."""
    def make(attrs, types, results):
        scalar = float(attrs["scalar"])
        return lambda x: combine(x, scalar)
    return make


def _reduce(torch_fn):
    def make(attrs, types, results):
        dim, keepdim = int(attrs["dim"]), bool(attrs.get("keepdim", True))
        return lambda x: torch_fn(x, dim=dim, keepdim=keepdim)
    return make


def _rms_norm(attrs, types, results):
    """x * rsqrt(mean(x²) + eps) * w in the tensor dtype, as models write it."""
    import torch
    eps = float(attrs.get("eps", 0.0))

    def rms_norm(x, weight=None):
        y = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps)
        return y if weight is None else y * weight
    return rms_norm


def _concat(attrs, types, results):
    import torch
    dim = int(attrs["dim"])
    return lambda *xs: torch.cat(xs, dim)


def _split(attrs, types, results):
    import torch
    dim, sizes = int(attrs["dim"]), [int(v) for v in attrs["sizes"]]
    return lambda x: torch.split(x, sizes, dim)


def _reshape(attrs, types, results):
    """The target shape is the result's type, as in the kn op."""
    shape = tuple(types[results[0]]["shape"])
    return lambda x: x.reshape(shape)


def _transpose(attrs, types, results):
    permutation = tuple(int(v) for v in attrs["permutation"])
    return lambda x: x.permute(permutation)


def _op_table():
    """kn mnemonic -> maker(attrs, types, results) returning a torch callable.

    Built on first use so that importing this module needs no torch.
    """
    import torch
    import torch.nn.functional as F
    return {
        "matmul": _plain(torch.matmul),
        "add": _plain(torch.add),
        "sub": _plain(torch.sub),
        "mul": _plain(torch.mul),
        "div": _plain(torch.div),
        "pow": _plain(torch.pow),
        "exp": _plain(torch.exp),
        "sqrt": _plain(torch.sqrt),
        "square": _plain(torch.square),
        "neg": _plain(torch.neg),
        "relu": _plain(torch.relu),
        "sigmoid": _plain(torch.sigmoid),
        "silu": _plain(F.silu),
        "gelu": _plain(lambda x: F.gelu(x, approximate="none")),
        "tanh": _plain(torch.tanh),
        "rsqrt": _plain(torch.rsqrt),
        "maximum": _plain(torch.maximum),
        "all_reduce": _plain(lambda x: x),  # one device: the identity
        "mul_scalar": _scalar(torch.mul),
        "add_scalar": _scalar(torch.add),
        "reduce_sum": _reduce(torch.sum),
        "reduce_max": _reduce(torch.amax),
        "rms_norm": _rms_norm,
        "concat": _concat,
        "split": _split,
        "reshape": _reshape,
        "transpose": _transpose,
    }


def build_program(program, bundle_name="<bundle>"):
    """A torch function of the program's inputs returning its outputs (tuple).

    Every op is resolved here, so an unknown op fails before anything runs.
    """
    table = _op_table()
    types = program.get("types", {})
    steps = []
    for op in program["ops"]:
        maker = table.get(op["op"])
        if maker is None:
            raise ValueError(f"bundle {bundle_name}: the baselines cannot run "
                             f"op '{op['op']}'")
        fn = maker(op.get("attrs") or {}, types, op["results"])
        steps.append((fn, op["operands"], op["results"]))
    input_names, output_names = list(program["inputs"]), list(program["outputs"])

    def run(*args):
        values = dict(zip(input_names, args))
        for fn, operands, results in steps:
            produced = fn(*(values[name] for name in operands))
            if not isinstance(produced, (tuple, list)):
                produced = (produced,)
            values.update(zip(results, produced))
        return tuple(values[name] for name in output_names)
    return run


# ---------------------------------------------------------------- timing ---


def rotation_sets(set_bytes, l2_bytes):
    """R sets, R*set_bytes >= 2*L2 with R in [2, 64], as mirage-run picks.

    Rotating through R copies keeps each run from finding its data in L2.
    """
    needed = math.ceil(2 * l2_bytes / set_bytes) if set_bytes > 0 else 2
    return max(2, min(64, needed))


class Timer:
    """Times `body()` (which runs all R sets once): per-run microseconds."""

    def __init__(self, device, warmups=3, repetitions=20):
        self.device, self.warmups, self.repetitions = device, warmups, repetitions

    def per_run_us(self, body, runs_per_call):
        """(median, min) of the per-run time over the repetitions."""
        import torch
        cuda = self.device.type == "cuda"
        for _ in range(self.warmups):
            body()
        if cuda:
            torch.cuda.synchronize()
        samples = []
        for _ in range(self.repetitions):
            if cuda:
                start, end = (torch.cuda.Event(enable_timing=True) for _ in "se")
                start.record()
                body()
                end.record()
                end.synchronize()
                seconds = start.elapsed_time(end) / 1e3
            else:
                begin = time.perf_counter()
                body()
                seconds = time.perf_counter() - begin
            samples.append(seconds * 1e6 / runs_per_call)
        return statistics.median(samples), min(samples)


def capture_graph(fn, sets):
    """A CUDA graph calling fn once on each set, in turn.

    The warm-up runs on a side stream, as torch.cuda.graphs requires; the
    outputs are kept so every set writes its own output memory.
    """
    import torch
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for args in sets:
            fn(*args)
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        outputs = [fn(*args) for args in sets]
    return graph, outputs


def copy_bandwidth(device, nbytes):
    """Device-to-device copy bandwidth in bytes/s (read + write), best of 10."""
    import torch
    src = torch.empty(nbytes, dtype=torch.uint8, device=device)
    dst = torch.empty_like(src)
    timer = Timer(device, warmups=2, repetitions=10)
    _, best_us = timer.per_run_us(lambda: dst.copy_(src), 1)
    return 2 * nbytes / (best_us * 1e-6)


# ------------------------------------------------------------- per bundle ---


def to_torch(storage, dtype, device):
    """A storage array from draw_input as a torch tensor of the dtype."""
    import torch
    if dtype == "bf16":
        return torch.from_numpy(storage.view(np.int16)).view(torch.bfloat16).to(device)
    return torch.from_numpy(storage).to(device)


class BundleRunner:
    """Runs one bundle's baselines; every failure goes to `errors`."""

    def __init__(self, options, device, l2_bytes, bandwidth):
        self.options, self.device = options, device
        self.l2_bytes, self.bandwidth = l2_bytes, bandwidth
        self.timer = Timer(device, options.warmups, options.repetitions)

    def run(self, path):
        result = {"name": pathlib.Path(path).name, "bundle": str(path),
                  "bytes": None, "floor_us": None, "torch_rel_l2": None,
                  "eager_us": None, "eager_min_us": None, "eager_graph_us": None,
                  "compile_graph_us": None, "errors": []}
        try:
            bundle = Bundle(path)
        except Exception as error:  # a broken bundle is reported, not fatal
            result["errors"].append(f"manifest: {error}")
            return result
        result["name"] = bundle.name
        result["bytes"] = bundle.io_bytes()
        result["floor_us"] = result["bytes"] / self.bandwidth * 1e6
        if bundle.program is None:
            result["skipped"] = "the bundle has no program"
            return result
        if result["bytes"] > self.options.max_bytes:
            result["skipped"] = (f"inputs and outputs of {result['bytes'] / 1e9:.1f} "
                                 f"GB, over --max-bytes (drawing them in NumPy "
                                 f"takes minutes)")
            return result
        self._phase(result, "baselines", lambda: self._measure(bundle, result))
        return result

    def _phase(self, result, label, action):
        """Runs action(); on failure records 'label: error' and returns None."""
        import torch
        try:
            return action()
        except Exception as error:
            result["errors"].append(f"{label}: {type(error).__name__}: {error}")
            traceback.print_exc()  # to the log; the JSON keeps one line
            if self.device.type == "cuda":
                with contextlib.suppress(Exception):  # a sticky error raises again
                    torch.cuda.synchronize()
                    torch.cuda.empty_cache()
            return None

    def _measure(self, bundle, result):
        import torch
        fn = self._phase(result, "program",
                         lambda: build_program(bundle.program, bundle.name))
        inputs = self._phase(result, "inputs", lambda: [
            to_torch(s, b["dtype"], self.device)
            for s, b in zip(bundle.draw_inputs(), bundle.inputs)])
        if fn is None or inputs is None:
            return
        result["torch_rel_l2"] = self._phase(
            result, "check", lambda: self._check(bundle, fn, inputs))
        count = rotation_sets(bundle.io_bytes(), self.l2_bytes)
        sets = [inputs] + [[t.clone() for t in inputs] for _ in range(count - 1)]
        result["rotation_sets"] = count
        self._time(result, "eager", fn, sets)
        if self._compiles():
            torch.compiler.reset()  # fresh caches: no recompile limit across bundles
            # Inductor's own CUDA graphs are off: the graph is captured
            # here, as for eager, so both are timed the same way.
            compiled = torch.compile(fn, dynamic=False,
                                     mode=self.options.compile_mode)
            self._time(result, "compile", compiled, sets)

    def _compiles(self):
        """--compile / --no-compile, else compile on CUDA only (slow on CPU)."""
        if self.options.compile is None:
            return self.device.type == "cuda"
        return self.options.compile

    def _check(self, bundle, fn, inputs):
        """torch's worst output rel L2 vs reference.bin (None without one)."""
        import torch
        reference = bundle.reference()
        with torch.no_grad():
            outputs = fn(*inputs)
        if len(outputs) != len(bundle.outputs):
            raise ValueError(f"the program has {len(outputs)} outputs, "
                             f"the manifest {len(bundle.outputs)}")
        for out, buffer in zip(outputs, bundle.outputs):
            expected = (list(buffer["shape"]), TORCH_DTYPES[buffer["dtype"]])
            if (list(out.shape), str(out.dtype)) != expected:
                raise ValueError(f"output {buffer['name']} is {list(out.shape)} "
                                 f"{out.dtype}, the manifest says {expected}")
        if reference is None:
            return None
        worst = max(rel_l2(out.double().cpu().numpy(), ref)
                    for out, ref in zip(outputs, reference))
        if not math.isfinite(worst):
            raise ValueError(f"torch's outputs are not finite (rel L2 {worst})")
        return worst

    def _time(self, result, mode, fn, sets):
        """Fills <mode>_us fields; on CUDA the graph replay, eager also plain."""
        import torch
        loop = lambda: [fn(*args) for args in sets]  # noqa: E731
        with torch.no_grad():
            if mode == "compile":
                if self._phase(result, "compile", loop) is None:
                    return  # compilation failed: recorded, nothing to time
            if mode == "eager" or self.device.type != "cuda":
                timing = self._phase(result, f"{mode} timing",
                                     lambda: self.timer.per_run_us(loop, len(sets)))
                if timing is not None:
                    result[f"{mode}_us"], result[f"{mode}_min_us"] = timing
            if self.device.type == "cuda":
                self._time_graph(result, mode, fn, sets)

    def _time_graph(self, result, mode, fn, sets):
        captured = self._phase(result, f"{mode} graph capture",
                               lambda: capture_graph(fn, sets))
        if captured is None:
            return
        graph, _outputs = captured
        timing = self._phase(result, f"{mode} graph timing",
                             lambda: self.timer.per_run_us(graph.replay, len(sets)))
        if timing is not None:
            result[f"{mode}_graph_us"], result[f"{mode}_graph_min_us"] = timing


# ------------------------------------------------------------------- main ---


def device_info(device):
    """What the numbers were measured on."""
    import torch
    info = {"torch": torch.__version__, "numpy": np.__version__,
            "python": platform.python_version(), "type": device.type}
    if device.type == "cuda":
        props = torch.cuda.get_device_properties(device)
        info.update(name=props.name, sm_count=props.multi_processor_count,
                    l2_bytes=props.L2_cache_size, memory_bytes=props.total_memory,
                    capability=f"{props.major}.{props.minor}",
                    cuda=torch.version.cuda)
    else:
        info.update(name=platform.processor() or platform.machine(),
                    sm_count=None, l2_bytes=0)
    return info


def finite_or_none(value):
    """JSON has no NaN or infinity: those become null."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: finite_or_none(v) for k, v in value.items()}
    if isinstance(value, list):
        return [finite_or_none(v) for v in value]
    return value


def program_key(path):
    """What makes two bundles' baselines identical (the program, its inputs
    and outputs, the generator and the reference function), or None when the
    manifest is unreadable. The forms of one program (per operator, fused,
    mega-kernel) share it."""
    try:
        bundle = Bundle(path)
    except Exception:  # reported by BundleRunner.run
        return None
    if bundle.program is None:
        return None
    reference = (bundle.manifest.get("reference") or {}).get("function")
    return json.dumps([bundle.program, reference,
                       bundle.manifest["inputs_generator"],
                       [(b["dtype"], b["shape"]) for b in bundle.inputs],
                       [(b["dtype"], b["shape"]) for b in bundle.outputs]],
                      sort_keys=True)


def run_all(options, progress=None):
    """The baselines JSON document for options.bundles; `progress(document)`
    after each bundle, so that an interrupted run keeps what it measured.
    A bundle whose program another bundle already had gets that bundle's
    numbers (with `same_program_as`) instead of being compiled again."""
    import torch
    device = torch.device(options.device)
    info = device_info(device)
    copy_bytes = options.copy_bytes or (1 << 30 if device.type == "cuda" else 1 << 26)
    bandwidth = copy_bandwidth(device, copy_bytes)
    print(f"{info['name']}: copy bandwidth {bandwidth / 1e9:.1f} GB/s", flush=True)
    runner = BundleRunner(options, device, info["l2_bytes"], bandwidth)
    results = []
    document = {"device": info, "copy_bandwidth_bytes_per_s": bandwidth,
                "results": results}
    measured = {}
    for path in options.bundles:
        key = program_key(path)
        if key in measured:
            first = measured[key]
            result = dict(first, name=Bundle(path).name, bundle=str(path),
                          same_program_as=first["name"])
            print(f"baselines: {path}: the program of {first['name']}", flush=True)
        else:
            print(f"baselines: {path}", flush=True)
            result = runner.run(path)
            for error in result["errors"]:
                print(f"  error: {error}", flush=True)
            if key is not None:
                measured[key] = result
        results.append(result)
        if device.type == "cuda":
            torch.cuda.empty_cache()
        if progress:
            progress(document)
    return document


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("bundles", nargs="+", help="bundle directories")
    parser.add_argument("--json", required=True, help="where to write the results")
    parser.add_argument("--device", default="cuda", help="cuda (default) or cpu")
    parser.add_argument("--compile", action=argparse.BooleanOptionalAction,
                        help="time torch.compile (default: on CUDA, not on CPU)")
    parser.add_argument("--compile-mode", default="max-autotune-no-cudagraphs",
                        help="torch.compile mode (default max-autotune-no-cudagraphs: "
                             "max-autotune, timed in this script's CUDA graph)")
    parser.add_argument("--max-bytes", type=float, default=4e9,
                        help="skip bundles whose inputs and outputs exceed this "
                             "many bytes (default 4e9)")
    parser.add_argument("--warmups", type=int, default=3)
    parser.add_argument("--repetitions", type=int, default=20)
    parser.add_argument("--copy-bytes", type=int, default=0,
                        help="size of the bandwidth copy (default 1 GiB on CUDA)")
    return parser.parse_args(argv)


def main(argv=None):
    options = parse_args(argv)

    def write(document):
        text = json.dumps(finite_or_none(document), indent=2, allow_nan=False)
        pathlib.Path(options.json).write_text(text + "\n")

    write(run_all(options, progress=write))
    return 0


if __name__ == "__main__":
    sys.exit(main())
