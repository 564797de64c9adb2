// convert-kn-to-gpu: host functions, kernel bodies and the lowering options.
// RUN: mirage-opt %s --split-input-file --convert-kn-to-gpu --canonicalize --cse | FileCheck %s
// RUN: mirage-opt %s --split-input-file --convert-kn-to-gpu="tensor-cores=false async-copy=false" --canonicalize --cse | FileCheck %s --check-prefix=SIMT
// The lowered IR parses back.
// RUN: mirage-opt %s --split-input-file --convert-kn-to-gpu | mirage-opt --split-input-file -o /dev/null

// The host function takes the inputs, then one buffer per result; a kernel
// result returned first is written in place, a reshape is a view, and a
// returned argument or repeated result is copied.
// CHECK-LABEL: func.func @host(
// CHECK-SAME: %[[X:.*]]: memref<16x64xf16>, %[[W:.*]]: memref<64x64xf16>, %[[O0:.*]]: memref<16x64xf16>, %[[O1:.*]]: memref<1024xf16>, %[[O2:.*]]: memref<16x64xf16>, %[[O3:.*]]: memref<16x64xf16>)
// CHECK: gpu.launch_func @host_kernels::@host_k0 blocks in (%c2, %c1, %c1) threads in (%c128, %c1, %c1) dynamic_shared_memory_size %c8192_i32 args(%[[X]] : memref<16x64xf16>, %[[W]] : memref<64x64xf16>, %[[O0]] : memref<16x64xf16>)
// CHECK: %[[V:.*]] = memref.collapse_shape %[[O0]] {{\[\[}}0, 1]] : memref<16x64xf16> into memref<1024xf16>
// CHECK: memref.copy %[[V]], %[[O1]]
// CHECK: memref.copy %[[X]], %[[O2]]
// CHECK: memref.copy %[[O0]], %[[O3]]
// CHECK-NOT: memref.alloc

// The kernel: one dynamic shared-memory buffer; 4 pipeline stages of
// cp.async copies (3 requested before the loop, one per iteration, waiting
// until 3 groups are pending); the f16 matmul on tensor cores with its
// accumulators carried through the loop in registers.
// CHECK: gpu.module @host_kernels
// CHECK: gpu.func @host_k0(%{{.*}}: memref<16x64xf16>, %{{.*}}: memref<64x64xf16>, %{{.*}}: memref<16x64xf16>) kernel attributes {known_block_size = array<i32: 128, 1, 1>, nvvm.minctasm = 1 : i32}
// CHECK: gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
// CHECK-NOT: memref.alloc
// CHECK-COUNT-3: nvvm.cp.async.commit.group
// CHECK: scf.for %{{.*}} = %c0 to %c4 step %c1 iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (vector<2x2xf32>, vector<2x2xf32>)
// CHECK: nvgpu.device_async_copy %{{.*}}, 8 {bypassL1} : memref<16x64xf16> to memref<256xf16, #gpu.address_space<workgroup>>
// CHECK: nvgpu.device_async_copy %{{.*}}, 8 {bypassL1} : memref<64x64xf16> to memref<512xf16, #gpu.address_space<workgroup>>
// CHECK: nvvm.cp.async.commit.group
// CHECK: nvvm.cp.async.wait.group 3
// CHECK: gpu.barrier
// CHECK: nvgpu.ldmatrix %{{.*}} {numTiles = 4 : i32, transpose = false}
// CHECK: nvgpu.ldmatrix %{{.*}} {numTiles = 4 : i32, transpose = true}
// CHECK-COUNT-2: nvgpu.mma.sync
// CHECK: scf.yield %{{.*}}, %{{.*}} : vector<2x2xf32>, vector<2x2xf32>
// After the loop the accumulators go to an f32 tile, which the saver
// writes with 16-byte stores.
// CHECK: memref.store %{{.*}} : memref<512xf32, #gpu.address_space<workgroup>>
// CHECK: vector.load %{{.*}} {alignment = 16 : i64} : memref<512xf32, #gpu.address_space<workgroup>>, vector<8xf32>
// CHECK: arith.truncf %{{.*}} : vector<8xf32> to vector<8xf16>
// CHECK: vector.store %{{.*}} {alignment = 16 : i64} : memref<16x64xf16>, vector<8xf16>

