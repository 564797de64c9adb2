//===- BlockOps.td - tb dialect ops ------------------------*- tablegen -*-===//
//
// Part of the Mirage MLIR project.
//
//===----------------------------------------------------------------------===//

#ifndef MIRAGE_DIALECT_BLOCK_IR_BLOCKOPS_TD
#define MIRAGE_DIALECT_BLOCK_IR_BLOCKOPS_TD

include "mirage/Dialect/Block/IR/BlockDialect.td"
include "mirage/Dialect/Block/IR/BlockTypes.td"
include "mirage/Dialect/Block/IR/BlockAttributes.td"
include "mirage/IR/ComputeOps.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"

// Device tensors a block graph reads and writes.
def Block_DeviceTensor : StaticShapeTensorOf<[F16, BF16, F32]>;

//===----------------------------------------------------------------------===//
// The graph
//===----------------------------------------------------------------------===//

def Block_GraphOp : Block_Op<"graph", [IsolatedFromAbove]> {
  let summary = "a block graph: one thread block's computation over a grid";
  let description = [{
    The body of a graph-defined kernel. `grid` has one to three dims (x, y,
    z); `threads` is the number of threads per block; `forloop_range` is the
    number of iterations of the for-loop. The entry block's arguments are the
    kernel's input device tensors; `tb.yield` returns the output device
    tensors, each the result of a `tb.output_saver`. See the dialect
    description for the full semantics.

    ```mlir
    tb.graph grid [96] threads 128 forloop 64 {
    ^bb0(%x: tensor<2x4096xf16>, %w: tensor<4096x6144xf16>):
      %xt = tb.input_iterator %x imap <x -> replica> fmap <i -> 1>
          : tensor<2x4096xf16> -> !tb.tile<2x64xf16>
      %wt = tb.input_iterator %w imap <x -> 1> fmap <i -> 0>
          : tensor<4096x6144xf16> -> !tb.tile<64x64xf16>
      %p = tb.matmul %xt, %wt : !tb.tile<2x64xf16>, !tb.tile<64x64xf16>
      %acc = tb.accum_sum %p : !tb.tile<2x64xf16>
      %out = tb.output_saver %acc omap <x -> 1>
          : !tb.tile<2x64xf16> -> tensor<2x6144xf16>
      tb.yield %out : tensor<2x6144xf16>
    }
    ```

    The verifier checks the grid, thread and loop bounds, the loop structure
    (every input-to-output path passes exactly one input iterator, one
    accumulator and one output saver) and that the tiles fit in the shared
    memory of the target (`tb.target`, default sm_90a).
  }];
  let arguments = (ins DenseI64ArrayAttr:$grid, I64Attr:$threads,
                       I64Attr:$forloop_range);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    `grid` $grid `threads` $threads `forloop` $forloop_range
    attr-dict-with-keyword custom<IsolatedRegion>($body)
  }];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    /// True when the body runs more than one iteration.
    bool isLooped() { return getForloopRange() > 1; }
    ::mlir::Block &getBodyBlock() { return getBody().front(); }
    /// The tiling seen by an iterator or saver with the given maps.
    ::mirage::TilingParams getTiling(::llvm::ArrayRef<int64_t> gridMap,
                                     int64_t loopMap);
    /// The peak shared memory of the body's tiles live at once in execution
    /// order (loop body, then post-loop ops; accumulators live for the
    /// whole loop and count in f32, as the code keeps them), each tile once:
    /// what getBlockGraphMemory falls back to without the lowering's plan.
    ::mirage::PeakMemory getLiveTileMemory();
    /// Bytes one block moves between device memory and shared memory: each
    /// input iterator's tile once per iteration (once in all where its fmap
    /// replicates), and each saved tile once.
    int64_t getDeviceBytesPerBlock();
  }];
}

def Block_YieldOp : Block_Op<"yield", [Pure, Terminator, ReturnLike,
                                       HasParent<"GraphOp">]> {
  let summary = "returns the outputs of a block graph";
  let description = [{
    Terminates a `tb.graph`. Each operand is the result of a
    `tb.output_saver`, in the order of the kernel's results.
  }];
  let arguments = (ins Variadic<Block_DeviceTensor>:$outputs);
  let assemblyFormat = "attr-dict ($outputs^ `:` qualified(type($outputs)))?";
}

//===----------------------------------------------------------------------===//
// Iterators and savers
//===----------------------------------------------------------------------===//

def Block_InputIteratorOp : Mirage_SemanticsOp<Block_Dialect, "input_iterator",
    "InputIterator", [{
      params.tiling = ::mirage::getEnclosingTiling<GraphOp>(
          op.getOperation(), op.getImap().getDims(), op.getFmap().getDim());
    }], [Pure, IsInputIterator, HasParent<"GraphOp">]> {
  let summary = "loads a tile of a kernel input into shared memory";
  let description = [{
    Reads, in each iteration of each block, the tile of the input device
    tensor selected by `imap` (grid dims to data dims) and `fmap` (the loop
    dim to a data dim). The result type must be that tile's shape; a data dim
    that does not divide evenly is an error that names the dim.

    ```mlir
    %wt = tb.input_iterator %w imap <x -> 1> fmap <i -> 0>
        : tensor<4096x6144xf16> -> !tb.tile<64x64xf16>
    ```
  }];
  let arguments = (ins Block_DeviceTensor:$input, Block_GridMapAttr:$imap,
                       Block_LoopMapAttr:$fmap);
  let results = (outs Block_TileType:$result);
  let assemblyFormat = [{
    $input `imap` $imap `fmap` $fmap attr-dict `:` qualified(type($input)) `->`
    qualified(type($result))
  }];
  let hasVerifier = 1;
}

