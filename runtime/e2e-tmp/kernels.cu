#include <cuda_fp16.h>
#define N (1 << 20)

extern "C" __global__ void k_scale(const __half *x, float *t) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N)
    t[i] = 2.0f * __half2float(x[i]);
}

// Reads t through a [N/2, 2] view; asks for 64 KiB of dynamic shared memory.
extern "C" __global__ void k_add(const float *t, const unsigned short *y,
                                 float *out) {
  extern __shared__ float scratch[];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  scratch[threadIdx.x + 16000] = t[i];
  __syncthreads();
  out[i] = scratch[threadIdx.x + 16000] + __uint_as_float(unsigned(y[i]) << 16);
}

// Writes only the even elements.
extern "C" __global__ void k_half(const __half *x, __half *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i % 2 == 0)
    out[i] = x[i];
}

extern "C" __global__ void k_fault(float *out) {
  float *bad = reinterpret_cast<float *>(0x10);
  bad[threadIdx.x] = out[threadIdx.x];
}
