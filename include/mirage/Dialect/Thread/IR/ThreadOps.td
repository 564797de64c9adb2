//===- ThreadOps.td - The th (thread graph) dialect --------*- tablegen -*-===//
//
// Part of the Mirage MLIR project.
//
//===----------------------------------------------------------------------===//

#ifndef MIRAGE_DIALECT_THREAD_IR_THREADOPS_TD
#define MIRAGE_DIALECT_THREAD_IR_THREADOPS_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/BuiltinTypeInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mirage/Dialect/Block/IR/BlockTypes.td"
include "mirage/Dialect/Block/IR/BlockAttributes.td"
include "mirage/IR/ComputeOps.td"

def Thread_Dialect : Dialect {
  let name = "th";
  let cppNamespace = "::mirage::th";
  let summary = "Thread graphs: register-level fused bodies inside block graphs";
  let description = [{
    A thread graph (`th.graph`) replaces a chain of block-graph ops by one
    fused body whose intermediate values live in registers, so they never
    touch shared memory. It is a node of a block graph: it reads shared-memory
    tiles and produces shared-memory tiles.

    It has the structure of a block graph one level down. `threads` lays out
    the block's threads in one to three dims (x, y, z). Each thread runs a
    for-loop of `forloop_range` iterations:

    ```
    for each thread t in the layout (in parallel):
      for it in 0 .. F-1:
        each th.input_iterator reads the fragment of its tile where every
          thread dim that imap maps to data dim d takes chunk t_g of d, and
          the loop dim, if fmap maps it to d', takes chunk `it` of d'
        the loop-body ops run on these fragments (registers)
        each accumulator folds its operand (sum, max, concatenation)
      the post-loop ops run on the accumulated fragments
      each th.output_saver writes its fragment into the result tile at
        chunk t_g of the data dim omap maps thread dim g to
    ```

    The same path rule holds as for block graphs: every input-to-output path
    passes one input iterator, one accumulator (at most one when the loop
    range is 1) and one output saver. Fragments must fit in the registers of
    the target (`tb.target`, default 255 32-bit registers per thread).
  }];
  // Thread ops take block-level tiles and maps, which must be registered
  // even where no tb op has been parsed yet.
  let dependentDialects = ["::mirage::tb::BlockDialect"];
  let useDefaultTypePrinterParser = 1;
}

class Thread_Op<string mnemonic, list<Trait> traits = []>
    : Op<Thread_Dialect, mnemonic, traits>;

def Thread_FragType : TypeDef<Thread_Dialect, "Frag", [ShapedTypeInterface]> {
  let mnemonic = "frag";
  let summary = "a per-thread fragment held in registers";
  let description = [{
    The per-thread value of a thread graph: a statically shaped group of
    f16, bf16 or f32 elements in one thread's registers.

    ```mlir
    !th.frag<1x4xf32>
    ```
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$shape,
                        "::mlir::Type":$elementType);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    bool hasRank() const { return true; }
    FragType cloneWith(std::optional<::llvm::ArrayRef<int64_t>> shape,
                       ::mlir::Type elementType) const;
  }];
}

//===----------------------------------------------------------------------===//
// The graph
//===----------------------------------------------------------------------===//

def Thread_GraphOp : Thread_Op<"graph", [IsolatedFromAbove,
    DeclareOpInterfaceMethods<BlockGraphNodeOpInterface>,
                                         HasParent<"::mirage::tb::GraphOp">]> {
  let summary = "a thread graph: a register-level fused body";
  let description = [{
    Operands are shared-memory tiles of the enclosing block graph; the entry
    block's arguments take their types. `th.yield` returns the result tiles,
    each the result of a `th.output_saver`. `threads` lays out the threads
    that run the body (their product is at most the block's threads);
    `forloop_range` is each thread's loop count.

    ```mlir
    %c = th.graph(%a, %b) threads [2, 64] forloop 1 {
    ^bb0(%at: !tb.tile<2x1xf16>, %bt: !tb.tile<2x64xf16>):
      %af = th.input_iterator %at imap <x -> 0, y -> replica> fmap <i -> replica>
          : !tb.tile<2x1xf16> -> !th.frag<1x1xf16>
      %bf = th.input_iterator %bt imap <x -> 0, y -> 1> fmap <i -> replica>
          : !tb.tile<2x64xf16> -> !th.frag<1x1xf16>
      %q = th.div %bf, %af : !th.frag<1x1xf16>, !th.frag<1x1xf16>
      %ct = th.output_saver %q omap <x -> 0, y -> 1>
          : !th.frag<1x1xf16> -> !tb.tile<2x64xf16>
      th.yield %ct : !tb.tile<2x64xf16>
    } : (!tb.tile<2x1xf16>, !tb.tile<2x64xf16>) -> !tb.tile<2x64xf16>
    ```
  }];
  let arguments = (ins Variadic<Block_TileType>:$inputs,
                       DenseI64ArrayAttr:$threads, I64Attr:$forloop_range);
  let results = (outs Variadic<Block_TileType>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    `(` $inputs `)` `threads` $threads `forloop` $forloop_range
    attr-dict-with-keyword custom<IsolatedRegion>($body) `:` functional-type($inputs, $results)
  }];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    bool isLooped() { return getForloopRange() > 1; }
    ::mlir::Block &getBodyBlock() { return getBody().front(); }
    /// The tiling seen by an iterator or saver with the given maps.
    ::mirage::TilingParams getTiling(::llvm::ArrayRef<int64_t> gridMap,
                                     int64_t loopMap);
    /// The peak register bytes per thread of the body's fragments, in
    /// execution order (accumulators live for the whole loop), at 4 bytes
    /// an element: the lowering keeps every fragment element as an f32
    /// value whatever type the fragment declares.
    ::mirage::PeakMemory getRegisterUse();
  }];
}

