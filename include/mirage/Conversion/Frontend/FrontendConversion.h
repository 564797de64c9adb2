//===- FrontendConversion.h - From other tensor IRs into kn -----*- C++ -*-===//
//
// What convert-linalg-to-kn and convert-tosa-to-kn share. A value of the
// source program is held as a scalar expression over elements of kn tensors
// (ExprGraph): elementwise computations from several source ops compose
// into one expression, which is emitted as kn ops only where a tensor is
// needed. Which kn ops compute an expression is decided by matching the
// operators' scalar forms (OpInfo::formula, the operator records) against
// it, so the conversions restate no operator's meaning.
//
//===----------------------------------------------------------------------===//

#ifndef MIRAGE_CONVERSION_FRONTEND_FRONTENDCONVERSION_H
#define MIRAGE_CONVERSION_FRONTEND_FRONTENDCONVERSION_H

#include "mirage/Semantics/OpSemantics.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace mirage::frontend {

//===----------------------------------------------------------------------===//
// Scalar expressions over tensors
//===----------------------------------------------------------------------===//

enum class ExprKind : uint8_t {
  // Leaves.
  Leaf,   // an element of a kn tensor (ExprLeaf)
  Const,  // a number
  Empty,  // an element of an uninitialized tensor (tensor.empty)
  Acc,    // the running value of a reduction's output #index
  Opaque, // something no kn operator computes (the reason is kept)
  // Scalar operators. Add and Mul take any number of operands, sorted.
  Add,
  Mul,
  Neg,
  Recip,
  Exp,
  Sqrt,
  Erf,
  Tanh,
  Max,
  Pow,
  // Only in scalar forms: an operand (x0, x1), the scalar parameter (s) and
  // reductions over the operator's reduced dim.
  Var,
  Scalar,
  ReduceAdd,
  ReduceMax,
};

using ExprId = unsigned;

struct ExprNode {
  ExprKind kind;
  llvm::SmallVector<ExprId, 2> operands;
  /// Const: the number.
  double value = 0.0;
  /// Leaf: index into the leaves; Acc: the output; Opaque: a unique number.
  unsigned index = 0;
  /// The source op the node came from (for messages), or null.
  mlir::Operation *origin = nullptr;
};

/// An element of a kn tensor read by a value of some rank: tensor dim i
/// follows the value's dim `dims[i]`, or is a size-1 dim (-1) the value
/// does not index. A tensor dim of size 1 that follows a larger value dim
/// broadcasts along it.
struct ExprLeaf {
  mlir::Value tensor;
  llvm::SmallVector<int64_t, 4> dims;
};

/// Hash-consed expressions, normalized as they are built: sums and products
/// are flattened and sorted, their constants folded; a - b is a + (-b),
/// a / b is a * recip(b), rsqrt(a) is recip(sqrt(a)); pow with the exponents
/// 1, 2, 0.5, -1 and -0.5 becomes the product, root or reciprocal.
class ExprGraph {
public:
  ExprId leaf(mlir::Value tensor, llvm::ArrayRef<int64_t> dims);
  /// `tensor` read by a value of its own shape.
  ExprId identityLeaf(mlir::Value tensor);
  ExprId constant(double value);
  ExprId empty(mlir::Operation *origin);
  ExprId acc(unsigned index);
  /// Something no kn operator computes, with the operands it reads (so that
  /// the first cause of a refusal can be found).
  ExprId opaque(mlir::Operation *origin, const llvm::Twine &reason,
                llvm::ArrayRef<ExprId> operands = {});

  ExprId add(llvm::ArrayRef<ExprId> operands, mlir::Operation *origin);
  ExprId mul(llvm::ArrayRef<ExprId> operands, mlir::Operation *origin);
  ExprId sub(ExprId a, ExprId b, mlir::Operation *origin);
  ExprId div(ExprId a, ExprId b, mlir::Operation *origin);
  ExprId neg(ExprId a, mlir::Operation *origin);
  ExprId recip(ExprId a, mlir::Operation *origin);
  ExprId rsqrt(ExprId a, mlir::Operation *origin);
  ExprId exp(ExprId a, mlir::Operation *origin);
  ExprId sqrt(ExprId a, mlir::Operation *origin);
  ExprId erf(ExprId a, mlir::Operation *origin);
  ExprId tanh(ExprId a, mlir::Operation *origin);
  ExprId max(ExprId a, ExprId b, mlir::Operation *origin);
  ExprId pow(ExprId a, ExprId b, mlir::Operation *origin);
  /// A node of `kind` (Add, Mul, Neg, ...) through the builders above.
  ExprId build(ExprKind kind, llvm::ArrayRef<ExprId> operands,
               mlir::Operation *origin);

