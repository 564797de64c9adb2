// mirage-opt alone takes a gpu.module to PTX for sm_90a: shared memory, a
// barrier and a tensor-core mma.sync survive to the PTX text.
// RUN: mirage-opt %s --gpu-lower-to-nvvm-pipeline="cubin-chip=sm_90a cubin-features=+ptx80 cubin-format=isa" | FileCheck %s

// CHECK: gpu.binary @kernels
// CHECK-SAME: .target sm_90a
// CHECK-SAME: .visible .entry tile_mma(
// CHECK-SAME: .shared .align
// CHECK-SAME: bar.sync \090;
// CHECK-SAME: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @tile_mma(%a: memref<16x16xf16>, %out: memref<16x8xf32>) workgroup(%tile: memref<16x16xf16, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
      %lane = gpu.thread_id x
      %c0 = arith.constant 0 : index
      %c16 = arith.constant 16 : index
      %c1 = arith.constant 1 : index
      // Stage A through shared memory: lane i copies column i of each row.
      scf.for %r = %c0 to %c16 step %c1 {
        %in_range = arith.cmpi ult, %lane, %c16 : index
        scf.if %in_range {
          %v = memref.load %a[%r, %lane] : memref<16x16xf16>
          memref.store %v, %tile[%r, %lane] : memref<16x16xf16, #gpu.address_space<workgroup>>
        }
      }
      gpu.barrier
      %av = arith.constant dense<1.0> : vector<4x2xf16>
      %bv = arith.constant dense<2.0> : vector<2x2xf16>
      %cv = arith.constant dense<0.0> : vector<2x2xf32>
      %d = nvgpu.mma.sync(%av, %bv, %cv) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
      %x = vector.extract %d[0, 0] : f32 from vector<2x2xf32>
      %t0 = memref.load %tile[%c0, %c0] : memref<16x16xf16, #gpu.address_space<workgroup>>
      %t0f = arith.extf %t0 : f16 to f32
      %sum = arith.addf %x, %t0f : f32
      %row = arith.remui %lane, %c16 : index
      %col = arith.remui %lane, %c1 : index
      memref.store %sum, %out[%row, %col] : memref<16x8xf32>
      gpu.return
    }
  }
}
