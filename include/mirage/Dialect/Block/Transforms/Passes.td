//===- Passes.td - tb dialect passes -----------------------*- tablegen -*-===//
//
// Part of the Mirage MLIR project.
//
//===----------------------------------------------------------------------===//

#ifndef MIRAGE_DIALECT_BLOCK_TRANSFORMS_PASSES_TD
#define MIRAGE_DIALECT_BLOCK_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def TbReportResources : Pass<"tb-report-resources"> {
  let summary = "Report the launch shape, memory and loop structure of block graphs";
  let description = [{
    Emits a remark on every `tb.graph` with what it asks of the GPU: the
    grid and block count, threads per block, loop range, the peak shared
    memory of its tiles against the target's per-block limit, how its ops
    split into loop body and post-loop work, and the peak register bytes per
    thread of its thread graphs. The IR is unchanged.

    ```
    remark: block graph: grid [96] = 96 blocks x 128 threads, forloop 64;
      shared memory 8960 / 232448 bytes (3.9%) on sm_90a; 3 input iterators,
      6 loop-body ops, 2 accumulators, 2 post-loop ops, 1 output saver;
      1 thread graph, peak 6 register bytes per thread
    ```
  }];
}

#endif // MIRAGE_DIALECT_BLOCK_TRANSFORMS_PASSES_TD
