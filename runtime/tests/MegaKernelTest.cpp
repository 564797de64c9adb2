//===- MegaKernelTest.cpp - Mega-kernel messages and launch choices -------===//
//
// Part of the Mirage MLIR project.
//
//===----------------------------------------------------------------------===//

#include "mirage_runtime/MegaKernel.h"

#include "gtest/gtest.h"

using namespace mirage::runtime;

namespace {

/// A manifest with the given steps (JSON text of the "steps" array) over
/// kernels mk (a mega-kernel's), k0 (marked pdl), k1 (pdl) and k2 (not).
Manifest manifestWith(const std::string &steps) {
  std::string text = R"({
    "format": "mirage-bundle", "version": 6, "name": "g", "source": "g.mlir",
    "chip": "sm_90a", "binary": {"ptx": "kernels.ptx"},
    "kernels": [{"name": "mk"}, {"name": "k0", "pdl": true},
                {"name": "k1", "pdl": true}, {"name": "k2"}],
    "buffers": [
      {"id": 0, "name": "arg0", "role": "input", "dtype": "f32", "shape": [8]},
      {"id": 1, "name": "out0", "role": "output", "dtype": "f32", "shape": [8]}
    ],
    "inputs": [0], "outputs": [1],
    "steps": )" + steps +
                     R"(,
    "inputs_generator": {"kind": "uniform", "seed": 1, "low": -1, "high": 1},
    "program": null
  })";
  Expected<Manifest> manifest = parseManifest(text);
  EXPECT_TRUE(manifest.ok()) << manifest.message();
  return manifest ? *manifest : Manifest();
}

const char *const megaStep = R"({"kind": "megakernel", "kernel": "mk",
  "grid": [3, 1, 1], "block": [128, 1, 1], "dynamic_shared_bytes": 0,
  "address_table": [0, 1],
  "tables": {"tasks": [0, 0, 0, 0, 0, 0, -1, 0, 1, 0, 0, 0,
                       0, 0, 3, 2, 1, 1, 0, 0, 0, -1, 0, 1,
                       -1, -1, 0, 0, 0, 1, 0, 0, 0, -1, 0, 2,
                       0, 0, 0, 0, 0, 0, -1, 0, 0, -1, 0, 0],
             "queue_starts": [0, 1, 3, 4], "queues": [0, 1, 2, 3],
             "needed": [4], "event_lists": []},
  "task_kernels": ["k5_matmul"], "deadline_ms": 2000})";

std::string launch(const char *kernel) {
  return std::string(R"({"kind": "launch", "kernel": ")") + kernel +
         R"(", "grid": [1, 1, 1], "block": [32, 1, 1],
            "dynamic_shared_bytes": 0, "args": [0, 1]})";
}

std::string steps(std::initializer_list<std::string> list) {
  std::string text = "[";
  for (const std::string &step : list)
    text += (text.size() > 1 ? ", " : "") + step;
  return text + "]";
}

const char *const copyStep =
    R"({"kind": "copy", "src": 0, "dst": 1, "bytes": 32})";

TEST(MegaKernelTest, DescribesHangs) {
  Manifest manifest = manifestWith(steps({megaStep}));
  ASSERT_EQ(manifest.steps.size(), 1u);
  const Step &step = manifest.steps[0];
  // Run 5 (epoch 5): the wait on event 0 (needed 4) targets 6 * 4 = 24; the
  // counter reached 23, 3 of this run's 4 triggers.
  MegaKernelState state{};
  state[Epoch] = 5;
  state[Failed] = 1;
  state[FailedTask] = 1;
  state[FailedEvent] = 0;
  state[FailedCount] = 23;
  state[FailedTarget] = 24;
  state[FailedWorker] = 1;
  state[Deadline] = deadlineNanoseconds(2000);
  EXPECT_EQ(state[Deadline], 2000000000u);
  EXPECT_EQ(describeHang(step, state, 2000),
            "mega-kernel hang: task 1 (k5_matmul, block [3, 2, 1]) on worker "
            "1 waited more than 2000 ms on event 0: 3 of 4 triggers this run");

  // The first run (target = needed): nothing arrived.
  state[FailedCount] = 0;
  state[FailedTarget] = 4;
  EXPECT_EQ(describeHang(step, state, 2000),
            "mega-kernel hang: task 1 (k5_matmul, block [3, 2, 1]) on worker "
            "1 waited more than 2000 ms on event 0: 0 of 4 triggers this run");

  // A task without a kernel.
  state[FailedTask] = 2;
  state[FailedWorker] = 2;
  EXPECT_EQ(describeHang(step, state, 50),
            "mega-kernel hang: task 2 (no kernel) on worker 2 waited more "
            "than 50 ms on event 0: 0 of 4 triggers this run");

  // Words that name no task or event are shown raw (sign-extended -1 too).
  state[FailedTask] = 99;
  state[FailedEvent] = uint64_t(-1);
  state[FailedCount] = 7;
  state[FailedTarget] = 8;
  EXPECT_EQ(describeHang(step, state, 2000),
            "mega-kernel hang: task 99 on worker 2 waited more than 2000 ms "
            "on event -1: counter 7, waiting for 8");
}