def Block_OutputSaverOp : Mirage_SemanticsOp<Block_Dialect, "output_saver",
    "OutputSaver", [{
      params.tiling = ::mirage::getEnclosingTiling<GraphOp>(
          op.getOperation(), op.getOmap().getDims(), ::mirage::kReplica);
    }], [Pure, IsOutputSaver, HasParent<"GraphOp">]> {
  let summary = "writes every block's tile into a kernel output";
  let description = [{
    Assembles the output device tensor: the tile of block `b` goes to chunk
    `b_g` of the data dim that `omap` maps grid dim `g` to. Every grid dim
    must map to a distinct data dim (no `replica`), so blocks write disjoint
    parts. The result may only be yielded.

    ```mlir
    %out = tb.output_saver %acc omap <x -> 1>
        : !tb.tile<2x64xf16> -> tensor<2x6144xf16>
    ```
  }];
  let arguments = (ins Block_TileType:$input, Block_GridMapAttr:$omap);
  let results = (outs Block_DeviceTensor:$result);
  let assemblyFormat = [{
    $input `omap` $omap attr-dict `:` qualified(type($input)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Accumulators
//===----------------------------------------------------------------------===//

class Block_AccumOp<string mnemonic, string kind, code params = [{}]>
    : Mirage_InferredOp<Block_Dialect, mnemonic, kind, params,
                        [Pure, IsAccumulator, HasParent<"GraphOp">]> {
  let results = (outs Block_TileType:$result);
}

def Block_AccumSumOp : Block_AccumOp<"accum_sum", "AccumSum"> {
  let summary = "sums a tile over the for-loop iterations";
  let description = [{
    The result, available after the loop, is the elementwise sum of the
    operand over all iterations (the paper's `Accum` with map φ).
  }];
  let arguments = (ins Block_TileType:$input);
  let assemblyFormat = "$input attr-dict `:` qualified(type($input))";
}

def Block_AccumMaxOp : Block_AccumOp<"accum_max", "AccumMax"> {
  let summary = "takes the elementwise maximum of a tile over the iterations";
  let description = [{
    The result, available after the loop, is the elementwise maximum of the
    operand over all iterations.
  }];
  let arguments = (ins Block_TileType:$input);
  let assemblyFormat = "$input attr-dict `:` qualified(type($input))";
}

def Block_AccumConcatOp : Mirage_SemanticsOp<Block_Dialect, "accum_concat",
    "AccumConcat", [{
      params.dim = static_cast<int64_t>(op.getDim());
      params.tiling = ::mirage::getEnclosingTiling<GraphOp>(
          op.getOperation(), {}, ::mirage::kReplica);
    }], [Pure, IsAccumulator, HasParent<"GraphOp">]> {
  let summary = "concatenates the per-iteration tiles along a dim";
  let description = [{
    Iteration `it` writes its operand into slice `it` of dim `dim` of the
    result, whose size along `dim` is the loop range times the operand's
    (the paper's `Accum` with map `m = dim`).

    ```mlir
    %all = tb.accum_concat %t dim 1 : !tb.tile<16x64xf16> -> !tb.tile<16x4096xf16>
    ```
  }];
  let arguments = (ins Block_TileType:$input, I64Attr:$dim);
  let results = (outs Block_TileType:$result);
  let assemblyFormat = [{
    $input `dim` $dim attr-dict `:` qualified(type($input)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

def Block_AccumRescaledSumOp : Block_AccumOp<"accum_rescaled_sum",
                                             "AccumRescaledSum"> {
  let summary = "the rescaled sum of online softmax";
  let description = [{
    For an operand `x_it` computed relative to a per-iteration maximum
    `m_it` (typically `x_it = exp(s_it - m_it) * ...` with
    `m_it = reduce_max(s_it)`), the result after the loop is

    ```
    sum over it of  x_it * exp(m_it - M),   M = max over it of m_it
    ```

    with `m_it` broadcast to the shape of `x_it`. This is the running
    rescaling of online softmax (FlashAttention): every term is expressed
    relative to the final maximum, so the numerator `sum(exp(s - M) * v)` and
    the denominator `sum(exp(s - M))` of softmax can be accumulated in one
    pass without overflow, and their quotient is the exact softmax-weighted
    sum. `M` itself is `tb.accum_max` of `m_it`.

    ```mlir
    %l = tb.accum_rescaled_sum %rowsum, %m : !tb.tile<64x1xf32>, !tb.tile<64x1xf32>
    ```
  }];
  let arguments = (ins Block_TileType:$input, Block_TileType:$local_max);
  let assemblyFormat = [{
    $input `,` $local_max attr-dict `:` qualified(type($input)) `,` qualified(type($local_max))
  }];
}

//===----------------------------------------------------------------------===//
// Compute ops on shared-memory tiles
//===----------------------------------------------------------------------===//

defvar BlockLevel = "shared-memory tiles";
defm Block : ElementwiseOps<Block_Dialect, Block_TileType, BlockLevel,
                            [HasParent<"GraphOp">]>;
defm Block : ContractionOps<Block_Dialect, Block_TileType, BlockLevel,
                            [HasParent<"GraphOp">]>;
defm Block : TensorOps<Block_Dialect, Block_TileType, BlockLevel,
                       [HasParent<"GraphOp">]>;

#endif // MIRAGE_DIALECT_BLOCK_IR_BLOCKOPS_TD
