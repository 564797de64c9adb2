//===- BlockDialect.td - The tb (block graph) dialect ------*- tablegen -*-===//
//
// Part of the Mirage MLIR project.
//
//===----------------------------------------------------------------------===//

#ifndef MIRAGE_DIALECT_BLOCK_IR_BLOCKDIALECT_TD
#define MIRAGE_DIALECT_BLOCK_IR_BLOCKDIALECT_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"

def Block_Dialect : Dialect {
  let name = "tb";
  let cppNamespace = "::mirage::tb";
  let summary = "Block graphs: what one thread block of a fused kernel computes";
  let description = [{
    A block graph (`tb.graph`) defines a graph-defined kernel (`kn.kernel`):
    the computation of one thread block, repeated over a grid of up to three
    dims. Its inputs are the kernel's device tensors; every value inside is a
    tile in shared memory (`!tb.tile`); its outputs are device tensors
    assembled from every block's tile.

    Semantics, for grid dims `g` and for-loop range `F`:

    ```
    for each block b in the grid (independent, in parallel):
      for it in 0 .. F-1:
        each tb.input_iterator reads the tile of its input where every grid
          dim that imap maps to data dim d takes chunk b_g of d (size
          |d| / g), a grid dim mapped to `replica` leaves the tensor whole,
          then the loop dim, if fmap maps it to data dim d', takes chunk `it`
          of d' (size |d'| / F); fmap `replica` loads the same tile every
          iteration
        the loop-body ops run on these tiles
        each accumulator folds its operand into its running value
          (sum, max, concatenation of slice `it`, or the rescaled sum of
          online softmax)
      the post-loop ops run on the accumulated tiles
      each tb.output_saver writes its tile into the output at chunk b_g of
        the data dim that omap maps grid dim g to (no replica in omap, so
        blocks write disjoint parts)
    ```

    An op is in the loop body when its operands come from input iterators
    (directly or through other loop-body ops) and after the loop when they
    come from accumulators. Every path from an input to an output passes
    exactly one input iterator, one accumulator and one output saver (at most
    one accumulator when the loop range is 1). Shared-memory use is bounded by
    the target named by a `tb.target` attribute on an enclosing op (default
    sm_90a, 227 KiB per block).
  }];
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let extraClassDeclaration = [{
    /// The discardable attribute, on a module or function, naming the target
    /// whose limits the enclosed block graphs must respect.
    static constexpr ::llvm::StringLiteral getTargetAttrName() {
      return ::llvm::StringLiteral("tb.target");
    }
  }];
}

class Block_Op<string mnemonic, list<Trait> traits = []>
    : Op<Block_Dialect, mnemonic, traits>;

class Block_Type<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<Block_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

class Block_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Block_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

#endif // MIRAGE_DIALECT_BLOCK_IR_BLOCKDIALECT_TD
