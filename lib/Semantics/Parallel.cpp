//===- Parallel.cpp - Data parallelism for the interpreter ----------------===//
//
// Part of the Mirage MLIR project.
//
//===----------------------------------------------------------------------===//

#include "mirage/Semantics/Parallel.h"

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

using namespace mirage;

namespace {
std::atomic<unsigned> parallelism{0};
thread_local bool insideParallelRegion = false;
} // namespace

unsigned mirage::getParallelism() {
  unsigned threads = parallelism.load();
  return threads ? threads : std::max(1u, std::thread::hardware_concurrency());
}

void mirage::setParallelism(unsigned threads) { parallelism = threads; }

void mirage::parallelFor(int64_t count, llvm::function_ref<void(int64_t)> body) {
  unsigned threads = std::min<int64_t>(getParallelism(), count);
  if (threads <= 1 || insideParallelRegion) {
    for (int64_t i = 0; i < count; ++i)
      body(i);
    return;
  }
  std::atomic<int64_t> next{0};
  auto worker = [&] {
    insideParallelRegion = true;
    for (int64_t i; (i = next.fetch_add(1)) < count;)
      body(i);
    insideParallelRegion = false;
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t)
    pool.emplace_back(worker);
  worker();
  for (std::thread &thread : pool)
    thread.join();
}
