//===- ComputeOps.td - Compute ops shared by kn, tb and th -----*- tablegen -*-===//
//
// The compute operators exist at the kernel (`kn`, device tensors), block
// (`tb`, shared-memory tiles) and thread (`th`, register fragments) levels with
// the same meaning. They are written once here as multiclasses and
// instantiated by each dialect with its value type:
//
//   defm Kernel : ElementwiseOps<Kernel_Dialect, Kernel_Tensor, "device tensors">;
//
// gives `Kernel_ExpOp` (C++ `mirage::kn::ExpOp`, `kn.exp`) and so on. Every op
// binds to its operator record through SemanticsOpInterface; result types come
// from that record's shape rule.
//
//===----------------------------------------------------------------------===//

#ifndef MIRAGE_IR_COMPUTEOPS_TD
#define MIRAGE_IR_COMPUTEOPS_TD

include "mlir/IR/OpBase.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mirage/IR/SemanticsOpInterface.td"

// An op bound to the operator record `kind` (a mirage::OpKind enumerator).
// `params` is C++ that fills `params` (a mirage::OpParams) from `op`, which is
// the op itself or, during type inference, its adaptor.
class Mirage_SemanticsOp<Dialect dialect, string mnemonic, string kind,
                         code params, list<Trait> traits = []>
    : Op<dialect, mnemonic, !listconcat(traits, [SemanticsOpInterface])> {
  let extraClassDeclaration = [{
    static ::mirage::OpKind getOpKind() { return ::mirage::OpKind::}] # kind # [{; }
    template <typename OpOrAdaptor>
    static ::mirage::OpParams buildOpParams([[maybe_unused]] OpOrAdaptor op) {
      ::mirage::OpParams params;
      }] # params # [{
      return params;
    }
    ::mirage::OpParams getOpParams() { return buildOpParams(*this); }
  }];
}

// An op whose result types are inferred by the operator's shape rule.
class Mirage_InferredOp<Dialect dialect, string mnemonic, string kind,
                        code params, list<Trait> traits = []>
    : Mirage_SemanticsOp<dialect, mnemonic, kind, params,
                         !listconcat(traits, [InferTypeOpAdaptor])> {
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *, std::optional<::mlir::Location> location,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &types) {
      return ::mirage::inferResultTypes(getOperationName(), getOpKind(),
                                        buildOpParams(adaptor),
                                        adaptor.getOperands().getTypes(),
                                        location, types);
    }
  }];
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

class Mirage_UnaryOp<Dialect dialect, string mnemonic, string kind, Type T,
                     string level, list<Trait> levelTraits, string formula>
    : Mirage_InferredOp<dialect, mnemonic, kind, [{}],
                        !listconcat(levelTraits, [Pure])> {
  let summary = "elementwise " # formula;
  let description = "Computes `" # formula # "` for every element of `input`, "
                    # "one of the " # level # " of this level. The result has "
                    # "the operand's type.";
  let arguments = (ins T:$input);
  let results = (outs T:$result);
  let assemblyFormat = "$input attr-dict `:` qualified(type($input))";
}

class Mirage_ScalarOp<Dialect dialect, string mnemonic, string kind, Type T,
                      string level, list<Trait> levelTraits, string formula>
    : Mirage_InferredOp<dialect, mnemonic, kind,
                        [{ params.scalar = op.getScalar().convertToDouble(); }],
                        !listconcat(levelTraits, [Pure])> {
  let summary = "elementwise " # formula # " with a constant scalar";
  let description = "Computes `" # formula # "` for every element `x` of "
                    # "`input` (" # level # ") and the f64 constant `s`, "
                    # "rounded to the element type.";
  let arguments = (ins T:$input, F64Attr:$scalar);
  let results = (outs T:$result);
  let assemblyFormat = "$input `,` $scalar attr-dict `:` qualified(type($input))";
}

