// kn-report-traffic: kernels, the bytes they move through device memory,
// the program's minimal bytes and the ratio, before and after kn-fuse.
// RUN: mirage-opt %s --kn-report-traffic -mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=UNFUSED
// RUN: mirage-opt %s --kn-fuse --kn-default-block-graphs --kn-report-traffic=per-kernel -mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=FUSED
// RUN: mirage-opt %s --kn-report-traffic | FileCheck %s --check-prefix=IR
// RUN: mirage-opt %s --kn-fuse --kn-default-block-graphs --kn-report-traffic="per-kernel device=h200" -mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=ESTIMATE
// RUN: not mirage-opt %s --kn-report-traffic=device=a100 -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD-DEVICE

// Per kernel, the speed model's estimate with its terms (the one kn-fuse
// ranked the plans with): 8 blocks of one 4096-wide row each, one per SM,
// are bound by a block's critical path, not by the 256 KiB they move. Each
// requests its three 8 KiB rows at once: 24 KiB in flight on its SM.
// ESTIMATE: remark: kernel #0: {{.*}}; its 8 blocks load and store 262144 bytes; estimated {{[0-9]+\.[0-9]}} us on h200, latency-bound (memory 0.1, compute {{[0-9.]+}}, latency {{[0-9.]+}} us: 1 wave of 1 block per SM, {{[0-9.]+}} us each; 24.0 KiB of loads in flight per SM)
// BAD-DEVICE: kn-report-traffic: unknown value 'a100' for option 'device'; valid values: h100, h200

// nTrans's update, five ops over 8x4096 f16 (64 KiB each): unfused, every
// intermediate is written and read back (4 x 64 KiB each way) and the
// program moves 3.25 times its inputs and output; fused, once each.
// UNFUSED: remark: traffic: 5 kernels (0 graph-defined, 5 predefined); kernels move 851968 bytes (524288 read, 327680 written), 262144 minimal (196608 in, 65536 out): ratio 3.25; 524288 bytes between kernels (262144 written, 262144 read back); blocks load and store 851968 bytes
// FUSED: remark: kernel #0: reads 196608 bytes (0 written by other kernels), writes 65536 bytes (0 read by other kernels); its 8 blocks load and store 262144 bytes
// FUSED: remark: traffic: 1 kernel (1 graph-defined, 0 predefined); kernels move 262144 bytes (196608 read, 65536 written), 262144 minimal (196608 in, 65536 out): ratio 1.00; 0 bytes between kernels (0 written, 0 read back); blocks load and store 262144 bytes
func.func @ntrans(%h: tensor<8x4096xf16>, %x: tensor<8x4096xf16>, %alpha: tensor<8x4096xf16>) -> tensor<8x4096xf16> {
  %hn = kn.rms_norm %h {eps = 1.0e-6 : f64} : tensor<8x4096xf16>
  %d = kn.sub %hn, %x : tensor<8x4096xf16>, tensor<8x4096xf16>
  %step = kn.mul %alpha, %d : tensor<8x4096xf16>, tensor<8x4096xf16>
  %y = kn.add %x, %step : tensor<8x4096xf16>, tensor<8x4096xf16>
  %out = kn.rms_norm %y {eps = 1.0e-6 : f64} : tensor<8x4096xf16>
  return %out : tensor<8x4096xf16>
}

// A view counts as the tensor it views: exp reads %x (2 KiB) through the
// reshape, and the returned view is the matmul's result. Fused, the blocks
// of the kernel each load the 4x256 operand they share: more bytes through
// L2 than the tensors hold.
// UNFUSED: remark: traffic: 2 kernels (0 graph-defined, 2 predefined); kernels move 39424 bytes (36864 read, 2560 written), 35328 minimal (34816 in, 512 out): ratio 1.12; 4096 bytes between kernels (2048 written, 2048 read back); blocks load and store 39424 bytes
// FUSED: remark: kernel #0: reads 34816 bytes (0 written by other kernels), writes 512 bytes (0 read by other kernels); its {{[0-9]+}} blocks load and store {{[0-9]+}} bytes
// FUSED: remark: traffic: 1 kernel (1 graph-defined, 0 predefined); kernels move 35328 bytes (34816 read, 512 written), 35328 minimal (34816 in, 512 out): ratio 1.00; 0 bytes between kernels
func.func @view(%x: tensor<16x64xf16>, %w: tensor<256x64xf16>) -> tensor<4x16x4xf16> {
  %v = kn.reshape %x : tensor<16x64xf16> -> tensor<4x256xf16>
  %e = kn.exp %v : tensor<4x256xf16>
  %m = kn.matmul %e, %w : tensor<4x256xf16>, tensor<256x64xf16>
  %o = kn.reshape %m : tensor<4x64xf16> -> tensor<4x16x4xf16>
  return %o : tensor<4x16x4xf16>
}

// The IR is unchanged.
// IR-LABEL: func.func @ntrans
// IR: kn.rms_norm
// IR-LABEL: func.func @view
// IR: kn.matmul
