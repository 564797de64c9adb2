//===- TaskOps.td - The tg (task graph) dialect ------------*- tablegen -*-===//
//
// Part of the Mirage MLIR project.
//
//===----------------------------------------------------------------------===//

#ifndef MIRAGE_DIALECT_TASK_IR_TASKOPS_TD
#define MIRAGE_DIALECT_TASK_IR_TASKOPS_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/IR/CommonTypeConstraints.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/RegionKindInterface.td"
include "mlir/IR/SymbolInterfaces.td"

def Task_Dialect : Dialect {
  let name = "tg";
  let cppNamespace = "::mirage::tg";
  let summary = "Task graphs: SM-level tasks and events of a mega-kernel";
  let description = [{
    A task graph (MPK's tGraph, the "ttGraph" of the project brief) is a
    whole tensor program cut into tasks, each one SM's work, and events that
    order them. Its buffers are the program's tensors in device memory
    (inputs, outputs, intermediates, and views that reshape them); its
    kernels are the program's operators, each a block graph bound to
    buffers; a compute task runs one block of one kernel. A task is ready
    when every event it waits on is activated; when it finishes it notifies
    every event it triggers. An event is activated once it has received
    `triggers` notifications; an event with `triggers 0` is a start event,
    active from the beginning.

    Tasks and events alternate: tasks point to the events they trigger and
    events to the tasks that wait on them. Events are SSA values in a graph
    region, so a task may refer to events defined after it.

    The linearized form, the layout a persistent kernel reads from device
    memory, has at most one triggered and exactly one awaited event per task,
    and orders the tasks so that those waiting on one event are contiguous:
    an event is then its trigger count plus its first and last task.
    docs/TaskGraph.md describes the passes that build and check it.
  }];
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  // Kernels hold block graphs; targets are read from tb.target.
  let dependentDialects = ["::mirage::tb::BlockDialect"];
}

class Task_Op<string mnemonic, list<Trait> traits = []>
    : Op<Task_Dialect, mnemonic, traits>;

def Task_EventType : TypeDef<Task_Dialect, "Event"> {
  let mnemonic = "event";
  let summary = "an event of a task graph";
}

def Task_BoxAttr : AttrDef<Task_Dialect, "Box"> {
  let mnemonic = "box";
  let summary = "a hyper-rectangle of a buffer: offsets and sizes per dim";
  let description = [{
    ```mlir
    #tg.box<[0, 192], [1, 64]>
    ```
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$offsets,
                        ArrayRefParameter<"int64_t">:$sizes);
  let assemblyFormat = "`<` `[` $offsets `]` `,` `[` $sizes `]` `>`";
  let genVerifyDecl = 1;
}

def Task_TaskKind : I32EnumAttr<"TaskKind", "what a task does", [
    I32EnumAttrCase<"Compute", 0, "compute">,
    I32EnumAttrCase<"Empty", 1, "empty">]> {
  let cppNamespace = "::mirage::tg";
}

def Task_LaunchMode : I32EnumAttr<"LaunchMode", "when a task is dispatched", [
    I32EnumAttrCase<"JIT", 0, "jit">,
    I32EnumAttrCase<"AOT", 1, "aot">]> {
  let cppNamespace = "::mirage::tg";
}

def Task_BufferRole : I32EnumAttr<"BufferRole", "what a buffer holds", [
    I32EnumAttrCase<"Input", 0, "input">,
    I32EnumAttrCase<"Output", 1, "output">,
    I32EnumAttrCase<"Temp", 2, "temp">]> {
  let cppNamespace = "::mirage::tg";
}

def Task_GraphOp : Task_Op<"graph", [Symbol, SymbolTable, IsolatedFromAbove,
    SingleBlock, NoTerminator, DeclareOpInterfaceMethods<RegionKindInterface>,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "a task graph";
  let description = [{
    Holds the buffers, kernels, events and tasks of one task graph, and,
    once scheduled, the per-worker queues. Its region is a graph region:
    events may be used before they are defined. `from @f` names the kernel
    graph it was built from (the equivalence verifier checks the pair);
    `workers N` the persistent kernel's worker count a schedule is for.
    With `linearized`, the graph is in the form a persistent kernel runs
    (see the dialect description): every task waits on exactly one event
    and triggers at most one, and every event that tasks wait on carries the
    index range `tasks [first, last]` (inclusive, counting `tg.task` ops in
    order) of exactly those tasks.

    ```mlir
    tg.graph @mlp from @f {
      %x = tg.buffer input 0 : memref<16x4096xf16>
      %w = tg.buffer input 1 : memref<4096x128xf16>
      %y = tg.buffer output 0 : memref<16x128xf16>
      tg.kernel @matmul ins(%x, %w : memref<16x4096xf16>, memref<4096x128xf16>)
                        outs(%y : memref<16x128xf16>) {
        tb.graph grid [2] threads 128 forloop 64 { ... }
      }
      %start = tg.event triggers 0
      tg.task compute @matmul block [0]
          reads [#tg.box<[0, 0], [16, 4096]>, #tg.box<[0, 0], [4096, 64]>]
          writes [#tg.box<[0, 0], [16, 64]>] aot waits(%start)
      tg.task compute @matmul block [1]
          reads [#tg.box<[0, 0], [16, 4096]>, #tg.box<[0, 64], [4096, 64]>]
          writes [#tg.box<[0, 64], [16, 64]>] aot waits(%start)
    }
    ```

    The verifier checks that each event's trigger count equals the number
    of tasks triggering it, that the graph has no cycle, that every block
    of every kernel is run by exactly one task whose regions fit its
    kernel's buffers, the queues, and the linearized invariants when
    `linearized` is set.
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       OptionalAttr<FlatSymbolRefAttr>:$source,
                       OptionalAttr<I64Attr>:$workers,
                       UnitAttr:$linearized);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $sym_name (`from` $source^)? (`workers` $workers^)?
    (`linearized` $linearized^)? attr-dict-with-keyword
    custom<IsolatedBlock>($body)
  }];
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::Block &getBodyBlock() { return getBody().front(); }
  }];
}