  /// `expr` read by a value whose dim v is dim `dimMap[v]` of `expr`'s value
  /// (-1: a size-1 dim it does not index), i.e. every leaf dim that follows
  /// dim v now follows dimMap[v].
  ExprId remap(ExprId expr, llvm::ArrayRef<int64_t> dimMap);
  /// `expr` with Acc(i) replaced by `accs[i]`.
  ExprId substitute(ExprId expr, llvm::ArrayRef<ExprId> accs);
  /// Whether `expr` contains a node of `kind`.
  bool contains(ExprId expr, ExprKind kind) const;
  /// The first node of `kind` in `expr` (operands first), if any.
  std::optional<ExprId> find(ExprId expr, ExprKind kind) const;
  /// The dims along which `expr` varies: leaf dims of size greater than 1.
  llvm::SmallVector<int64_t, 4> support(ExprId expr) const;

  const ExprNode &node(ExprId id) const { return nodes[id]; }
  const ExprLeaf &getLeaf(ExprId id) const { return leaves[nodes[id].index]; }
  const std::string &getOpaqueReason(ExprId id) const {
    return opaqueReasons[nodes[id].index];
  }
  /// A readable form of `expr`, for messages.
  std::string print(ExprId expr) const;

private:
  ExprId intern(ExprNode node);
  /// `node` with new operands (through the builders; opaque nodes as they
  /// are).
  ExprId rebuild(const ExprNode &node, llvm::ArrayRef<ExprId> operands);
  ExprId makeCommutative(ExprKind kind, llvm::ArrayRef<ExprId> operands,
                         mlir::Operation *origin);

  std::vector<ExprNode> nodes;
  std::vector<ExprLeaf> leaves;
  std::vector<std::string> opaqueReasons;
  std::map<std::vector<uint64_t>, ExprId> interned;
};

/// A number for messages ("2", "0.125", "-inf").
std::string formatNumber(double value);

//===----------------------------------------------------------------------===//
// Scalar forms
//===----------------------------------------------------------------------===//

/// An operator's formula (OpInfo::formula) expanded to core primitives
/// (Formula.h), as a pattern.
struct ScalarForm {
  ExprKind kind;
  std::vector<ScalarForm> operands;
  double value = 0.0;   // Const
  unsigned index = 0;   // Var: x0 or x1
};

/// Parses a scalar form; on failure returns nullopt and sets `error`.
std::optional<ScalarForm> parseScalarForm(llvm::StringRef form,
                                       std::string &error);

/// Evaluates a form without reductions at operands `x` and scalar `s`.
double evaluateScalarForm(const ScalarForm &pattern, llvm::ArrayRef<double> x,
                          double s);

/// The operators whose scalar form has no reduction (the elementwise
/// operators), in OpKind order, with their forms.
llvm::ArrayRef<std::pair<OpKind, ScalarForm>> getElementwiseForms();

/// The operator whose form is `(reduce_add x0)` or `(reduce_max x0)`.
std::optional<OpKind> getReductionOperator(ExprKind reduction);

/// The operator whose form reduces a product of two operands,
/// `(reduce_add (mul x0 x1))`, and that product's pattern.
std::optional<std::pair<OpKind, const ScalarForm *>> getContractionOperator();

/// A binding of a form's operands and scalar.
struct Binding {
  llvm::SmallVector<ExprId, 2> operands;
  std::optional<double> scalar;
};

/// Calls `found` for every way `pattern` matches `expr` (sums and products
/// match in any order; the last operand of a sum or product pattern takes
/// the remaining terms). Constants match within a few units of the last
/// place of `elementType`.
void matchPattern(ExprGraph &graph, const ScalarForm &pattern, ExprId expr,
                  mlir::Type elementType,
                  llvm::function_ref<void(const Binding &)> found);

//===----------------------------------------------------------------------===//
// Emitting kn ops
//===----------------------------------------------------------------------===//

/// Why something was not converted, and the source op that caused it.
struct Refusal {
  std::string message;
  mlir::Operation *at = nullptr;
};

/// Emits kn ops at a builder's insertion point.
class KernelEmitter {
public:
  KernelEmitter(ExprGraph &graph, mlir::OpBuilder &builder)
      : graph(graph), builder(builder) {}

