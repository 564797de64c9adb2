// mirage-bundle writes a bundle per function: PTX, the launch manifest read
// off the host function, and the float64 reference outputs. Unfused
// (--fuse=false), @two_kernels keeps its two kernels and their intermediate;
// fused (the default), they are one kernel.
// RUN: rm -rf %t && mirage-bundle %s -o %t --ptxas=none --fuse=false 2>&1 | FileCheck %s --check-prefix=LOG
// RUN: %PYTHON %S/Inputs/print-manifest.py %t/two_kernels/manifest.json | FileCheck %s
// RUN: %PYTHON %S/Inputs/print-manifest.py %t/two_kernels_fused/manifest.json | FileCheck %s --check-prefix=FUSED
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t/two_kernels/kernels.ptx
// Two outputs of 32 float64 values each.
// RUN: wc -c < %t/two_kernels/reference.bin | FileCheck %s --check-prefix=SIZE
// RUN: not mirage-bundle %s -o %t --function nope 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: rm -rf %t.fused && mirage-bundle %s -o %t.fused --ptxas=none --function two_kernels
// RUN: %PYTHON %S/Inputs/print-manifest.py %t.fused/two_kernels/manifest.json | FileCheck %s --check-prefix=ONE
// Without dependent launch (or for a chip without griddepcontrol), no mark.
// RUN: rm -rf %t.nopdl && mirage-bundle %s -o %t.nopdl --ptxas=none --no-reference --function two_kernels --dependent-launch=false
// RUN: %PYTHON %S/Inputs/print-manifest.py %t.nopdl/two_kernels/manifest.json | FileCheck %s --check-prefix=NOPDL
// RUN: rm -rf %t.sm80 && mirage-bundle %s -o %t.sm80 --ptxas=none --no-reference --function two_kernels --chip=sm_80
// RUN: %PYTHON %S/Inputs/print-manifest.py %t.sm80/two_kernels/manifest.json | FileCheck %s --check-prefix=NOPDL

// LOG: [1/2] two_kernels
// LOG: reference: float64 interpreter on @two_kernels
// LOG: lowering: mirage-to-ptx (sm_90a)
// LOG: no ptxas: the bundle holds PTX only
// LOG: [2/2] two_kernels_fused
// LOG: reference: float64 interpreter on @two_kernels

// CHECK: binary {"ptx": "kernels.ptx"}
// CHECK: buffers [{"dtype": "f16", "id": 0, "name": "arg0", "role": "input", "shape": [4, 8]}
// CHECK-SAME: {"dtype": "f16", "id": 1, "name": "out0", "role": "output", "shape": [4, 8]}
// CHECK-SAME: {"dtype": "f16", "id": 2, "name": "out1", "role": "output", "shape": [32]}
// CHECK-SAME: {"dtype": "f16", "id": 3, "name": "tmp0", "role": "intermediate", "shape": [4, 8]}
// CHECK-SAME: {"base": 1, "dtype": "f16", "id": 4, "name": "view0", "role": "view", "shape": [32]}
// CHECK: chip "sm_90a"
// CHECK: format "mirage-bundle"
// CHECK: inputs [0]
// CHECK: inputs_generator {"high": 1, "kind": "uniform", "low": -1, "scales": [1], "seed": 1}
// Kernels start with griddepcontrol on sm_90a: "pdl" says they may run with
// programmatic dependent launch. "model" is the speed model's estimate of
// each and the features it came from (one block of 128 threads moving 64
// bytes in and out).
// CHECK: kernels [{"model": {"blocks": 1, "blocks_per_sm": 1, "bound": "latency", "compute_us": {{.*}}, "device": "h100", "estimate_us": {{[0-9.]+}}, {{.*}}"loads_in_flight_per_sm": 64, {{.*}}"threads": 128, "unique_bytes": 128, "waves": 1}, "name": "two_kernels_k0", "pdl": true}, {"model": {{.*}}, "name": "two_kernels_k1", "pdl": true}]
// CHECK: name "two_kernels"
// CHECK: outputs [1, 2]
// CHECK: program {"inputs": ["arg0"], "ops": [{"attrs": {}, "op": "exp", "operands": ["arg0"], "results": ["v0"]}, {"attrs": {"scalar": 2}, "op": "mul_scalar", "operands": ["v0"], "results": ["v1"]}, {"attrs": {}, "op": "reshape", "operands": ["v1"], "results": ["v2"]}], "outputs": ["v1", "v2"]
// CHECK: reference {"file": "reference.bin", "function": "two_kernels", "tolerance": {"rel_l2": 0.01}}
// CHECK: steps [{"args": [0, 3], "block": [128, 1, 1], "dynamic_shared_bytes": {{[0-9]+}}, "grid": [1, 1, 1], "kernel": "two_kernels_k0", "kind": "launch"}
// CHECK-SAME: {"args": [3, 1], {{.*}}, "kernel": "two_kernels_k1", "kind": "launch"}
// CHECK-SAME: {"bytes": 64, "dst": 2, "kind": "copy", "src": 4}
// CHECK: version 1

