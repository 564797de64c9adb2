//===- TaskToGPU.cpp - The convert-tg-to-gpu pass -------------------------===//
//
// A scheduled, linearized task graph becomes one persistent kernel: a
// gpu.module holding a device function per distinct block graph (the task
// bodies, built by the block-graph lowering) and the kernel, whose CTAs are
// the graph's workers. Each worker runs its queue from the tables
// (MegaKernel.h): every thread loads the task's body, block and buffer
// addresses, thread 0 waits on the task's events with acquire loads, a
// barrier hands the wait to the CTA, the CTA runs the body, a barrier
// collects its writes and the first warp's lanes signal the events the task
// triggers, one each (a release fence, then a relaxed add). Options: before the
// wait, the CTA issues the copies of the task's read-only inputs' first stages
// into shared memory (preload, on by default), or a warp beside the bodies'
// issues them while the task before runs, in shared memory it does not use
// (preload-warp); the CTA prefetches into L2,
// before the wait, what a coming task reads of the buffers no task writes
// (prefetch-bytes); workers claim tasks from one shared counter instead of
// running fixed queues (dynamic-dispatch), or, beside their queues, the
// just-in-time tasks; with a trace buffer, thread 0 records each task's
// times.
//
//===----------------------------------------------------------------------===//

#include "mirage/Conversion/Passes.h"

#include "../KernelToGPU/Codegen.h"
#include "mirage/Conversion/MegaKernel.h"
#include "mirage/Dialect/Block/IR/Block.h"
#include "mirage/Dialect/Task/IR/Task.h"
#include "mirage/IR/OptionChecks.h"
#include "mlir/Conversion/LLVMCommon/MemRefBuilder.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/DLTI/DLTI.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"

namespace mirage {
#define GEN_PASS_DEF_CONVERTTASKTOGPU
#include "mirage/Conversion/Passes.h.inc"
} // namespace mirage

using namespace mlir;
using namespace mirage;
using namespace mirage::megakernel;

/// Backoff of a waiting thread: nanoseconds of the first sleep and the most.
static constexpr int32_t kFirstSleepNs = 8, kMaxSleepNs = 256;
/// A warp's lanes.
static constexpr int64_t kWarpLanes = 32;
/// The lanes that signal a task's events side by side: the first warp's.
static constexpr int64_t kSignalLanes = kWarpLanes;
/// The L2 line a prefetch brings in.
static constexpr int64_t kLineBytes = 128;
/// The preload warp's backoff between polls (preload-warp).
static constexpr int32_t kPreloadWarpSleepNs = 64;
/// The alignment of a task body's shared memory (the swizzle's period).
static constexpr int64_t kBodySharedAlignment = 1024;

namespace {
/// What a worker prefetches: at most `bytes` of each task's read-only
/// inputs, `ahead` tasks before it runs the task (0: just before its wait).
struct PrefetchOptions {
  int64_t bytes = 0;
  unsigned ahead = 1;
};

/// The shared-memory word through which thread 0 hands a dynamically
/// claimed task to the CTA, and the static shared memory it takes (ptxas
/// aligns the dynamic share after it to 1 KiB).
constexpr llvm::StringLiteral kClaimedTaskSuffix = "_claimed_task";
constexpr int64_t kClaimedTaskSharedBytes = 1024;
/// With a preload warp, two shared-memory words (the same static share):
/// how many tasks of its queue the worker finished, and how many preload
/// copies of the warp's lanes landed (one per lane per task).
constexpr llvm::StringLiteral kPreloadWordsSuffix = "_preload_words";
enum PreloadWord : int64_t { FinishedWord, LandedWord, kPreloadWords };
/// The finished count once the bodies' threads left their queue (at its
/// end, or stopped by a wait that gave up): past every count the warp
/// waits for, and telling it to issue no more copies.
constexpr int32_t kQueueStopped = std::numeric_limits<int32_t>::max();
/// The shared memory "before" a queue's first task, [0, kAllShared): it
/// overlaps every body's, so the task's own threads issue its copies (the
/// warp alone issues them more slowly, and the body would wait for every
/// preloaded stage instead of its first: a 1-layer step started 1 µs
/// later).
constexpr int32_t kAllShared = std::numeric_limits<int32_t>::max();

/// The kernel's inputs that are concatenations (tg.concat), as the body's
/// lowering reads them.
SmallVector<codegen::ConcatInput> getConcatInputs(tg::KernelOp kernel) {
  SmallVector<codegen::ConcatInput> concats;
  for (auto [position, input] : llvm::enumerate(kernel.getInputs()))
    if (auto concat = input.getDefiningOp<tg::ConcatOp>())
      concats.push_back(codegen::ConcatInput::get(
          static_cast<unsigned>(position),
          static_cast<int64_t>(concat.getDim()), concat.getParts().getTypes()));
  return concats;
}
} // namespace

namespace {

/// Whether some body has a function of this kind (preload, prefetch).
bool hasAny(ArrayRef<func::FuncOp> functions) {
  return llvm::any_of(functions, [](func::FuncOp f) { return bool(f); });
}

class MegaKernelLowering {
public:
  MegaKernelLowering(tg::GraphOp graph, Tables tables,
                     const codegen::Options &options,
                     const PrefetchOptions &prefetch, bool preloadSparesLeader,
                     bool preloadWarp)
      : graph(graph), tables(std::move(tables)), options(options),
        prefetch(prefetch), preloadSparesLeader(preloadSparesLeader),
        preloadWarp(preloadWarp) {}

  LogicalResult lower();

private:
  /// Per body, its function and (with options.preload, where its block copies
  /// tiles of read-only inputs in its prologue) the function that issues
  /// those copies.
  LogicalResult buildBodies();
  /// Per body, a function that prefetches into L2 the first bytes one
  /// block reads of its read-only inputs (null where it reads none).
  void buildPrefetchers();
  void buildKernel();
  /// The wait of one task on one event, run by thread 0: spins until the
  /// event's counter reaches this run's target or the deadline, counted
  /// from `start` (%globaltimer when the task's first wait began), passes.
  /// Returns whether it gave up (recording why in the state when it is the
  /// first to).
  Value emitWait(OpBuilder &b, Value task, Value event, Value start);
  /// What a task's body needs from the tables: its body, block coordinates
  /// and buffer addresses (as many as the most any body takes, the ones
  /// past its kernel's unused).
  struct TaskOperands {
    Value body;
    std::array<Value, 3> coordinates;
    SmallVector<Value> addresses;
  };
  /// Loads them, all independent of any event: a task issues these loads
  /// before its wait, so that their latency hides behind it.
  TaskOperands loadTaskOperands(OpBuilder &b, Value taskRecord);
  /// Calls `functions[body]` for the task (a switch over the bodies; an
  /// empty task, or a null function, does nothing), passing the thread
  /// index, the block coordinates and the kernel's buffers, as memrefs or,
  /// with `addresses`, as device addresses (i64). `thread` stands in for
  /// the thread index where given.
  void emitDispatch(OpBuilder &b, const TaskOperands &task,
                    ArrayRef<func::FuncOp> functions, bool addresses,
                    Value thread = Value());
  /// Runs task `task` (an i32 index): thread 0 waits on its events, the CTA
  /// runs its body and the first warp's lanes signal. Returns whether the wait
  /// gave up (the same for every thread). With `claimNext`, thread 0 also
  /// claims the next task from the shared counter once its wait is over (so
  /// that the claim's latency hides behind the body), and `claimNext` holds the
  /// claim (i64, in thread 0).
  /// A task's part in the preload warp's protocol (preload-warp): whether
  /// the warp issues its preload copies (i1), how many of its lanes' copies
  /// thread 0 waits to have landed before the body (i32), and the count of
  /// the worker's tasks finished once it ends (i32).
  struct WarpPreload {
    Value byWarp, landedTarget, finished;
  };
  Value emitTask(OpBuilder &b, Value task, Value *claimNext,
                 const WarpPreload *warp = nullptr);
  /// Thread 0 records %globaltimer as `point` of `task` where the trace
  /// argument is not null, at once (a time held across the body's call
  /// would be spilled).
  void emitTrace(OpBuilder &b, Value task, TracePoint point);
  /// Thread 0 claims a task from the shared counter (dynamic dispatch, or
  /// just-in-time tasks), where `when` (if given) holds: the claim (i64), 0
  /// elsewhere.
  Value emitClaim(OpBuilder &b, Value when = Value());
  /// The worker loops: over the worker's queue (static dispatch), or over
  /// the tasks it claims, in the graph's order, from a counter that every
  /// worker shares (dynamic). Both yield whether a wait gave up.
  void emitStaticQueue(OpBuilder &b, Value failedBefore);
  void emitDynamicQueue(OpBuilder &b, Value failedBefore);
  /// The shared-memory word through which thread 0 hands a claim to the
  /// CTA (dynamic dispatch, just-in-time tasks).
  Value getClaimedWord(OpBuilder &b);
  /// The first claim of this run, when each run claims `claimable` tasks
  /// and every worker one more (past them).
  Value getFirstClaim(OpBuilder &b, int64_t claimable);
  /// Thread 0 stores `claim` (i64) in `claimed` as an index among the
  /// `claimable` tasks counted from `firstClaim` (`claimable` when it is
  /// past them, or before them: counters left by a failed run).
  void publishClaim(OpBuilder &b, Value claim, Value firstClaim,
                    int64_t claimable, Value claimed);
  /// Static dispatch: runs the just-in-time tasks this worker claims, one
  /// after another, while the one it holds comes before task `bound` (an
  /// i32 table index; all of them without one) and no wait gave up.
  /// Returns whether a wait gave up (or had before, `stopped`).
  Value emitJitTasks(OpBuilder &b, Value bound, Value stopped, Value claimed,
                     Value firstClaim);
  /// Prefetches for the tasks a worker reaches `prefetch.ahead` tasks from
  /// queue position `position` (all of them up to there at the queue's
  /// start, `begin`; none past its `end`).
  void emitPrefetches(OpBuilder &b, Value position, Value begin, Value end);
  /// The thread index, read anew (see emitDispatch), less `first`, bounded
  /// by `count` threads (by default the bodies').
  Value readThreadIndex(OpBuilder &b, int64_t first = 0, int64_t count = 0);
  /// The task's preload copies (before its wait): by every thread, or,
  /// with preloadSparesLeader, by every warp but the first.
  void emitPreloads(OpBuilder &b, const TaskOperands &operands);
  /// What the preload warp and the body's threads both derive from a
  /// task's body index: whether the body has preload copies (i1), and the
  /// bytes of shared memory it uses, [begin, end) (i32; empty for an empty
  /// task).
  struct BodyFacts {
    Value preloads, begin, end;
  };
  BodyFacts getBodyFacts(OpBuilder &b, Value body);
  /// Whether the shared memory of two bodies' tasks overlaps (i1).
  Value overlaps(OpBuilder &b, const BodyFacts &one, const BodyFacts &other);
  /// Whether the preload warp issues the preload copies of a task with
  /// body `facts` after one with body `previous` on the same worker: where
  /// they do not overlap, the copies can land while the previous task runs.
  Value isPreloadedByWarp(OpBuilder &b, const BodyFacts &previous,
                          const BodyFacts &facts);
  /// The preload warp's loop over the worker's queue (preload-warp).
  void emitPreloadWarp(OpBuilder &b, Value failedBefore);
  /// The 32-bit shared-memory address of a preload word.
  Value getPreloadWord(OpBuilder &b, PreloadWord word);
  /// Polls a preload word with CTA-scope acquire loads, sleeping `sleepNs`
  /// between them, until it reaches `target` (i32); the value last read.
  Value emitWaitForWord(OpBuilder &b, PreloadWord word, Value target,
                        int32_t sleepNs);
  /// Thread 0 stores the finished count (i32) with CTA-scope release.
  void emitStoreFinished(OpBuilder &b, Value count);
  /// Inline PTX with side effects and a memory clobber; `result` null for
  /// none.
  Value emitPtx(OpBuilder &b, Type result, StringRef ptx, StringRef constraints,
                ValueRange operands);
  /// The threads the kernel is launched with: the bodies', and the preload
  /// warp.
  int64_t getLaunchThreads() const {
    return tables.threads + (preloadWarp ? kWarpLanes : 0);
  }
  /// A barrier over the bodies' threads (named barrier 1 beside a preload
  /// warp), ORing `value` (i32) over them where given.
  Value emitBodyBarrier(OpBuilder &b, Value value = Value());

