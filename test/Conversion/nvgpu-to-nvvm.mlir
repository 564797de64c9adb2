// mirage-convert-nvgpu-to-nvvm lowers nvgpu.mma.sync on bf16 multiplicands,
// which upstream convert-nvgpu-to-nvvm rejects: every fragment row of two
// bf16 elements becomes one i32 register, the f32 accumulators four scalars,
// and nvvm.mma.sync names the bf16 PTX types. f16 stays with the upstream
// pattern.
// RUN: mirage-opt %s --split-input-file --pass-pipeline='builtin.module(gpu.module(mirage-convert-nvgpu-to-nvvm))' | FileCheck %s

// Registers in fragment-row order: A rows 0-3, B rows 0-1, C (and D) row 0
// then row 1.
// CHECK-LABEL: gpu.func @bf16_m16n8k16
// CHECK-DAG: %[[C:.*]] = builtin.unrealized_conversion_cast %arg2 : vector<2x2xf32> to !llvm.array<2 x vector<2xf32>>
// CHECK-DAG: %[[B:.*]] = builtin.unrealized_conversion_cast %arg1 : vector<2x2xbf16> to !llvm.array<2 x vector<2xbf16>>
// CHECK-DAG: %[[A:.*]] = builtin.unrealized_conversion_cast %arg0 : vector<4x2xbf16> to !llvm.array<4 x vector<2xbf16>>
// CHECK: %[[A0P:.*]] = llvm.extractvalue %[[A]][0]
// CHECK: %[[A0:.*]] = llvm.bitcast %[[A0P]] : vector<2xbf16> to i32
// CHECK: %[[A1P:.*]] = llvm.extractvalue %[[A]][1]
// CHECK: %[[A1:.*]] = llvm.bitcast %[[A1P]] : vector<2xbf16> to i32
// CHECK: %[[A2P:.*]] = llvm.extractvalue %[[A]][2]
// CHECK: %[[A2:.*]] = llvm.bitcast %[[A2P]] : vector<2xbf16> to i32
// CHECK: %[[A3P:.*]] = llvm.extractvalue %[[A]][3]
// CHECK: %[[A3:.*]] = llvm.bitcast %[[A3P]] : vector<2xbf16> to i32
// CHECK: %[[B0P:.*]] = llvm.extractvalue %[[B]][0]
// CHECK: %[[B0:.*]] = llvm.bitcast %[[B0P]] : vector<2xbf16> to i32
// CHECK: %[[B1P:.*]] = llvm.extractvalue %[[B]][1]
// CHECK: %[[B1:.*]] = llvm.bitcast %[[B1P]] : vector<2xbf16> to i32
// CHECK: %[[C0:.*]] = llvm.extractvalue %[[C]][0]
// CHECK: %[[C00:.*]] = llvm.extractelement %[[C0]]
// CHECK: %[[C01:.*]] = llvm.extractelement %[[C0]]
// CHECK: %[[C1:.*]] = llvm.extractvalue %[[C]][1]
// CHECK: %[[C10:.*]] = llvm.extractelement %[[C1]]
// CHECK: %[[C11:.*]] = llvm.extractelement %[[C1]]
// CHECK: %[[D:.*]] = nvvm.mma.sync A[%[[A0]], %[[A1]], %[[A2]], %[[A3]]]  B[%[[B0]], %[[B1]]]  C[%[[C00]], %[[C01]], %[[C10]], %[[C11]]]  {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK: llvm.extractvalue %[[D]][0]
// CHECK: llvm.extractvalue %[[D]][1]
// CHECK: %[[R0:.*]] = llvm.insertvalue %{{.*}}[0] : !llvm.array<2 x vector<2xf32>>
// CHECK: llvm.extractvalue %[[D]][2]
// CHECK: llvm.extractvalue %[[D]][3]
// CHECK: %[[R:.*]] = llvm.insertvalue %{{.*}}, %[[R0]][1] : !llvm.array<2 x vector<2xf32>>
// CHECK: %[[OUT:.*]] = builtin.unrealized_conversion_cast %[[R]] : !llvm.array<2 x vector<2xf32>> to vector<2x2xf32>
// CHECK: gpu.return %[[OUT]] : vector<2x2xf32>
gpu.module @bf16_m16n8k16 {
  gpu.func @bf16_m16n8k16(%a: vector<4x2xbf16>, %b: vector<2x2xbf16>, %c: vector<2x2xf32>) -> vector<2x2xf32> {
    %d = nvgpu.mma.sync (%a, %b, %c) {mmaShape = [16, 8, 16]} : (vector<4x2xbf16>, vector<2x2xbf16>, vector<2x2xf32>) -> vector<2x2xf32>
    gpu.return %d : vector<2x2xf32>
  }
}