def Task_BufferOp : Task_Op<"buffer", [HasParent<"GraphOp">]> {
  let summary = "a buffer in device memory";
  let description = [{
    A tensor of the program: its `index`-th `input` or `output`, or a
    `temp`orary between tasks. Inputs are read-only; outputs and temporaries
    are written by tasks, each element exactly once.

    ```mlir
    %x = tg.buffer input 0 : memref<1x4096xf16>
    %h = tg.buffer temp : memref<1x12288xf16>
    ```
  }];
  let arguments = (ins Task_BufferRole:$role, OptionalAttr<I64Attr>:$index);
  let results = (outs StaticShapeMemRefOf<[F16, BF16, F32]>:$buffer);
  let assemblyFormat = "$role ($index^)? attr-dict `:` type($buffer)";
  let hasVerifier = 1;
}

def Task_ViewOp : Task_Op<"view", [HasParent<"GraphOp">]> {
  let summary = "a buffer's elements seen with another shape";
  let description = [{
    The row-major elements of `source` with the shape of the result (the
    same element type and count): what `kn.reshape` becomes. Tasks that
    access a view access the elements of the buffer it views.

    ```mlir
    %heads = tg.view %q : memref<1x4096xf16> to memref<1x32x128xf16>
    ```
  }];
  let arguments = (ins StaticShapeMemRefOf<[F16, BF16, F32]>:$source);
  let results = (outs StaticShapeMemRefOf<[F16, BF16, F32]>:$view);
  let assemblyFormat =
      "$source attr-dict `:` type($source) `to` type($view)";
  let hasVerifier = 1;
}

def Task_ConcatOp : Task_Op<"concat", [HasParent<"GraphOp">]> {
  let summary = "buffers seen as one, concatenated along a dim";
  let description = [{
    The concatenation of the `parts` (buffers or views, all of one element
    type and rank, their shapes equal but along `dim`) along `dim`, an outer
    dim (not the innermost), without
    storage of its own: what a `kn.concat` marked `kn.view` becomes. Only
    kernels read it (as an input): a task reading a box of it reads the
    parts' boxes it covers, and a kernel reading it is given the first part
    in the input's place and the others after its outputs (see
    `getBodyOperands`).

    ```mlir
    %kv = tg.concat %cache, %row dim 1
        : memref<8x1024x128xf16>, memref<8x1x128xf16> to memref<8x1025x128xf16>
    ```
  }];
  let arguments = (ins Variadic<StaticShapeMemRefOf<[F16, BF16, F32]>>:$parts,
                       I64Attr:$dim);
  let results = (outs StaticShapeMemRefOf<[F16, BF16, F32]>:$view);
  let assemblyFormat = [{
    $parts `dim` $dim attr-dict `:` type($parts) `to` type($view)
  }];
  let hasVerifier = 1;
}