  Value constI32(OpBuilder &b, int64_t value) {
    return arith::ConstantIntOp::create(b, loc, value, 32);
  }
  Value constI64(OpBuilder &b, int64_t value) {
    return arith::ConstantIntOp::create(b, loc, value, 64);
  }
  Value constIndex(OpBuilder &b, int64_t value) {
    return arith::ConstantIndexOp::create(b, loc, value);
  }
  Value toIndex(OpBuilder &b, Value value) {
    return arith::IndexCastOp::create(b, loc, b.getIndexType(), value);
  }
  /// Element `index` of a 1-D table argument.
  Value load(OpBuilder &b, Value table, Value index) {
    return memref::LoadOp::create(b, loc, table, ValueRange{index});
  }
  Value loadState(OpBuilder &b, StateSlot slot) {
    return load(b, args[StateArg], constIndex(b, slot));
  }
  Value loadField(OpBuilder &b, Value record, TaskField field) {
    return load(b, args[TasksArg],
                arith::AddIOp::create(b, loc, record, constIndex(b, field)));
  }
  static_assert(Wait == Waits + 1 && MoreWaits == Waits + 2 &&
                    Trigger == Triggers + 1 && MoreTriggers == Triggers + 2,
                "a count is followed by its first event and list start");
  /// Event `k` of a task's waits (`count` is Waits) or triggers (Triggers):
  /// the first from the record, the others from the event-list table, from
  /// the list start `more` where it was read already.
  Value loadEvent(OpBuilder &b, Value record, TaskField count, Value k,
                  Value more = Value()) {
    auto first = static_cast<TaskField>(count + 1);
    auto which = scf::IfOp::create(
        b, loc, TypeRange{b.getI32Type()},
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, k,
                              constIndex(b, 0)),
        /*withElseRegion=*/true);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(which.thenBlock());
    scf::YieldOp::create(b, loc, loadField(b, record, first));
    b.setInsertionPointToStart(which.elseBlock());
    if (!more)
      more =
          toIndex(b, loadField(b, record, static_cast<TaskField>(count + 2)));
    Value entry = arith::AddIOp::create(
        b, loc, more, arith::SubIOp::create(b, loc, k, constIndex(b, 1)));
    scf::YieldOp::create(b, loc, load(b, args[EventListsArg], entry));
    return which.getResult(0);
  }
  /// The device address of element `index` (i32) of an i64 table argument.
  Value getElementPointer(OpBuilder &b, Value table, Value index);
  /// A relaxed GPU-scope add of one to element `index` of an i64 table;
  /// the element's value before.
  Value increment(OpBuilder &b, Value table, Value index) {
    return LLVM::AtomicRMWOp::create(
        b, loc, LLVM::AtomicBinOp::add, getElementPointer(b, table, index),
        constI64(b, 1), LLVM::AtomicOrdering::monotonic, "device");
  }
  /// A special register read anew each time: inline assembly with side
  /// effects is never merged, hoisted or moved.
  Value readRegister(OpBuilder &b, Type type, StringRef ptx,
                     StringRef constraint) {
    return LLVM::InlineAsmOp::create(
               b, loc, type, ValueRange{}, ptx, constraint,
               /*has_side_effects=*/true, /*is_align_stack=*/false,
               LLVM::TailCallKind::None, LLVM::AsmDialectAttr(), ArrayAttr())
        .getResult(0);
  }
  /// A private function `@<graph>_<role><index>` for one block of
  /// `kernel`: the thread index, the block's coordinates, then
  /// `bufferTypes`; its entry block is empty.
  func::FuncOp createTaskFunction(OpBuilder &b, tg::KernelOp kernel,
                                  StringRef role, size_t index,
                                  TypeRange bufferTypes);
  /// A memref of `type` over the bytes at `address` (an i64).
  Value createMemRef(OpBuilder &b, Value address, MemRefType type);

  tg::GraphOp graph;
  Tables tables;
  codegen::Options options;
  PrefetchOptions prefetch;
  /// The first warp issues no preload copies (preload-spares-leader).
  bool preloadSparesLeader;
  /// A warp beside the bodies' issues the preload copies of tasks whose
  /// shared memory is free early (preload-warp).
  bool preloadWarp;
  /// Per body, the bytes of shared memory it uses, [begin, end).
  SmallVector<std::pair<int64_t, int64_t>> sharedRanges;
  Location loc = graph.getLoc();
  gpu::GPUModuleOp module;
  std::optional<LLVMTypeConverter> converter;
  SmallVector<func::FuncOp> bodies, preloaders, prefetchers;
  int64_t sharedMemoryBytes = 0;
  /// The kernel's arguments, and values every part of it reads.
  SmallVector<Value> args;
  Value threadId, isLeader, worker;
  /// Thread 0 of a kernel given a trace buffer.
  Value tracing;
};

} // namespace

Value MegaKernelLowering::getElementPointer(OpBuilder &b, Value table,
                                            Value index) {
  Type descriptorType = converter->convertType(table.getType());
  Value descriptor =
      UnrealizedConversionCastOp::create(b, loc, descriptorType, table)
          .getResult(0);
  Value base = MemRefDescriptor(descriptor).alignedPtr(b, loc);
  return LLVM::GEPOp::create(b, loc, base.getType(), b.getI64Type(), base,
                             ValueRange{index});
}

Value MegaKernelLowering::createMemRef(OpBuilder &b, Value address,
                                       MemRefType type) {
  Value pointer = LLVM::IntToPtrOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext()), address);
  Value descriptor =
      MemRefDescriptor::fromStaticShape(b, loc, *converter, type, pointer);
  return UnrealizedConversionCastOp::create(b, loc, type, descriptor)
      .getResult(0);
}

func::FuncOp MegaKernelLowering::createTaskFunction(OpBuilder &b,
                                                    tg::KernelOp kernel,
                                                    StringRef role,
                                                    size_t index,
                                                    TypeRange bufferTypes) {
  auto blockGraph = cast<tb::GraphOp>(kernel.getBlockGraph());
  SmallVector<Type> argTypes(1 + blockGraph.getGrid().size(), b.getIndexType());
  llvm::append_range(argTypes, bufferTypes);
  auto function = func::FuncOp::create(
      b, kernel.getLoc(),
      (graph.getSymName() + "_" + role + llvm::Twine(index)).str(),
      b.getFunctionType(argTypes, {}));
  // Inlined into the kernel's dispatch (1% faster decode layer on an H200
  // than calls: docs/results/2026-11-27-h200-swizzle.md), and internal so
  // that no out-of-line copy stays.
  function.setPrivate();
  function->setAttr("passthrough",
                    b.getArrayAttr({b.getStringAttr("alwaysinline")}));
  function->setAttr(
      "llvm.linkage",
      LLVM::LinkageAttr::get(b.getContext(), LLVM::Linkage::Internal));
  function.addEntryBlock();
  return function;
}

