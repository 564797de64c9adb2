// kn-fuse reads a decode step's KV-cache append in place: a concatenation
// along an outer dim that no reshape or return reads becomes a view
// (kn.view) and joins no kernel. Its readers cut the positions like any
// input dim (here the whole attention is one kernel, split over the
// positions), and each tile's rows come from the cache or the new entry:
// the copy of every 16-byte chunk branches on its position (255 cached).
// RUN: mirage-opt %s --kn-fuse | FileCheck %s
// RUN: mirage-opt %s --kn-fuse --kn-default-block-graphs --mirage-verify-equivalence -o /dev/null 2>&1 | FileCheck %s --check-prefix=VERIFY
// RUN: mirage-opt %s --kn-fuse --kn-default-block-graphs --convert-kn-to-gpu --canonicalize --cse | FileCheck %s --check-prefix=GPU
// RUN: mirage-opt %s --kn-fuse="persistent=1" | FileCheck %s --check-prefix=PERSISTENT
// RUN: mirage-opt %s --mirage-to-ptx -o /dev/null
// RUN: mirage-opt %s --kn-fuse --kn-default-block-graphs --mirage-to-task-graph 2>/dev/null | FileCheck %s --check-prefix=TASKS
// RUN: mirage-opt %s --mirage-to-task-graph="workers=8" --convert-tg-to-gpu 2>/dev/null | FileCheck %s --check-prefix=MEGA
// RUN: mirage-opt %s --mirage-to-megakernel="workers=8" -o /dev/null
// RUN: mirage-opt %s --mirage-to-task-graph="workers=8" 2>/dev/null | mirage-opt --mirage-verify-equivalence -o /dev/null 2>&1 | FileCheck %s --check-prefix=TASKPROOF

// CHECK-LABEL: func.func @decode_attention
// CHECK: %[[K:.*]] = kn.concat %arg1, %arg2 dim 1 {kn.view}
// CHECK: %[[V:.*]] = kn.concat %arg3, %arg4 dim 1 {kn.view}
// CHECK: kn.kernel(%[[K]], %arg0, %[[V]])
// CHECK-NOT: tb.concat
// CHECK: tb.input_iterator %{{.*}} imap <{{.*}}> fmap <i -> 1> : tensor<2x256x64xf16>
// CHECK-NOT: kn.kernel
// CHECK: return
// VERIFY: remark: proven: equivalent to @decode_attention

// The cached part stands in the input's place, the new entries follow the
// output; chunks at position 255 and beyond come from the new entries.
// GPU: gpu.launch_func @decode_attention_kernels::@decode_attention_k0 {{.*}} args(%arg1 : memref<2x255x64xf16>, %arg0 : memref<2x4x64xf16>, %arg3 : memref<2x255x64xf16>, %arg5 : memref<2x4x64xf16>, %arg2 : memref<2x1x64xf16>, %arg4 : memref<2x1x64xf16>)
// GPU-LABEL: gpu.func @decode_attention_k0(
// GPU-SAME: %[[KC:[a-z0-9]+]]: memref<2x255x64xf16>, %{{.*}}: memref<2x4x64xf16>, %[[VC:[a-z0-9]+]]: memref<2x255x64xf16>, %{{.*}}: memref<2x4x64xf16>, %[[KN:[a-z0-9]+]]: memref<2x1x64xf16>, %[[VN:[a-z0-9]+]]: memref<2x1x64xf16>)
// GPU: %[[IN:.*]] = arith.cmpi ult, %[[POS:.*]], %c255 : index
// GPU-NEXT: scf.if %[[IN]] {
// GPU-NEXT: nvgpu.device_async_copy %[[KC]][%{{.*}}, %[[POS]], %{{.*}}]
// GPU: } else {
// GPU-NEXT: %[[LOCAL:.*]] = arith.subi %[[POS]], %c255 : index
// GPU-NEXT: nvgpu.device_async_copy %[[KN]][%{{.*}}, %[[LOCAL]], %{{.*}}]
// GPU: nvgpu.device_async_copy %[[VC]]
// GPU: nvgpu.device_async_copy %[[VN]]
// GPU: gpu.return