  /// A kn op of operator `kind` (one result) with inferred result type.
  mlir::FailureOr<mlir::Value> create(OpKind kind, const OpParams &params,
                                      mlir::ValueRange operands,
                                      mlir::Location loc, Refusal &why);
  /// kn.split, all results.
  mlir::FailureOr<llvm::SmallVector<mlir::Value>>
  split(mlir::Value input, int64_t dim, llvm::ArrayRef<int64_t> sizes,
        mlir::Location loc, Refusal &why);
  mlir::Value reshape(mlir::Value input, llvm::ArrayRef<int64_t> shape,
                      mlir::Location loc);
  mlir::Value transpose(mlir::Value input, llvm::ArrayRef<int64_t> perm,
                        mlir::Location loc);

  /// `tensor`, whose dim i follows dim `dims[i]` of some space, laid out
  /// with dim p following space dim `order[p]` (-1: a size-1 dim): a size
  /// taken from the tensor, or 1 where the tensor has no such dim. Reshapes
  /// (views) where the order of its non-unit dims is kept, else transposes.
  mlir::Value arrange(mlir::Value tensor, llvm::ArrayRef<int64_t> dims,
                      llvm::ArrayRef<int64_t> order, mlir::Location loc);
  /// Whether arrange() would need a transpose.
  static bool needsTranspose(mlir::RankedTensorType type,
                             llvm::ArrayRef<int64_t> dims,
                             llvm::ArrayRef<int64_t> order);

  /// Emits the cheapest set of kn operators whose forms cover `expr`, a
  /// value of rank `rank`: a tensor of that rank whose dims have the
  /// value's sizes, or 1 where `expr` does not vary. Fails with the reason
  /// when some part of it is no kn operator's.
  mlir::FailureOr<mlir::Value> emit(ExprId expr, unsigned rank,
                                    mlir::Type elementType, mlir::Location loc,
                                    Refusal &why);

private:
  struct Cover;
  ExprGraph &graph;
  mlir::OpBuilder &builder;
};

//===----------------------------------------------------------------------===//
// The conversion driver
//===----------------------------------------------------------------------===//

/// Whether `type` is a tensor type kn ops take (static, f16/bf16/f32).
bool isKernelTensorType(mlir::Type type);

/// Converts the ops of one function that a subclass owns, in program order.
/// A converted op's results are held as expressions; they become kn tensors
/// where an op that does not read expressions uses them (materialize()),
/// and the converted ops are erased once nothing uses them. An op that
/// cannot be converted is an error naming the reason, or, with
/// `keepUnsupported`, stays (a remark says why) and the rest converts.
class FrontendConversion {
public:
  FrontendConversion(mlir::func::FuncOp function, bool keepUnsupported,
                     llvm::StringRef passName);
  virtual ~FrontendConversion();

  /// Converts the function; failure when an error was emitted.
  mlir::LogicalResult run();

protected:
  /// Whether this conversion must convert `op` (or say why not).
  virtual bool owns(mlir::Operation *op) = 0;
  /// Whether `user`, an op this conversion owns, reads its operands as
  /// expressions (then a producer used only by it is not materialized).
  virtual bool readsExpressions(mlir::Operation *user) = 0;
  /// Converts `op` (defining its results), or explains why not.
  virtual mlir::LogicalResult convert(mlir::Operation *op, Refusal &why) = 0;

  /// The expression holding `value` (read by a value of its own shape).
  ExprId expressionOf(mlir::Value value);
  /// `value` as a kn tensor, emitted before the op being converted.
  mlir::FailureOr<mlir::Value> materialize(mlir::Value value, Refusal &why);
  /// Holds the result `value` as `expr`, and emits it now unless only an op
  /// reading expressions uses it.
  void define(mlir::Value value, ExprId expr);
  /// `value` is the kn tensor `tensor`.
  void defineTensor(mlir::Value value, mlir::Value tensor);

  ExprGraph graph;
  mlir::OpBuilder builder;
  KernelEmitter emitter;
  mlir::func::FuncOp function;

private:
  struct ValueState {
    ExprId expr;
    mlir::Value tensor;
    mlir::Operation *producer;
  };
  void report(mlir::Operation *op, const Refusal &why);

  bool keepUnsupported;
  std::string passName;
  bool hadError = false;
  std::set<std::pair<mlir::Operation *, std::string>> reportedCauses;
  llvm::DenseMap<mlir::Value, ValueState> states;
};

} // namespace mirage::frontend

#endif // MIRAGE_CONVERSION_FRONTEND_FRONTENDCONVERSION_H
