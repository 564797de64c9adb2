//===- BlockTypes.td - tb dialect types --------------------*- tablegen -*-===//
//
// Part of the Mirage MLIR project.
//
//===----------------------------------------------------------------------===//

#ifndef MIRAGE_DIALECT_BLOCK_IR_BLOCKTYPES_TD
#define MIRAGE_DIALECT_BLOCK_IR_BLOCKTYPES_TD

include "mirage/Dialect/Block/IR/BlockDialect.td"
include "mlir/IR/BuiltinTypeInterfaces.td"

def Block_TileType : Block_Type<"Tile", "tile", [ShapedTypeInterface]> {
  let summary = "a tile in shared memory";
  let description = [{
    The per-block value of a block graph: a statically shaped tile of f16,
    bf16 or f32 elements held in the shared memory of one thread block.

    ```mlir
    !tb.tile<16x64xf16>
    ```
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$shape,
                        "::mlir::Type":$elementType);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    bool hasRank() const { return true; }
    TileType cloneWith(std::optional<::llvm::ArrayRef<int64_t>> shape,
                       ::mlir::Type elementType) const;
  }];
}

#endif // MIRAGE_DIALECT_BLOCK_IR_BLOCKTYPES_TD
