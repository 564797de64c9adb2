#include <cuda.h>
#include <cstdio>
#include <cstdlib>
#include <string>
#define P(x) do { CUresult r = (x); const char *n = ""; cuGetErrorName(r, &n); std::printf("  %-60s -> %s\n", #x, n); } while (0)
int main(int argc, char **argv) {
  int strategy = std::atoi(argv[1]);
  const char *ptx = argv[2];
  FILE *f = std::fopen(ptx, "rb"); std::string text; char buf[4096]; size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) text.append(buf, n);
  CUdevice dev; CUcontext ctx; CUmodule mod; CUfunction fn; CUdeviceptr p;
  P(cuInit(0)); P(cuDeviceGet(&dev, 0)); P(cuDevicePrimaryCtxRetain(&ctx, dev)); P(cuCtxSetCurrent(ctx));
  P(cuModuleLoadData(&mod, text.c_str())); P(cuModuleGetFunction(&fn, mod, "k_fault")); P(cuMemAlloc(&p, 1024));
  void *params[] = {&p};
  P(cuLaunchKernel(fn, 1, 1, 1, 256, 1, 1, 0, nullptr, params, nullptr)); P(cuCtxSynchronize());
  std::printf("strategy %d\n", strategy);
  CUcontext fresh = ctx;
  if (strategy == 0) { P(cuDevicePrimaryCtxReset(dev)); P(cuCtxSetCurrent(ctx)); }
  if (strategy == 1) { P(cuCtxSetCurrent(nullptr)); P(cuDevicePrimaryCtxRelease(dev)); P(cuDevicePrimaryCtxReset(dev)); P(cuDevicePrimaryCtxRetain(&fresh, dev)); P(cuCtxSetCurrent(fresh)); }
  if (strategy == 2) { P(cuDevicePrimaryCtxRelease(dev)); P(cuDevicePrimaryCtxReset(dev)); P(cuDevicePrimaryCtxRetain(&fresh, dev)); P(cuCtxSetCurrent(fresh)); }
  if (strategy == 3) { P(cuCtxSetCurrent(nullptr)); P(cuDevicePrimaryCtxReset(dev)); P(cuDevicePrimaryCtxRelease(dev)); P(cuDevicePrimaryCtxRetain(&fresh, dev)); P(cuCtxSetCurrent(fresh)); }
  std::printf("  same handle: %d\n", fresh == ctx);
  P(cuCtxSynchronize());
  P(cuModuleLoadData(&mod, text.c_str())); P(cuModuleGetFunction(&fn, mod, "k_scale")); P(cuMemAlloc(&p, 1 << 24));
  CUdeviceptr q; P(cuMemAlloc(&q, 1 << 24));
  void *params2[] = {&p, &q};
  P(cuLaunchKernel(fn, 4096, 1, 1, 256, 1, 1, 0, nullptr, params2, nullptr)); P(cuCtxSynchronize());
}
