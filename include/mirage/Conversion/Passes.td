//===- Passes.td - Lowering kernel graphs to the GPU -------*- tablegen -*-===//
//
// Part of the Mirage MLIR project.
//
//===----------------------------------------------------------------------===//

#ifndef MIRAGE_CONVERSION_PASSES_TD
#define MIRAGE_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertKernelToGPU : Pass<"convert-kn-to-gpu", "::mlir::ModuleOp"> {
  let summary = "Lower kernel graphs to gpu.module kernels and host launches";
  let description = [{
    Turns every function of `kn.kernel` ops into

    - a `gpu.module @<function>_kernels` with one `gpu.func` per
      `kn.kernel`, whose body computes the kernel's block graph (and the
      thread graphs inside it) with `gpu`, `scf`, `arith`, `math`,
      `memref`, `vector` and `nvgpu` ops: shared memory is one
      `gpu.dynamic_shared_memory` buffer planned statically (no
      `memref.alloc` in device code), input tiles arrive by `cp.async`
      (`nvgpu.device_async_copy`) in a multi-stage pipeline, matmuls on f16
      and bf16 tiles run on tensor cores (`nvgpu.ldmatrix`,
      `nvgpu.mma.sync`) with swizzled operand tiles and, when summed over
      the loop, register accumulators;
    - a host function of the same name over memrefs (the inputs, then one
      output buffer per result), which allocates intermediates and runs the
      kernels with `gpu.launch_func` in program order. `kn.reshape` becomes
      a view (`memref.collapse_shape` + `memref.expand_shape`); returning an
      argument, or one value twice, becomes a `memref.copy`.

    Every op must be a `kn.kernel` or a `kn.reshape`: run
    `kn-default-block-graphs` first (`mirage-to-ptx` does). The reference
    a function names (`kn.reference`) is kept as the string attribute
    `mirage.reference`.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::DLTIDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::math::MathDialect", "::mlir::memref::MemRefDialect",
    "::mlir::NVVM::NVVMDialect", "::mlir::nvgpu::NVGPUDialect", "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect"
  ];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"\"",
           "The chip the kernels are compiled for: shared memory is limited "
           "to its per-block size as well as to the block graph's tb.target">,
    Option<"pipelineStages", "pipeline-stages", "unsigned", /*default=*/"0",
           "Loop iterations whose input tiles are in flight at once "
           "(cp.async stages; fewer when shared memory is short). 0: enough "
           "for 64 KiB of input tiles per SM, shared by the blocks the grid "
           "puts on one of 132 SMs; 2 to 16">,
    Option<"tensorCores", "tensor-cores", "bool", /*default=*/"true",
           "Run f16/bf16 tile matmuls on tensor cores (mma.sync)">,
    Option<"asyncCopy", "async-copy", "bool", /*default=*/"true",
           "Load input tiles with cp.async (else synchronous vector loads)">,
    Option<"dependentLaunch", "dependent-launch", "bool", /*default=*/"false",
           "Start every kernel with griddepcontrol.wait and "
           "griddepcontrol.launch_dependents (sm_90 and later), so that a "
           "runtime may launch it with programmatic dependent launch">,
    Option<"preload", "preload", "bool", /*default=*/"true",
           "With dependent-launch, issue a kernel's cp.async copies of the "
           "function's arguments (weights: no kernel writes them) before "
           "griddepcontrol.wait">,
    Option<"tma", "tma", "bool", /*default=*/"false",
           "Load the pipelined input tiles of a kernel with the bulk tensor "
           "copy engine (cp.async.bulk.tensor, sm_90 and later) completing "
           "on one mbarrier per stage, from tensor maps the host creates "
           "(nvgpu.tma.create.descriptor); kernels whose tiles TMA cannot "
           "copy, or that fit shared memory only without the copy engine's "
           "mbarrier reserve and 1024-byte offsets, keep cp.async">,
    Option<"wgmma", "wgmma", "bool", /*default=*/"false",
           "Run the tile matmuls that fit a warpgroup (m a multiple of 64, "
           "operand rows of 32, 64 or 128-byte swizzle) with "
           "wgmma.mma_async from shared-memory descriptors; needs "
           "chip=sm_90a. The others keep mma.sync">,
    Option<"warpSpecialize", "warp-specialize", "bool", /*default=*/"false",
           "With tma, give each TMA kernel whose threads are whole "
           "warpgroups a producer warpgroup of its own: its first thread "
           "issues the copies, waiting on one `empty` mbarrier per stage "
           "that the graph's threads arrive on when they have read the "
           "stage; the producers give up registers to the consumers "
           "(setmaxnreg; needs chip=sm_90a)">,
  ];
}

