//===- OperatorOps.h - Building a dialect's op by operator kind -*- C++ -*-===//
//
// Part of the Mirage MLIR project.
//
// The typed factory of the operator ops: each dialect's ops bound to operator
// records (SemanticsOpInterface), indexed by OpKind and collected from the
// dialect's ODS-generated op list (`GET_OP_LIST`). Code that builds "the op of
// kind K at this level" (the search, kn-fuse, the tile eqsat's
// materialization, the frontends, the Python bindings) calls
// `createOperatorOp<Dialect>` and never names an op by a string.
//
//===----------------------------------------------------------------------===//

#ifndef MIRAGE_IR_OPERATOROPS_H
#define MIRAGE_IR_OPERATOROPS_H

#include "mirage/Semantics/OpSemantics.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/OperationSupport.h"

#include <array>
#include <cassert>
#include <optional>
#include <type_traits>

namespace mirage {

namespace detail {
template <typename Op, typename = void>
struct IsOperatorOp : std::false_type {};
template <typename Op>
struct IsOperatorOp<Op, std::void_t<decltype(Op::getOpKind())>>
    : std::true_type {};
} // namespace detail

/// One dialect's operator ops by kind.
class OperatorOpTable {
public:
  /// The table of the ops among `Ops` (a dialect's op list) that carry an
  /// operator record; at most one op per kind.
  template <typename... Ops>
  static OperatorOpTable get() {
    OperatorOpTable table;
    (table.add<Ops>(), ...);
    return table;
  }

  /// Builds the op of operator `kind` with `operands`, result types `types`
  /// and `attributes`; fails, emitting nothing, when the dialect has no op of
  /// that kind (or is not loaded).
  llvm::FailureOr<mlir::Operation *>
  create(mlir::OpBuilder &builder, mlir::Location loc, OpKind kind,
         mlir::ValueRange operands, mlir::TypeRange types,
         llvm::ArrayRef<mlir::NamedAttribute> attributes) const;

private:
  template <typename Op>
  void add() {
    if constexpr (detail::IsOperatorOp<Op>::value) {
      std::optional<mlir::TypeID> &slot =
          ops[static_cast<unsigned>(Op::getOpKind())];
      assert(!slot && "two ops of one dialect bound to one operator kind");
      slot = mlir::TypeID::get<Op>();
    }
  }

  std::array<std::optional<mlir::TypeID>, kNumOpKinds> ops;
};

/// The operator ops of `Dialect` (kn, tb or th), collected from its op list:
/// specialized, and declared so, by each dialect.
template <typename Dialect>
const OperatorOpTable &getOperatorOps();

/// The op of operator `kind` in `Dialect`, built with `operands`, result
/// `types` and `attributes`; fails, emitting nothing, where `Dialect` has no
/// op of that kind.
template <typename Dialect>
llvm::FailureOr<mlir::Operation *>
createOperatorOp(mlir::OpBuilder &builder, mlir::Location loc, OpKind kind,
                 mlir::ValueRange operands, mlir::TypeRange types,
                 llvm::ArrayRef<mlir::NamedAttribute> attributes) {
  return getOperatorOps<Dialect>().create(builder, loc, kind, operands, types,
                                          attributes);
}

} // namespace mirage

#endif // MIRAGE_IR_OPERATOROPS_H
