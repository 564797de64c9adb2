//===- Passes.td - kn dialect passes -----------------------*- tablegen -*-===//
//
// Part of the Mirage MLIR project.
//
//===----------------------------------------------------------------------===//

#ifndef MIRAGE_DIALECT_KERNEL_TRANSFORMS_PASSES_TD
#define MIRAGE_DIALECT_KERNEL_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def KnDefaultBlockGraphs : Pass<"kn-default-block-graphs", "::mlir::ModuleOp"> {
  let summary = "Give every predefined kernel op a block graph";
  let description = [{
    Wraps each predefined `kn` op (matmul, elementwise, reductions,
    rms_norm, transpose, concat, split) in a `kn.kernel` whose `tb.graph`
    computes it, so that every op of a kernel graph can be lowered to the
    GPU. `kn.reshape` (a view), `kn.all_reduce` and existing `kn.kernel`s
    are left alone.

    The graphs follow one scheme per operator family, with 128 threads:

    - elementwise, transpose, concat, split: the output is cut into tiles
      of at most 256 elements along the innermost partitioned dim and 2048
      in all, over up to three grid dims from the innermost outwards
      (concatenated or split dims stay whole); operands follow the output's
      tiles, broadcast dims are replicated;
    - reductions: the reduced dim is walked by the for-loop in chunks of at
      most 1024 and folded by `accum_sum`/`accum_max`; the other dims are
      partitioned as above;
    - rms_norm: whole rows, at most 4096 elements per tile where rows allow;
    - matmul: 64x64 output tiles (smaller when m or n is), halved while
      the grid has fewer than `target-blocks` blocks: n down to 32, then m
      down to 32, then n and m down to 16 (wide tiles re-read less of the
      other operand); the k dim in chunks of 64 (128 for output tiles of at
      most 1024 elements) by the for-loop into `accum_sum`; batch dims over
      grid dim z (one batch dim at most).

    With `persistent` (a persistent kernel of N workers, MPK section 4.2;
    N is `workers`, by default the target chip's SM count)
    each op's iteration space is instead cut into the partition, among
    those of at most 4N blocks cutting at most 3 dims into divisors of
    their sizes whose graphs verify, that minimizes (ceil(B / N) + B / N) *
    (bytes per block + 16 KiB for a task's fixed cost) for B blocks: the
    busiest worker's bytes plus all workers' bytes spread over them, so
    that tiny ops are not spread over workers other ops could use; ties
    broken by total bytes, then fewer blocks. Ops with equal
    kinds, attributes and types get the same partition. An op's
    `kn.partition` attribute (blocks per dim) overrides both schemes.

    The result is checked by the tb verifiers like hand-written graphs.
  }];
  let dependentDialects = ["::mirage::tb::BlockDialect"];
  let options = [
    Option<"targetBlocks", "target-blocks", "int64_t", /*default=*/"264",
           "Blocks a matmul grid should reach before its tiles stop "
           "shrinking (two per SM of an H100 or H200)">,
    Option<"persistent", "persistent", "bool", /*default=*/"false",
           "Choose every op's partition for a persistent kernel instead of "
           "the fixed tiling">,
    Option<"workers", "workers", "int64_t", /*default=*/"0",
           "The persistent kernel's workers (0: the SMs of the target chip, "
           "tb.target)">,
  ];
}

#endif // MIRAGE_DIALECT_KERNEL_TRANSFORMS_PASSES_TD
