//===- SemanticsOpInterface.td - Binding ops to operator records -*- tablegen -*-===//
//
// Part of the Mirage MLIR project.
//
//===----------------------------------------------------------------------===//

#ifndef MIRAGE_IR_SEMANTICSOPINTERFACE_TD
#define MIRAGE_IR_SEMANTICSOPINTERFACE_TD

include "mlir/IR/OpBase.td"

def SemanticsOpInterface : OpInterface<"SemanticsOpInterface"> {
  let cppNamespace = "::mirage";
  let description = [{
    Binds an op of the `kn`, `tb` or `th` dialect to its operator record in
    `mirage/Semantics/OpSemantics.h`, the one place where an operator's facets
    (shape rule today; float64 and finite-field evaluation, abstract
    expression and cost as they are added) are defined. `kn.matmul`,
    `tb.matmul` and `th.matmul` share one record: the level changes where
    values live, not what the operator computes.
  }];
  let methods = [
    StaticInterfaceMethod<[{
        Returns the operator kind this op is an instance of.
      }],
      "::mirage::OpKind", "getOpKind">,
    InterfaceMethod<[{
        Returns the operator parameters, read from the op's attributes and,
        for iterators, savers and accumulators, from the enclosing graph.
      }],
      "::mirage::OpParams", "getOpParams">,
  ];
}

// Structural roles in a block or thread graph, used by the loop-structure
// verifier shared by both levels.
def IsInputIterator : NativeOpTrait<"IsInputIterator"> {
  let cppNamespace = "::mirage::OpTrait";
}
def IsAccumulator : NativeOpTrait<"IsAccumulator"> {
  let cppNamespace = "::mirage::OpTrait";
}
def IsOutputSaver : NativeOpTrait<"IsOutputSaver"> {
  let cppNamespace = "::mirage::OpTrait";
}
def BlockGraphNodeOpInterface : OpInterface<"BlockGraphNodeOpInterface"> {
  let cppNamespace = "::mirage";
  let description = [{
    An op of another dialect that may be a node of a block graph because it
    maps shared-memory tiles to tiles (th.graph). It reports the resources it
    adds to the block.
  }];
  let methods = [
    InterfaceMethod<[{
        Returns the peak register bytes per thread the op needs.
      }],
      "int64_t", "getRegisterBytesPerThread">,
  ];
}

#endif // MIRAGE_IR_SEMANTICSOPINTERFACE_TD
