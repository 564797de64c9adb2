//===- FrontendConversion.cpp - The conversion driver ---------------------===//
//
// Walks a function in program order, converts the ops a frontend owns into
// expressions, emits kn tensors where they are needed, reports what it
// refuses and erases what it replaced.
//
//===----------------------------------------------------------------------===//

#include "mirage/Conversion/Frontend/FrontendConversion.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mirage;
using namespace mirage::frontend;

namespace {

/// Records the ops a builder creates, so that unused ones can be erased.
struct Recorder : public OpBuilder::Listener {
  SmallVector<Operation *> created;
  void notifyOperationInserted(Operation *op,
                               OpBuilder::InsertPoint) override {
    created.push_back(op);
  }
};

std::string describeType(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << type;
  return os.str();
}

} // namespace

FrontendConversion::FrontendConversion(func::FuncOp function,
                                       bool keepUnsupported,
                                       StringRef passName)
    : builder(function.getContext()), emitter(graph, builder),
      function(function), keepUnsupported(keepUnsupported),
      passName(passName.str()) {}

FrontendConversion::~FrontendConversion() = default;

void FrontendConversion::report(Operation *op, const Refusal &why) {
  // One report per cause: a refusal inside an expression surfaces at every
  // op that needs its value.
  if (why.at && !reportedCauses.insert({why.at, why.message}).second)
    return;
  auto attachNote = [&](InFlightDiagnostic &diagnostic) {
    // Ops a named linalg op builds in its body have no location of their
    // own: the op's is already the error's.
    if (why.at && why.at != op && !isa<UnknownLoc>(why.at->getLoc()))
      diagnostic.attachNote(why.at->getLoc())
          << "'" << why.at->getName() << "' is here";
  };
  if (keepUnsupported) {
    InFlightDiagnostic diagnostic = op->emitRemark()
                                    << "kept, not converted to kn ("
                                    << passName << "): " << why.message;
    attachNote(diagnostic);
    return;
  }
  hadError = true;
  InFlightDiagnostic diagnostic = op->emitError()
                                  << "cannot be converted to kn (" << passName
                                  << "): " << why.message;
  attachNote(diagnostic);
}

ExprId FrontendConversion::expressionOf(Value value) {
  auto it = states.find(value);
  if (it != states.end())
    return it->second.tensor ? graph.identityLeaf(it->second.tensor)
                             : it->second.expr;
  if (isKernelTensorType(value.getType()))
    return graph.identityLeaf(value);
  return graph.opaque(value.getDefiningOp(),
                      "it reads a value of type " +
                          describeType(value.getType()) +
                          ", which is no kn tensor (static shape, f16, bf16 "
                          "or f32)");
}

FailureOr<Value> FrontendConversion::materialize(Value value, Refusal &why) {
  auto it = states.find(value);
  if (it == states.end()) {
    if (isKernelTensorType(value.getType()))
      return value;
    why.message = "it is a " + describeType(value.getType()) +
                  ", which is no kn tensor (static shape, f16, bf16 or f32)";
    return failure();
  }
  if (it->second.tensor)
    return it->second.tensor;
  if (!isKernelTensorType(value.getType())) {
    why.message = "its type " + describeType(value.getType()) +
                  " is no kn tensor type (static shape, f16, bf16 or f32)";
    return failure();
  }
  ExprId expr = it->second.expr;
  Operation *producer = it->second.producer;
  auto type = cast<RankedTensorType>(value.getType());
  FailureOr<Value> tensor =
      emitter.emit(expr, type.getRank(), type.getElementType(),
                   producer ? producer->getLoc() : value.getLoc(), why);
  if (failed(tensor))
    return failure();
  if (tensor->getType() != type) {
    why.message =
        "its value is a broadcast of a " + describeType(tensor->getType()) +
        " to " + describeType(type) +
        ", and kn has no broadcast operator: it converts only where an "
        "operator that broadcasts (add, sub, mul, div, pow, matmul) reads it";
    return failure();
  }
  states[value].tensor = *tensor;
  return *tensor;
}

void FrontendConversion::define(Value value, ExprId expr) {
  Operation *producer = value.getDefiningOp();
  states[value] = {expr, Value(), producer};
  const ExprNode &node = graph.node(expr);
  if (node.kind == ExprKind::Leaf) {
    const ExprLeaf &leaf = graph.getLeaf(expr);
    if (leaf.tensor.getType() == value.getType() &&
        llvm::equal(leaf.dims, llvm::seq<int64_t>(0, leaf.dims.size()))) {
      states[value].tensor = leaf.tensor;
      return;
    }
  }
  if (value.use_empty() || node.kind == ExprKind::Const ||
      node.kind == ExprKind::Empty || node.kind == ExprKind::Opaque)
    return;
  if (value.hasOneUse()) {
    Operation *user = *value.user_begin();
    if (user->getBlock() == producer->getBlock() && owns(user) &&
        readsExpressions(user))
      return;
  }
  // Used more than once, or by an op that needs a tensor: emit it here.
  // What cannot be emitted on its own (a reciprocal, say) stays an
  // expression for its users to fold in.
  Refusal ignored;
  (void)materialize(value, ignored);
}