// A persistent kernel (a mega-kernel's tasks) reads views too; its task
// graph joins the parts' buffers without storage (tg.concat).
// PERSISTENT-LABEL: func.func @decode_attention
// PERSISTENT: kn.concat %arg1, %arg2 dim 1 {kn.view}
// PERSISTENT-NOT: tb.concat
// PERSISTENT: return
// TASKS-LABEL: tg.graph @decode_attention_tasks
// TASKS: %[[KC:.*]] = tg.buffer input 1 : memref<2x255x64xf16>
// TASKS: %[[KN:.*]] = tg.buffer input 2 : memref<2x1x64xf16>
// TASKS: %[[K:.*]] = tg.concat %[[KC]], %[[KN]] dim 1 : memref<2x255x64xf16>, memref<2x1x64xf16> to memref<2x256x64xf16>
// TASKS: tg.kernel @k0_transpose ins(%[[K]],
// A mega-kernel's task body takes the parts as the kernel does: the cached
// parts in the inputs' places, the new entries after the output.
// MEGA-LABEL: func.func private @decode_attention_tasks_body0(
// MEGA-SAME: %{{.*}}: memref<2x255x64xf16>, %{{.*}}: memref<2x4x64xf16>, %{{.*}}: memref<2x255x64xf16>, %{{.*}}: memref<2x4x64xf16>, %{{.*}}: memref<2x1x64xf16>, %{{.*}}: memref<2x1x64xf16>)
// MEGA: arith.cmpi ult, %{{.*}}, %c255 : index
func.func @decode_attention(%q: tensor<2x4x64xf16>, %kc: tensor<2x255x64xf16>, %kn: tensor<2x1x64xf16>, %vc: tensor<2x255x64xf16>, %vn: tensor<2x1x64xf16>) -> tensor<2x4x64xf16> {
  %k = kn.concat %kc, %kn dim 1 : tensor<2x255x64xf16>, tensor<2x1x64xf16>
  %v = kn.concat %vc, %vn dim 1 : tensor<2x255x64xf16>, tensor<2x1x64xf16>
  %kt = kn.transpose %k permutation [0, 2, 1] : tensor<2x256x64xf16>
  %s = kn.matmul %q, %kt : tensor<2x4x64xf16>, tensor<2x64x256xf16>
  %e = kn.exp %s : tensor<2x4x256xf16>
  %l = kn.reduce_sum %e dim 2 : tensor<2x4x256xf16>
  %p = kn.div %e, %l : tensor<2x4x256xf16>, tensor<2x4x1xf16>
  %o = kn.matmul %p, %v : tensor<2x4x256xf16>, tensor<2x256x64xf16>
  return %o : tensor<2x4x64xf16>
}
func.func @decode_attention_reference(%q: tensor<2x4x64xf16>, %kc: tensor<2x255x64xf16>, %kn: tensor<2x1x64xf16>, %vc: tensor<2x255x64xf16>, %vn: tensor<2x1x64xf16>) -> tensor<2x4x64xf16> attributes {kn.reference = @decode_attention} {
  %k = kn.concat %kc, %kn dim 1 : tensor<2x255x64xf16>, tensor<2x1x64xf16>
  %v = kn.concat %vc, %vn dim 1 : tensor<2x255x64xf16>, tensor<2x1x64xf16>
  %kt = kn.transpose %k permutation [0, 2, 1] : tensor<2x256x64xf16>
  %s = kn.matmul %q, %kt : tensor<2x4x64xf16>, tensor<2x64x256xf16>
  %e = kn.exp %s : tensor<2x4x256xf16>
  %l = kn.reduce_sum %e dim 2 : tensor<2x4x256xf16>
  %p = kn.div %e, %l : tensor<2x4x256xf16>, tensor<2x4x1xf16>
  %o = kn.matmul %p, %v : tensor<2x4x256xf16>, tensor<2x256x64xf16>
  return %o : tensor<2x4x64xf16>
}

