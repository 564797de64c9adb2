//===- Passes.td - linalg and tosa into kernel graphs ------*- tablegen -*-===//
//
// Part of the Mirage MLIR project.
//
//===----------------------------------------------------------------------===//

#ifndef MIRAGE_CONVERSION_FRONTEND_PASSES_TD
#define MIRAGE_CONVERSION_FRONTEND_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertLinalgToKernel : Pass<"convert-linalg-to-kn", "::mlir::ModuleOp"> {
  let summary = "Convert linalg on tensors (and the tensor ops around it) to kn";
  let description = [{
    Converts, in every function, the linalg ops on tensors that PyTorch and
    IREE front ends emit into the `kn` ops that compute exactly the same
    values, so that the Mirage passes (`mirage-superoptimize`,
    `mirage-to-ptx`) can take the program. Every structured op (named or
    `linalg.generic`) is read through its indexing maps and its body:

    - a body of `arith` and `math` ops becomes a scalar expression over the
      operands; the kn operators that compute it are found by matching the
      operators' scalar forms (the operator records): `x * (1 / (1 +
      exp(-x)))` is `kn.silu`, `a * (1 / sqrt(b))` is `kn.div` of a
      `kn.sqrt`, `x * 0.5` is `kn.mul_scalar`. Elementwise ops whose result
      only one structured op reads are folded into it rather than emitted;
    - reductions (`+` or `max` into the output) become `kn.reduce_sum` and
      `kn.reduce_max` (over each reduced dim), a reduced product of two
      operands with one reduced dim and a free one becomes `kn.matmul`
      (matmul, batch_matmul, their transposed forms, matvec, vecmat and
      `linalg.generic` contractions; the factors are grouped so that the
      operands are smallest, and constant factors scale the result), a dot
      product `kn.mul` and `kn.reduce_sum`; an output that is not the
      reduction's identity (`linalg.fill` with 0, or -inf, NaN for
      `maxnumf`, or the lowest finite value for max) is added to the
      result (max with 0 is `kn.relu`);
    - operands read through permutations or broadcasts become `kn.transpose`
      and `kn.reshape` (views) or broadcast in the consuming op;
      `linalg.transpose` and `linalg.broadcast` are such reads;
    - `linalg.softmax` is decomposed (upstream's decomposition) and
      converted; `tensor.expand_shape`, `tensor.collapse_shape` and
      `tensor.reshape` become `kn.reshape`, `tensor.concat` `kn.concat`,
      a static unit-stride `tensor.extract_slice` `kn.split` (and
      `kn.reshape` when it drops dims); `tensor.empty`, `linalg.fill` and
      splat `arith.constant` tensors become the values they stand for.

    What has no exact kn equivalent is refused with an error that names the
    op, its location and the reason: a body op kn does not have (`math.tanh`,
    `arith.cmpf`), a change of element type (`arith.extf`, so f16 matmuls
    accumulating into f32 outputs), indexing maps that are not projections,
    dynamic shapes, a constant or broadcast tensor that would have to be
    materialized, a reciprocal with nothing to divide. With
    `keep-unsupported` such ops stay (a remark says why) and the rest is
    converted; later Mirage passes then refuse the function, naming the
    first op they cannot read, so this is for compilers that handle the
    kept ops themselves.

    kn's semantics are over the reals (docs/Dialects.md), so floating-point
    reassociation (`x / c` as `x * (1 / c)`, folded constants) and NaN
    propagation (`arith.maximumf` and `arith.maxnumf` both become max) are
    not distinguished; constants in operator forms match within two units
    in the last place of the element type.
  }];
  let dependentDialects = [
    "::mirage::kn::KernelDialect", "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect", "::mlir::math::MathDialect",
    "::mlir::tensor::TensorDialect"
  ];
  let options = [
    Option<"keepUnsupported", "keep-unsupported", "bool", /*default=*/"false",
           "Keep the ops that cannot be converted (with a remark) instead of "
           "failing">,
  ];
}

def ConvertTosaToKernel : Pass<"convert-tosa-to-kn", "::mlir::ModuleOp"> {
  let summary = "Convert tosa ops to kn";
  let description = [{
    Converts, in every function, the TOSA ops that have an exact kn
    equivalent:

    - elementwise ops (`add`, `sub`, `mul`, `negate`, `exp`, `reciprocal`,
      `rsqrt`, `sigmoid`, `pow`, `maximum`, `clamp` to [0, +inf), `erf`,
      `identity`) become a scalar expression over their operands, folded
      into their elementwise users when used once; the kn operators that
      compute it come from the operators' scalar forms, as in
      `convert-linalg-to-kn` (`a * reciprocal(b)` is `kn.div`, `x *
      sigmoid(x)` is `kn.silu`, a multiplication by a splat `tosa.const` is
      `kn.mul_scalar`). TOSA broadcasting (equal ranks, size-1 dims
      stretch) is kn's;
    - `matmul` ([N, H, C] x [N, C, W], zero points 0, result of the operand
      element type) becomes `kn.matmul`; `reduce_sum` and `reduce_max`
      `kn.reduce_sum` and `kn.reduce_max` with `keepdim`; `reshape`,
      `transpose` and `concat` their kn ops; `slice` a `kn.split` per
      sliced dim.

    Refused with an error naming the op and the reason: ops with no kn
    operator (`tanh`, `log`, `abs`, `minimum`, convolutions, pooling,
    gather, `tile`, `pad`, ...), `cast` and element-type changing matmuls,
    clamps other than ReLU, non-splat constants where a tensor is needed,
    a reciprocal with nothing to divide, non-zero zero points. With
    `keep-unsupported` they stay (a remark says why) and the rest is
    converted.
  }];
  let dependentDialects = ["::mirage::kn::KernelDialect"];
  let options = [
    Option<"keepUnsupported", "keep-unsupported", "bool", /*default=*/"false",
           "Keep the ops that cannot be converted (with a remark) instead of "
           "failing">,
  ];
}

#endif // MIRAGE_CONVERSION_FRONTEND_PASSES_TD
