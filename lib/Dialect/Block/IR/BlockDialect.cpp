//===- BlockDialect.cpp - tb dialect, types and attributes ----------------===//
//
// Part of the Mirage MLIR project.
//
//===----------------------------------------------------------------------===//

#include "mirage/Dialect/Block/IR/Block.h"

#include "mirage/IR/GraphUtils.h"
#include "mirage/IR/OperatorOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mirage;
using namespace mirage::tb;

#include "mirage/Dialect/Block/IR/BlockOpsDialect.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "mirage/Dialect/Block/IR/BlockOpsTypes.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "mirage/Dialect/Block/IR/BlockAttributes.cpp.inc"

void BlockDialect::initialize() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "mirage/Dialect/Block/IR/BlockOpsTypes.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "mirage/Dialect/Block/IR/BlockAttributes.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "mirage/Dialect/Block/IR/BlockOps.cpp.inc"
      >();
}

template <>
const OperatorOpTable &mirage::getOperatorOps<BlockDialect>() {
  static const OperatorOpTable table = OperatorOpTable::get<
#define GET_OP_LIST
#include "mirage/Dialect/Block/IR/BlockOps.cpp.inc"
      >();
  return table;
}

LogicalResult BlockDialect::verifyOperationAttribute(Operation *op,
                                                     NamedAttribute attr) {
  if (attr.getName() == getTargetAttrName()) {
    if (!isa<TargetAttr>(attr.getValue()))
      return op->emitError() << "'" << getTargetAttrName()
                             << "' must be a #tb.target attribute, got "
                             << attr.getValue();
    return success();
  }
  return op->emitError() << "unknown tb dialect attribute '"
                         << attr.getName().getValue()
                         << "'; the only one is '" << getTargetAttrName()
                         << "'";
}

//===----------------------------------------------------------------------===//
// TileType
//===----------------------------------------------------------------------===//

Type TileType::parse(AsmParser &parser) {
  return parseShapedType<TileType>(parser);
}

void TileType::print(AsmPrinter &printer) const {
  printShapedType(printer, *this);
}

LogicalResult TileType::verify(function_ref<InFlightDiagnostic()> emitError,
                               ArrayRef<int64_t> shape, Type elementType) {
  return verifyShapeAndElementType(emitError, "tile", shape, elementType);
}

TileType TileType::cloneWith(std::optional<ArrayRef<int64_t>> shape,
                             Type elementType) const {
  return TileType::get(getContext(), shape ? *shape : getShape(), elementType);
}

//===----------------------------------------------------------------------===//
// GridMapAttr and LoopMapAttr: `<x -> 1, y -> replica>`, `<i -> 0>`
//===----------------------------------------------------------------------===//

/// Parses `-> 1` or `-> replica` after a map key.
static ParseResult parseMapTarget(AsmParser &parser, int64_t &dim) {
  if (parser.parseArrow())
    return failure();
  if (succeeded(parser.parseOptionalKeyword("replica"))) {
    dim = kReplica;
    return success();
  }
  return parser.parseInteger(dim);
}

static void printMapTarget(AsmPrinter &printer, int64_t dim) {
  printer << " -> ";
  if (dim == kReplica)
    printer << "replica";
  else
    printer << dim;
}

Attribute GridMapAttr::parse(AsmParser &parser, Type) {
  SmallVector<int64_t> dims;
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseLess())
    return {};
  do {
    if (dims.size() == 3) {
      parser.emitError(parser.getCurrentLocation(),
                       "a grid map has at most 3 entries (x, y, z)");
      return {};
    }
    int64_t dim;
    if (parser.parseKeyword(gridDimName(dims.size())) ||
        parseMapTarget(parser, dim))
      return {};
    dims.push_back(dim);
  } while (succeeded(parser.parseOptionalComma()));
  if (parser.parseGreater())
    return {};
  return getChecked([&] { return parser.emitError(loc); }, parser.getContext(),
                    dims);
}

void GridMapAttr::print(AsmPrinter &printer) const {
  printer << '<';
  for (auto [index, dim] : llvm::enumerate(getDims())) {
    if (index)
      printer << ", ";
    printer << gridDimName(index);
    printMapTarget(printer, dim);
  }
  printer << '>';
}

LogicalResult GridMapAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                  ArrayRef<int64_t> dims) {
  if (dims.empty() || dims.size() > 3)
    return emitError() << "a grid map has 1 to 3 entries, got " << dims.size();
  for (int64_t dim : dims)
    if (dim < 0 && dim != kReplica)
      return emitError() << "a grid map entry is a data dim or replica, got "
                         << dim;
  return success();
}

Attribute LoopMapAttr::parse(AsmParser &parser, Type) {
  SMLoc loc = parser.getCurrentLocation();
  int64_t dim;
  if (parser.parseLess() || parser.parseKeyword("i") ||
      parseMapTarget(parser, dim) || parser.parseGreater())
    return {};
  return getChecked([&] { return parser.emitError(loc); }, parser.getContext(),
                    dim);
}

void LoopMapAttr::print(AsmPrinter &printer) const {
  printer << "<i";
  printMapTarget(printer, getDim());
  printer << '>';
}