// The fused function's reference is its kn.reference; its program is the
// reference's ops.
// FUSED: name "two_kernels_fused"
// FUSED: program {"inputs": ["arg0"], "ops": [{"attrs": {}, "op": "exp"
// FUSED: reference {"file": "reference.bin", "function": "two_kernels"

// PTX: .visible .entry two_kernels_k0(
// PTX: griddepcontrol.wait;
// PTX-NEXT: griddepcontrol.launch_dependents;
// PTX: .visible .entry two_kernels_k1(
// PTX: griddepcontrol.wait;

// SIZE: 512

// MISSING: error: nope: no function named 'nope'

// NOPDL: kernels [{"model": {{.*}}, "name": "two_kernels_k0"}]

// ONE: buffers [{"dtype": "f16", "id": 0, "name": "arg0", "role": "input", "shape": [4, 8]}
// ONE-SAME: {"dtype": "f16", "id": 1, "name": "out0", "role": "output", "shape": [4, 8]}
// ONE-SAME: {"dtype": "f16", "id": 2, "name": "out1", "role": "output", "shape": [32]}
// ONE-NOT: intermediate
// ONE: kernels [{"model": {{.*}}, "name": "two_kernels_k0", "pdl": true}]

func.func @two_kernels(%x: tensor<4x8xf16>) -> (tensor<4x8xf16>, tensor<32xf16>) {
  %e = kn.exp %x : tensor<4x8xf16>
  %y = kn.mul_scalar %e, 2.0 : tensor<4x8xf16>
  %r = kn.reshape %y : tensor<4x8xf16> -> tensor<32xf16>
  return %y, %r : tensor<4x8xf16>, tensor<32xf16>
}

func.func @two_kernels_fused(%x: tensor<4x8xf16>) -> (tensor<4x8xf16>, tensor<32xf16>) attributes {kn.reference = @two_kernels} {
  %y = kn.kernel(%x) {
    tb.graph grid [1] threads 32 forloop 1 {
    ^bb0(%xd: tensor<4x8xf16>):
      %xt = tb.input_iterator %xd imap <x -> 0> fmap <i -> replica> : tensor<4x8xf16> -> !tb.tile<4x8xf16>
      %e = tb.exp %xt : !tb.tile<4x8xf16>
      %s = tb.mul_scalar %e, 2.0 : !tb.tile<4x8xf16>
      %o = tb.output_saver %s omap <x -> 0> : !tb.tile<4x8xf16> -> tensor<4x8xf16>
      tb.yield %o : tensor<4x8xf16>
    }
  } : (tensor<4x8xf16>) -> tensor<4x8xf16>
  %r = kn.reshape %y : tensor<4x8xf16> -> tensor<32xf16>
  return %y, %r : tensor<4x8xf16>, tensor<32xf16>
}