LogicalResult MegaKernelLowering::buildBodies() {
  OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
  codegen::Options bodyOptions = options;
  // Lowers body `index` with its shared memory from byte `base`.
  auto lower = [&](size_t index,
                   int64_t base) -> FailureOr<codegen::LoweredBody> {
    tg::KernelOp kernel = tables.bodies[index];
    SmallVector<Type> operandTypes =
        llvm::to_vector(ValueRange(kernel.getBodyOperands()).getTypes());
    auto addReturn = [&](func::FuncOp function) {
      OpBuilder end = OpBuilder::atBlockEnd(&function.getBody().front());
      func::ReturnOp::create(end, kernel.getLoc());
    };
    func::FuncOp body =
        createTaskFunction(b, kernel, "body", index, operandTypes);
    addReturn(body);
    func::FuncOp preloader;
    if (options.preload && !tables.readOnlyInputs[index].empty()) {
      preloader = createTaskFunction(b, kernel, "preload", index, operandTypes);
      addReturn(preloader);
    }
    codegen::Options placed = bodyOptions;
    placed.taskSharedBase = base;
    FailureOr<codegen::LoweredBody> lowered = codegen::lowerBlockGraphBody(
        cast<tb::GraphOp>(kernel.getBlockGraph()), body.getBody().front(),
        placed, preloader ? &preloader.getBody().front() : nullptr,
        tables.readOnlyInputs[index], getConcatInputs(kernel));
    if (failed(lowered))
      return kernel.emitOpError()
             << "has a block graph the GPU lowering cannot lower as a task "
                "body";
    if (preloader && !lowered->preloads) {
      preloader.erase();
      preloader = nullptr;
    }
    bodies[index] = body;
    preloaders[index] = preloader;
    return lowered;
  };
  size_t numBodies = tables.bodies.size();
  bodies.assign(numBodies, nullptr);
  preloaders.assign(numBodies, nullptr);
  SmallVector<int64_t> bytes(numBodies);
  auto lowerAll = [&]() -> LogicalResult {
    for (size_t index = 0; index < numBodies; ++index) {
      for (func::FuncOp function : {bodies[index], preloaders[index]})
        if (function)
          function.erase();
      FailureOr<codegen::LoweredBody> lowered = lower(index, 0);
      if (failed(lowered))
        return failure();
      bytes[index] = lowered->sharedBytes;
    }
    sharedMemoryBytes = bytes.empty() ? 0 : *llvm::max_element(bytes);
    return success();
  };
  if (failed(lowerAll()))
    return failure();
  // Where body `index` starts at the top of shared memory, apart from the
  // others' preloaded stages (below), or 0.
  auto getTopBase = [&](size_t index) -> int64_t {
    if (preloaders[index] || !bytes[index])
      return 0;
    return llvm::alignDown(sharedMemoryBytes - bytes[index],
                           kBodySharedAlignment);
  };
  if (preloadWarp) {
    if (llvm::none_of(llvm::seq(numBodies), getTopBase)) {
      // The warp could take no task after another: only its cost stays.
      graph.emitRemark() << "preload warp: left out, as every body with "
                            "shared memory has preload copies (none runs "
                            "apart from the others' preloaded stages)";
      preloadWarp = false;
    } else {
      // Its words take static shared memory; the bodies' barriers leave it
      // out.
      if (bodyOptions.chipSharedMemory)
        bodyOptions.chipSharedMemory -= kClaimedTaskSharedBytes;
      bodyOptions.taskBarrierThreads = tables.threads;
      if (failed(lowerAll()))
        return failure();
    }
  }
  // With a preload warp, the bodies without preload copies (none of their
  // read-only inputs' tiles is copied in their prologue: the decode
  // layer's attention) go to the top of the shared memory the largest body
  // takes, away from the others' preloaded stages at its bottom: the
  // kernel's footprint, and how many workers fit on an SM, stay the same.
  for (size_t index = 0; index < numBodies; ++index) {
    int64_t base = preloadWarp ? getTopBase(index) : 0;
    if (base) {
      // In its place among the functions.
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointAfter(bodies[index]);
      bodies[index].erase();
      if (failed(lower(index, base)))
        return failure();
    }
    sharedRanges.emplace_back(base, base + bytes[index]);
  }
  if (preloadWarp) {
    InFlightDiagnostic remark = graph.emitRemark()
                                << "preload warp: shared memory per body";
    for (auto [index, range] : llvm::enumerate(sharedRanges))
      remark << (index ? ", " : ": ") << index << " [" << range.first << ", "
             << range.second << ")" << (preloaders[index] ? " preloaded" : "");
  }
  return success();
}

void MegaKernelLowering::buildPrefetchers() {
  OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
  Type i64 = b.getI64Type();
  auto pointerType = LLVM::LLVMPointerType::get(b.getContext(), /*global=*/1);
  for (size_t index = 0; index < tables.bodies.size(); ++index) {
    tg::KernelOp kernel = tables.bodies[index];
    auto blockGraph = cast<tb::GraphOp>(kernel.getBlockGraph());
    SmallVector<std::pair<unsigned, PrefetchRegion>> regions;
    int64_t budget = prefetch.bytes;
    for (unsigned input : tables.readOnlyInputs[index]) {
      if (budget <= 0)
        break;
      if (auto region = getPrefetchRegion(blockGraph, input, budget)) {
        budget -= region->runs * region->runBytes;
        regions.emplace_back(input, *region);
      }
    }
    if (regions.empty()) {
      prefetchers.push_back(nullptr);
      continue;
    }
    // Per buffer of the kernel, its device address.
    size_t gridRank = blockGraph.getGrid().size();
    func::FuncOp function = createTaskFunction(
        b, kernel, "prefetch", index,
        SmallVector<Type>(kernel.getBodyOperands().size(), i64));
    Block *entry = &function.getBody().front();
    OpBuilder f = OpBuilder::atBlockEnd(entry);
    Value thread = entry->getArgument(0);
    auto toI64 = [&](Value value) {
      return arith::IndexCastUIOp::create(f, loc, i64, value).getResult();
    };
    for (auto &[input, region] : regions) {
      // The block's first byte; then the threads take the lines of its
      // runs in turn.
      Value base = arith::AddIOp::create(
          f, loc, entry->getArgument(1 + gridRank + input),
          constI64(f, region.baseBytes));
      for (size_t g = 0; g < gridRank; ++g)
        base = arith::AddIOp::create(
            f, loc, base,
            arith::MulIOp::create(f, loc, toI64(entry->getArgument(1 + g)),
                                  constI64(f, region.bytesPerBlock[g])));
      // A run's first line may start before it: one line more than its
      // length needs.
      int64_t linesPerRun = llvm::divideCeil(region.runBytes, kLineBytes) + 1;
      // The lines are counted in 32-bit indices.
      region.runs =
          std::min(region.runs,
                   int64_t(std::numeric_limits<int32_t>::max()) / linesPerRun);
      auto lines = scf::ForOp::create(f, loc, thread,
                                      constIndex(f, region.runs * linesPerRun),
                                      constIndex(f, tables.threads));
      OpBuilder::InsertionGuard guard(f);
      f.setInsertionPointToStart(lines.getBody());
      Value item = lines.getInductionVar();
      Value run =
          arith::DivUIOp::create(f, loc, item, constIndex(f, linesPerRun));
      Value line =
          arith::RemUIOp::create(f, loc, item, constIndex(f, linesPerRun));
      Value start = base;
      for (size_t d = region.runCounts.size(); d-- > 0;) {
        Value count = constIndex(f, region.runCounts[d]);
        Value digit = arith::RemUIOp::create(f, loc, run, count);
        start = arith::AddIOp::create(
            f, loc, start,
            arith::MulIOp::create(f, loc, toI64(digit),
                                  constI64(f, region.runStrides[d])));
        run = arith::DivUIOp::create(f, loc, run, count);
      }
      Value address = arith::AddIOp::create(
          f, loc,
          arith::AndIOp::create(f, loc, start, constI64(f, -kLineBytes)),
          arith::MulIOp::create(f, loc, toI64(line), constI64(f, kLineBytes)));
      Value inRun = arith::CmpIOp::create(
          f, loc, arith::CmpIPredicate::ult, address,
          arith::AddIOp::create(f, loc, start, constI64(f, region.runBytes)));
      auto fetch = scf::IfOp::create(f, loc, inRun);
      f.setInsertionPointToStart(fetch.thenBlock());
      NVVM::PrefetchOp::create(
          f, loc,
          NVVM::PrefetchCacheLevelAttr::get(f.getContext(),
                                            NVVM::PrefetchCacheLevel::L2),
          /*evictPriority=*/nullptr,
          LLVM::IntToPtrOp::create(f, loc, pointerType, address),
          /*predicate=*/Value(), /*tensormap=*/nullptr, /*uniform=*/nullptr,
          /*in_param_space=*/nullptr);
    }
    func::ReturnOp::create(f, loc);
    prefetchers.push_back(function);
  }
}

Value MegaKernelLowering::emitWait(OpBuilder &b, Value task, Value event,
                                   Value start) {
  // Read here rather than once per kernel: nothing holds them in registers
  // across task bodies.
  Value epoch = loadState(b, Epoch), deadline = loadState(b, Deadline);
  Type i32 = b.getI32Type(), i64 = b.getI64Type();
  Value needed = arith::ExtSIOp::create(
      b, loc, i64, load(b, args[NeededArg], toIndex(b, event)));
  Value target = arith::MulIOp::create(
      b, loc, arith::AddIOp::create(b, loc, epoch, constI64(b, 1)), needed);
  Value counter = getElementPointer(b, args[CountersArg], event);

  auto spin = scf::WhileOp::create(b, loc, TypeRange{i32, i64, b.getI1Type()},
                                   ValueRange{constI32(b, kFirstSleepNs)});
  {
    Block *before = b.createBlock(&spin.getBefore(), {}, {i32}, {loc});
    Value count = LLVM::LoadOp::create(
        b, loc, i64, counter, /*alignment=*/8, /*isVolatile=*/false,
        /*isNonTemporal=*/false, /*isInvariant=*/false,
        /*isInvariantGroup=*/false, LLVM::AtomicOrdering::acquire, "device");
    Value ready =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, count, target);
    Value elapsed = arith::SubIOp::create(
        b, loc, NVVM::GlobalTimerOp::create(b, loc, i64), start);
    Value expired = arith::AndIOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, deadline,
                              constI64(b, 0)),
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt, elapsed,
                              deadline));
    Value stop = arith::OrIOp::create(b, loc, ready, expired);
    Value keepWaiting = arith::XOrIOp::create(
        b, loc, stop, arith::ConstantIntOp::create(b, loc, 1, 1));
    scf::ConditionOp::create(
        b, loc, keepWaiting,
        ValueRange{before->getArgument(0), count, expired});

    Block *after = b.createBlock(&spin.getAfter(), {},
                                 {i32, i64, b.getI1Type()}, {loc, loc, loc});
    Value sleep = after->getArgument(0);
    NVVM::NanosleepOp::create(b, loc, sleep);
    Value next = arith::MinSIOp::create(
        b, loc, arith::ShLIOp::create(b, loc, sleep, constI32(b, 1)),
        constI32(b, kMaxSleepNs));
    scf::YieldOp::create(b, loc, next);
  }
  b.setInsertionPointAfter(spin);
  Value count = spin.getResult(1), expired = spin.getResult(2);

  // The first worker to give up records the wait.
  auto record = scf::IfOp::create(b, loc, expired);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(record.thenBlock());
    Value failedFlag =
        getElementPointer(b, args[StateArg], constI32(b, Failed));
    auto exchange = LLVM::AtomicCmpXchgOp::create(
        b, loc, failedFlag, constI64(b, 0), constI64(b, 1),
        LLVM::AtomicOrdering::monotonic, LLVM::AtomicOrdering::monotonic,
        "device");
    Value first = LLVM::ExtractValueOp::create(b, loc, exchange, 1);
    auto describe = scf::IfOp::create(b, loc, first);
    b.setInsertionPointToStart(describe.thenBlock());
    auto store = [&](StateSlot slot, Value value) {
      if (value.getType() != i64)
        value = arith::ExtSIOp::create(b, loc, i64, value);
      memref::StoreOp::create(b, loc, value, args[StateArg],
                              ValueRange{constIndex(b, slot)});
    };
    store(FailedTask, task);
    store(FailedEvent, event);
    store(FailedCount, count);
    store(FailedTarget, target);
    store(FailedWorker, arith::IndexCastOp::create(b, loc, i32, worker));
  }
  return expired;
}