class Mirage_BinaryOp<Dialect dialect, string mnemonic, string kind, Type T,
                      string level, list<Trait> levelTraits, string formula>
    : Mirage_InferredOp<dialect, mnemonic, kind, [{}],
                        !listconcat(levelTraits, [Pure])> {
  let summary = "elementwise " # formula # " with broadcasting";
  let description = "Computes `" # formula # "` elementwise on two " # level
                    # " with numpy-style broadcasting: shapes are aligned on "
                    # "the right and a dim of size 1 stretches to the other "
                    # "operand's size. Both operands have the same element type.";
  let arguments = (ins T:$lhs, T:$rhs);
  let results = (outs T:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` qualified(type($lhs)) `,` qualified(type($rhs))";
}

multiclass ElementwiseOps<Dialect dialect, Type T, string level,
                          list<Trait> levelTraits = []> {
  def _ExpOp : Mirage_UnaryOp<dialect, "exp", "Exp", T, level, levelTraits, "e^x">;
  def _SqrtOp : Mirage_UnaryOp<dialect, "sqrt", "Sqrt", T, level, levelTraits, "sqrt(x)">;
  def _SquareOp : Mirage_UnaryOp<dialect, "square", "Square", T, level, levelTraits, "x * x">;
  def _SiluOp : Mirage_UnaryOp<dialect, "silu", "Silu", T, level, levelTraits,
                               "x / (1 + e^-x)">;
  def _SigmoidOp : Mirage_UnaryOp<dialect, "sigmoid", "Sigmoid", T, level,
                                  levelTraits, "1 / (1 + e^-x)">;
  def _GeluOp : Mirage_UnaryOp<dialect, "gelu", "Gelu", T, level, levelTraits,
                               "x * Phi(x) (exact, erf-based GELU)">;
  def _ReluOp : Mirage_UnaryOp<dialect, "relu", "Relu", T, level, levelTraits, "max(x, 0)">;
  def _NegOp : Mirage_UnaryOp<dialect, "neg", "Neg", T, level, levelTraits, "-x">;
  def _TanhOp : Mirage_UnaryOp<dialect, "tanh", "Tanh", T, level, levelTraits, "tanh(x)">;
  def _RsqrtOp : Mirage_UnaryOp<dialect, "rsqrt", "Rsqrt", T, level, levelTraits, "1 / sqrt(x)">;
  def _MulScalarOp : Mirage_ScalarOp<dialect, "mul_scalar", "MulScalar", T,
                                     level, levelTraits, "x * s">;
  def _AddScalarOp : Mirage_ScalarOp<dialect, "add_scalar", "AddScalar", T,
                                     level, levelTraits, "x + s">;
  def _AddOp : Mirage_BinaryOp<dialect, "add", "Add", T, level, levelTraits, "lhs + rhs">;
  def _SubOp : Mirage_BinaryOp<dialect, "sub", "Sub", T, level, levelTraits, "lhs - rhs">;
  def _MulOp : Mirage_BinaryOp<dialect, "mul", "Mul", T, level, levelTraits, "lhs * rhs">;
  def _DivOp : Mirage_BinaryOp<dialect, "div", "Div", T, level, levelTraits, "lhs / rhs">;
  def _PowOp : Mirage_BinaryOp<dialect, "pow", "Pow", T, level, levelTraits, "lhs ^ rhs">;
  def _MaximumOp : Mirage_BinaryOp<dialect, "maximum", "Maximum", T, level,
                                   levelTraits, "max(lhs, rhs)">;
}

//===----------------------------------------------------------------------===//
// Contractions and reductions
//===----------------------------------------------------------------------===//

class Mirage_ReduceOp<Dialect dialect, string mnemonic, string kind, Type T,
                      string level, list<Trait> levelTraits, string what>
    : Mirage_InferredOp<dialect, mnemonic, kind, [{
        params.dim = static_cast<int64_t>(op.getDim());
        // Default-valued attributes are absent until verification fills them.
        auto keepdim = op.getKeepdimAttr();
        params.keepDim = !keepdim || keepdim.getValue();
      }], !listconcat(levelTraits, [Pure])> {
  let summary = what # " over one dim";
  let description = "Reduces `input` (" # level # ") by " # what # " over "
                    # "dim `dim`. With `keepdim` (the default) the reduced dim "
                    # "stays with size 1, so the result broadcasts against the "
                    # "input; with `keepdim = false` it is removed.";
  let arguments = (ins T:$input, I64Attr:$dim,
                       DefaultValuedAttr<BoolAttr, "true">:$keepdim);
  let results = (outs T:$result);
  // keepdim is part of the format, not attr-dict: inference during parsing
  // sees only the attributes the format itself parses.
  let assemblyFormat = [{
    $input `dim` $dim (`keepdim` `=` $keepdim^)? attr-dict `:`
    qualified(type($input))
  }];
}

multiclass ContractionOps<Dialect dialect, Type T, string level,
                          list<Trait> levelTraits = []> {
  def _MatmulOp : Mirage_InferredOp<dialect, "matmul", "Matmul", [{}],
                                    !listconcat(levelTraits, [Pure])> {
    let summary = "matrix multiplication, batched over leading dims";
    let description = "Multiplies the two innermost dims of `lhs` [..., m, k] "
                      # "and `rhs` [..., k, n] (" # level # ") into "
                      # "[..., m, n]. Leading (batch) dims broadcast like an "
                      # "elementwise op. Operands share the element type; "
                      # "accumulation precision is the lowering's choice "
                      # "(f32 on tensor cores).";
    let arguments = (ins T:$lhs, T:$rhs);
    let results = (outs T:$result);
    let assemblyFormat = "$lhs `,` $rhs attr-dict `:` qualified(type($lhs)) `,` qualified(type($rhs))";
  }
  def _ReduceSumOp : Mirage_ReduceOp<dialect, "reduce_sum", "ReduceSum", T,
                                     level, levelTraits, "sum">;
  def _ReduceMaxOp : Mirage_ReduceOp<dialect, "reduce_max", "ReduceMax", T,
                                     level, levelTraits, "maximum">;
}

//===----------------------------------------------------------------------===//
// Normalization and data movement
//===----------------------------------------------------------------------===//

multiclass TensorOps<Dialect dialect, Type T, string level,
                     list<Trait> levelTraits = []> {
  def _RmsNormOp : Mirage_InferredOp<dialect, "rms_norm", "RmsNorm",
      [{
        auto eps = op.getEpsAttr();
        params.scalar = eps ? eps.getValueAsDouble() : 0.0;
      }],
      !listconcat(levelTraits, [Pure])> {
    let summary = "RMS normalization over the last dim";
    let description = "For each row `x` along the last dim of `input` ("
                      # level # "): `y = x / sqrt(mean(x * x) + eps) * w`, "
                      # "where the optional `weight` `w` is 1-D with the size "
                      # "of the last dim (1 when absent) and `eps` defaults "
                      # "to 0.";
    let arguments = (ins T:$input, Optional<T>:$weight,
                         DefaultValuedAttr<F64Attr, "0.0">:$eps);
    let results = (outs T:$result);
    let assemblyFormat = [{
      $input (`weight` $weight^)? attr-dict `:` qualified(type($input))
      (`,` qualified(type($weight))^)?
    }];
  }
  def _ConcatOp : Mirage_InferredOp<dialect, "concat", "Concat",
      [{ params.dim = static_cast<int64_t>(op.getDim()); }],
      !listconcat(levelTraits, [Pure])> {
    let summary = "concatenation along one dim";
    let description = "Concatenates `inputs` (" # level # ") along `dim`. "
                      # "All other dims must agree.";
    let arguments = (ins Variadic<T>:$inputs, I64Attr:$dim);
    let results = (outs T:$result);
    let assemblyFormat = "$inputs `dim` $dim attr-dict `:` qualified(type($inputs))";
  }
  def _SplitOp : Mirage_InferredOp<dialect, "split", "Split", [{
        params.dim = static_cast<int64_t>(op.getDim());
        params.ints.assign(op.getSizes().begin(), op.getSizes().end());
      }], !listconcat(levelTraits, [Pure])> {
    let summary = "split along one dim into pieces of given sizes";
    let description = "Splits `input` (" # level # ") along `dim` into one "
                      # "result per entry of `sizes`; the sizes sum to the "
                      # "dim's size.";
    let arguments = (ins T:$input, I64Attr:$dim, DenseI64ArrayAttr:$sizes);
    let results = (outs Variadic<T>:$results);
    let assemblyFormat = "$input `dim` $dim `sizes` $sizes attr-dict `:` qualified(type($input))";
  }
  def _ReshapeOp : Mirage_SemanticsOp<dialect, "reshape", "Reshape", [{
        auto shape = ::llvm::cast<::mlir::ShapedType>(op.getType()).getShape();
        params.ints.assign(shape.begin(), shape.end());
      }], !listconcat(levelTraits, [Pure])> {
    let summary = "reinterpretation of the elements in a new shape";
    let description = "Returns the elements of `input` (" # level # ") in "
                      # "row-major order with the result type's shape; the "
                      # "element count and type are unchanged.";
    let arguments = (ins T:$input);
    let results = (outs T:$result);
    let assemblyFormat = "$input attr-dict `:` qualified(type($input)) `->` qualified(type($result))";
    let hasVerifier = 1;
  }
  def _TransposeOp : Mirage_InferredOp<dialect, "transpose", "Transpose", [{
        params.ints.assign(op.getPermutation().begin(),
                           op.getPermutation().end());
      }], !listconcat(levelTraits, [Pure])> {
    let summary = "permutation of dims";
    let description = "Result dim `i` is dim `permutation[i]` of `input` ("
                      # level # ").";
    let arguments = (ins T:$input, DenseI64ArrayAttr:$permutation);
    let results = (outs T:$result);
    let assemblyFormat = "$input `permutation` $permutation attr-dict `:` qualified(type($input))";
  }
}

#endif // MIRAGE_IR_COMPUTEOPS_TD