// Returned, the updated cache is written: the concatenation keeps its
// kernel. Along the innermost dim a 16-byte chunk could straddle the
// operands: no view either.
// CHECK-LABEL: func.func @returned_cache
// CHECK-NOT: kn.view
// CHECK: tb.concat
// CHECK-LABEL: func.func @innermost
// CHECK-NOT: kn.view
// CHECK: tb.concat
func.func @returned_cache(%kc: tensor<2x255x64xf16>, %kn: tensor<2x1x64xf16>) -> (tensor<2x256x64xf16>, tensor<2x256x64xf16>) {
  %k = kn.concat %kc, %kn dim 1 : tensor<2x255x64xf16>, tensor<2x1x64xf16>
  %e = kn.exp %k : tensor<2x256x64xf16>
  return %k, %e : tensor<2x256x64xf16>, tensor<2x256x64xf16>
}
func.func @innermost(%a: tensor<64x56xf16>, %b: tensor<64x8xf16>) -> tensor<64x64xf16> {
  %c = kn.concat %a, %b dim 1 : tensor<64x56xf16>, tensor<64x8xf16>
  %e = kn.exp %c : tensor<64x64xf16>
  return %e : tensor<64x64xf16>
}

// With 4095 cached positions the sums over the positions may be split into
// slices computed side by side (flash decoding); a view is never sliced (its
// positions do not fall into slices along the cache and the new entry), so
// the split is tried on the copies only, whichever estimate wins.
// CHECK-LABEL: func.func @long_cache
// CHECK-NOT: kn.reshape %{{[0-9]+}} : tensor<2x4096x64xf16>
// CHECK: return
func.func @long_cache(%q: tensor<2x4x64xf16>, %kc: tensor<2x4095x64xf16>, %kn: tensor<2x1x64xf16>, %vc: tensor<2x4095x64xf16>, %vn: tensor<2x1x64xf16>) -> tensor<2x4x64xf16> {
  %k = kn.concat %kc, %kn dim 1 : tensor<2x4095x64xf16>, tensor<2x1x64xf16>
  %v = kn.concat %vc, %vn dim 1 : tensor<2x4095x64xf16>, tensor<2x1x64xf16>
  %kt = kn.transpose %k permutation [0, 2, 1] : tensor<2x4096x64xf16>
  %s = kn.matmul %q, %kt : tensor<2x4x64xf16>, tensor<2x64x4096xf16>
  %e = kn.exp %s : tensor<2x4x4096xf16>
  %l = kn.reduce_sum %e dim 2 : tensor<2x4x4096xf16>
  %p = kn.div %e, %l : tensor<2x4x4096xf16>, tensor<2x4x1xf16>
  %o = kn.matmul %p, %v : tensor<2x4x4096xf16>, tensor<2x4096x64xf16>
  return %o : tensor<2x4x64xf16>
}

// Two views whose new entries differ in shape: the body takes the cached
// parts in the inputs' places, then the output, then the new entries input
// by input (K's one position, then V's two). As tasks it is proven
// equivalent in the workers' orders.
// MEGA-LABEL: func.func private @mixed_parts_tasks_body0(
// MEGA-SAME: %{{.*}}: memref<2x255x64xf16>, %{{.*}}: memref<2x4x64xf16>, %{{.*}}: memref<2x254x64xf16>, %{{.*}}: memref<2x4x64xf16>, %{{.*}}: memref<2x1x64xf16>, %{{.*}}: memref<2x2x64xf16>)
// TASKPROOF-DAG: remark: proven: equivalent to @decode_attention
// TASKPROOF-DAG: remark: proven: equivalent to @mixed_parts
func.func @mixed_parts(%q: tensor<2x4x64xf16>, %kc: tensor<2x255x64xf16>, %kn: tensor<2x1x64xf16>, %vc: tensor<2x254x64xf16>, %vn: tensor<2x2x64xf16>) -> tensor<2x4x64xf16> {
  %k = kn.concat %kc, %kn dim 1 : tensor<2x255x64xf16>, tensor<2x1x64xf16>
  %v = kn.concat %vc, %vn dim 1 : tensor<2x254x64xf16>, tensor<2x2x64xf16>
  %kt = kn.transpose %k permutation [0, 2, 1] : tensor<2x256x64xf16>
  %s = kn.matmul %q, %kt : tensor<2x4x64xf16>, tensor<2x64x256xf16>
  %e = kn.exp %s : tensor<2x4x256xf16>
  %l = kn.reduce_sum %e dim 2 : tensor<2x4x256xf16>
  %p = kn.div %e, %l : tensor<2x4x256xf16>, tensor<2x4x1xf16>
  %o = kn.matmul %p, %v : tensor<2x4x256xf16>, tensor<2x256x64xf16>
  return %o : tensor<2x4x64xf16>
}
