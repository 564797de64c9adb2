// With ptxas, the kernels kn-fuse builds assemble into cubins: every fusion
// pattern of test/Conversion/fuse.mlir, the LLM chains, both decoders (f16
// and bf16), and the chains for sm_80, whose smaller shared memory
// (163 KiB) the plans respect.
// REQUIRES: ptxas
// (Not the all_reduce case: collectives are not lowered yet.)
// RUN: sed '/func.func @all_reduce/,/^}/d' %S/../Conversion/fuse.mlir | mirage-opt --mirage-to-ptx="format=bin" | FileCheck %s --check-prefix=PATTERNS
// RUN: mirage-opt %examples/chains.mlir --mirage-to-ptx="format=bin" | FileCheck %s --check-prefix=CHAINS
// RUN: mirage-opt %examples/chains.mlir --mirage-to-ptx="format=bin chip=sm_80" | FileCheck %s --check-prefix=CHAINS
// RUN: mirage-opt %examples/qwen3_decode.mlir --mirage-to-ptx="format=bin" | FileCheck %s --check-prefix=QWEN3
// RUN: sed 's/xf16/xbf16/g' %examples/qwen3_decode.mlir | mirage-opt --mirage-to-ptx="format=bin chip=sm_80" | FileCheck %s --check-prefix=QWEN3-SM80
// RUN: mirage-opt %examples/decoder_small.mlir --mirage-to-ptx="format=bin" | FileCheck %s --check-prefix=SMALL

// PATTERNS-LABEL: gpu.binary @elementwise_chain_kernels
// PATTERNS-SAME: bin = "\7FELF
// PATTERNS-LABEL: gpu.binary @matmul_residual_kernels
// PATTERNS-SAME: bin = "\7FELF
// PATTERNS-LABEL: gpu.binary @gate_up_down_kernels
// PATTERNS-SAME: bin = "\7FELF
// PATTERNS-LABEL: gpu.binary @softmax_matmul_kernels
// PATTERNS-SAME: bin = "\7FELF

// CHAINS-LABEL: gpu.binary @layer_norm_kernels
// CHAINS-SAME: bin = "\7FELF
// CHAINS-LABEL: gpu.binary @moe_router_kernels
// CHAINS-SAME: bin = "\7FELF

// QWEN3-COUNT-8: gpu.launch_func
// QWEN3: gpu.binary @qwen3_decode_kernels
// QWEN3-SAME: bin = "\7FELF

// QWEN3-SM80: gpu.binary @qwen3_decode_kernels
// QWEN3-SM80-SAME: "sm_80"
// QWEN3-SM80-SAME: bin = "\7FELF

// SMALL-COUNT-8: gpu.launch_func
// SMALL: gpu.binary @decoder_small_kernels
// SMALL-SAME: bin = "\7FELF