LogicalResult LoopMapAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                  int64_t dim) {
  if (dim < 0 && dim != kReplica)
    return emitError() << "a loop map entry is a data dim or replica, got "
                       << dim;
  return success();
}

//===----------------------------------------------------------------------===//
// TargetAttr: `<"sm_90a">`, `<"sm_90a", smem = 65536>`
//===----------------------------------------------------------------------===//

namespace {
struct ChipLimits {
  StringLiteral chip;
  int64_t smemPerBlock;
  int64_t regsPerThread;
  int64_t maxThreadsPerBlock;
  int64_t sms;
};
// Maximum dynamic shared memory per block (opt-in) from the CUDA programming
// guide's compute-capability table; SMs of the flagship part of each chip.
constexpr ChipLimits kKnownChips[] = {
    {"sm_80", 163 * 1024, 255, 1024, 108},
    {"sm_86", 99 * 1024, 255, 1024, 84},
    {"sm_89", 99 * 1024, 255, 1024, 128},
    {"sm_90", 227 * 1024, 255, 1024, 132},
    {"sm_90a", 227 * 1024, 255, 1024, 132},
    {"sm_100a", 227 * 1024, 255, 1024, 148},
};
} // namespace

TargetAttr TargetAttr::getKnown(MLIRContext *context, StringRef chip) {
  for (const ChipLimits &limits : kKnownChips)
    if (limits.chip == chip)
      return get(context, chip, limits.smemPerBlock, limits.regsPerThread,
                 limits.maxThreadsPerBlock, limits.sms);
  return {};
}

SmallVector<StringRef> TargetAttr::getKnownChips() {
  SmallVector<StringRef> chips;
  for (const ChipLimits &limits : kKnownChips)
    chips.push_back(limits.chip);
  return chips;
}

TargetAttr TargetAttr::getDefault(MLIRContext *context) {
  return getKnown(context, "sm_90a");
}

TargetAttr TargetAttr::lookup(Operation *op) {
  for (Operation *current = op; current; current = current->getParentOp())
    if (auto target = current->getAttrOfType<TargetAttr>(
            BlockDialect::getTargetAttrName()))
      return target;
  return getDefault(op->getContext());
}

Attribute TargetAttr::parse(AsmParser &parser, Type) {
  SMLoc loc = parser.getCurrentLocation();
  std::string chip;
  if (parser.parseLess() || parser.parseString(&chip))
    return {};
  TargetAttr known = getKnown(parser.getContext(), chip);
  int64_t smem = known ? known.getSmemPerBlock() : 0;
  int64_t regs = known ? known.getRegsPerThread() : 0;
  int64_t threads = known ? known.getMaxThreadsPerBlock() : 0;
  int64_t sms = known ? known.getSms() : 0;
  bool hasSmem = false, hasRegs = false, hasThreads = false, hasSms = false;
  while (succeeded(parser.parseOptionalComma())) {
    StringRef key;
    SMLoc keyLoc = parser.getCurrentLocation();
    if (parser.parseKeyword(&key) || parser.parseEqual())
      return {};
    int64_t *field = nullptr;
    if (key == "smem") {
      field = &smem;
      hasSmem = true;
    } else if (key == "regs") {
      field = &regs;
      hasRegs = true;
    } else if (key == "threads") {
      field = &threads;
      hasThreads = true;
    } else if (key == "sms") {
      field = &sms;
      hasSms = true;
    } else {
      parser.emitError(keyLoc) << "unknown target limit '" << key
                               << "'; expected smem, regs, threads or sms";
      return {};
    }
    if (parser.parseInteger(*field))
      return {};
  }
  if (parser.parseGreater())
    return {};
  if (!known && !(hasSmem && hasRegs && hasThreads && hasSms)) {
    parser.emitError(loc) << "unknown chip \"" << chip
                          << "\": give smem, regs, threads and sms explicitly";
    return {};
  }
  return getChecked([&] { return parser.emitError(loc); }, parser.getContext(),
                    chip, smem, regs, threads, sms);
}

void TargetAttr::print(AsmPrinter &printer) const {
  printer << "<\"" << getChip() << '"';
  TargetAttr known = getKnown(getContext(), getChip());
  if (!known || known.getSmemPerBlock() != getSmemPerBlock())
    printer << ", smem = " << getSmemPerBlock();
  if (!known || known.getRegsPerThread() != getRegsPerThread())
    printer << ", regs = " << getRegsPerThread();
  if (!known || known.getMaxThreadsPerBlock() != getMaxThreadsPerBlock())
    printer << ", threads = " << getMaxThreadsPerBlock();
  if (!known || known.getSms() != getSms())
    printer << ", sms = " << getSms();
  printer << '>';
}

LogicalResult TargetAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 StringRef chip, int64_t smemPerBlock,
                                 int64_t regsPerThread,
                                 int64_t maxThreadsPerBlock, int64_t sms) {
  if (chip.empty())
    return emitError() << "target chip name is empty";
  if (smemPerBlock <= 0 || regsPerThread <= 0 || maxThreadsPerBlock <= 0 ||
      sms <= 0)
    return emitError() << "target limits must be positive";
  return success();
}
