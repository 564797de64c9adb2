"""Times one part's bundle from PyTorch several ways, to find where the
parts runner's time goes (mlp_f16: 10.1 us there, 3.65 us in mirage-run)."""
import importlib.util, json, pathlib, sys, time
import torch

here = pathlib.Path(__file__).resolve().parent
spec = importlib.util.spec_from_file_location("rt", here / "runtime/python/mirage_mlir_runtime.py")
rt = importlib.util.module_from_spec(spec); spec.loader.exec_module(rt)

def graph_of(fn, calls):
    side = torch.cuda.Stream(); side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3): fn()
    torch.cuda.current_stream().wait_stream(side)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for _ in range(calls): fn()
    return g

def time_graph(g, runs):
    for _ in range(5): g.replay()
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    s.record()
    for _ in range(runs): g.replay()
    e.record(); e.synchronize()
    return s.elapsed_time(e) * 1000 / runs

results = {}
for part in sys.argv[1:]:
    d = here / "torch-parts" / part / "fused_0"
    b = rt.Bundle(d / "bundle")
    inputs = [t.cuda() for t in torch.load(d / "inputs.pt")]
    eager = torch.load(d / "part.pt", weights_only=False).cuda()
    r = {}
    with torch.no_grad():
        r["graph1_us"] = time_graph(graph_of(lambda: b(*inputs), 1), 200)
        r["graph20_per_call_us"] = time_graph(graph_of(lambda: b(*inputs), 20), 50) / 20
        # Fixed outputs: the runtime re-binds when output addresses change.
        outs = b(*inputs)
        torch.cuda.synchronize()
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        for _ in range(200): b(*inputs)
        e.record(); e.synchronize()
        r["stream_loop_us"] = s.elapsed_time(e) * 1000 / 200
        r["eager_graph1_us"] = time_graph(graph_of(lambda: eager(*inputs), 1), 200)
        r["eager_graph20_per_call_us"] = time_graph(graph_of(lambda: eager(*inputs), 20), 50) / 20
    results[part] = r
    print(part, json.dumps(r), flush=True)
json.dump(results, open(here / "probe.json", "w"), indent=1)
