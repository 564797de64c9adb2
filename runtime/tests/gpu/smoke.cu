//===- smoke.cu - Kernels of the runtime's GPU smoke test -----------------===//
//
// Part of the Mirage MLIR project.
//
// A hand-written mega-kernel that follows the contract of docs/Bundle.md,
// version 2 (parameters, task records, epoch-based waits with a deadline,
// the state words), and per-operator kernels of the same program marked for
// programmatic dependent launch. The program, over NB blocks of 256 floats:
//
//   tmp = 2 x;   out[b, t] = tmp[b, t] + tmp[(b + 1) % NB, t]
//
// Version 3: smoke_tma_scale and smoke_tma_mix compute the same program from
// tiles that cp.async.bulk.tensor brings into shared memory through tensor
// maps the runner encoded: x as [NB, 256] (box [1, 256], no swizzle) and tmp
// through a view as [NB, 8, 32] (box [1, 8, 32], 128-byte swizzle).
//
// make_bundles.py turns them into bundles; run-smoke.sh runs mirage-run on
// them and checks what it reports.
//
//===----------------------------------------------------------------------===//
typedef unsigned long long u64;
#define NB 128

enum {
  Epoch,
  Finished,
  Failed,
  FailedTask,
  FailedEvent,
  FailedCount,
  FailedTarget,
  FailedWorker,
  Deadline
};

__device__ __forceinline__ u64 globaltimer() {
  u64 t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
__device__ __forceinline__ u64 loadAcquire(const u64 *p) {
  u64 v;
  asm volatile("ld.acquire.gpu.global.u64 %0, [%1];"
               : "=l"(v)
               : "l"(p)
               : "memory");
  return v;
}

// `ops`: the task's entries of the address table, its kernel's buffers.
__device__ void scaleBody(const u64 *ops, int bx) {
  const float *x = (const float *)ops[0];
  float *tmp = (float *)ops[1];
  int i = bx * 256 + threadIdx.x;
  tmp[i] = 2.0f * x[i];
}
__device__ void mixBody(const u64 *ops, int bx) {
  const float *tmp = (const float *)ops[0];
  float *out = (float *)ops[1];
  int i = bx * 256 + threadIdx.x;
  int j = ((bx + 1) % NB) * 256 + threadIdx.x;
  out[i] = tmp[i] + tmp[j];
}

// Late: run 5 drops a trigger (a hang in the timed runs), and every run
// after a hang returns at once (the early exit a real kernel should have).
template <bool Late>
__device__ void megaKernel(const u64 *addr, const int *tasks,
                           const int *queueStarts, const int *queues,
                           const int *needed, u64 *counters, u64 *state,
                           const int *eventLists) {
  int worker = blockIdx.x;
  u64 epoch = state[Epoch];
  u64 deadline = state[Deadline];
  if (Late && state[Failed])
    return;
  for (int q = queueStarts[worker]; q < queueStarts[worker + 1]; ++q) {
    int task = queues[q];
    // Waits: count, first, more; triggers likewise; first operand.
    const int *record = tasks + 12 * task;
    int gaveUp = 0;
    for (int w = 0; threadIdx.x == 0 && !gaveUp && w < record[5]; ++w) {
      int event = w == 0 ? record[6] : eventLists[record[7] + w - 1];
      u64 target = (epoch + 1) * (u64)needed[event];
      u64 start = globaltimer(), count;
      unsigned sleep = 32;
      while ((count = loadAcquire(&counters[event])) < target) {
        if (deadline && globaltimer() - start > deadline) {
          gaveUp = 1;
          break;
        }
        __nanosleep(sleep);
        sleep = min(sleep * 2, 1024u);
      }
      if (gaveUp && atomicCAS(&state[Failed], 0ull, 1ull) == 0ull) {
        state[FailedTask] = (u64)(long long)task;
        state[FailedEvent] = (u64)(long long)event;
        state[FailedCount] = count;
        state[FailedTarget] = target;
        state[FailedWorker] = worker;
      }
    }
    if (__syncthreads_or(gaveUp))
      break;
    const u64 *ops = addr + record[11];
    if (record[0] == 0)
      scaleBody(ops, record[2]);
    else if (record[0] == 1)
      mixBody(ops, record[2]);
    __syncthreads();
    if (threadIdx.x == 0 && record[8] > 0 &&
        !(Late && epoch == 5 && task == 0)) {
      __threadfence();
      for (int t = 0; t < record[8]; ++t)
        atomicAdd(&counters[t == 0 ? record[9] : eventLists[record[10] + t - 1]],
                  1ull);
    }
  }
  if (threadIdx.x == 0) {
    u64 finished = atomicAdd(&state[Finished], 1ull);
    if (finished == gridDim.x - 1) {
      state[Finished] = 0;
      state[Epoch] = epoch + 1;
    }
  }
}

// The trace argument (7) is accepted and not written.
extern "C" __global__ void __launch_bounds__(256)
    smoke_mk(const u64 *addr, const int *tasks, const int *queueStarts,
             const int *queues, const int *needed, u64 *counters,
             u64 *state, u64 *trace, const int *eventLists) {
  megaKernel<false>(addr, tasks, queueStarts, queues, needed, counters, state,
                    eventLists);
}

extern "C" __global__ void __launch_bounds__(256)
    smoke_mk_late(const u64 *addr, const int *tasks, const int *queueStarts,
                  const int *queues, const int *needed, u64 *counters,
                  u64 *state, u64 *trace, const int *eventLists) {
  megaKernel<true>(addr, tasks, queueStarts, queues, needed, counters, state,
                   eventLists);
}

__device__ __forceinline__ void pdlWait() {
  asm volatile("griddepcontrol.wait;" ::: "memory");
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
}

extern "C" __global__ void __launch_bounds__(256)
    smoke_scale(const float *x, float *tmp) {
  pdlWait();
  int i = blockIdx.x * 256 + threadIdx.x;
  tmp[i] = 2.0f * x[i];
}

extern "C" __global__ void __launch_bounds__(256)
    smoke_mix(const float *tmp, float *out) {
  pdlWait();
  int i = blockIdx.x * 256 + threadIdx.x;
  int j = ((blockIdx.x + 1) % NB) * 256 + threadIdx.x;
  out[i] = tmp[i] + tmp[j];
}

// Tensor maps (version 3). Thread 0 fences the map (the runner wrote it with
// a host copy), sets up the barrier and issues the copies; every thread
// waits for the barrier's first phase.

__device__ __forceinline__ unsigned sharedAddress(const void *p) {
  return (unsigned)__cvta_generic_to_shared(p);
}
__device__ __forceinline__ void startTensorCopies(const void *map, u64 *bar,
                                                  unsigned bytes) {
  asm volatile("fence.proxy.tensormap::generic.acquire.sys [%0], 128;" ::"l"(
                   map)
               : "memory");
  asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(
                   sharedAddress(bar))
               : "memory");
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  asm volatile(
      "mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(
          sharedAddress(bar)),
      "r"(bytes)
      : "memory");
}
__device__ __forceinline__ void load2d(void *dst, const void *map, int c0,
                                       int c1, u64 *bar) {
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::"
               "complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(
                   sharedAddress(dst)),
               "l"(map), "r"(c0), "r"(c1), "r"(sharedAddress(bar))
               : "memory");
}
__device__ __forceinline__ void load3d(void *dst, const void *map, int c0,
                                       int c1, int c2, u64 *bar) {
  asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::"
               "complete_tx::bytes [%0], [%1, {%2, %3, %4}], [%5];" ::"r"(
                   sharedAddress(dst)),
               "l"(map), "r"(c0), "r"(c1), "r"(c2), "r"(sharedAddress(bar))
               : "memory");
}
__device__ __forceinline__ void waitFirstPhase(u64 *bar) {
  unsigned done = 0;
  while (!done)
    asm volatile("{\n"
                 "  .reg .pred p;\n"
                 "  mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0;\n"
                 "  selp.u32 %0, 1, 0, p;\n"
                 "}"
                 : "=r"(done)
                 : "r"(sharedAddress(bar))
                 : "memory");
}