// Without tensor cores and cp.async: synchronous 16-byte loads, one stage,
// a scalar loop per output element.
// SIMT-LABEL: gpu.func @host_k0
// SIMT-NOT: nvgpu.
// SIMT-NOT: nvvm.cp.async
// SIMT: scf.for %{{.*}} = %c0 to %c4 step %c1 {
// SIMT: vector.load %{{.*}} {alignment = 16 : i64} : memref<16x64xf16>, vector<8xf16>
// SIMT: vector.store %{{.*}} {alignment = 16 : i64} : memref<256xf16, #gpu.address_space<workgroup>>, vector<8xf16>
// SIMT: scf.for %{{.*}} = %c0 to %c16 step %c1 iter_args(%{{.*}} = %{{.*}}) -> (f32)
// SIMT: arith.mulf
// SIMT: arith.addf
func.func @host(%x: tensor<16x64xf16>, %w: tensor<64x64xf16>) -> (tensor<16x64xf16>, tensor<1024xf16>, tensor<16x64xf16>, tensor<16x64xf16>) {
  %y = kn.kernel(%x, %w) {
    tb.graph grid [2] threads 128 forloop 4 {
    ^bb0(%xd: tensor<16x64xf16>, %wd: tensor<64x64xf16>):
      %xt = tb.input_iterator %xd imap <x -> replica> fmap <i -> 1> : tensor<16x64xf16> -> !tb.tile<16x16xf16>
      %wt = tb.input_iterator %wd imap <x -> 1> fmap <i -> 0> : tensor<64x64xf16> -> !tb.tile<16x32xf16>
      %p = tb.matmul %xt, %wt : !tb.tile<16x16xf16>, !tb.tile<16x32xf16>
      %acc = tb.accum_sum %p : !tb.tile<16x32xf16>
      %o = tb.output_saver %acc omap <x -> 1> : !tb.tile<16x32xf16> -> tensor<16x64xf16>
      tb.yield %o : tensor<16x64xf16>
    }
  } : (tensor<16x64xf16>, tensor<64x64xf16>) -> tensor<16x64xf16>
  %r = kn.reshape %y : tensor<16x64xf16> -> tensor<1024xf16>
  return %y, %r, %x, %y : tensor<16x64xf16>, tensor<1024xf16>, tensor<16x64xf16>, tensor<16x64xf16>
}

// -----

// f32 tiles have no mma.sync path here: SIMT, and the loop-invariant tile
// is loaded once before the loop; a matmul whose result is used elsewhere
// than an accum_sum stores its tile.
// CHECK-LABEL: gpu.func @simt_k0
// CHECK-NOT: nvgpu.mma.sync
// CHECK: scf.for %{{.*}} = %c0 to %c2 step %c1 {
// CHECK: scf.for %{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (f32)
// CHECK: math.exp
func.func @simt(%a: tensor<32x32xf32>, %b: tensor<32x32xf32>) -> tensor<32x32xf32> {
  %c = kn.kernel(%a, %b) {
    tb.graph grid [2] threads 64 forloop 2 {
    ^bb0(%ad: tensor<32x32xf32>, %bd: tensor<32x32xf32>):
      %at = tb.input_iterator %ad imap <x -> 0> fmap <i -> 1> : tensor<32x32xf32> -> !tb.tile<16x16xf32>
      %bt = tb.input_iterator %bd imap <x -> replica> fmap <i -> 0> : tensor<32x32xf32> -> !tb.tile<16x32xf32>
      %p = tb.matmul %at, %bt : !tb.tile<16x16xf32>, !tb.tile<16x32xf32>
      %e = tb.exp %p : !tb.tile<16x32xf32>
      %acc = tb.accum_sum %e : !tb.tile<16x32xf32>
      %o = tb.output_saver %acc omap <x -> 0> : !tb.tile<16x32xf32> -> tensor<32x32xf32>
      tb.yield %o : tensor<32x32xf32>
    }
  } : (tensor<32x32xf32>, tensor<32x32xf32>) -> tensor<32x32xf32>
  return %c : tensor<32x32xf32>
}

// -----