def Task_KernelOp : Task_Op<"kernel", [Symbol, HasParent<"GraphOp">,
    AttrSizedOperandSegments, IsolatedFromAbove, SingleBlock, NoTerminator]> {
  let summary = "an operator: a block graph bound to buffers";
  let description = [{
    Binds the inputs of the block graph (`tb.graph`) in its region to the
    `ins` buffers and its outputs to the `outs` buffers, in order: the block
    graph's entry block arguments and yielded values have the buffers'
    shapes and element types as tensors. Each block of its grid is one
    task. `data_dependent` marks an operator whose time depends on the data
    (its tasks are dispatched just in time).

    ```mlir
    tg.kernel @norm ins(%x, %g : memref<1x4096xf16>, memref<4096xf16>)
                    outs(%xn : memref<1x4096xf16>) {
      tb.graph grid [1] threads 128 forloop 1 { ... }
    }
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       Variadic<StaticShapeMemRefOf<[F16, BF16, F32]>>:$inputs,
                       Variadic<StaticShapeMemRefOf<[F16, BF16, F32]>>:$outputs,
                       UnitAttr:$data_dependent);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $sym_name (`data_dependent` $data_dependent^)?
    (`ins` `(` $inputs^ `:` type($inputs) `)`)?
    (`outs` `(` $outputs^ `:` type($outputs) `)`)? attr-dict-with-keyword
    custom<IsolatedBlock>($body)
  }];
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    /// The block graph (null only in invalid IR).
    ::mlir::Operation *getBlockGraph();
    /// The buffers a block of it is given, in order: the inputs (the first
    /// part of a `tg.concat` in its place), the outputs, then the other
    /// parts of each concatenated input, input by input.
    ::llvm::SmallVector<::mlir::Value> getBodyOperands();
  }];
}

def Task_EventOp : Task_Op<"event", [HasParent<"GraphOp">]> {
  let summary = "an event: activated after a number of notifications";
  let description = [{
    `triggers` is the number of notifications that activate the event: the
    number of tasks that trigger it (0 for a start event). In a linearized
    graph, `tasks [first, last]` gives the inclusive index range of the tasks
    that wait on it.

    ```mlir
    %e = tg.event triggers 4
    %e2 = tg.event triggers 4 tasks [3, 6]
    ```
  }];
  let arguments = (ins I64Attr:$triggers, OptionalAttr<I64Attr>:$first_task,
                       OptionalAttr<I64Attr>:$last_task);
  let results = (outs Task_EventType:$event);
  let assemblyFormat = [{
    `triggers` $triggers (`tasks` ` ` `[` $first_task^ `,` $last_task `]`)?
    attr-dict
  }];
  let hasVerifier = 1;
}

def Task_TaskOp : Task_Op<"task", [AttrSizedOperandSegments,
    HasParent<"GraphOp">]> {
  let summary = "a task: one block of a kernel, or nothing";
  let description = [{
    A `compute` task runs `block` (grid coordinates) of `kernel`; `reads`
    gives, per kernel input, the box of the input buffer the block reads
    over all its loop iterations, and `writes`, per kernel output, the box
    it writes. An `empty` task does nothing: it only joins or forks events.
    `jit` tasks are in no queue: workers claim them in the graph's order
    as they go (docs/MegaKernel.md); `aot` tasks are queued ahead and wait
    until their events activate. `waits` lists the events the task
    waits on, `triggers` those it notifies when done.

    ```mlir
    tg.task compute @matmul block [1]
        reads [#tg.box<[0, 0], [16, 4096]>, #tg.box<[0, 64], [4096, 64]>]
        writes [#tg.box<[0, 64], [16, 64]>] aot waits(%start) triggers(%e1)
    tg.task empty jit waits(%e1) triggers(%e2)
    ```
  }];
  let arguments = (ins Task_TaskKind:$kind,
                       OptionalAttr<FlatSymbolRefAttr>:$kernel,
                       OptionalAttr<DenseI64ArrayAttr>:$block,
                       OptionalAttr<TypedArrayAttrBase<Task_BoxAttr,
                                                       "boxes">>:$reads,
                       OptionalAttr<TypedArrayAttrBase<Task_BoxAttr,
                                                       "boxes">>:$writes,
                       Task_LaunchMode:$launch,
                       Variadic<Task_EventType>:$waits,
                       Variadic<Task_EventType>:$triggered);
  let assemblyFormat = [{
    $kind ($kernel^ `block` $block)? (`reads` $reads^)? (`writes` $writes^)?
    $launch (`waits` `(` $waits^ `)`)? (`triggers` `(` $triggered^ `)`)?
    attr-dict
  }];
  let hasVerifier = 1;
}

def Task_QueueOp : Task_Op<"queue", [HasParent<"GraphOp">]> {
  let summary = "a worker's ahead-of-time tasks, in the order it runs them";
  let description = [{
    Worker `worker` runs these tasks (indices counting `tg.task` ops in
    order) one after another, each once its events are active. Every `aot`
    task of a scheduled graph is in exactly one queue; `jit` tasks are in
    none (workers claim them as they go).

    ```mlir
    tg.queue worker 0 [0, 2, 5]
    ```
  }];
  let arguments = (ins I64Attr:$worker, DenseI64ArrayAttr:$tasks);
  let assemblyFormat = "`worker` $worker $tasks attr-dict";
}

#endif // MIRAGE_DIALECT_TASK_IR_TASKOPS_TD