MegaKernelLowering::TaskOperands
MegaKernelLowering::loadTaskOperands(OpBuilder &b, Value taskRecord) {
  TaskOperands task;
  task.body = loadField(b, taskRecord, Body);
  task.coordinates = {loadField(b, taskRecord, BlockX),
                      loadField(b, taskRecord, BlockY),
                      loadField(b, taskRecord, BlockZ)};
  Value firstOperand = toIndex(b, loadField(b, taskRecord, FirstOperand));
  int64_t maxOperands = 0;
  for (tg::KernelOp kernel : tables.bodies)
    maxOperands = std::max(
        maxOperands, static_cast<int64_t>(kernel.getBodyOperands().size()));
  // Clamped to the table: the last kernel's buffers may be fewer.
  Value lastEntry =
      constIndex(b, static_cast<int64_t>(tables.operands.size()) - 1);
  for (int64_t position = 0; position < maxOperands; ++position)
    task.addresses.push_back(load(
        b, args[AddressesArg],
        arith::MinUIOp::create(b, loc,
                               arith::AddIOp::create(b, loc, firstOperand,
                                                     constIndex(b, position)),
                               lastEntry)));
  return task;
}

void MegaKernelLowering::emitDispatch(OpBuilder &b, const TaskOperands &task,
                                      ArrayRef<func::FuncOp> functions,
                                      bool addresses, Value thread) {
  // The thread index, read anew for every task (volatile): what the bodies
  // derive from it then stays inside them instead of being hoisted out of
  // the queue loop and held in registers across all tasks. The bound (one
  // min, never taken) tells LLVM its range, as %tid.x's own read would:
  // without it the bodies' tile-copy loops keep a variable trip count and
  // are not unrolled.
  Value threadIdPerTask = thread ? thread : readThreadIndex(b);
  SmallVector<int64_t> cases(functions.size());
  std::iota(cases.begin(), cases.end(), 0);
  auto dispatch =
      scf::IndexSwitchOp::create(b, loc, TypeRange{}, toIndex(b, task.body),
                                 cases, static_cast<unsigned>(cases.size()));
  for (auto [index, function] : llvm::enumerate(functions)) {
    OpBuilder::InsertionGuard guard(b);
    b.createBlock(&dispatch.getCaseRegions()[index]);
    if (!function) {
      scf::YieldOp::create(b, loc);
      continue;
    }
    tg::KernelOp kernel = tables.bodies[index];
    auto blockGraph = cast<tb::GraphOp>(kernel.getBlockGraph());
    SmallVector<Value> callArgs = {threadIdPerTask};
    for (size_t g = 0; g < blockGraph.getGrid().size(); ++g)
      callArgs.push_back(toIndex(b, task.coordinates[g]));
    for (auto [position, buffer] : llvm::enumerate(kernel.getBodyOperands())) {
      Type type = buffer.getType();
      Value address = task.addresses[position];
      callArgs.push_back(
          addresses ? address
                    : createMemRef(b, address, cast<MemRefType>(type)));
    }
    func::CallOp::create(b, loc, function, callArgs);
    scf::YieldOp::create(b, loc);
  }
  // An empty task (body -1) does nothing.
  OpBuilder::InsertionGuard guard(b);
  b.createBlock(&dispatch.getDefaultRegion());
  scf::YieldOp::create(b, loc);
}

Value MegaKernelLowering::readThreadIndex(OpBuilder &b, int64_t first,
                                          int64_t count) {
  Value tid =
      toIndex(b, readRegister(b, b.getI32Type(), "mov.u32 $0, %tid.x;", "=r"));
  if (first)
    tid = arith::SubIOp::create(b, loc, tid, constIndex(b, first));
  return arith::MinUIOp::create(
      b, loc, tid, constIndex(b, (count ? count : tables.threads) - 1));
}

void MegaKernelLowering::emitPreloads(OpBuilder &b,
                                      const TaskOperands &operands) {
  if (!preloadSparesLeader) {
    emitDispatch(b, operands, preloaders, /*addresses=*/false);
    return;
  }
  // The first warp, whose thread 0 polls the task's events, issues no
  // copies; the second issues the first's share after its own. A thread
  // with more (older) groups pending waits for them in its first
  // wait_group too; one with none relies on the barrier after it, as every
  // thread does for the others' copies (BlockGraph.cpp).
  Value thread = readThreadIndex(b);
  Value warp =
      arith::DivUIOp::create(b, loc, thread, constIndex(b, kSignalLanes));
  auto notFirst =
      scf::IfOp::create(b, loc,
                        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne,
                                              warp, constIndex(b, 0)));
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(notFirst.thenBlock());
    emitDispatch(b, operands, preloaders, /*addresses=*/false, thread);
  }
  auto second =
      scf::IfOp::create(b, loc,
                        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                              warp, constIndex(b, 1)));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(second.thenBlock());
  emitDispatch(
      b, operands, preloaders, /*addresses=*/false,
      arith::SubIOp::create(b, loc, thread, constIndex(b, kSignalLanes)));
}

MegaKernelLowering::BodyFacts MegaKernelLowering::getBodyFacts(OpBuilder &b,
                                                               Value body) {
  Type i1 = b.getI1Type(), i32 = b.getI32Type();
  SmallVector<int64_t> cases(bodies.size());
  std::iota(cases.begin(), cases.end(), 0);
  auto facts = scf::IndexSwitchOp::create(b, loc, TypeRange{i1, i32, i32},
                                          toIndex(b, body), cases,
                                          static_cast<unsigned>(cases.size()));
  OpBuilder::InsertionGuard guard(b);
  auto yield = [&](bool preloads, int64_t begin, int64_t end) {
    scf::YieldOp::create(
        b, loc,
        ValueRange{arith::ConstantIntOp::create(b, loc, preloads, 1),
                   constI32(b, begin), constI32(b, end)});
  };
  for (size_t index = 0; index < bodies.size(); ++index) {
    b.createBlock(&facts.getCaseRegions()[index]);
    yield(bool(preloaders[index]), sharedRanges[index].first,
          sharedRanges[index].second);
  }
  // An empty task (body -1) uses no shared memory.
  b.createBlock(&facts.getDefaultRegion());
  yield(false, 0, 0);
  return {facts.getResult(0), facts.getResult(1), facts.getResult(2)};
}

Value MegaKernelLowering::overlaps(OpBuilder &b, const BodyFacts &one,
                                   const BodyFacts &other) {
  auto less = [&](Value x, Value y) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, x, y)
        .getResult();
  };
  Value both = arith::AndIOp::create(b, loc, less(one.begin, one.end),
                                     less(other.begin, other.end));
  Value meet = arith::AndIOp::create(b, loc, less(one.begin, other.end),
                                     less(other.begin, one.end));
  return arith::AndIOp::create(b, loc, both, meet);
}

Value MegaKernelLowering::isPreloadedByWarp(OpBuilder &b,
                                            const BodyFacts &previous,
                                            const BodyFacts &facts) {
  Value apart =
      arith::XOrIOp::create(b, loc, overlaps(b, previous, facts),
                            arith::ConstantIntOp::create(b, loc, 1, 1));
  return arith::AndIOp::create(b, loc, facts.preloads, apart);
}

Value MegaKernelLowering::emitPtx(OpBuilder &b, Type result, StringRef ptx,
                                  StringRef constraints, ValueRange operands) {
  auto asmOp = LLVM::InlineAsmOp::create(
      b, loc, result ? TypeRange{result} : TypeRange{}, operands, ptx,
      constraints, /*has_side_effects=*/true, /*is_align_stack=*/false,
      LLVM::TailCallKind::None, LLVM::AsmDialectAttr(), ArrayAttr());
  return result ? asmOp.getResult(0) : Value();
}

Value MegaKernelLowering::getPreloadWord(OpBuilder &b, PreloadWord word) {
  auto wordsType = MemRefType::get(
      {kPreloadWords}, b.getI32Type(), MemRefLayoutAttrInterface(),
      gpu::AddressSpaceAttr::get(b.getContext(),
                                 gpu::GPUDialect::getWorkgroupAddressSpace()));
  Value words = memref::GetGlobalOp::create(
      b, loc, wordsType, (graph.getSymName() + kPreloadWordsSuffix).str());
  Value base = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, words);
  return arith::IndexCastOp::create(
      b, loc, b.getI32Type(),
      arith::AddIOp::create(b, loc, base, constIndex(b, 4 * word)));
}

