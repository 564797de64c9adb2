"""Does an idle GPU before a short timing window inflate the parts runner's
time? mlp_f16 timed as run_torch_parts.py does (200 graph replays after 8),
after the GPU idled 0, 2 and 10 s, then after 0.5 s of busy warm-up."""
import importlib.util, pathlib, time, json
import torch

here = pathlib.Path(__file__).resolve().parent
spec = importlib.util.spec_from_file_location("rt", here / "runtime/python/mirage_mlir_runtime.py")
rt = importlib.util.module_from_spec(spec); spec.loader.exec_module(rt)
spec2 = importlib.util.spec_from_file_location("parts", here / "runtime/python/run_torch_parts.py")
parts = importlib.util.module_from_spec(spec2); spec2.loader.exec_module(parts)

d = here / "torch-parts/mlp_f16/fused_0"
b = rt.Bundle(d / "bundle")
inputs = [t.cuda() for t in torch.load(d / "inputs.pt")]
out = {}
with torch.no_grad():
    for idle in (0, 2, 10, 10, 30):
        torch.cuda.synchronize(); time.sleep(idle)
        out[f"idle{idle}_{len(out)}"] = parts.graph_us(lambda: b(*inputs), 200)
    torch.cuda.synchronize(); time.sleep(10)
    x = torch.randn(4096, 4096, device="cuda")
    t0 = time.time()
    while time.time() - t0 < 0.5:
        x = x @ x; x = x / x.norm()
    out["after_busy"] = parts.graph_us(lambda: b(*inputs), 200)
print(json.dumps(out, indent=1))
