//===- Passes.td - Tile-level equality saturation ----------*- tablegen -*-===//
//
// Part of the Mirage MLIR project.
//
//===----------------------------------------------------------------------===//

#ifndef MIRAGE_TILEEQSAT_PASSES_TD
#define MIRAGE_TILEEQSAT_PASSES_TD

include "mlir/Pass/PassBase.td"

def MirageTileEqsat : Pass<"mirage-tile-eqsat", "::mlir::ModuleOp"> {
  let summary = "Rewrite kernel graphs by tile-level equality saturation (Trinity)";
  let description = [{
    For every function of predefined `kn` ops (functions that name a
    `kn.reference`, and those the conversion cannot take, are left alone
    with a remark that says why):

    1. Converts it into Trinity's tile IR: one loop nest per op over its
       result's axes, loads and stores of tiles, symbolic tile sizes
       (docs/TileEqsat.md).
    2. Saturates an e-graph with Trinity's rules: sequence commutation,
       loop fusion, insertion and invariant code motion, algebraic factoring
       in loop bodies, fusion with a fixed tile size and with reindexed
       iteration spaces, the 31 algebraic rules; expression propagation and
       right-associated sequences after every iteration.
    3. Extracts candidates in two passes: loop structures by kernel count
       until `top-k` are collected, each completed greedily with FLOPs per
       computational unit; ranks them with the cost model.
    4. Builds candidates, in rank order, as `kn.kernel`s with block graphs
       and checks each with the IR verifiers (shared memory included) and
       the equivalence verifier (`proven` or `tested` is accepted); the
       first that passes replaces the function's body (with `replace`) if it
       beats the `baseline`: with `fused` (the default), what the default
       path makes of the function (`kn-fuse`, then
       `kn-default-block-graphs`), both costed by the project's speed model
       (the one `kn-report-traffic` prints); with `program`, the function as
       written, by the pass's own estimate.

    A remark on each function reports the e-graph (e-classes, e-nodes,
    programs represented), the saturation and extraction times, the
    candidates, the best loop structure found and the one chosen; when the
    best is not expressible as block graphs it says why, and it counts the
    candidates tried, not expressible, built and rejected, with the first
    reason of each. Progress goes to stderr with `progress`. With
    `keep-candidates=N` the first N candidates that pass the checks stay
    in the module beside the function, for timing on a GPU (the speed
    model's ranking is not the GPU's).

    ```
    mirage-opt --mirage-tile-eqsat="top-k=512 device=h100" attention.mlir
    ```
  }];
  let dependentDialects = ["::mirage::kn::KernelDialect",
                           "::mirage::tb::BlockDialect",
                           "::mlir::func::FuncDialect"];
  let options = [
    Option<"iterations", "iterations", "unsigned", /*default=*/"10",
           "Saturation iterations at most (Trinity: 10)">,
    Option<"nodeLimit", "node-limit", "uint64_t", /*default=*/"200000",
           "E-nodes at most">,
    Option<"timeLimit", "time-limit", "double", /*default=*/"60",
           "Seconds of saturation at most">,
    Option<"rules", "rules", "std::string", /*default=*/"\"all\"",
           "Rule sets: any of loops, fusion, algebra; all; none">,
    Option<"fission", "fission", "bool", /*default=*/"false",
           "Apply loop fission too (with fusion it enumerates every grouping "
           "of a loop's statements)">,
    Option<"propagation", "propagation", "bool", /*default=*/"true",
           "Expression propagation after every iteration">,
    Option<"topK", "top-k", "unsigned", /*default=*/"512",
           "Loop structures to collect (Trinity: 512)">,
    Option<"fullThreshold", "full-threshold", "int64_t", /*default=*/"128",
           "Axes of at most this many elements are kept whole">,
    Option<"tileSize", "tile-size", "int64_t", /*default=*/"64",
           "Symbolic tile sizes when ranking and building kernels">,
    Option<"device", "device", "std::string", /*default=*/"\"h100\"",
           "The cost model's GPU: h100 or h200">,
    Option<"maxBuilt", "max-built", "unsigned", /*default=*/"512",
           "Candidates to try to build as block graphs, in rank order (the "
           "first that builds, verifies and passes the equivalence check is "
           "chosen)">,
    Option<"replace", "replace", "bool", /*default=*/"true",
           "Replace the function by the chosen candidate">,
    Option<"keepCandidates", "keep-candidates", "unsigned", /*default=*/"0",
           "Also keep, beside the function, up to this many candidates that "
           "build and pass the IR verifiers and the equivalence check, "
           "whether or not they beat the baseline, as @<name>_tile<rank>, so "
           "that a GPU run can time them">,
    Option<"baseline", "baseline", "std::string", /*default=*/"\"fused\"",
           "What the chosen candidate must beat to replace the function: "
           "fused (kn-fuse's kernels, by the speed model) or program (the "
           "function as written, by the pass's estimate)">,
    Option<"seed", "seed", "uint64_t", /*default=*/"1",
           "Seed of the verifier's inputs and fingerprints">,
    Option<"maxElements", "max-elements", "int64_t",
           /*default=*/"int64_t(1) << 29",
           "Reject (with the reason) candidates whose check would evaluate "
           "tensors of more elements than this">,
    Option<"details", "details", "bool", /*default=*/"false",
           "Remarks with the extraction's counts, the first candidates that "
           "were not expressible or were rejected, and the chosen "
           "candidate's full verdict; without it, when a candidate is "
           "chosen, one short line">,
    Option<"progress", "progress", "bool", /*default=*/"false",
           "Report saturation iterations and extraction on stderr; unset: "
           "on when stderr is a terminal">,
  ];
}

#endif // MIRAGE_TILEEQSAT_PASSES_TD