void FrontendConversion::defineTensor(Value value, Value tensor) {
  states[value] = {graph.identityLeaf(tensor), tensor, value.getDefiningOp()};
}

LogicalResult FrontendConversion::run() {
  if (function.isDeclaration())
    return success();
  Recorder recorder;
  builder.setListener(&recorder);
  Region &region = function.getBody();
  Block *body = &region.front();

  // Owned ops that are not straight-line code of the function body: one
  // report per op of the body whose regions hold some.
  auto firstOwnedIn = [&](Operation *holder) {
    Operation *found = nullptr;
    holder->walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (op == holder || !owns(op))
        return WalkResult::advance();
      found = op;
      return WalkResult::interrupt();
    });
    return found;
  };
  if (!region.hasOneBlock()) {
    if (Operation *op = firstOwnedIn(function))
      report(op, {"it is in a function with several blocks; only "
                  "straight-line tensor programs in a function body convert",
                  nullptr});
  } else {
    for (Operation &holder : *body) {
      if (holder.getNumRegions() == 0 || owns(&holder))
        continue;
      if (Operation *op = firstOwnedIn(&holder))
        report(op, {"it is in the region of '" +
                        holder.getName().getStringRef().str() +
                        "'; only straight-line tensor programs in a "
                        "function body convert",
                    nullptr});
    }
  }

  SmallVector<Operation *> converted;
  llvm::SmallPtrSet<Operation *, 8> reported;
  SmallVector<Operation *> ops;
  if (region.hasOneBlock())
    for (Operation &op : *body)
      ops.push_back(&op);

  // Gives `user` kn tensors for the operands this conversion holds.
  // Operands that cannot be given stay, with their producers; that is
  // reported for ops that need a tensor (`required`), not for kept ones.
  auto rewire = [&](Operation *op, bool required) {
    // The op's operands, and values its regions read from outside.
    SmallVector<OpOperand *> uses;
    op->walk([&](Operation *nested) {
      for (OpOperand &use : nested->getOpOperands())
        if (nested == op || !op->isAncestor(use.get().getParentBlock()
                                                ->getParentOp()))
          uses.push_back(&use);
    });
    for (OpOperand *usePtr : uses) {
      OpOperand &use = *usePtr;
      Operation *user = use.getOwner();
      auto it = states.find(use.get());
      if (it == states.end())
        continue;
      builder.setInsertionPoint(op);
      Refusal why;
      FailureOr<Value> tensor = materialize(use.get(), why);
      if (succeeded(tensor)) {
        use.set(*tensor);
        continue;
      }
      Operation *producer = it->second.producer;
      if (!required || !producer || !reported.insert(producer).second)
        continue;
      Refusal refusal = why;
      refusal.message = "its result is used by '" +
                        user->getName().getStringRef().str() +
                        "', which needs a tensor, but " + why.message;
      report(producer, refusal);
    }
  };

  for (Operation *op : ops) {
    if (!owns(op)) {
      rewire(op, /*required=*/true);
      continue;
    }
    builder.setInsertionPoint(op);
    Refusal why;
    if (succeeded(convert(op, why))) {
      converted.push_back(op);
      continue;
    }
    reported.insert(op);
    report(op, why);
    // A kept op reads kn tensors where its operands have them.
    if (keepUnsupported)
      rewire(op, /*required=*/false);
  }

  // Erase what was replaced, users first, then kn ops nobody reads (left by
  // refused conversions), then what only the erased ops read (the scalar
  // constants of fills and bodies).
  llvm::SmallPtrSet<Operation *, 16> skip(converted.begin(), converted.end());
  skip.insert(recorder.created.begin(), recorder.created.end());
  SmallVector<Operation *> readOnlyByErased;
  llvm::SmallPtrSet<Operation *, 16> seen;
  auto erase = [&](Operation *op) {
    op->walk([&](Operation *inner) {
      for (Value operand : inner->getOperands()) {
        Operation *producer = operand.getDefiningOp();
        if (producer && !skip.contains(producer) &&
            !op->isAncestor(producer) && producer->getBlock() == body &&
            seen.insert(producer).second)
          readOnlyByErased.push_back(producer);
      }
    });
    op->erase();
  };
  for (Operation *op : llvm::reverse(converted))
    if (op->use_empty())
      erase(op);
  for (unsigned i = 0; i < readOnlyByErased.size(); ++i) {
    Operation *op = readOnlyByErased[i];
    if (isOpTriviallyDead(op)) {
      skip.insert(op);
      erase(op);
    }
  }
  for (Operation *op : llvm::reverse(recorder.created))
    if (op->use_empty())
      op->erase();
  builder.setListener(nullptr);
  return failure(hadError);
}
