//===- IsolatedRegion.cpp - Syntax of isolated regions --------------------===//

#include "mirage/IR/IsolatedRegion.h"

using namespace mlir;

namespace mirage {

ParseResult parseIsolatedRegion(OpAsmParser &parser, Region &region) {
  return parser.parseRegion(region, /*arguments=*/{},
                            /*enableNameShadowing=*/true);
}

void printIsolatedRegion(OpAsmPrinter &printer, Operation *, Region &region) {
  printer.printRegion(region);
}

ParseResult parseIsolatedBlock(OpAsmParser &parser, Region &region) {
  if (failed(parseIsolatedRegion(parser, region)))
    return failure();
  if (region.empty())
    region.emplaceBlock();
  return success();
}

void printIsolatedBlock(OpAsmPrinter &printer, Operation *op, Region &region) {
  printIsolatedRegion(printer, op, region);
}

} // namespace mirage
