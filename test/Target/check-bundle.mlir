// What mirage-bundle writes, read back by the runtime's own manifest parser
// (mirage-check-bundle, no GPU needed): per-operator kernels and
// mega-kernels, with just-in-time tasks under static queues and dynamic
// dispatch. A manifest whose tables break the contract is refused, naming
// the field.
// RUN: rm -rf %t
// RUN: mirage-bundle %examples/jit_mlp.mlir -o %t --no-reference --ptxas=none
// RUN: mirage-bundle %examples/jit_mlp.mlir -o %t --megakernel --no-reference --ptxas=none
// RUN: mirage-bundle %examples/jit_mlp.mlir -o %t --megakernel --dynamic-dispatch --suffix=_dynamic --no-reference --ptxas=none
// RUN: mirage-bundle %examples/decoder_small.mlir -o %t --megakernel --no-reference --ptxas=none
// RUN: mirage-check-bundle %t/jit_mlp %t/jit_mlp_megakernel %t/jit_mlp_megakernel_dynamic %t/decoder_small_megakernel | FileCheck %s
// RUN: mkdir -p %t/broken && cp %t/jit_mlp_megakernel/kernels.ptx %t/broken/
// RUN: %PYTHON -c "import json, sys; m = json.load(open(sys.argv[1])); m['steps'][0]['tables']['queue_starts'][0] = 1; json.dump(m, open(sys.argv[2], 'w'))" %t/jit_mlp_megakernel/manifest.json %t/broken/manifest.json
// RUN: not mirage-check-bundle %t/broken | FileCheck %s --check-prefix=BROKEN
// RUN: not mirage-check-bundle 2>&1 | FileCheck %s --check-prefix=USAGE

// CHECK: jit_mlp: ok: version 1, 2 kernels, 2 steps (0 mega-kernels)
// CHECK: jit_mlp_megakernel: ok: version 6, 1 kernels, 1 steps (1 mega-kernels)
// CHECK: jit_mlp_megakernel_dynamic: ok: version 6, 1 kernels, 1 steps (1 mega-kernels)
// CHECK: decoder_small_megakernel: ok: version 6, 1 kernels, 1 steps (1 mega-kernels)
// BROKEN: broken: error: {{.*}}manifest.json: steps[0].tables.queue_starts[0]: is 1, expected 0
// USAGE: usage: mirage-check-bundle BUNDLE_DIR...