def ExternDynamicSharedMemory
    : Pass<"mirage-extern-dynamic-shared", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Give the dynamic shared memory symbol external linkage";
  let description = [{
    `gpu.dynamic_shared_memory` lowers to a zero-sized LLVM global in
    address space 3 with internal linkage, which the NVPTX backend demotes
    to a one-byte `.shared` variable. Run after `convert-gpu-to-nvvm`, this
    pass makes such globals external, which NVPTX prints as the intended
    `.extern .shared .align 1024 .b8 __dynamic_shmem__0[];`. The alignment
    is raised to 1024 bytes, the period of the bulk tensor copy's 128-byte
    swizzle, so that tiles at planned offsets (multiples of 1024 for TMA
    tiles) land on the pattern the lowering reads with, also behind static
    shared memory such as mbarriers.
  }];
}

def ConvertNVGPUToNVVMWithLayout
    : Pass<"mirage-convert-nvgpu-to-nvvm", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Lower nvgpu ops to NVVM with the gpu.module's index width";
  let description = [{
    The patterns of upstream `convert-nvgpu-to-nvvm`, with index lowered to
    the integer width of the gpu.module's data layout (32 bits in modules
    made by `convert-kn-to-gpu`) instead of always 64, so that memref
    descriptors agree with `convert-gpu-to-nvvm`, which follows the layout.

    It also lowers `nvgpu.mma.sync` on bf16 multiplicands, which the
    upstream pattern rejects ("failed to deduce operand PTX types"), to
    `nvvm.mma.sync` with bf16 PTX types: each fragment row of two bf16
    elements becomes one i32 register, the accumulators are f32. A bf16
    `mma.sync` that PTX does not have (accumulators other than f32, shapes
    other than m16n8k16 and m16n8k8) is an error naming the reason.
  }];
  let dependentDialects = [
    "::mlir::LLVM::LLVMDialect", "::mlir::NVVM::NVVMDialect"
  ];
}