// A saver yielded twice writes both outputs; a saver not yielded writes
// nothing.
// CHECK-LABEL: gpu.func @twice_k0(
// CHECK-SAME: %[[IN:.*]]: memref<16x64xf16>, %[[OUT0:.*]]: memref<16x64xf16>, %[[OUT1:.*]]: memref<16x64xf16>)
// CHECK-NOT: vector.store {{.*}} %[[IN]]
// CHECK: vector.store %[[V:.*]], %[[OUT0]]
// CHECK: vector.store %[[V]], %[[OUT1]]
func.func @twice(%a: tensor<16x64xf16>) -> (tensor<16x64xf16>, tensor<16x64xf16>) {
  %o:2 = kn.kernel(%a) {
    tb.graph grid [1] threads 64 forloop 1 {
    ^bb0(%ad: tensor<16x64xf16>):
      %at = tb.input_iterator %ad imap <x -> 0> fmap <i -> replica> : tensor<16x64xf16> -> !tb.tile<16x64xf16>
      %e = tb.exp %at : !tb.tile<16x64xf16>
      %dead = tb.output_saver %at omap <x -> 0> : !tb.tile<16x64xf16> -> tensor<16x64xf16>
      %out = tb.output_saver %e omap <x -> 0> : !tb.tile<16x64xf16> -> tensor<16x64xf16>
      tb.yield %out, %out : tensor<16x64xf16>, tensor<16x64xf16>
    }
  } : (tensor<16x64xf16>) -> (tensor<16x64xf16>, tensor<16x64xf16>)
  return %o#0, %o#1 : tensor<16x64xf16>, tensor<16x64xf16>
}

// -----

// Online softmax: the rescaled sum of a tensor-core product stays in
// registers with each row's running maximum (f32 iteration arguments); the
// keep factor is 0 while a maximum is still -infinity. The other rescaled
// sum (of row sums) goes through shared memory.
// CHECK-LABEL: gpu.func @online_k0
// CHECK: scf.for %{{.*}} iter_args({{.*}}) -> (vector<2x2xf32>, vector<2x2xf32>, f32, f32)
// CHECK: nvgpu.mma.sync
// CHECK: arith.maximumf
// CHECK: arith.cmpf oeq, %{{.*}}, %cst
// CHECK: arith.select
// CHECK: scf.yield %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : vector<2x2xf32>, vector<2x2xf32>, f32, f32
func.func @online(%q: tensor<16x64xf16>, %k: tensor<64x256xf16>, %v: tensor<256x64xf16>) -> tensor<16x64xf16> {
  %o = kn.kernel(%q, %k, %v) {
    tb.graph grid [1] threads 128 forloop 4 {
    ^bb0(%qd: tensor<16x64xf16>, %kd: tensor<64x256xf16>, %vd: tensor<256x64xf16>):
      %qt = tb.input_iterator %qd imap <x -> replica> fmap <i -> replica> : tensor<16x64xf16> -> !tb.tile<16x64xf16>
      %kt = tb.input_iterator %kd imap <x -> replica> fmap <i -> 1> : tensor<64x256xf16> -> !tb.tile<64x64xf16>
      %vt = tb.input_iterator %vd imap <x -> replica> fmap <i -> 0> : tensor<256x64xf16> -> !tb.tile<64x64xf16>
      %s = tb.matmul %qt, %kt : !tb.tile<16x64xf16>, !tb.tile<64x64xf16>
      %m = tb.reduce_max %s dim 1 : !tb.tile<16x64xf16>
      %d = tb.sub %s, %m : !tb.tile<16x64xf16>, !tb.tile<16x1xf16>
      %e = tb.exp %d : !tb.tile<16x64xf16>
      %l = tb.reduce_sum %e dim 1 : !tb.tile<16x64xf16>
      %pv = tb.matmul %e, %vt : !tb.tile<16x64xf16>, !tb.tile<64x64xf16>
      %lsum = tb.accum_rescaled_sum %l, %m : !tb.tile<16x1xf16>, !tb.tile<16x1xf16>
      %osum = tb.accum_rescaled_sum %pv, %m : !tb.tile<16x64xf16>, !tb.tile<16x1xf16>
      %ot = tb.div %osum, %lsum : !tb.tile<16x64xf16>, !tb.tile<16x1xf16>
      %out = tb.output_saver %ot omap <x -> 0> : !tb.tile<16x64xf16> -> tensor<16x64xf16>
      tb.yield %out : tensor<16x64xf16>
    }
  } : (tensor<16x64xf16>, tensor<64x256xf16>, tensor<256x64xf16>) -> tensor<16x64xf16>
  return %o : tensor<16x64xf16>
}
