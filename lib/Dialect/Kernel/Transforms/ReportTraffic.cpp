//===- ReportTraffic.cpp - Kernels and device-memory traffic --------------===//
//
// kn-report-traffic (see Passes.td): per function, the kernels and the
// bytes they move through device memory against the program's minimal
// bytes.
//
//===----------------------------------------------------------------------===//

#include "mirage/Dialect/Kernel/Transforms/Passes.h"

#include "mirage/CostModel/CostModel.h"
#include "mirage/Dialect/Block/IR/Block.h"
#include "mirage/Dialect/Kernel/IR/Kernel.h"
#include "mirage/Dialect/Kernel/Transforms/BlockGraphBuilder.h"
#include "mirage/IR/GraphUtils.h"
#include "mirage/IR/OptionChecks.h"
#include "mirage/IR/SemanticsOpInterface.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/FormatVariadic.h"

namespace mirage::kn {
#define GEN_PASS_DEF_KNREPORTTRAFFIC
#include "mirage/Dialect/Kernel/Transforms/Passes.h.inc"
} // namespace mirage::kn

using namespace mlir;
using namespace mirage;
using namespace mirage::kn;

namespace {

int64_t bytesOf(Value value) {
  return getByteSize(cast<ShapedType>(value.getType()));
}

struct KnReportTraffic
    : public kn::impl::KnReportTrafficBase<KnReportTraffic> {
  using Base::Base;

  std::optional<std::string> checkOptions() const {
    return checkOptionValue("kn-report-traffic", "device", device,
                            DeviceModel::getNames());
  }
  MIRAGE_CHECK_PASS_OPTIONS_AT_PARSE

  void runOnOperation() override {
    getOperation().walk([&](func::FuncOp function) {
      if (!function.isExternal())
        report(function);
    });
    markAllAnalysesPreserved();
  }

  /// The speed model's view of a kernel on the device of the options, on
  /// the SMs of its target.
  std::string describeEstimate(KernelOp kernel) {
    KernelEstimate model =
        estimateGraphKernel(kernel, *DeviceModel::get(device));
    const KernelTimeBreakdown &estimate = model.time;
    auto resident = static_cast<int64_t>(estimate.residentPerSM);
    double inFlightKiB = model.loadsInFlightPerSM / 1024.0;
    return llvm::formatv(
               "; estimated {0:F1} us on {1}, {2}-bound (memory {3:F1}, "
               "compute {4:F1}, latency {5:F1} us: {6} wave{7} of {8} "
               "block{9} per SM, {10:F2} us each; {11:F1} KiB of loads in "
               "flight per SM)",
               estimate.us, device, estimate.getBound(), estimate.memoryUs,
               estimate.computeUs, estimate.latencyUs,
               static_cast<int64_t>(estimate.waves),
               estimate.waves == 1 ? "" : "s", resident,
               resident == 1 ? "" : "s", estimate.blockUs, inFlightKiB)
        .str();
  }

  /// The tensors reading `value` reads: what a reshape views, or the parts
  /// of a concatenation view.
  static SmallVector<Value> getReadTensors(Value value) {
    Value root = getReshapeRoot(value);
    ConcatOp view = getConcatView(root);
    if (!view)
      return {root};
    SmallVector<Value> parts;
    for (Value part : view.getInputs())
      parts.push_back(getReshapeRoot(part));
    return parts;
  }

  void report(func::FuncOp function) {
    Block &body = function.getBody().front();
    SmallVector<Operation *> kernels;
    for (Operation &op : body)
      if (isa<KernelOp>(op) || (isa<SemanticsOpInterface>(op) &&
                                !isa<ReshapeOp>(op) && !isConcatView(&op)))
        kernels.push_back(&op);
    // Who reads each tensor, and which tensors the function returns.
    llvm::DenseMap<Value, SmallVector<Operation *>> readers;
    llvm::SmallSetVector<Value, 8> returned;
    for (Operation *op : kernels) {
      llvm::SmallSetVector<Value, 8> read;
      for (Value operand : op->getOperands())
        read.insert_range(getReadTensors(operand));
      for (Value value : read)
        readers[value].push_back(op);
    }
    for (Value value : body.getTerminator()->getOperands())
      returned.insert(getReshapeRoot(value));

    int64_t readBytes = 0, writeBytes = 0, between = 0, written = 0,
            readBack = 0, blockBytes = 0;
    int graphDefined = 0;
    for (auto [index, op] : llvm::enumerate(kernels)) {
      int64_t reads = 0, writes = 0, fromKernels = 0, toKernels = 0;
      llvm::SmallSetVector<Value, 8> read;
      for (Value operand : op->getOperands())
        read.insert_range(getReadTensors(operand));
      for (Value value : read) {
        reads += bytesOf(value);
        if (!isa<BlockArgument>(value))
          fromKernels += bytesOf(value);
      }
      for (Value result : op->getResults()) {
        writes += bytesOf(result);
        if (readers.count(result))
          toKernels += bytesOf(result);
      }
      readBytes += reads;
      writeBytes += writes;
      readBack += fromKernels;
      written += toKernels;
      std::string blocks;
      if (auto kernel = dyn_cast<KernelOp>(op)) {
        ++graphDefined;
        tb::GraphOp graph = kernel.getBlockGraph();
        int64_t loaded = getNumElements(graph.getGrid()) *
                         graph.getDeviceBytesPerBlock();
        blockBytes += loaded;
        blocks = llvm::formatv("; its {0} blocks load and store {1} bytes",
                               getNumElements(graph.getGrid()), loaded)
                     .str();
        if (perKernel)
          blocks += describeEstimate(kernel);
      } else {
        blockBytes += reads + writes;
      }
      if (perKernel)
        op->emitRemark() << llvm::formatv(
            "kernel #{0}: reads {1} bytes ({2} written by other kernels), "
            "writes {3} bytes ({4} read by other kernels){5}",
            index, reads, fromKernels, writes, toKernels, blocks);
    }
    between = written + readBack;
    int64_t inputs = 0, outputs = 0;
    for (BlockArgument arg : body.getArguments())
      if (readers.count(arg) || returned.contains(arg))
        inputs += bytesOf(arg);
    for (Value value : returned)
      outputs += bytesOf(value);
    int64_t moved = readBytes + writeBytes;
    int64_t minimal = inputs + outputs;
    double ratio = minimal ? static_cast<double>(moved) / minimal : 0.0;
    function.emitRemark() << llvm::formatv(
        "traffic: {0} kernel{1} ({2} graph-defined, {3} predefined); kernels "
        "move {4} bytes ({5} read, {6} written), {7} minimal ({8} in, {9} "
        "out): ratio {10:F2}; {11} bytes between kernels ({12} written, {13} "
        "read back); blocks load and store {14} bytes",
        kernels.size(), kernels.size() == 1 ? "" : "s", graphDefined,
        kernels.size() - graphDefined, moved, readBytes, writeBytes, minimal,
        inputs, outputs, ratio, between, written, readBack, blockBytes);
  }
};

} // namespace
