//===- Passes.td - Verification passes ---------------------*- tablegen -*-===//
//
// Part of the Mirage MLIR project.
//
//===----------------------------------------------------------------------===//

#ifndef MIRAGE_VERIFY_PASSES_TD
#define MIRAGE_VERIFY_PASSES_TD

include "mlir/Pass/PassBase.td"

def MirageVerifyEquivalence
    : Pass<"mirage-verify-equivalence", "::mlir::ModuleOp"> {
  let summary = "Check kernel graphs against the programs they claim to compute";
  let description = [{
    Checks every function that names a reference with `kn.reference = @ref`
    (or the one pair given by `candidate` and `reference`) for equivalence,
    by interpreting both on random inputs:

    - finite-field fingerprints over Z_p x Z_q (p = 2^61 - 2595,
      q = (p - 1) / 4) in `trials` independent seeded trials: with exp and
      sqrt as random oracles, agreement proves equivalence of programs in the
      Lax fragment (multilinear ops, division, at most one exponential per
      path) up to the reported false-accept probability; with the paper's
      homomorphic exp (w^x for a random q-th root of unity w), a
      disagreement refutes it;
    - float64 runs on seeded inputs in two regimes (uniform in [-1, 1), and
      magnitudes 2^-10 to 2^10 of both signs) with running error analysis:
      each element of the candidate must lie within twice the sum of both
      programs' rounding bounds of the reference's, and on the [-1, 1)
      inputs every candidate value inside the range of its element type
      (f16: 65504).

    Programs outside the Lax fragment (relu, max, gelu, pow, online-softmax
    rescaling, ...) are only tested, never reported as proven.

    A `tg.graph` built `from @f` is checked against `@f`: every run executes
    its tasks one at a time in a new order drawn at random among those its
    events allow (`task-orders` runs first, which must agree bit for bit),
    on poisoned buffers; a task reading an element no task has written yet,
    writing outside its tile or over another task's element, an element
    nobody writes, or tasks that can never run make it `not equivalent`,
    with the task and element named. Zero divisors
    and square roots of non-residues make a trial draw new inputs.

    The verdict is a remark on the candidate (`proven`, `tested, not
    proven`) or, for a failure (`not equivalent`, `numerically unstable`,
    `inconclusive`), a warning with the first mismatching output element; an
    error with `error-on-failure`.

    ```
    remark: proven: equivalent to @rmsnorm_linear_bs1 (in the Lax fragment);
      3 finite-field trials agree on all 12288 output elements; false-accept
      probability <= 2^-147 (2^-49 per trial, degree 4099); ...
    ```
  }];
  let options = [
    Option<"candidate", "candidate", "std::string", /*default=*/"\"\"",
           "Check only this function (needs `reference`)">,
    Option<"reference", "reference", "std::string", /*default=*/"\"\"",
           "The reference of `candidate`">,
    Option<"trials", "trials", "unsigned", /*default=*/"3",
           "Independent finite-field trials">,
    Option<"seed", "seed", "uint64_t", /*default=*/"1",
           "Seed of the inputs and fingerprint randomness">,
    Option<"maxElements", "max-elements", "int64_t",
           /*default=*/"int64_t(1) << 29",
           "Refuse programs whose tensors hold more elements than this (the "
           "interpreter's memory: 8 to 16 bytes per element)">,
    Option<"taskOrders", "task-orders", "unsigned", /*default=*/"4",
           "Task graphs: random task orders run and compared before the "
           "checks (each check's run draws another)">,
    Option<"errorOnFailure", "error-on-failure", "bool", /*default=*/"false",
           "Report a failed check as an error and fail the pass">,
    Option<"progress", "progress", "bool", /*default=*/"false",
           "One line on stderr per check of each pair as it starts (which "
           "pair of how many, which check, seconds so far, an estimate of "
           "what remains); unset: on when stderr is a terminal">,
    Option<"threads", "threads", "unsigned", /*default=*/"0",
           "Interpreter threads (0: one per core)">,
  ];
}

#endif // MIRAGE_VERIFY_PASSES_TD