// -----

// CHECK-LABEL: gpu.func @bf16_m16n8k8
// CHECK-COUNT-3: llvm.bitcast %{{.*}} : vector<2xbf16> to i32
// CHECK: nvvm.mma.sync A[%{{.*}}, %{{.*}}]  B[%{{.*}}]  C[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] {{.*}}multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, shape = #nvvm.shape<m = 16, n = 8, k = 8>} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
gpu.module @bf16_m16n8k8 {
  gpu.func @bf16_m16n8k8(%a: vector<2x2xbf16>, %b: vector<1x2xbf16>, %c: vector<2x2xf32>) -> vector<2x2xf32> {
    %d = nvgpu.mma.sync (%a, %b, %c) {mmaShape = [16, 8, 8]} : (vector<2x2xbf16>, vector<1x2xbf16>, vector<2x2xf32>) -> vector<2x2xf32>
    gpu.return %d : vector<2x2xf32>
  }
}

// -----

// CHECK-LABEL: gpu.func @f16_m16n8k16
// CHECK-NOT: llvm.bitcast
// CHECK: nvvm.mma.sync A[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}]  B[%{{.*}}, %{{.*}}]  C[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}]  {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (vector<2xf16>, vector<2xf16>, f32) -> !llvm.struct<(f32, f32, f32, f32)>
gpu.module @f16_m16n8k16 {
  gpu.func @f16_m16n8k16(%a: vector<4x2xf16>, %b: vector<2x2xf16>, %c: vector<2x2xf32>) -> vector<2x2xf32> {
    %d = nvgpu.mma.sync (%a, %b, %c) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
    gpu.return %d : vector<2x2xf32>
  }
}

// -----

// A tensor-map argument becomes a generic pointer to the map (the runtime
// passes its device address); the copies through it, the mbarriers and the
// tensor-map fence lower to NVVM, the mbarrier group to a shared-memory
// global.
// CHECK: memref.global "private" @__mbarrier : memref<2xi64, 3>
// CHECK-LABEL: gpu.func @tma_load
// CHECK-SAME: (%[[MAP:.*]]: !llvm.ptr)
// CHECK: nvvm.fence.proxy.acquire <sys> %[[MAP]]
// CHECK: nvvm.mbarrier.init
// CHECK: nvvm.mbarrier.arrive.expect_tx
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[MAP]], %{{.*}}, box[
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK-NOT: nvgpu.
!map = !nvgpu.tensormap.descriptor<tensor = memref<8x64xf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = l2promo_128b, oob = zero, interleave = none>
!bars = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
gpu.module @kernels attributes {dlti.dl_spec = #dlti.dl_spec<index = 32 : i32>} {
  gpu.func @tma_load(%map: !map) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %bytes = arith.constant 1024 : index
    %ticks = arith.constant 10000000 : index
    %parity = arith.constant false
    nvgpu.tma.fence.descriptor %map : !map
    %smem = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    %box = memref.view %smem[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<8x64xf16, #gpu.address_space<workgroup>>
    %bars = nvgpu.mbarrier.create -> !bars
    nvgpu.mbarrier.init %bars[%c0], %c1 : !bars
    nvgpu.mbarrier.arrive.expect_tx %bars[%c0], %bytes : !bars
    nvgpu.tma.async.load %map[%c0, %c0], %bars[%c0] to %box : !map, !bars -> memref<8x64xf16, #gpu.address_space<workgroup>>
    nvgpu.mbarrier.try_wait.parity %bars[%c0], %parity, %ticks : !bars
    gpu.return
  }
}
