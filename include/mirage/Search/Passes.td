//===- Passes.td - Superoptimization passes ----------------*- tablegen -*-===//
//
// Part of the Mirage MLIR project.
//
//===----------------------------------------------------------------------===//

#ifndef MIRAGE_SEARCH_PASSES_TD
#define MIRAGE_SEARCH_PASSES_TD

include "mlir/Pass/PassBase.td"

def MirageSuperoptimize : Pass<"mirage-superoptimize", "::mlir::ModuleOp"> {
  let summary = "Replace kernel-graph programs by the best verified µGraph a search finds";
  let description = [{
    For every function of predefined `kn` ops (functions that name a
    `kn.reference` are left alone):

    1. Splits the body into subprograms the verifier can prove: maximal runs
       of consecutive predefined ops in the Lax fragment (operators with a
       finite-field fingerprint, at most one exponential on any path), at
       most `max-subprogram-ops` long. Ops outside the fragment (relu, max,
       gelu, pow), collectives and single-op runs stay as they are.
    2. Searches each subprogram (Mirage v3 Algorithm 1): kernel and block
       graphs in canonical order, pruned by abstract expressions checked
       with Z3, outputs matched by expression and axis labels, block graphs
       scheduled from their dimension classes, ranked by an analytical cost
       model. A kernel graph ranks only after a float64 screen against the
       subprogram. Progress goes to stderr.
    3. Verifies candidates in rank order with the equivalence verifier
       (`proven` or `tested` is accepted) until `top-k` pass, and replaces
       the subprogram by the best of them, or keeps it when its own estimated
       cost is lower. No unverified candidate is ever used or written.

    A remark on each function reports the search (time, graphs explored,
    Z3 queries) and the choice. `top-k-file` writes each subprogram and its
    verified candidates as functions with `kn.reference`, ready for
    `mirage-bundle` and a GPU run; `timings` reads that run's results.json
    back and chooses by measured time. `report` writes an HTML page with,
    per subprogram, the program and every ranked candidate (its kernels,
    estimated and measured time, verdict: proven, tested, rejected and why,
    or not checked once `top-k` passed), how many candidates the float64
    screen turned away and why, and a bar chart of the times; the same
    tables go to stderr. A kernel graph with an op whose results reach no
    output is never a candidate: the graph without it is one already.

    ```
    mirage-opt --mirage-superoptimize="time-budget=600 top-k-file=top.mlir" in.mlir
    ```
  }];
  let dependentDialects = ["::mirage::kn::KernelDialect",
                           "::mirage::tb::BlockDialect",
                           "::mlir::func::FuncDialect"];
  let options = [
    Option<"maxKernelOps", "max-kernel-ops", "unsigned", /*default=*/"5",
           "Most kernel operators in a µGraph">,
    Option<"maxBlockOps", "max-block-ops", "unsigned", /*default=*/"11",
           "Most operators (compute ops and accumulators) in a block graph">,
    Option<"maxCustomOps", "max-custom-ops", "unsigned", /*default=*/"1",
           "Most graph-defined kernels in a µGraph">,
    Option<"maxCustomInputs", "max-custom-inputs", "unsigned", /*default=*/"4",
           "Most inputs of a graph-defined kernel">,
    Option<"maxBlockOutputs", "max-block-outputs", "unsigned", /*default=*/"2",
           "Most outputs of a graph-defined kernel">,
    Option<"maxSubprogramOps", "max-subprogram-ops", "unsigned",
           /*default=*/"8", "Most ops of a searched subprogram">,
    Option<"searchThreads", "threads", "unsigned", /*default=*/"0",
           "Search and verifier threads (0: one per core)">,
    Option<"timeBudget", "time-budget", "double", /*default=*/"0",
           "Seconds per subprogram (0: search the whole space)">,
    Option<"maxBlockGraphs", "max-block-graphs", "uint64_t",
           /*default=*/"2000000",
           "Block graphs kept in memory at most (about 1 KB each); the "
           "search stops there like at the end of its time budget">,
    Option<"pruning", "pruning", "bool", /*default=*/"true",
           "Prune with abstract expressions (off only for ablation)">,
    Option<"topK", "top-k", "unsigned", /*default=*/"3",
           "Candidates to verify and write (the best is used)">,
    Option<"topKFile", "top-k-file", "std::string", /*default=*/"\"\"",
           "Write each subprogram and its verified candidates here">,
    Option<"timings", "timings", "std::string", /*default=*/"\"\"",
           "A GPU run's results.json for the top-k file: choose by measured "
           "time">,
    Option<"checkpointDir", "checkpoint-dir", "std::string",
           /*default=*/"\"\"",
           "Save and resume each subprogram's search state in this directory">,
    Option<"device", "device", "std::string", /*default=*/"\"h100\"",
           "The cost model's GPU: h100 or h200">,
    Option<"threadsPerBlock", "threads-per-block", "int64_t",
           /*default=*/"128", "Threads of every graph-defined kernel">,
    Option<"seed", "seed", "uint64_t", /*default=*/"1",
           "Seed of the verifier's inputs and fingerprints">,
    Option<"maxElements", "max-elements", "int64_t",
           /*default=*/"int64_t(1) << 29",
           "Skip (with a remark) subprograms whose tensors hold more elements "
           "than this: the verifier could not evaluate them">,
    Option<"details", "details", "bool", /*default=*/"false",
           "Remarks with the search's counters (graphs, schedules, Z3 "
           "queries), the first rejection and the chosen candidate's full "
           "verdict; without it they are one short line">,
    Option<"progressInterval", "progress", "double", /*default=*/"10",
           "Seconds between progress lines on stderr (0: none)">,
    Option<"report", "report", "std::string", /*default=*/"\"\"",
           "Write an HTML page of every candidate weighed (structure, "
           "estimated and measured time, verdict) here, and print its "
           "tables on stderr">,
  ];
}

#endif // MIRAGE_SEARCH_PASSES_TD
