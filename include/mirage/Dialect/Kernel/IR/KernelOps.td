//===- KernelOps.td - The kn (kernel graph) dialect --------*- tablegen -*-===//
//
// Part of the Mirage MLIR project.
//
//===----------------------------------------------------------------------===//

#ifndef MIRAGE_DIALECT_KERNEL_IR_KERNELOPS_TD
#define MIRAGE_DIALECT_KERNEL_IR_KERNELOPS_TD

include "mlir/IR/OpBase.td"
include "mirage/IR/ComputeOps.td"

def Kernel_Dialect : Dialect {
  let name = "kn";
  let cppNamespace = "::mirage::kn";
  let summary = "Kernel graphs: tensor programs over device memory";
  let description = [{
    A kernel graph is a `func.func` whose body is a DAG of `kn` ops over
    builtin ranked tensors (f16, bf16 or f32, static shapes) that live in GPU
    device memory. Each op is one kernel launched over the whole GPU: either a
    predefined operator (matmul, elementwise, reduction, normalization, data
    movement, all-reduce) or a graph-defined kernel, `kn.kernel`, whose
    computation is given by the block graph (`tb.graph`) in its region.

    Values are immutable tensors: an op reads its operands and defines new
    results. Result types are inferred from operand types by the operator's
    shape rule (except `kn.reshape`, whose result type is written and
    checked). Elementwise binary ops broadcast numpy-style.

    ```mlir
    func.func @rmsnorm_linear(%x: tensor<2x4096xf16>, %g: tensor<4096xf16>,
                              %w: tensor<4096x6144xf16>) -> tensor<2x6144xf16> {
      %y = kn.rms_norm %x weight %g : tensor<2x4096xf16>, tensor<4096xf16>
      %z = kn.matmul %y, %w : tensor<2x4096xf16>, tensor<4096x6144xf16>
      return %z : tensor<2x6144xf16>
    }
    ```

    A function may name the program it implements with the discardable
    attribute `kn.reference = @other`; the equivalence verifier checks the
    pair. The named function must exist and have the same type.

    A predefined op may carry `kn.partition = array<i64: ...>`, the number
    of blocks (tasks) along each dim of its iteration space (`getDimMap`:
    its result's dims; its operand's for split and reductions; a matmul's
    result dims then k; trailing reduced dims, such as k, may be left
    out), which
    `kn-default-block-graphs` then uses instead of choosing one, and
    `kn.data_dependent` (a unit attribute) when its time depends on the data
    (its mega-kernel tasks are dispatched just in time).

    `kn.view` (a unit attribute) on a `kn.concat` along any dim but the
    innermost makes it a view: no kernel computes it, and the kernels that
    read it load each tile's rows from the operand that holds them
    (`kn-fuse` sets it on a decode step's KV-cache append, so that the
    attention reads the cache in place). Only graph-defined kernels and
    predefined ops may read a view: not `kn.reshape` and not the function's
    return.
  }];
  let hasOperationAttrVerify = 1;
  let extraClassDeclaration = [{
    /// On a function: the function it claims to compute the same result as.
    static constexpr ::llvm::StringLiteral getReferenceAttrName() {
      return ::llvm::StringLiteral("kn.reference");
    }
    /// On a predefined op: the blocks along each dim of its iteration space.
    static constexpr ::llvm::StringLiteral getPartitionAttrName() {
      return ::llvm::StringLiteral("kn.partition");
    }
    /// On an op: its time depends on the data.
    static constexpr ::llvm::StringLiteral getDataDependentAttrName() {
      return ::llvm::StringLiteral("kn.data_dependent");
    }
    /// On a kn.concat: read in place by its users, never materialized.
    static constexpr ::llvm::StringLiteral getViewAttrName() {
      return ::llvm::StringLiteral("kn.view");
    }
  }];
}

class Kernel_Op<string mnemonic, list<Trait> traits = []>
    : Op<Kernel_Dialect, mnemonic, traits>;

def Kernel_Tensor : StaticShapeTensorOf<[F16, BF16, F32]>;

defvar KernelLevel = "device tensors";
defm Kernel : ElementwiseOps<Kernel_Dialect, Kernel_Tensor, KernelLevel>;
defm Kernel : ContractionOps<Kernel_Dialect, Kernel_Tensor, KernelLevel>;
defm Kernel : TensorOps<Kernel_Dialect, Kernel_Tensor, KernelLevel>;

def Kernel_AllReduceOp : Mirage_InferredOp<Kernel_Dialect, "all_reduce",
                                           "AllReduce", [{}]> {
  let summary = "sum over the devices of the tensor-parallel group";
  let description = [{
    Every device of the tensor-parallel group contributes its `input`, and
    every device receives the elementwise sum. With one device it is the
    identity. It is a collective, so it is neither hoisted nor removed by
    generic transformations.

    ```mlir
    %s = kn.all_reduce %partial : tensor<16x4096xf16>
    ```
  }];
  let arguments = (ins Kernel_Tensor:$input);
  let results = (outs Kernel_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

def Kernel_KernelOp : Kernel_Op<"kernel", [IsolatedFromAbove, SingleBlock,
                                           NoTerminator]> {
  let summary = "a graph-defined kernel: one launch computing a block graph";
  let description = [{
    A fused kernel whose computation is the block graph (`tb.graph`) held in
    its region, the only op there. The operands are bound, in order, to the
    block graph's inputs (its entry block arguments, which must have the same
    types); the results are the block graph's outputs (the operands of its
    `tb.yield`).

    ```mlir
    %z = kn.kernel(%x, %w) {
      tb.graph grid [96] threads 128 forloop 64 {
      ^bb0(%xd: tensor<2x4096xf16>, %wd: tensor<4096x6144xf16>):
        ...
        tb.yield %out : tensor<2x6144xf16>
      }
    } : (tensor<2x4096xf16>, tensor<4096x6144xf16>) -> tensor<2x6144xf16>
    ```
  }];
  let arguments = (ins Variadic<Kernel_Tensor>:$inputs);
  let results = (outs Variadic<Kernel_Tensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    `(` $inputs `)` attr-dict-with-keyword custom<IsolatedBlock>($body) `:`
    functional-type($inputs, $results)
  }];
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    /// The block graph defining this kernel (null only in invalid IR).
    ::mirage::tb::GraphOp getBlockGraph();
  }];
}

#endif // MIRAGE_DIALECT_KERNEL_IR_KERNELOPS_TD
