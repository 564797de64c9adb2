//===- IsolatedRegion.h - Syntax of isolated regions -----------*- C++ -*-===//
//
// Custom assembly directives for the region of every Mirage op that is
// IsolatedFromAbove (kn.kernel, tb.graph, th.graph, tg.graph, tg.kernel):
// `custom<IsolatedRegion>($body)` and, for single-block ops whose `{}` means
// one empty block, `custom<IsolatedBlock>($body)`. They print exactly as the
// plain `$body` directive does.
//
// Why not plain `$body`: the generated parser opens the region's names in
// the enclosing scope, so a definition inside resolves a forward reference
// made outside. When the op's parse then fails after its region (`kn.kernel
// (...) {...}` without its `:` type), the region is freed while the outside
// use still points into it: a use after free found by mirage-fuzz
// (test/Dialect/Kernel/parse-isolated-region.mlir). Parsing the region as
// its own name scope, as the generic form does, keeps inside names inside.
//
//===----------------------------------------------------------------------===//

#ifndef MIRAGE_IR_ISOLATEDREGION_H
#define MIRAGE_IR_ISOLATEDREGION_H

#include "mlir/IR/OpImplementation.h"

namespace mirage {

mlir::ParseResult parseIsolatedRegion(mlir::OpAsmParser &parser,
                                      mlir::Region &region);
void printIsolatedRegion(mlir::OpAsmPrinter &printer, mlir::Operation *op,
                         mlir::Region &region);

/// As above; an empty `{}` gives the region one empty block.
mlir::ParseResult parseIsolatedBlock(mlir::OpAsmParser &parser,
                                     mlir::Region &region);
void printIsolatedBlock(mlir::OpAsmPrinter &printer, mlir::Operation *op,
                        mlir::Region &region);

} // namespace mirage

#endif // MIRAGE_IR_ISOLATEDREGION_H