def BuildTaskGraph : Pass<"mirage-build-task-graph", "::mlir::ModuleOp"> {
  let summary = "Cut kernel graphs into the SM-level tasks of a task graph";
  let description = [{
    Builds, for every function of `kn.kernel` and `kn.reshape` ops, a
    `tg.graph @<function>_tasks from @<function>` (MPK section 4.2-4.3):

    - buffers: one `input` per argument, one `output` per result, a `temp`
      per other kernel result; a `kn.reshape` becomes a `tg.view` of the
      buffer it reshapes (a returned reshape owns the storage and the
      buffer it reshapes becomes a view of it);
    - kernels: one `tg.kernel` per `kn.kernel`, its block graph bound to
      the buffers of its operands and results, named after its position
      and first operator (`k3_matmul`); `kn.data_dependent` kernels are
      marked `data_dependent`;
    - tasks: one per block of each kernel's grid, recording the box each
      output saver writes and, per input, the box the block's iterators
      read over all loop iterations (an input no iterator reads counts as
      read whole);
    - events: dependency analysis over those regions, with an interval
      index per buffer: a task waits for every task that writes an element
      it reads; inputs need no events. With `pairwise-events` each
      producer/consumer pair gets its own event (MPK's stage b); otherwise
      each consumer gets one event triggered by all its producers, which is
      what successor-set fusion makes of them. Two tasks writing one element
      are an error naming both.

    Every op must be a `kn.kernel` or a `kn.reshape`: run
    `kn-default-block-graphs` first (`mirage-to-task-graph` does, with
    partitions for a persistent kernel). A function that returns an
    argument, or one buffer twice, is refused: every output is written by
    tasks.
  }];
  let dependentDialects = ["::mirage::tg::TaskDialect"];
  let options = [
    Option<"pairwiseEvents", "pairwise-events", "bool", /*default=*/"false",
           "One event per producer/consumer pair instead of one per consumer">,
  ];
}

def ConvertTaskToGPU : Pass<"convert-tg-to-gpu", "::mlir::ModuleOp"> {
  let summary = "Lower scheduled task graphs to one persistent kernel each";
  let description = [{
    Turns every linearized, scheduled `tg.graph` (`mirage-to-task-graph`)
    into a `gpu.module @<graph>_megakernel` holding

    - one private `func.func @<graph>_body<k>` per distinct block graph
      (kernels whose block graphs and buffer types print alike share one):
      one block of it, computed by the same lowering as
      `convert-kn-to-gpu`'s kernels, taking the thread index (read anew per
      task, so that nothing derived from it is held across tasks), the
      block's grid coordinates and its buffers;
    - the kernel `gpu.func @<graph>`, launched with one CTA per worker. It
      reads what to run from tables in device memory (their layout is in
      include/mirage/Conversion/MegaKernel.h and docs/MegaKernel.md). Per
      task of its queue, every thread loads the task's body, block and
      buffer addresses (one load each: the address table has an entry per
      kernel operand), thread 0 waits until each of the task's event
      counters reaches `(epoch + 1) * triggers` (an acquire load at GPU
      scope, sleeping between polls; a wait whose triggering tasks all ran
      earlier on the same worker needs none), a barrier passes the wait to
      the CTA, the CTA runs the body, a barrier collects its writes, and
      thread 0 adds one to the counter of each event the task triggers (a
      release fence, then relaxed adds at GPU scope), only where some task
      on another worker waits on it. The tables leave out the empty tasks
      normalization adds: their producers signal, or their consumers wait
      on, the events they forwarded, so a task may wait on and signal
      several events. Counters are never reset: the last worker to finish
      advances the epoch. A wait longer than the deadline in the state
      marks the run failed, records the task, event, counts and worker, and
      every worker stops.
    - with `preload` (the default), per body whose block copies tiles of
      buffers that no kernel of the graph writes (weights, caches) with
      cp.async in its prologue, a private `func.func @<graph>_preload<k>`
      that issues those copies (loop-invariant tiles and the first
      stages - 1 pipeline stages, or at most `preload-stages` of them, one
      commit group per stage). A worker
      calls it after loading the task's record and before thread 0 waits,
      so that the task's weights stream while its producers finish; the
      body leaves those copies out of its prologue. Only buffers no task
      writes are read early; the copies land in the task's own shared
      memory, which the previous task on the worker no longer uses (the
      barrier after its body).
    - with `preload-warp` as well (static queues only), the CTA runs a warp
      beside the bodies' threads, whose barriers become named barrier 1
      over their own threads. The bodies without preload copies go to the
      top of shared memory, the others stay at its bottom. A task whose
      shared memory the task before it on the worker does not use has its
      preload copies issued by that warp, as soon as the last earlier task
      whose shared memory overlaps has finished (the decode layer's O
      projection, while attention runs): the warp's lanes issue every body
      thread's share, wait for them and each count them landed (a release
      add on a shared-memory word); thread 0 acquires that count before
      the task's barrier, and after each body counts the task finished (a
      release store) for the warp. Where every body with shared memory has
      preload copies, no task can run apart from another's: the warp is
      left out (a remark).
    - with `prefetch-bytes` above 0, per body whose block reads buffers
      that no kernel of the graph writes (weights, caches), a private
      `func.func @<graph>_prefetch<k>`: the CTA's threads issue
      `prefetch.global.L2` for the lines one block reads of them over all
      its iterations, the first `prefetch-bytes` in row-major order. A
      worker calls it for the task `prefetch-ahead` positions further in
      its queue (at the queue's start, for every task up to there) before
      it waits. A prefetch only warms L2: it changes no value and needs no
      ordering. Off by default: on an H200 every setting tried made the
      Qwen3-8B-shaped decode step slower (docs/MegaKernel.md).

    With `dynamic-dispatch`, workers do not run fixed queues: thread 0
    claims the next task in the graph's (linearized, topological) order from
    a counter in the state that all workers share, hands it to the CTA
    through a shared-memory word, and claims the following one once its
    wait is over, so that the claim's latency hides behind the body. A
    worker that falls behind its estimate then delays only the tasks it
    holds; every wait goes through its counter (no worker knows which tasks
    ran before on its SM). Claims are never reset: run r's start at
    r * (tasks + workers), as every worker's last claim of a run is past
    the tasks. Deadlock-free when every worker is resident: the held task
    with the lowest index waits only on lower, finished or running, tasks.

    The graph stays: it is the host side (buffers and tables), marked with
    `mirage.megakernel` = {kernel, threads, dynamic_shared_bytes, bodies,
    dynamic_dispatch, tables}.
    Just-in-time tasks are in no queue: the workers claim them one at a time
    in the graph's order, each run before the first task of its claimer's
    queue that comes later (docs/MegaKernel.md). Each queue must be in the
    graph's order; kernels of different block sizes are refused.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::DLTIDialect",
    "::mlir::func::FuncDialect", "::mlir::gpu::GPUDialect",
    "::mlir::LLVM::LLVMDialect", "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect", "::mlir::NVVM::NVVMDialect",
    "::mlir::nvgpu::NVGPUDialect", "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect"
  ];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"\"",
           "The chip the kernel is compiled for: shared memory is limited "
           "to its per-block size as well as to each block graph's tb.target">,
    Option<"pipelineStages", "pipeline-stages", "unsigned", /*default=*/"0",
           "cp.async stages of the task bodies (0: automatic)">,
    Option<"tensorCores", "tensor-cores", "bool", /*default=*/"true",
           "Run f16/bf16 tile matmuls on tensor cores (mma.sync)">,
    Option<"asyncCopy", "async-copy", "bool", /*default=*/"true",
           "Load input tiles with cp.async (else synchronous vector loads)">,
    Option<"prefetchBytes", "prefetch-bytes", "int64_t",
           /*default=*/"0",
           "Bytes of each task's read-only inputs (weights, caches) its "
           "worker prefetches into L2 ahead of it (0: none; at most 2^30)">,
    Option<"dynamicDispatch", "dynamic-dispatch", "bool", /*default=*/"false",
           "Workers claim tasks in the graph's order from one shared counter "
           "instead of running tg-schedule's queues (every wait then goes "
           "through its counter; no prefetch)">,
    Option<"prefetchAhead", "prefetch-ahead", "unsigned", /*default=*/"1",
           "How many tasks ahead in its queue a worker prefetches (0: each "
           "task's own, just before its wait; at most 1024)">,
    Option<"preload", "preload", "bool", /*default=*/"true",
           "Issue each task's cp.async copies of its read-only inputs' first "
           "pipeline stages before it waits on its producers">,
    Option<"preloadSparesLeader", "preload-spares-leader", "bool",
           /*default=*/"false",
           "With preload, the first warp (whose thread 0 polls the events) "
           "issues no preload copies: the second issues its share as well "
           "(an experiment: the polls may then not queue behind them)">,
    Option<"preloadStages", "preload-stages", "unsigned", /*default=*/"0",
           "With preload, the most pipeline stages a task copies before its "
           "wait (0: all stages - 1 its prologue has); the body copies the "
           "later ones, so that fewer bytes are in flight when thread 0 "
           "polls the events">,
    Option<"preloadWarp", "preload-warp", "bool", /*default=*/"false",
           "With preload, a warp beside the bodies' issues the preload "
           "copies of a task whose shared memory the task before it on the "
           "worker does not use, as soon as the tasks that use it finish: "
           "bodies without preload copies are placed at the top of shared "
           "memory, so that the weights of a projection after attention "
           "stream while attention runs">,
  ];
}

#endif // MIRAGE_CONVERSION_PASSES_TD
