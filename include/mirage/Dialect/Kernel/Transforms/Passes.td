//===- Passes.td - kn dialect passes -----------------------*- tablegen -*-===//
//
// Part of the Mirage MLIR project.
//
//===----------------------------------------------------------------------===//

#ifndef MIRAGE_DIALECT_KERNEL_TRANSFORMS_PASSES_TD
#define MIRAGE_DIALECT_KERNEL_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def KnDefaultBlockGraphs : Pass<"kn-default-block-graphs", "::mlir::func::FuncOp"> {
  let summary = "Give every predefined kernel op a block graph";
  let description = [{
    Wraps each predefined `kn` op (matmul, elementwise, reductions,
    rms_norm, transpose, concat, split) in a `kn.kernel` whose `tb.graph`
    computes it, so that every op of a kernel graph can be lowered to the
    GPU. `kn.reshape` and a `kn.concat` marked `kn.view` (views, which the
    kernels reading them resolve), `kn.all_reduce` and existing `kn.kernel`s
    are left alone.

    Every graph is read off the op's dimension map (`getDimMap`): the
    grid cuts the op's iteration space, only along dims the op computes
    independently (reduced, normalized, concatenated and split dims stay
    whole), and each operand's imap, the for-loop's fmap and each result's
    omap follow from the space dim each tensor dim indexes (a broadcast
    dim, or one the tensor lacks, is replicated). The tile sizes follow
    one scheme per operator family, with 128 threads:

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
    `kn.partition` attribute (blocks per dim of the iteration space;
    trailing reduced dims, such as a matmul's k, may be left out) overrides
    both schemes.

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

def KnFuse : Pass<"kn-fuse", "::mlir::func::FuncOp"> {
  let summary = "Fuse kernel-graph ops into graph-defined kernels";
  let description = [{
    Groups the predefined `kn` ops of every function and replaces each group
    of two or more ops by one `kn.kernel` whose block graph computes all of
    it: the group's intermediates stay in shared memory instead of going
    through device memory, and one launch replaces several. Ops it leaves
    alone are wrapped one by one by `kn-default-block-graphs`, which runs
    after it in `mirage-to-ptx` and `mirage-to-task-graph`.

    **Plans.** A group is planned on classes of dims. The operator records'
    tiling facet (`mirage::getTileDims`) says which dim of its iteration
    space every operand and result dim follows, which dims an operator needs
    whole in a tile (reduced rows it keeps, normalized, concatenated and
    split dims, dims a reshape regroups) and which it contracts (a matmul's
    k, a reduction's dim); joining these across the group gives the classes
    of dims that are cut together. A plan cuts up to three classes that
    every group output has over the grid, and may walk one contracted class
    that no output has in the for-loop: the ops that read it run in the loop
    body, their partial results pass the record's accumulator (`accum_sum`,
    `accum_max`), what follows runs after the loop, and group inputs read
    after the loop arrive in slices that `accum_concat` reassembles (a
    residual added to a looped matmul). Other contracted and whole classes
    stay whole in every tile, so a norm's or softmax's rows live on chip.
    `kn.reshape`s between two ops of a group become `tb.reshape`s; the
    others stay views. Before grouping, a split into equal pieces becomes a
    view with the piece index as a dim of its own (so gate | up halves cut
    like any elementwise operand), and a scaling op (the record's `scales`:
    mul, div) whose factor is constant along the last dim and that only
    feeds matmuls as their left operand moves after them (softmax(s) @ v
    divides after the product, so the loop can walk the positions).
    **Split-K:** a matmul [m, k] x [k, n] whose best kernel has fewer blocks
    than half the SMs (an MoE router's 64 logits, a narrow decode
    projection) becomes partial products over S slices of k (a batched
    matmul of views, S cut over the grid) and a `reduce_sum` over S, which
    never joins the products' kernel but fuses with what reads the result;
    S is the divisor of k (slices of at least 128) the speed model prices
    cheapest, and the split is kept when it beats the plain matmul by 5%.

    **Launch shapes** come from the speed model (`mirage::estimateKernelUs`
    for `device`, the SM count of the target chip from `tb.target` or
    `chip`): every plan's grid sizes (divisors of the cut classes), loop
    range and the resulting tiles are costed, and the cheapest plan (fewer
    blocks among estimates within 1%) whose block graph the tb verifiers
    accept and the GPU lowering can place in shared memory
    (`mirage::planBlockGraphSharedMemory`) is built. An op left alone gets
    its planned launch shape when that is estimated 5% faster than its
    default kernel.

    **Groups** grow greedily, producer into consumer (largest intermediate
    first) and between ops that read the same tensor, while the fused
    kernel's estimate stays within `tolerance` (5%) of the kernels it
    replaces (unfused ops costed as their default block graphs); the margin
    credits what it spares device memory, which each kernel's estimate alone
    does not count. What must not fuse does not: a reduction whose rows do
    not fit in shared memory and whose consumer needs them again; a norm
    before a matmul whose k would then have to stay whole in too large a
    tile; a value two groups need (it is computed once and written, never
    recomputed); a group whose common grid would starve the GPU or cost
    more than its parts (a norm before a matmul whose k must then stay
    whole: one long mma chain per warp over a deep weight tile); ops with
    `kn.partition` (left to `kn-default-block-graphs`); collectives.
    `kn.data_dependent` carries over to the fused kernel.

    With `persistent`, plans are costed as tasks of a persistent kernel of
    `workers` workers (default: the target's SMs) without launches, one
    task at a time per worker, and have at most 4 blocks (tasks) per
    worker, as `mirage-to-task-graph` needs; an op left unfused is costed
    with the partition `kn-default-block-graphs{persistent}` gives it, and
    an op left alone always takes its planned launch shape where it has
    one. Where the cheapest plan leaves workers idle, a plan within 10% of
    it that gives at least 90% of them a task, reading its tiles in whole
    128-byte rows, is taken instead: such a phase's time depends on where
    its buffers were allocated (docs/Fusion.md).

    Fusion patterns this covers (test/Conversion/fuse.mlir): elementwise
    and broadcast chains; softmax, norms and mean/variance chains with their
    producers and consumers; elementwise prologues and epilogues of
    matmuls, an RMSNorm before a decode-sized matmul, a residual after one;
    RoPE's split, neg, concat, mul and add; gated MLPs (two projections of
    one activation, or gate | up halves before the down projection);
    softmax(s) @ v; independent ops that read the same input.

    **Concatenation views:** in kernels of their own (not with
    `persistent`), a `kn.concat` along an outer dim that no reshape or
    return reads may be marked `kn.view` and join no group: the kernels
    that read it load each tile's rows from the operand holding them, so a
    decode step's KV-cache append costs no kernel and the attention reads
    the cache in place, cut along the positions. The function is fused with
    and without views and the cheaper estimate kept.

    Before grouping, a narrow two-dim matmul may become partial products
    over slices of k (split-K), and with `split-sums` a chain of batched
    ops whose values carry a dim that only sums contract (attention's
    scores along the cache positions, summed by the softmax's row sums and
    the product with the values) may be computed on slices of that dim side
    by side, its sums reduced over the slices after it (flash decoding):
    the function is then fused both ways and the cheaper estimate kept
    (docs/Fusion.md). Folded norms and concatenation views are tried the
    same way, each combination on a copy of the function.
  }];
  let dependentDialects = ["::mirage::tb::BlockDialect"];
  let options = [
    Option<"device", "device", "std::string", /*default=*/"\"h100\"",
           "Device whose speed model costs the plans (h100, h200)">,
    Option<"chip", "chip", "std::string", /*default=*/"\"\"",
           "The chip compiled for, whose shared memory and SMs bound the "
           "plans besides tb.target's (convert-kn-to-gpu's chip)">,
    Option<"targetBlocks", "target-blocks", "int64_t", /*default=*/"264",
           "kn-default-block-graphs' target-blocks, for the cost of the "
           "ops left unfused">,
    Option<"persistent", "persistent", "bool", /*default=*/"false",
           "Cost plans as tasks of a persistent kernel (no launches)">,
    Option<"workers", "workers", "int64_t", /*default=*/"0",
           "The persistent kernel's workers (0: the SMs of the target chip)">,
    Option<"maxGroupOps", "max-group-ops", "int64_t", /*default=*/"64",
           "The most kernel ops one fused kernel may hold">,
    Option<"tolerance", "tolerance", "double", /*default=*/"0.05",
           "Fuse while the fused kernel's estimate is at most this fraction "
           "above the kernels it replaces (it moves fewer bytes)">,
    Option<"splitSums", "split-sums", "bool", /*default=*/"true",
           "Split the sums over a long dim that a chain of batched ops "
           "carries (attention's positions: flash decoding) where the speed "
           "model prices the fused function cheaper; kernels of their own "
           "only (not with persistent)">,
    Option<"foldNorms", "fold-norms", "bool", /*default=*/"true",
           "Fold RMSNorms read only as matmuls' left operands into the "
           "products' kernels (1 / rms applied after the products, the sum "
           "of squares in their k loop) where the speed model prices the "
           "fused function cheaper; the sum of squares is then held in the "
           "element type (docs/Fusion.md: f16 overflows past an rms of "
           "1024)">,
  ];
}

def KnReportTraffic : Pass<"kn-report-traffic", "::mlir::ModuleOp"> {
  let summary = "Report kernels and device-memory traffic of kernel graphs";
  let description = [{
    Emits a remark on every function with what its kernels move through
    device memory: the number of kernels (graph-defined `kn.kernel`s and
    predefined ops, each one launch; `kn.reshape` and a `kn.concat` marked
    `kn.view` are views), the bytes all kernels read and write (each
    kernel's distinct operand tensors and its results, a reshape counted as
    the tensor it views, a concatenation view as its operands), the
    program's minimal
    bytes (the arguments it reads and the results it returns, once each),
    their ratio, and the bytes that go between kernels through device
    memory (results written for another kernel and read back). For
    graph-defined kernels it adds what their blocks load and store, tiles
    re-read by several blocks counted each time (mostly L2 traffic). With
    `per-kernel`, every kernel gets a remark of its own, and a graph-defined
    kernel's also gives the speed model's estimate for `device` (the one
    kn-fuse and the search rank with, `mirage::estimateKernel`): its time,
    the term it is bound by, the memory, compute and latency terms, the
    waves, the blocks resident per SM and one block's critical path, and the
    loads in flight per SM: the input-tile bytes a block has requested ahead
    of its computation as convert-kn-to-gpu pipelines them, times the
    resident blocks (Little's law wants about 25-30 KiB per SM on an H100 or
    H200 to keep DRAM busy). The IR is unchanged.

    ```
    remark: traffic: 2 kernels (2 graph-defined, 0 predefined); kernels
      move 196608 bytes (131072 read, 65536 written), 196608 minimal
      (131072 in, 65536 out): ratio 1.00; 0 bytes between kernels; blocks
      load and store 196608 bytes
    ```

    The ratio is the CPU-side measure of fusion: a chain of elementwise
    ops and reductions fused into one kernel moves its inputs and outputs
    once (ratio 1); each intermediate that goes through device memory adds
    its size twice.
  }];
  let options = [
    Option<"perKernel", "per-kernel", "bool", /*default=*/"false",
           "Also report every kernel's reads, writes and estimate">,
    Option<"device", "device", "std::string", /*default=*/"\"h100\"",
           "Device the per-kernel estimates are for (h100, h200)">,
  ];
}

#endif // MIRAGE_DIALECT_KERNEL_TRANSFORMS_PASSES_TD
