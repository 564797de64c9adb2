// The Qwen3-shaped decode steps (examples/decoder/): the committed programs
// are exactly the generator's current output, parse, verify and round-trip;
// the small one agrees with a second copy of itself under the interpreter
// (float64 on seeded inputs) and lowers to PTX.

// RUN: %PYTHON %examples/decoder/gen_decoder.py --preset qwen3-8b -o %t.qwen3.mlir
// RUN: diff %t.qwen3.mlir %examples/qwen3_decode.mlir
// RUN: %PYTHON %examples/decoder/gen_decoder.py --preset small -o %t.small.mlir
// RUN: diff %t.small.mlir %examples/decoder_small.mlir

// RUN: mirage-opt %examples/qwen3_decode.mlir | mirage-opt | FileCheck %s --check-prefix=QWEN3
// RUN: mirage-opt %examples/decoder_small.mlir | mirage-opt | FileCheck %s --check-prefix=SMALL

// RUN: %PYTHON %examples/decoder/gen_decoder.py --preset small --name decoder_small_again --reference decoder_small -o %t.again.mlir
// RUN: cat %examples/decoder_small.mlir %t.again.mlir | mirage-opt --mirage-verify-equivalence -o /dev/null 2>&1 | FileCheck %s --check-prefix=SELF

// RUN: mirage-opt %examples/decoder_small.mlir --mirage-to-ptx | FileCheck %s --check-prefix=PTX

// With w_qkv's columns grouped per KV head (--qkv-layout grouped), the
// q/k norm and RoPE kernel after the QKV projection is cut along the 8 KV
// heads; in the usual q | k | v layout it runs on one block.
// RUN: %PYTHON %examples/decoder/gen_decoder.py --preset qwen3-8b --qkv-layout grouped -o %t.grouped.mlir
// RUN: mirage-opt %t.grouped.mlir --kn-fuse | FileCheck %s --check-prefix=GROUPED
// RUN: mirage-opt %examples/qwen3_decode.mlir --kn-fuse | FileCheck %s --check-prefix=BLOCKED
// GROUPED: tb.graph grid [96] threads 128 forloop 8
// GROUPED-NEXT: ^bb0(
// GROUPED: tb.graph grid [8] threads {{[0-9]+}} forloop 1
// GROUPED-NEXT: ^bb0(%{{.*}}: tensor<8x6x128xf16>
// BLOCKED: tb.graph grid [96] threads 128 forloop 8
// BLOCKED: tb.graph grid [1] threads {{[0-9]+}} forloop 1
// BLOCKED-NEXT: ^bb0(%{{.*}}: tensor<1x6144xf16>

// With the projection weights stored [out, in] (--weight-layout out-in),
// each transpose is read in place by its matmul's kernel: the same 9 kernels,
// no transpose of its own.
// RUN: %PYTHON %examples/decoder/gen_decoder.py --preset qwen3-8b --weight-layout out-in -o %t.outin.mlir
// RUN: mirage-opt %t.outin.mlir --kn-fuse | FileCheck %s --check-prefix=OUTIN
// OUTIN-COUNT-9: tb.graph grid
// OUTIN-NOT: tb.graph grid
// OUTIN-NOT: kn.transpose

// QWEN3-LABEL: func.func @qwen3_decode(
// QWEN3-SAME: tensor<1x4096xf16>, %{{.*}}: tensor<1x128xf16>, %{{.*}}: tensor<1x128xf16>, %{{.*}}: tensor<4096xf16>, %{{.*}}: tensor<4096x6144xf16>
// QWEN3-SAME: tensor<8x1023x128xf16>, %{{.*}}: tensor<8x1023x128xf16>, %{{.*}}: tensor<4096x4096xf16>, %{{.*}}: tensor<4096xf16>, %{{.*}}: tensor<4096x24576xf16>, %{{.*}}: tensor<12288x4096xf16>)
// QWEN3-SAME: -> (tensor<1x4096xf16>, tensor<8x1x128xf16>, tensor<8x1x128xf16>)
// QWEN3: kn.rms_norm {{.*}} {eps = 9.9999999999999995E-7 : f64} : tensor<1x4096xf16>, tensor<4096xf16>
// QWEN3: kn.matmul {{.*}} : tensor<1x4096xf16>, tensor<4096x6144xf16>
// QWEN3: kn.split {{.*}} dim 1 sizes [4096, 1024, 1024] : tensor<1x6144xf16>
// QWEN3: kn.rms_norm {{.*}} : tensor<32x128xf16>, tensor<128xf16>
// QWEN3: kn.rms_norm {{.*}} : tensor<8x128xf16>, tensor<128xf16>
// QWEN3: kn.concat {{.*}} dim 1 : tensor<8x1023x128xf16>, tensor<8x1x128xf16>
// QWEN3: kn.reshape {{.*}} : tensor<32x128xf16> -> tensor<8x4x128xf16>
// QWEN3: kn.matmul {{.*}} : tensor<8x4x128xf16>, tensor<8x128x1024xf16>
// QWEN3: kn.mul_scalar {{.*}}, 0.088388347648318{{[0-9]*}}
// QWEN3: kn.reduce_max {{.*}} dim 2 : tensor<8x4x1024xf16>
// QWEN3: kn.exp
// QWEN3: kn.reduce_sum {{.*}} dim 2 : tensor<8x4x1024xf16>
// QWEN3: kn.matmul {{.*}} : tensor<8x4x1024xf16>, tensor<8x1024x128xf16>
// QWEN3: kn.matmul {{.*}} : tensor<1x4096xf16>, tensor<4096x4096xf16>
// QWEN3: kn.matmul {{.*}} : tensor<1x4096xf16>, tensor<4096x24576xf16>
// QWEN3: kn.split {{.*}} dim 1 sizes [12288, 12288] : tensor<1x24576xf16>
// QWEN3: kn.silu
// QWEN3: kn.matmul {{.*}} : tensor<1x12288xf16>, tensor<12288x4096xf16>
// QWEN3: return

// Two layers, each with its own weights and caches.
// SMALL-LABEL: func.func @decoder_small(
// SMALL-SAME: -> (tensor<1x256xf16>, tensor<2x1x64xf16>, tensor<2x1x64xf16>, tensor<2x1x64xf16>, tensor<2x1x64xf16>)
// SMALL-COUNT-2: kn.matmul {{.*}} : tensor<2x2x64xf16>, tensor<2x64x64xf16>
// SMALL: kn.matmul {{.*}} : tensor<1x768xf16>, tensor<768x256xf16>
// SMALL-COUNT-2: kn.matmul {{.*}} : tensor<2x2x64xf16>, tensor<2x64x64xf16>
// SMALL: kn.matmul {{.*}} : tensor<1x768xf16>, tensor<768x256xf16>
// SMALL-NOT: kn.matmul
// SMALL: return

// SELF: remark: {{tested, not proven: agrees with|proven: equivalent to}} @decoder_small
// SELF-NOT: error

// PTX: func.func @decoder_small(
// PTX: gpu.launch_func @decoder_small_kernels::@decoder_small_k0
// PTX: gpu.binary @decoder_small_kernels