Value MegaKernelLowering::emitWaitForWord(OpBuilder &b, PreloadWord word,
                                          Value target, int32_t sleepNs) {
  Type i32 = b.getI32Type();
  auto spin = scf::WhileOp::create(b, loc, TypeRange{i32}, ValueRange{});
  OpBuilder::InsertionGuard guard(b);
  b.createBlock(&spin.getBefore());
  Value value = emitPtx(b, i32, "ld.acquire.cta.shared.u32 $0, [$1];",
                        "=r,r,~{memory}", getPreloadWord(b, word));
  scf::ConditionOp::create(
      b, loc,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, value, target),
      ValueRange{value});
  b.createBlock(&spin.getAfter(), {}, {i32}, {loc});
  NVVM::NanosleepOp::create(b, loc, constI32(b, sleepNs));
  scf::YieldOp::create(b, loc);
  return spin.getResult(0);
}

void MegaKernelLowering::emitStoreFinished(OpBuilder &b, Value count) {
  auto leader = scf::IfOp::create(b, loc, isLeader);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(leader.thenBlock());
  emitPtx(b, Type(), "st.release.cta.shared.u32 [$0], $1;", "r,r,~{memory}",
          ValueRange{getPreloadWord(b, FinishedWord), count});
}

Value MegaKernelLowering::emitBodyBarrier(OpBuilder &b, Value value) {
  MLIRContext *context = b.getContext();
  Value id, count;
  if (preloadWarp) {
    id = constI32(b, 1);
    count = constI32(b, tables.threads);
  }
  if (!value) {
    if (preloadWarp)
      NVVM::BarrierOp::create(b, loc, TypeRange(), id, count,
                              NVVM::BarrierReductionAttr(), Value());
    else
      gpu::BarrierOp::create(b, loc);
    return Value();
  }
  if (!preloadWarp)
    return NVVM::BarrierOp::create(b, loc, TypeRange{b.getI32Type()}, id, count,
                                   NVVM::BarrierReductionAttr::get(
                                       context, NVVM::BarrierReduction::OR),
                                   value)
        .getRes();
  // NVVM's barrier op reduces on barrier 0 only: the intrinsic itself
  // (convergent, unlike inline assembly).
  Value predicate = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne,
                                          value, constI32(b, 0));
  Value any = LLVM::CallIntrinsicOp::create(
                  b, loc, b.getI1Type(),
                  b.getStringAttr("llvm.nvvm.barrier.cta.red.or.aligned.count"),
                  ValueRange{id, count, predicate})
                  .getResult(0);
  return arith::ExtUIOp::create(b, loc, b.getI32Type(), any);
}

void MegaKernelLowering::emitPreloadWarp(OpBuilder &b, Value failedBefore) {
  Type i32 = b.getI32Type();
  Value lane = readThreadIndex(b, tables.threads, kWarpLanes);
  Value begin = toIndex(b, load(b, args[QueueStartsArg], worker));
  Value end =
      toIndex(b, load(b, args[QueueStartsArg],
                      arith::AddIOp::create(b, loc, worker, constIndex(b, 1))));
  auto bodyAt = [&](Value position) {
    Value task = load(b, args[QueuesArg], position);
    Value record = arith::MulIOp::create(b, loc, toIndex(b, task),
                                         constIndex(b, kTaskFields));
    return std::make_pair(record, getBodyFacts(b, loadField(b, record, Body)));
  };
  // The previous task's shared memory, as the bodies' threads track it.
  Value zero = constI32(b, 0);
  auto queue = scf::ForOp::create(b, loc, begin, end, constIndex(b, 1),
                                  ValueRange{zero, constI32(b, kAllShared)});
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(queue.getBody());
  Value position = queue.getInductionVar();
  auto [record, facts] = bodyAt(position);
  BodyFacts previous{Value(), queue.getRegionIterArgs()[0],
                     queue.getRegionIterArgs()[1]};
  Value byWarp = arith::AndIOp::create(
      b, loc, isPreloadedByWarp(b, previous, facts),
      arith::XOrIOp::create(b, loc, failedBefore,
                            arith::ConstantIntOp::create(b, loc, 1, 1)));
  auto issue = scf::IfOp::create(b, loc, byWarp);
  {
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPointToStart(issue.thenBlock());
    // The tasks that must finish first: up to the last one before this
    // whose shared memory overlaps its (the one just before never does).
    auto scan = scf::WhileOp::create(b, loc, TypeRange{b.getIndexType(), i32},
                                     ValueRange{position, zero});
    {
      Block *before = b.createBlock(&scan.getBefore(), {},
                                    {b.getIndexType(), i32}, {loc, loc});
      Value at = before->getArgument(0), need = before->getArgument(1);
      Value more = arith::AndIOp::create(
          b, loc,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt, at, begin),
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, need, zero));
      scf::ConditionOp::create(b, loc, more, ValueRange{at, need});
      Block *after = b.createBlock(&scan.getAfter(), {},
                                   {b.getIndexType(), i32}, {loc, loc});
      Value earlier = arith::SubIOp::create(b, loc, after->getArgument(0),
                                            constIndex(b, 1));
      Value hit = overlaps(b, bodyAt(earlier).second, facts);
      Value finishedThrough = arith::IndexCastOp::create(
          b, loc, i32,
          arith::SubIOp::create(
              b, loc, arith::AddIOp::create(b, loc, earlier, constIndex(b, 1)),
              begin));
      scf::YieldOp::create(
          b, loc,
          ValueRange{earlier, arith::SelectOp::create(b, loc, hit,
                                                      finishedThrough, zero)});
    }
    b.setInsertionPointAfter(scan);
    Value need = scan.getResult(1);
    // Every lane polls the finished count (the bodies' threads are done
    // with that shared memory before thread 0 counts).
    Value finished =
        emitWaitForWord(b, FinishedWord, need, kPreloadWarpSleepNs);
    // A worker whose queue stopped (a wait gave up) needs no more copies.
    auto running = scf::IfOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, finished,
                              constI32(b, kQueueStopped)));
    b.setInsertionPointToStart(running.thenBlock());
    // The lanes issue the copies of every body thread in turn and wait for
    // them; once every lane's have landed (the warp barrier), each counts
    // one (a release add).
    TaskOperands operands = loadTaskOperands(b, record);
    auto shares = scf::ForOp::create(b, loc, constIndex(b, 0),
                                     constIndex(b, tables.threads),
                                     constIndex(b, kWarpLanes));
    {
      OpBuilder::InsertionGuard share(b);
      b.setInsertionPointToStart(shares.getBody());
      emitDispatch(
          b, operands, preloaders, /*addresses=*/false,
          arith::AddIOp::create(b, loc, lane, shares.getInductionVar()));
    }
    NVVM::CpAsyncWaitGroupOp::create(b, loc, b.getI32IntegerAttr(0));
    NVVM::SyncWarpOp::create(b, loc, constI32(b, -1));
    emitPtx(b, Type(), "red.release.cta.shared.add.u32 [$0], 1;", "r,~{memory}",
            getPreloadWord(b, LandedWord));
  }
  scf::YieldOp::create(b, loc, ValueRange{facts.begin, facts.end});
}

void MegaKernelLowering::emitPrefetches(OpBuilder &b, Value position,
                                        Value begin, Value end) {
  Value ahead =
      arith::AddIOp::create(b, loc, position, constIndex(b, prefetch.ahead));
  Value atStart =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, position, begin);
  Value first = arith::SelectOp::create(b, loc, atStart, position, ahead);
  Value last = arith::MinUIOp::create(
      b, loc, arith::AddIOp::create(b, loc, ahead, constIndex(b, 1)), end);
  auto tasks = scf::ForOp::create(b, loc, first, last, constIndex(b, 1));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(tasks.getBody());
  Value task = load(b, args[QueuesArg], tasks.getInductionVar());
  emitDispatch(
      b,
      loadTaskOperands(b, arith::MulIOp::create(b, loc, toIndex(b, task),
                                                constIndex(b, kTaskFields))),
      prefetchers, /*addresses=*/true);
}

void MegaKernelLowering::emitTrace(OpBuilder &b, Value task, TracePoint point) {
  auto record = scf::IfOp::create(b, loc, tracing);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(record.thenBlock());
  Value time =
      readRegister(b, b.getI64Type(), "mov.u64 $0, %globaltimer;", "=l");
  Value index = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, task, constI32(b, kTracePoints)),
      constI32(b, point));
  LLVM::StoreOp::create(b, loc, time,
                        getElementPointer(b, args[TraceArg], index));
}

