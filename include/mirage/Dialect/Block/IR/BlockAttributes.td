//===- BlockAttributes.td - tb dialect attributes ----------*- tablegen -*-===//
//
// Part of the Mirage MLIR project.
//
//===----------------------------------------------------------------------===//

#ifndef MIRAGE_DIALECT_BLOCK_IR_BLOCKATTRIBUTES_TD
#define MIRAGE_DIALECT_BLOCK_IR_BLOCKATTRIBUTES_TD

include "mirage/Dialect/Block/IR/BlockDialect.td"

def Block_GridMapAttr : Block_Attr<"GridMap", "grid_map"> {
  let summary = "map from grid dims to data dims (imap, omap)";
  let description = [{
    One entry per grid dim (`x`, then `y`, then `z`, as many as the graph's
    grid has). An entry names the data dim of the mapped tensor that is
    partitioned evenly over that grid dim, or `replica` when every block
    along that grid dim sees the whole tensor (the paper's φ). Two grid dims
    may not map to the same data dim. Used as `imap` of input iterators and
    as `omap` of output savers (which allow no `replica`), at block level
    over the grid and at thread level over the thread layout.

    ```mlir
    #tb.grid_map<x -> 1, y -> replica>
    ```
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$dims);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

def Block_LoopMapAttr : Block_Attr<"LoopMap", "loop_map"> {
  let summary = "map from the for-loop dim to a data dim (fmap)";
  let description = [{
    Names the data dim of an input that is partitioned evenly over the
    iterations of the for-loop (`i`), or `replica` when every iteration loads
    the same tile.

    ```mlir
    #tb.loop_map<i -> 0>
    #tb.loop_map<i -> replica>
    ```
  }];
  let parameters = (ins "int64_t":$dim);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    bool isReplica() const { return getDim() == ::mirage::kReplica; }
  }];
}

def Block_TargetAttr : Block_Attr<"Target", "target"> {
  let summary = "the GPU whose limits block and thread graphs must respect";
  let description = [{
    Names a chip, its per-block limits (shared memory per block in bytes,
    registers per thread, threads per block) and its number of SMs (the
    workers of a persistent kernel). Known chips fill in their limits; any
    limit can be overridden. Attach it to a module or function as the
    discardable attribute `tb.target`; graphs without one are checked
    against sm_90a (232448 bytes = 227 KiB of shared memory per block, 255
    registers per thread, 1024 threads per block, 132 SMs).

    ```mlir
    module attributes {tb.target = #tb.target<"sm_80">} { ... }
    #tb.target<"sm_90a", smem = 65536, sms = 114>
    ```

    Known chips: sm_80 (163 KiB, 108 SMs: A100), sm_86 (99 KiB, 84 SMs:
    A10-class), sm_89 (99 KiB, 128 SMs: L40-class), sm_90 and sm_90a
    (227 KiB, 132 SMs: H100 and H200 SXM), sm_100a (227 KiB, 148 SMs: B200).
  }];
  let parameters = (ins StringRefParameter<"chip name">:$chip,
                        "int64_t":$smemPerBlock,
                        "int64_t":$regsPerThread,
                        "int64_t":$maxThreadsPerBlock,
                        "int64_t":$sms);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The limits of a known chip, or null when the chip is unknown.
    static TargetAttr getKnown(::mlir::MLIRContext *context,
                               ::llvm::StringRef chip);
    /// The names of the known chips, in the order of their table.
    static ::llvm::SmallVector<::llvm::StringRef> getKnownChips();
    /// The default target, sm_90a.
    static TargetAttr getDefault(::mlir::MLIRContext *context);
    /// The target in effect at `op`: the `tb.target` attribute of the closest
    /// enclosing op that has one, else the default.
    static TargetAttr lookup(::mlir::Operation *op);
  }];
}

#endif // MIRAGE_DIALECT_BLOCK_IR_BLOCKATTRIBUTES_TD
