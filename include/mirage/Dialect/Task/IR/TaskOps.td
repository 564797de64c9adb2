//===- TaskOps.td - The tg (task graph) dialect ------------*- tablegen -*-===//
//
// Part of the Mirage MLIR project.
//
//===----------------------------------------------------------------------===//

#ifndef MIRAGE_DIALECT_TASK_IR_TASKOPS_TD
#define MIRAGE_DIALECT_TASK_IR_TASKOPS_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/RegionKindInterface.td"
include "mlir/IR/SymbolInterfaces.td"

def Task_Dialect : Dialect {
  let name = "tg";
  let cppNamespace = "::mirage::tg";
  let summary = "Task graphs: SM-level tasks and events of a mega-kernel";
  let description = [{
    A task graph (MPK's tGraph, the "ttGraph" of the project brief) splits a
    tensor program into tasks, each one SM's work (a tile of an operator's
    output, a transfer, or nothing), and events that order them. A task is
    ready when every event it waits on is activated; when it finishes it
    notifies every event it triggers. An event is activated once it has
    received `triggers` notifications; an event with `triggers 0` is a start
    event, active from the beginning.

    Tasks and events alternate: tasks point to the events they trigger and
    events to the tasks that wait on them. Events are SSA values in a graph
    region, so a task may refer to events defined after it.

    The linearized form, the layout a persistent kernel reads from device
    memory, has at most one triggered and exactly one awaited event per task,
    and orders the tasks so that those waiting on one event are contiguous:
    an event is then its trigger count plus its first and last task.
  }];
  let useDefaultTypePrinterParser = 1;
}

class Task_Op<string mnemonic, list<Trait> traits = []>
    : Op<Task_Dialect, mnemonic, traits>;

def Task_EventType : TypeDef<Task_Dialect, "Event"> {
  let mnemonic = "event";
  let summary = "an event of a task graph";
}

def Task_TaskKind : I32EnumAttr<"TaskKind", "what a task does", [
    I32EnumAttrCase<"Compute", 0, "compute">,
    I32EnumAttrCase<"Communication", 1, "communication">,
    I32EnumAttrCase<"Empty", 2, "empty">]> {
  let cppNamespace = "::mirage::tg";
}

def Task_LaunchMode : I32EnumAttr<"LaunchMode", "when a task is dispatched", [
    I32EnumAttrCase<"JIT", 0, "jit">,
    I32EnumAttrCase<"AOT", 1, "aot">]> {
  let cppNamespace = "::mirage::tg";
}

def Task_GraphOp : Task_Op<"graph", [Symbol, IsolatedFromAbove, SingleBlock,
    NoTerminator, DeclareOpInterfaceMethods<RegionKindInterface>]> {
  let summary = "a task graph";
  let description = [{
    Holds the `tg.event` and `tg.task` ops of one task graph. Its region is a
    graph region: events may be used before they are defined. With
    `linearized`, the graph is in the form a persistent kernel runs (see the
    dialect description): every task waits on exactly one event and triggers
    at most one, and every event that tasks wait on carries the index range
    `tasks [first, last]` (inclusive, counting `tg.task` ops in order) of
    exactly those tasks.

    ```mlir
    tg.graph @mlp {
      %start = tg.event triggers 0
      %done = tg.event triggers 2
      tg.task compute @matmul tile [0, 0] sizes [16, 64] aot waits(%start) triggers(%done)
      tg.task compute @matmul tile [0, 64] sizes [16, 64] aot waits(%start) triggers(%done)
      tg.task communication @all_reduce tile [0, 0] sizes [16, 128] jit waits(%done)
    }
    ```

    The verifier checks that each event's trigger count equals the number of
    tasks triggering it, that the graph has no cycle, and the linearized
    invariants when `linearized` is set.
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, UnitAttr:$linearized);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $sym_name (`linearized` $linearized^)? attr-dict-with-keyword $body
  }];
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::Block &getBodyBlock() { return getBody().front(); }
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
    HasParent<"GraphOp">, DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "a task: one SM's share of an operator, a transfer, or nothing";
  let description = [{
    `kind` says what the task does: `compute` runs a tile of the operator
    `op` (a symbol, typically a function holding one kernel-graph op or
    graph-defined kernel), `communication` runs a transfer described by
    `op`, `empty` does nothing (it only joins or forks events). `tile
    [offsets] sizes [sizes]` is the hyper-rectangle of the operator's first
    result that the task computes and owns. `jit` tasks are dispatched when
    their events activate; `aot` tasks are queued ahead and spin until then.
    `waits` lists the events the task waits on, `triggers` those it notifies
    when done.

    ```mlir
    tg.task compute @matmul tile [0, 64] sizes [16, 64] aot waits(%start) triggers(%e1)
    tg.task empty jit waits(%e1) triggers(%e2)
    ```
  }];
  let arguments = (ins Task_TaskKind:$kind, OptionalAttr<SymbolRefAttr>:$op,
                       OptionalAttr<DenseI64ArrayAttr>:$tile_offsets,
                       OptionalAttr<DenseI64ArrayAttr>:$tile_sizes,
                       Task_LaunchMode:$launch,
                       Variadic<Task_EventType>:$waits,
                       Variadic<Task_EventType>:$triggered);
  let assemblyFormat = [{
    $kind ($op^)? (`tile` $tile_offsets^ `sizes` $tile_sizes)? $launch
    (`waits` `(` $waits^ `)`)? (`triggers` `(` $triggered^ `)`)? attr-dict
  }];
  let hasVerifier = 1;
}

#endif // MIRAGE_DIALECT_TASK_IR_TASKOPS_TD