TEST(MegaKernelTest, SummarizesTracesPerKernel) {
  // Tasks 0, 1 and 3 run k5_matmul; task 2 is empty. Per task: wait began,
  // wait ended, body began, body ended, signalled (ns).
  Manifest manifest = manifestWith(steps({megaStep}));
  std::vector<uint64_t> trace = {1000, 1400, 1500, 3500, 3600, 1200, 3900,
                                 4000, 6000, 6300, 2000, 2050, 2100, 2200,
                                 2200, 1000, 1050, 1100, 2100, 2150};
  std::vector<KernelTrace> kernels =
      summarizeTrace(manifest, manifest.steps[0], trace);
  ASSERT_EQ(kernels.size(), 2u);
  EXPECT_EQ(kernels[0].kernel, "k5_matmul");
  EXPECT_EQ(kernels[0].tasks, 3u);
  EXPECT_DOUBLE_EQ(kernels[0].firstBodyUs, 0.1);
  EXPECT_DOUBLE_EQ(kernels[0].lastEndUs, 5.0);
  EXPECT_DOUBLE_EQ(kernels[0].waitUs, 3.4);
  EXPECT_DOUBLE_EQ(kernels[0].bodyUs, 5.0);
  EXPECT_DOUBLE_EQ(kernels[0].firstWaitEndUs, 0.05);
  EXPECT_DOUBLE_EQ(kernels[0].lastSignalUs, 5.3);
  EXPECT_DOUBLE_EQ(kernels[0].signalUs, 0.45);
  EXPECT_EQ(kernels[0].bytes, 0u);
  EXPECT_EQ(kernels[1].kernel, "(empty)");
  EXPECT_EQ(kernels[1].tasks, 1u);
  EXPECT_DOUBLE_EQ(kernels[1].firstBodyUs, 1.1);
  EXPECT_DOUBLE_EQ(kernels[1].waitUs, 0.1);

  // With task_kernel_buffers, k5_matmul's address-table entry (buffer 0,
  // 32 bytes).
  std::string withBuffers = megaStep;
  withBuffers.replace(withBuffers.find(R"("task_kernels")"), 0,
                      R"("task_kernel_buffers": [1], )");
  Manifest counted = manifestWith(steps({withBuffers}));
  kernels = summarizeTrace(counted, counted.steps[0], trace);
  EXPECT_EQ(kernels[0].bytes, 32u);
  EXPECT_EQ(kernels[1].bytes, 0u);
}

TEST(MegaKernelTest, DescribesResidencyRefusals) {
  EXPECT_EQ(describeResidencyRefusal("mk", 264, 1, 128, 180224, 96, 132),
            "mega-kernel \"mk\": 264 workers cannot all be resident: 1 CTA of "
            "128 threads with 180224 B of shared memory and 96 registers per "
            "thread fits per SM, 132 SMs (the workers wait on each other, so "
            "all of them must run at once: a waiting worker would keep one "
            "not yet started off its SM forever)");
  EXPECT_NE(describeResidencyRefusal("mk", 264, 0, 1024, 0, 255, 132)
                .find(": 0 CTAs of 1024 threads with 0 B of shared memory and "
                      "255 registers per thread fit per SM, 132 SMs"),
            std::string::npos);
}

TEST(MegaKernelTest, PdlNeedsEveryLaunchMarked) {
  EXPECT_EQ(pdlRefusal(manifestWith(steps({launch("k0"), launch("k1"), copyStep,
                                           launch("k1"), megaStep}))),
            std::nullopt);
  // One kernel, or launches only after copies: nothing to overlap.
  EXPECT_EQ(pdlRefusal(manifestWith(steps({launch("k0")}))),
            "no launch step follows another launch step, so programmatic "
            "dependent launch would change nothing");
  EXPECT_EQ(pdlRefusal(manifestWith(
                steps({launch("k0"), copyStep, launch("k1"), megaStep}))),
            "no launch step follows another launch step, so programmatic "
            "dependent launch would change nothing");
  EXPECT_EQ(pdlRefusal(manifestWith(steps({launch("k0"), launch("k2")}))),
            "kernel \"k2\" (steps[1]) is not marked \"pdl\": it may read its "
            "inputs before the kernel before it has written them");
  EXPECT_EQ(pdlRefusal(manifestWith(steps({megaStep}))),
            "the bundle has no launch steps (mega-kernel steps launch normally "
            "in every mode)");
}

TEST(MegaKernelTest, PdlOnlyBetweenLaunches) {
  Manifest manifest =
      manifestWith(steps({launch("k0"), launch("k1"), copyStep, launch("k0"),
                          megaStep, launch("k1")}));
  // The first launch follows whatever ran before the bundle, which may have
  // written its inputs: never.
  EXPECT_FALSE(launchesWithPdl(manifest, 0));
  EXPECT_TRUE(launchesWithPdl(manifest, 1));
  EXPECT_FALSE(launchesWithPdl(manifest, 2)); // a copy
  EXPECT_FALSE(launchesWithPdl(manifest, 3)); // after a copy
  EXPECT_FALSE(launchesWithPdl(manifest, 4)); // a mega-kernel
  EXPECT_FALSE(launchesWithPdl(manifest, 5)); // after a mega-kernel

  Manifest unmarked = manifestWith(steps({launch("k0"), launch("k2")}));
  EXPECT_FALSE(launchesWithPdl(unmarked, 1));
}

} // namespace