Value MegaKernelLowering::emitClaim(OpBuilder &b, Value when) {
  Value claiming =
      when ? arith::AndIOp::create(b, loc, isLeader, when).getResult()
           : isLeader;
  auto claim = scf::IfOp::create(b, loc, TypeRange{b.getI64Type()}, claiming,
                                 /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(claim.thenBlock());
  scf::YieldOp::create(b, loc,
                       increment(b, args[StateArg], constI32(b, NextTask)));
  b.setInsertionPointToStart(claim.elseBlock());
  scf::YieldOp::create(b, loc, constI64(b, 0));
  return claim.getResult(0);
}

Value MegaKernelLowering::emitTask(OpBuilder &b, Value task, Value *claimNext,
                                   const WarpPreload *warp) {
  Type i32 = b.getI32Type();
  emitTrace(b, task, WaitBegan);
  Value record = arith::MulIOp::create(b, loc, toIndex(b, task),
                                       constIndex(b, kTaskFields));
  TaskOperands operands = loadTaskOperands(b, record);
  // The copies of what no task writes start before the wait (unless the
  // preload warp issues them).
  if (hasAny(preloaders)) {
    if (!warp) {
      emitPreloads(b, operands);
    } else {
      auto own = scf::IfOp::create(
          b, loc,
          arith::XOrIOp::create(b, loc, warp->byWarp,
                                arith::ConstantIntOp::create(b, loc, 1, 1)));
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(own.thenBlock());
      emitPreloads(b, operands);
    }
  }
  // Thread 0 waits on the task's events in turn, until one gives up; the
  // deadline bounds them together.
  Value none = arith::ConstantIntOp::create(b, loc, 0, 1);
  auto wait = scf::IfOp::create(b, loc, TypeRange{b.getI1Type()}, isLeader,
                                /*withElseRegion=*/true);
  {
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPointToStart(wait.thenBlock());
    Value start = NVVM::GlobalTimerOp::create(b, loc, b.getI64Type());
    auto events = scf::ForOp::create(b, loc, constIndex(b, 0),
                                     toIndex(b, loadField(b, record, Waits)),
                                     constIndex(b, 1), ValueRange{none});
    b.setInsertionPointToStart(events.getBody());
    Value gaveUpBefore = events.getRegionIterArgs()[0];
    auto next = scf::IfOp::create(b, loc, TypeRange{b.getI1Type()},
                                  gaveUpBefore, /*withElseRegion=*/true);
    b.setInsertionPointToStart(next.thenBlock());
    scf::YieldOp::create(b, loc, gaveUpBefore);
    b.setInsertionPointToStart(next.elseBlock());
    scf::YieldOp::create(
        b, loc,
        emitWait(b, task, loadEvent(b, record, Waits, events.getInductionVar()),
                 start));
    b.setInsertionPointAfter(next);
    scf::YieldOp::create(b, loc, next.getResult(0));
    b.setInsertionPointAfter(events);
    if (warp) {
      // The preload warp's copies for this task have landed: its lanes'
      // releases, acquired here, pass to the CTA with the barrier below.
      auto landed = scf::IfOp::create(b, loc, warp->byWarp);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(landed.thenBlock());
      emitWaitForWord(b, LandedWord, warp->landedTarget, kFirstSleepNs);
    }
    scf::YieldOp::create(b, loc, events.getResult(0));
    b.setInsertionPointToStart(wait.elseBlock());
    scf::YieldOp::create(b, loc, none);
  }
  emitTrace(b, task, WaitEnded);
  // A worker whose wait gave up takes no further task.
  if (claimNext)
    *claimNext = emitClaim(
        b, arith::XOrIOp::create(b, loc, wait.getResult(0),
                                 arith::ConstantIntOp::create(b, loc, 1, 1)));
  // The barrier hands thread 0's acquire to the bodies' threads and tells
  // each whether the wait gave up.
  Value gaveUp = arith::ExtUIOp::create(b, loc, i32, wait.getResult(0));
  Value anyGaveUp = emitBodyBarrier(b, gaveUp);
  Value gaveUpHere = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne,
                                           anyGaveUp, constI32(b, 0));
  auto body = scf::IfOp::create(b, loc, gaveUpHere, /*withElseRegion=*/true);
  OpBuilder::InsertionGuard inner(b);
  if (hasAny(preloaders)) {
    // A worker that stops lets no preloaded copy land after it.
    b.setInsertionPointToStart(body.thenBlock());
    NVVM::CpAsyncWaitGroupOp::create(b, loc, b.getI32IntegerAttr(0));
  }
  b.setInsertionPointToStart(body.elseBlock());
  emitTrace(b, task, BodyBegan);
  emitDispatch(b, operands, bodies, /*addresses=*/false);
  // The first warp's lanes read the events they will signal, one each,
  // before the barrier: a load after the fence below would wait behind it
  // and go to L2, and a task that signals several events (the q/k-norm
  // and RoPE task of the decode layer) would signal them one after another
  // (docs/MegaKernel.md).
  Value lane = threadId;
  Value inFirstWarp = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                            lane, constIndex(b, kSignalLanes));
  auto triggerFields = scf::IfOp::create(b, loc, TypeRange{i32, i32, i32},
                                         inFirstWarp, /*withElseRegion=*/true);
  {
    OpBuilder::InsertionGuard fields(b);
    b.setInsertionPointToStart(triggerFields.thenBlock());
    Value count = loadField(b, record, Triggers);
    Value more = loadField(b, record, MoreTriggers);
    Value signalsOne = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::ult, lane, toIndex(b, count));
    auto event = scf::IfOp::create(b, loc, TypeRange{i32}, signalsOne,
                                   /*withElseRegion=*/true);
    b.setInsertionPointToStart(event.thenBlock());
    scf::YieldOp::create(
        b, loc, loadEvent(b, record, Triggers, lane, toIndex(b, more)));
    b.setInsertionPointToStart(event.elseBlock());
    scf::YieldOp::create(b, loc, constI32(b, -1));
    b.setInsertionPointAfter(event);
    scf::YieldOp::create(b, loc, ValueRange{count, event.getResult(0), more});
    b.setInsertionPointToStart(triggerFields.elseBlock());
    Value zero = constI32(b, 0);
    scf::YieldOp::create(b, loc, ValueRange{zero, constI32(b, -1), zero});
  }
  // Every thread's writes are done (and shared memory free) before
  // the first warp signals.
  emitBodyBarrier(b);
  // The preload warp may now copy into this task's shared memory.
  if (warp)
    emitStoreFinished(b, warp->finished);
  // The task from its record, which the trigger loads above keep live
  // anyway.
  Value recordTask = arith::IndexCastOp::create(
      b, loc, i32,
      arith::DivUIOp::create(b, loc, record, constIndex(b, kTaskFields)));
  emitTrace(b, recordTask, BodyEnded);
  // Each signalling lane runs a release fence, then a relaxed add on its
  // event (NVPTX drops the ordering of an atomicrmw, printing a plain
  // atom.add, but keeps a fence's): the barrier made every thread's writes
  // visible to it, and the fence is cumulative. Lane k signals events k,
  // k + 32, ... (only hand-written graphs have more than 32: normalization
  // gives a task one, and leaving out empty tasks at most 32, Tables.cpp).
  Value triggerCount = toIndex(b, triggerFields.getResult(0));
  Value more = toIndex(b, triggerFields.getResult(2));
  Value mustSignal = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::ult, lane,
      arith::MinUIOp::create(b, loc, triggerCount,
                             constIndex(b, kSignalLanes)));
  auto signal = scf::IfOp::create(b, loc, mustSignal);
  b.setInsertionPointToStart(signal.thenBlock());
  LLVM::FenceOp::create(b, loc, LLVM::AtomicOrdering::release, "device");
  increment(b, args[CountersArg], triggerFields.getResult(1));
  auto triggers = scf::ForOp::create(
      b, loc, arith::AddIOp::create(b, loc, lane, constIndex(b, kSignalLanes)),
      triggerCount, constIndex(b, kSignalLanes));
  b.setInsertionPointToStart(triggers.getBody());
  Value entry = arith::AddIOp::create(
      b, loc, more,
      arith::SubIOp::create(b, loc, triggers.getInductionVar(),
                            constIndex(b, 1)));
  increment(b, args[CountersArg], load(b, args[EventListsArg], entry));
  b.setInsertionPointAfter(signal);
  emitTrace(b, recordTask, Signalled);
  return gaveUpHere;
}

Value MegaKernelLowering::getClaimedWord(OpBuilder &b) {
  auto claimedType = MemRefType::get(
      {1}, b.getI32Type(), MemRefLayoutAttrInterface(),
      gpu::AddressSpaceAttr::get(b.getContext(),
                                 gpu::GPUDialect::getWorkgroupAddressSpace()));
  std::string claimedName = (graph.getSymName() + kClaimedTaskSuffix).str();
  return memref::GetGlobalOp::create(b, loc, claimedType, claimedName);
}

Value MegaKernelLowering::getFirstClaim(OpBuilder &b, int64_t claimable) {
  return arith::MulIOp::create(b, loc, loadState(b, Epoch),
                               constI64(b, claimable + tables.workers));
}

void MegaKernelLowering::publishClaim(OpBuilder &b, Value claim,
                                      Value firstClaim, int64_t claimable,
                                      Value claimed) {
  auto leader = scf::IfOp::create(b, loc, isLeader);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(leader.thenBlock());
  // Unsigned: a claim below the run's first reads as past the tasks too.
  Value task = arith::MinUIOp::create(
      b, loc, arith::SubIOp::create(b, loc, claim, firstClaim),
      constI64(b, claimable));
  memref::StoreOp::create(b, loc,
                          arith::TruncIOp::create(b, loc, b.getI32Type(), task),
                          claimed, ValueRange{constIndex(b, 0)});
}

Value MegaKernelLowering::emitJitTasks(OpBuilder &b, Value bound, Value stopped,
                                       Value claimed, Value firstClaim) {
  Type i1 = b.getI1Type(), i32 = b.getI32Type();
  Value jitBegin = load(b, args[QueueStartsArg], constIndex(b, tables.workers));
  Value lastEntry =
      constIndex(b, static_cast<int64_t>(tables.queues.size()) - 1);
  auto loop = scf::WhileOp::create(b, loc, TypeRange{i1, i32},
                                   ValueRange{stopped, constI32(b, 0)});
  OpBuilder::InsertionGuard guard(b);
  Block *before = b.createBlock(&loop.getBefore(), {}, {i1, i32}, {loc, loc});
  // Every thread reads the held claim; thread 0 rewrites it only after the
  // next task's first barrier.
  Value held =
      memref::LoadOp::create(b, loc, claimed, ValueRange{constIndex(b, 0)});
  Value task = load(
      b, args[QueuesArg],
      arith::MinUIOp::create(
          b, loc,
          arith::AddIOp::create(b, loc, toIndex(b, jitBegin), toIndex(b, held)),
          lastEntry));
  Value more = arith::AndIOp::create(
      b, loc,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, held,
                            constI32(b, tables.jitTasks)),
      arith::XOrIOp::create(b, loc, before->getArgument(0),
                            arith::ConstantIntOp::create(b, loc, 1, 1)));
  if (bound)
    more = arith::AndIOp::create(
        b, loc, more,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, task, bound));
  scf::ConditionOp::create(b, loc, more,
                           ValueRange{before->getArgument(0), task});

  Block *after = b.createBlock(&loop.getAfter(), {}, {i1, i32}, {loc, loc});
  Value next;
  Value gaveUp = emitTask(b, after->getArgument(1), &next);
  publishClaim(b, next, firstClaim, tables.jitTasks, claimed);
  gpu::BarrierOp::create(b, loc);
  scf::YieldOp::create(b, loc, ValueRange{gaveUp, after->getArgument(1)});
  return loop.getResult(0);
}