extern "C" __global__ void __launch_bounds__(256)
    smoke_tma_scale(const void *xMap, float *tmp) {
  __shared__ __align__(128) float tile[256];
  __shared__ u64 bar;
  pdlWait();
  if (threadIdx.x == 0) {
    startTensorCopies(xMap, &bar, sizeof(tile));
    load2d(tile, xMap, 0, blockIdx.x, &bar); // row blockIdx.x
  }
  __syncthreads();
  waitFirstPhase(&bar);
  tmp[blockIdx.x * 256 + threadIdx.x] = 2.0f * tile[threadIdx.x];
}

extern "C" __global__ void __launch_bounds__(256)
    smoke_tma_mix(const void *tmpMap, float *out) {
  // 128-byte swizzle: the 16-byte chunk k of line r (of 128 bytes) lands at
  // chunk k ^ (r % 8), counted from a 1024-byte boundary.
  __shared__ __align__(1024) float tiles[2][256];
  __shared__ u64 bar;
  pdlWait();
  if (threadIdx.x == 0) {
    startTensorCopies(tmpMap, &bar, sizeof(tiles));
    load3d(tiles[0], tmpMap, 0, 0, blockIdx.x, &bar);
    load3d(tiles[1], tmpMap, 0, 0, (blockIdx.x + 1) % NB, &bar);
  }
  __syncthreads();
  waitFirstPhase(&bar);
  int r = threadIdx.x / 32, c = threadIdx.x % 32;
  int at = r * 32 + (((c / 4) ^ (r % 8)) * 4) + c % 4;
  out[blockIdx.x * 256 + threadIdx.x] = tiles[0][at] + tiles[1][at];
}