def Thread_YieldOp : Thread_Op<"yield", [Pure, Terminator, ReturnLike,
                                         HasParent<"GraphOp">]> {
  let summary = "returns the result tiles of a thread graph";
  let arguments = (ins Variadic<Block_TileType>:$outputs);
  let assemblyFormat = "attr-dict ($outputs^ `:` qualified(type($outputs)))?";
}

//===----------------------------------------------------------------------===//
// Iterators, savers and accumulators
//===----------------------------------------------------------------------===//

def Thread_InputIteratorOp : Mirage_SemanticsOp<Thread_Dialect,
    "input_iterator", "InputIterator", [{
      params.tiling = ::mirage::getEnclosingTiling<GraphOp>(
          op.getOperation(), op.getImap().getDims(), op.getFmap().getDim());
    }], [Pure, IsInputIterator, HasParent<"GraphOp">]> {
  let summary = "loads a thread's fragment of a tile into registers";
  let description = [{
    Reads, in each iteration of each thread, the fragment of the input tile
    selected by `imap` (thread dims to data dims) and `fmap` (the loop dim to
    a data dim), exactly as a block-level input iterator does over the grid.
  }];
  let arguments = (ins Block_TileType:$input, Block_GridMapAttr:$imap,
                       Block_LoopMapAttr:$fmap);
  let results = (outs Thread_FragType:$result);
  let assemblyFormat = [{
    $input `imap` $imap `fmap` $fmap attr-dict `:` qualified(type($input)) `->`
    qualified(type($result))
  }];
  let hasVerifier = 1;
}

def Thread_OutputSaverOp : Mirage_SemanticsOp<Thread_Dialect, "output_saver",
    "OutputSaver", [{
      params.tiling = ::mirage::getEnclosingTiling<GraphOp>(
          op.getOperation(), op.getOmap().getDims(), ::mirage::kReplica);
    }], [Pure, IsOutputSaver, HasParent<"GraphOp">]> {
  let summary = "writes every thread's fragment into a result tile";
  let description = [{
    Assembles the result tile from the threads' fragments: every thread dim
    maps (`omap`) to a distinct data dim of the tile, so threads write
    disjoint parts. The result may only be yielded.
  }];
  let arguments = (ins Thread_FragType:$input, Block_GridMapAttr:$omap);
  let results = (outs Block_TileType:$result);
  let assemblyFormat = [{
    $input `omap` $omap attr-dict `:` qualified(type($input)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

def Thread_AccumSumOp : Mirage_InferredOp<Thread_Dialect, "accum_sum",
    "AccumSum", [{}], [Pure, IsAccumulator, HasParent<"GraphOp">]> {
  let summary = "sums a fragment over the thread's loop iterations";
  let arguments = (ins Thread_FragType:$input);
  let results = (outs Thread_FragType:$result);
  let assemblyFormat = "$input attr-dict `:` qualified(type($input))";
}

def Thread_AccumMaxOp : Mirage_InferredOp<Thread_Dialect, "accum_max",
    "AccumMax", [{}], [Pure, IsAccumulator, HasParent<"GraphOp">]> {
  let summary = "elementwise maximum of a fragment over the iterations";
  let arguments = (ins Thread_FragType:$input);
  let results = (outs Thread_FragType:$result);
  let assemblyFormat = "$input attr-dict `:` qualified(type($input))";
}

def Thread_AccumConcatOp : Mirage_SemanticsOp<Thread_Dialect, "accum_concat",
    "AccumConcat", [{
      params.dim = static_cast<int64_t>(op.getDim());
      params.tiling = ::mirage::getEnclosingTiling<GraphOp>(
          op.getOperation(), {}, ::mirage::kReplica);
    }], [Pure, IsAccumulator, HasParent<"GraphOp">]> {
  let summary = "concatenates the per-iteration fragments along a dim";
  let arguments = (ins Thread_FragType:$input, I64Attr:$dim);
  let results = (outs Thread_FragType:$result);
  let assemblyFormat = [{
    $input `dim` $dim attr-dict `:` qualified(type($input)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Compute ops on register fragments
//===----------------------------------------------------------------------===//

defvar ThreadLevel = "register fragments";
defm Thread : ElementwiseOps<Thread_Dialect, Thread_FragType, ThreadLevel,
                             [HasParent<"GraphOp">]>;
defm Thread : ContractionOps<Thread_Dialect, Thread_FragType, ThreadLevel,
                             [HasParent<"GraphOp">]>;

#endif // MIRAGE_DIALECT_THREAD_IR_THREADOPS_TD