void MegaKernelLowering::emitStaticQueue(OpBuilder &b, Value failedBefore) {
  Value begin = toIndex(b, load(b, args[QueueStartsArg], worker));
  Value end =
      toIndex(b, load(b, args[QueueStartsArg],
                      arith::AddIOp::create(b, loc, worker, constIndex(b, 1))));
  // Each task's index is read one task ahead, so that its load's latency
  // hides behind the task before (clamped to the table: the entry past a
  // worker's queue is another's, or none).
  Value lastEntry =
      constIndex(b, std::max<int64_t>(tables.queues.size(), 1) - 1);
  auto loadEntry = [&](Value position) {
    return load(b, args[QueuesArg],
                arith::MinUIOp::create(b, loc, position, lastEntry));
  };
  // Just-in-time tasks: thread 0 claims one (none in a run after a failed
  // one) and passes it to the CTA.
  Value claimed, firstClaim;
  if (tables.jitTasks) {
    claimed = getClaimedWord(b);
    firstClaim = getFirstClaim(b, tables.jitTasks);
    publishClaim(b,
                 emitClaim(b, arith::XOrIOp::create(
                                  b, loc, failedBefore,
                                  arith::ConstantIntOp::create(b, loc, 1, 1))),
                 firstClaim, tables.jitTasks, claimed);
    gpu::BarrierOp::create(b, loc);
  }
  // `stopped` once any wait of this worker gave up, after which it runs
  // nothing more. With a preload warp, also the previous task's shared
  // memory and how many tasks the warp preloaded, as the warp tracks them.
  SmallVector<Value> initial = {failedBefore, loadEntry(begin)};
  if (preloadWarp)
    initial.append({constI32(b, 0), constI32(b, kAllShared), constI32(b, 0)});
  auto queue =
      scf::ForOp::create(b, loc, begin, end, constIndex(b, 1), initial);
  OpBuilder::InsertionGuard guard(b);
  // The claimed just-in-time tasks left after the queue.
  if (tables.jitTasks) {
    b.setInsertionPointAfter(queue);
    emitJitTasks(b, Value(), queue.getResult(0), claimed, firstClaim);
  }
  if (preloadWarp) {
    // Once the queue ends or stops, the warp waits for nothing more.
    b.setInsertionPointAfter(queue);
    emitStoreFinished(b, constI32(b, kQueueStopped));
  }
  b.setInsertionPointToStart(queue.getBody());
  Value stopped = queue.getRegionIterArgs()[0];
  Value task = queue.getRegionIterArgs()[1];
  Value next = loadEntry(
      arith::AddIOp::create(b, loc, queue.getInductionVar(), constIndex(b, 1)));
  WarpPreload warp;
  SmallVector<Value> warpState;
  if (preloadWarp) {
    Value record = arith::MulIOp::create(b, loc, toIndex(b, task),
                                         constIndex(b, kTaskFields));
    BodyFacts facts = getBodyFacts(b, loadField(b, record, Body));
    BodyFacts previous{Value(), queue.getRegionIterArgs()[2],
                       queue.getRegionIterArgs()[3]};
    warp.byWarp = isPreloadedByWarp(b, previous, facts);
    Value count = arith::AddIOp::create(
        b, loc, queue.getRegionIterArgs()[4],
        arith::ExtUIOp::create(b, loc, b.getI32Type(), warp.byWarp));
    warp.landedTarget =
        arith::MulIOp::create(b, loc, count, constI32(b, kWarpLanes));
    warp.finished = arith::IndexCastOp::create(
        b, loc, b.getI32Type(),
        arith::SubIOp::create(b, loc,
                              arith::AddIOp::create(b, loc,
                                                    queue.getInductionVar(),
                                                    constIndex(b, 1)),
                              begin));
    warpState = {facts.begin, facts.end, count};
  }
  const WarpPreload *warpPart = preloadWarp ? &warp : nullptr;
  auto run = scf::IfOp::create(b, loc, TypeRange{b.getI1Type()}, stopped,
                               /*withElseRegion=*/true);
  b.setInsertionPointToStart(run.thenBlock());
  scf::YieldOp::create(b, loc, stopped);
  b.setInsertionPointToStart(run.elseBlock());
  if (hasAny(prefetchers))
    emitPrefetches(b, queue.getInductionVar(), begin, end);
  if (!tables.jitTasks) {
    scf::YieldOp::create(b, loc,
                         emitTask(b, task, /*claimNext=*/nullptr, warpPart));
  } else {
    // The claimed just-in-time tasks that come before this one first.
    Value stoppedBefore = emitJitTasks(b, task, stopped, claimed, firstClaim);
    auto after = scf::IfOp::create(b, loc, TypeRange{b.getI1Type()},
                                   stoppedBefore, /*withElseRegion=*/true);
    b.setInsertionPointToStart(after.thenBlock());
    scf::YieldOp::create(b, loc, stoppedBefore);
    b.setInsertionPointToStart(after.elseBlock());
    scf::YieldOp::create(b, loc, emitTask(b, task, /*claimNext=*/nullptr));
    b.setInsertionPointAfter(after);
    scf::YieldOp::create(b, loc, after.getResult(0));
  }
  b.setInsertionPointAfter(run);
  SmallVector<Value> carried = {run.getResult(0), next};
  llvm::append_range(carried, warpState);
  scf::YieldOp::create(b, loc, carried);
}

void MegaKernelLowering::emitDynamicQueue(OpBuilder &b, Value failedBefore) {
  // Claims count over all runs: every worker's last claim of a run is past
  // the graph's tasks, so run r's claims start at r * (tasks + workers).
  Type i32 = b.getI32Type();
  int64_t numTasks = static_cast<int64_t>(tables.tasks.size()) / kTaskFields;
  Value firstClaim = getFirstClaim(b, numTasks);
  Value claimed = getClaimedWord(b);
  auto publish = [&](Value claim) {
    publishClaim(b, claim, firstClaim, numTasks, claimed);
  };
  // A worker of a run after a failed one claims nothing.
  publish(emitClaim(
      b, arith::XOrIOp::create(b, loc, failedBefore,
                               arith::ConstantIntOp::create(b, loc, 1, 1))));
  gpu::BarrierOp::create(b, loc);

  // Until a wait gives up or the claims run past the tasks.
  auto loop =
      scf::WhileOp::create(b, loc, TypeRange{i32}, ValueRange{failedBefore});
  {
    OpBuilder::InsertionGuard guard(b);
    Block *before =
        b.createBlock(&loop.getBefore(), {}, {b.getI1Type()}, {loc});
    Value task =
        memref::LoadOp::create(b, loc, claimed, ValueRange{constIndex(b, 0)});
    Value more = arith::AndIOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, task,
                              constI32(b, numTasks)),
        arith::XOrIOp::create(b, loc, before->getArgument(0),
                              arith::ConstantIntOp::create(b, loc, 1, 1)));
    scf::ConditionOp::create(b, loc, more, ValueRange{task});

    b.createBlock(&loop.getAfter(), {}, {i32}, {loc});
    Value next;
    Value gaveUp = emitTask(b, loop.getAfter().getArgument(0), &next);
    // Every thread read the claimed word before the task's first barrier.
    publish(next);
    gpu::BarrierOp::create(b, loc);
    scf::YieldOp::create(b, loc, gaveUp);
  }
}

