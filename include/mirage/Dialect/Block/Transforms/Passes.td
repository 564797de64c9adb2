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
    grid and block count, threads per block, loop range, its shared memory
    against the target's per-block limit and, for a loop, the pipeline
    stages, the registers per thread of its tensor-core accumulators, how
    its ops split into loop body and post-loop work, and the peak register
    bytes per thread of its thread graphs. Shared memory and accumulator
    registers are the account the `tb.graph` verifier checks: the
    lowering's plan where the tool links it (every Mirage tool does), the
    peak of the tiles live at once otherwise (docs/Architecture.md, "Memory
    accounting"). The IR is unchanged.

    ```
    remark: block graph: grid [96] = 96 blocks x 128 threads, forloop 64;
      shared memory 68224 / 232448 bytes (29.4%) on sm_90a with 8 pipeline
      stages; 8 registers per thread for tensor-core accumulators; 2 input
      iterators, 3 loop-body ops, 2 accumulators, 1 post-loop op, 1 output
      saver; 1 thread graph, peak 12 register bytes per thread
    ```
  }];
}

#endif // MIRAGE_DIALECT_BLOCK_TRANSFORMS_PASSES_TD