void MegaKernelLowering::buildKernel() {
  OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
  auto table = [&](int64_t size, Type element) -> Type {
    return MemRefType::get({size}, element);
  };
  Type i32 = b.getI32Type(), i64 = b.getI64Type();
  SmallVector<Type> argTypes(kArguments);
  argTypes[AddressesArg] =
      table(static_cast<int64_t>(tables.operands.size()), i64);
  argTypes[TasksArg] = table(static_cast<int64_t>(tables.tasks.size()), i32);
  argTypes[QueueStartsArg] =
      table(static_cast<int64_t>(tables.queueStarts.size()), i32);
  argTypes[QueuesArg] = table(static_cast<int64_t>(tables.queues.size()), i32);
  argTypes[NeededArg] = table(static_cast<int64_t>(tables.needed.size()), i32);
  argTypes[CountersArg] =
      table(static_cast<int64_t>(tables.needed.size()), i64);
  argTypes[StateArg] = table(kStateSlots, i64);
  argTypes[TraceArg] = table(
      static_cast<int64_t>(tables.tasks.size() / kTaskFields * kTracePoints),
      i64);
  argTypes[EventListsArg] =
      table(static_cast<int64_t>(tables.eventLists.size()), i32);

  auto kernel = gpu::GPUFuncOp::create(b, loc, graph.getSymName(),
                                       b.getFunctionType(argTypes, {}));
  kernel->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
  kernel.setKnownBlockSizeAttr(
      b.getDenseI32ArrayAttr({static_cast<int32_t>(getLaunchThreads()), 1, 1}));
  kernel.setKnownGridSizeAttr(
      b.getDenseI32ArrayAttr({static_cast<int32_t>(tables.workers), 1, 1}));
  // Every worker must be resident at once (they wait on each other): ptxas
  // limits registers so that as many CTAs as a worker count over the SMs
  // fit on one SM. Also for one: with only the block size given, ptxas
  // aims at a higher occupancy of its own (qknorm_gqa_bs1's kernel: 72
  // registers and a spill, against 96 and none with one CTA per SM).
  int64_t perSM = llvm::divideCeil(tables.workers, codegen::kNumSMs);
  kernel->setAttr(NVVM::NVVMDialect::getMinctasmAttrName(),
                  b.getI32IntegerAttr(static_cast<int32_t>(perSM)));
  Block &entry = kernel.getBody().front();
  args.assign(entry.getArguments().begin(), entry.getArguments().end());
  b.setInsertionPointToStart(&entry);

  worker = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  threadId = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  isLeader = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, threadId,
                                   constIndex(b, 0));
  tracing = arith::AndIOp::create(
      b, loc, isLeader,
      arith::CmpIOp::create(
          b, loc, arith::CmpIPredicate::ne,
          LLVM::PtrToIntOp::create(
              b, loc, b.getI64Type(),
              getElementPointer(b, args[TraceArg], constI32(b, 0))),
          constI64(b, 0)));
  if (preloadWarp) {
    // The preload words start at 0; the barrier below publishes them.
    auto words = scf::IfOp::create(b, loc, isLeader);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(words.thenBlock());
    for (PreloadWord word : {FinishedWord, LandedWord})
      emitPtx(b, Type(), "st.shared.u32 [$0], 0;", "r,~{memory}",
              getPreloadWord(b, word));
  }
  // A run after a failed one (whose counters lag the epoch) runs nothing
  // at all, rather than wait out every deadline. Every thread must agree
  // (another worker may fail while this one starts): a barrier ORs what
  // each thread read.
  Value failedRead = arith::ExtUIOp::create(
      b, loc, b.getI32Type(),
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne,
                            loadState(b, Failed), constI64(b, 0)));
  Value failedBefore = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::ne,
      NVVM::BarrierOp::create(b, loc, TypeRange{b.getI32Type()}, Value(),
                              Value(),
                              NVVM::BarrierReductionAttr::get(
                                  b.getContext(), NVVM::BarrierReduction::OR),
                              failedRead)
          .getRes(),
      constI32(b, 0));
  if (tables.dynamic) {
    emitDynamicQueue(b, failedBefore);
  } else if (!preloadWarp) {
    emitStaticQueue(b, failedBefore);
  } else {
    auto roles = scf::IfOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, threadId,
                              constIndex(b, tables.threads)),
        /*withElseRegion=*/true);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(roles.thenBlock());
    emitStaticQueue(b, failedBefore);
    b.setInsertionPointToStart(roles.elseBlock());
    emitPreloadWarp(b, failedBefore);
  }

  // The last worker to finish advances the epoch for the next run (which
  // reads it after this kernel ends: no ordering needed).
  auto finish = scf::IfOp::create(b, loc, isLeader);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(finish.thenBlock());
    Value finished = increment(b, args[StateArg], constI32(b, Finished));
    Value last =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, finished,
                              constI64(b, tables.workers - 1));
    auto advance = scf::IfOp::create(b, loc, last);
    b.setInsertionPointToStart(advance.thenBlock());
    Value epoch = loadState(b, Epoch);
    memref::StoreOp::create(b, loc, constI64(b, 0), args[StateArg],
                            ValueRange{constIndex(b, Finished)});
    memref::StoreOp::create(
        b, loc, arith::AddIOp::create(b, loc, epoch, constI64(b, 1)),
        args[StateArg], ValueRange{constIndex(b, Epoch)});
  }
  gpu::ReturnOp::create(b, loc);
}

LogicalResult MegaKernelLowering::lower() {
  MLIRContext *context = graph.getContext();
  auto parent = graph->getParentOfType<ModuleOp>();
  OpBuilder b(context);
  b.setInsertionPointAfter(graph);
  module = gpu::GPUModuleOp::create(b, loc,
                                    (graph.getSymName() + "_megakernel").str());
  // 32-bit indices in device code, as convert-kn-to-gpu's modules: every
  // buffer has fewer than 2^31 elements (checked by the task-graph builder).
  module->setAttr(
      DLTIDialect::kDataLayoutAttrName,
      DataLayoutSpecAttr::get(
          context, {DataLayoutEntryAttr::get(IndexType::get(context),
                                             b.getI32IntegerAttr(32))}));
  converter.emplace(context, LowerToLLVMOptions(context, DataLayout(module)));
  if (failed(buildBodies()))
    return failure();
  buildPrefetchers();
  auto addSharedWords = [&](StringRef suffix, int64_t words) {
    OpBuilder end = OpBuilder::atBlockEnd(module.getBody());
    memref::GlobalOp::create(
        end, loc, (graph.getSymName() + suffix).str(),
        end.getStringAttr("private"),
        MemRefType::get(
            {words}, end.getI32Type(), MemRefLayoutAttrInterface(),
            gpu::AddressSpaceAttr::get(
                context, gpu::GPUDialect::getWorkgroupAddressSpace())),
        /*initial_value=*/Attribute(), /*constant=*/false,
        /*alignment=*/IntegerAttr());
  };
  if (tables.dynamic || tables.jitTasks)
    addSharedWords(kClaimedTaskSuffix, 1);
  if (preloadWarp)
    addSharedWords(kPreloadWordsSuffix, kPreloadWords);
  buildKernel();
  parent->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                  b.getUnitAttr());

  // The host side: the constant tables, and what launching takes.
  b.setInsertionPointAfter(module);
  SmallVector<NamedAttribute> tableSymbols;
  auto addTable = [&](StringRef name, ArrayRef<int32_t> values) {
    auto type =
        MemRefType::get({static_cast<int64_t>(values.size())}, b.getI32Type());
    std::string symbol = (graph.getSymName() + "_" + name).str();
    memref::GlobalOp::create(
        b, loc, symbol, b.getStringAttr("private"), type,
        DenseElementsAttr::get(
            RankedTensorType::get(type.getShape(), b.getI32Type()), values),
        /*constant=*/true, /*alignment=*/IntegerAttr());
    tableSymbols.push_back(
        b.getNamedAttr(name, FlatSymbolRefAttr::get(context, symbol)));
  };
  addTable(kTaskTable, tables.tasks);
  addTable(kQueueStartsTable, tables.queueStarts);
  addTable(kQueuesTable, tables.queues);
  addTable(kNeededTable, tables.needed);
  addTable(kOperandsTable, tables.operands);
  addTable(kEventListsTable, tables.eventLists);
  addTable(kGraphTasksTable, tables.graphTasks);
  graph->setAttr(
      kMegaKernelAttrName,
      b.getDictionaryAttr({
          b.getNamedAttr("kernel",
                         SymbolRefAttr::get(
                             module.getSymNameAttr(),
                             {FlatSymbolRefAttr::get(graph.getSymNameAttr())})),
          b.getNamedAttr("threads", b.getI64IntegerAttr(getLaunchThreads())),
          b.getNamedAttr("dynamic_shared_bytes",
                         b.getI64IntegerAttr(sharedMemoryBytes)),
          b.getNamedAttr("bodies", b.getI64IntegerAttr(
                                       static_cast<int64_t>(bodies.size()))),
          b.getNamedAttr(kDynamicDispatchAttrName,
                         b.getBoolAttr(tables.dynamic)),
          b.getNamedAttr("tables", b.getDictionaryAttr(tableSymbols)),
      }));
  return success();
}

namespace {

struct ConvertTaskToGPU
    : public mirage::impl::ConvertTaskToGPUBase<ConvertTaskToGPU> {
  using Base::Base;

  std::optional<std::string> checkOptions() const {
    if (auto error = checkPrefetchOptions("convert-tg-to-gpu", prefetchBytes,
                                          prefetchAhead))
      return error;
    if (preloadWarp && (!preload || dynamicDispatch || preloadSparesLeader))
      return std::string("convert-tg-to-gpu: preload-warp needs preload and "
                         "static queues, without preload-spares-leader");
    if (chip.empty())
      return std::nullopt;
    return checkOptionValue("convert-tg-to-gpu", "chip", chip,
                            tb::TargetAttr::getKnownChips());
  }
  MIRAGE_CHECK_PASS_OPTIONS_AT_PARSE

  void runOnOperation() override {
    ModuleOp module = getOperation();
    codegen::Options options;
    if (!chip.empty())
      options.chipSharedMemory =
          tb::TargetAttr::getKnown(module.getContext(), chip).getSmemPerBlock();
    options.pipelineStages = pipelineStages;
    // A worker runs one task at a time: its stages alone keep the SM's
    // bytes in flight.
    options.residentBlocks = 1;
    options.tensorCores = tensorCores;
    options.asyncCopy = asyncCopy;
    options.preload = preload;
    options.preloadStages = preloadStages;
    PrefetchOptions prefetch{prefetchBytes, prefetchAhead};
    // Dynamic dispatch has no queue to prefetch from.
    if (dynamicDispatch)
      prefetch.bytes = 0;
    SmallVector<tg::GraphOp> graphs(module.getOps<tg::GraphOp>());
    for (tg::GraphOp graph : graphs) {
      if (graph->hasAttr(kMegaKernelAttrName))
        continue;
      FailureOr<Tables> tables = buildTables(graph, dynamicDispatch);
      if (failed(tables))
        return signalPassFailure();
      if (preloadWarp && tables->threads % kWarpLanes) {
        graph.emitError() << "convert-tg-to-gpu preload-warp: the bodies run "
                          << tables->threads << " threads, not whole warps";
        return signalPassFailure();
      }
      if (preloadWarp && tables->jitTasks) {
        graph.emitError() << "convert-tg-to-gpu preload-warp: the graph has "
                          << tables->jitTasks
                          << " just-in-time tasks; the preload warp follows "
                             "static queues only";
        return signalPassFailure();
      }
      // The claimed-task word takes static shared memory beside the
      // bodies' dynamic share (the preload words too: buildBodies).
      codegen::Options graphOptions = options;
      if ((tables->dynamic || tables->jitTasks) &&
          graphOptions.chipSharedMemory)
        graphOptions.chipSharedMemory -= kClaimedTaskSharedBytes;
      graph.emitRemark() << "waits: " << tables->counterWaits
                         << " poll an event counter, " << tables->localWaits
                         << " are same-worker hand-offs; "
                         << tables->elidedTasks
                         << " empty tasks left out (their neighbours wait "
                            "on or signal their events)";
      if (tables->jitTasks)
        graph.emitRemark()
            << "just-in-time tasks, claimed by the workers as they go: "
            << tables->jitTasks;
      if (failed(MegaKernelLowering(graph, std::move(*tables), graphOptions,
                                    prefetch, preloadSparesLeader, preloadWarp)
                     .lower()))
        return signalPassFailure();
    }
  }
};

} // namespace
