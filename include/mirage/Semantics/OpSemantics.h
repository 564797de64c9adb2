//===- OpSemantics.h - One definition per operator --------------*- C++ -*-===//
//
// Every operator of the kernel, block and thread graphs is described once,
// here, independent of MLIR: its kind, its parameters and its facets (today the
// shape rule; the interpreter, abstract expressions and cost follow in the same
// records). The `kn`, `tb` and `th` ops bind to these records through
// SemanticsOpInterface, so `kn.matmul`, `tb.matmul` and `th.matmul` share one
// definition, and the search engines can use the records without building ops.
//
//===----------------------------------------------------------------------===//

#ifndef MIRAGE_SEMANTICS_OPSEMANTICS_H
#define MIRAGE_SEMANTICS_OPSEMANTICS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>

namespace mirage {

/// Every operator kind, at any level of the µGraph hierarchy.
enum class OpKind : uint8_t {
  // Elementwise unary.
  Exp,
  Sqrt,
  Square,
  Silu,
  Sigmoid,
  Gelu,
  Relu,
  Neg,
  Tanh,
  Rsqrt,
  MulScalar,
  AddScalar,
  // Elementwise binary with numpy-style broadcasting.
  Add,
  Sub,
  Mul,
  Div,
  Pow,
  Maximum,
  // Contractions and reductions.
  Matmul,
  ReduceSum,
  ReduceMax,
  RmsNorm,
  // Data movement.
  Concat,
  Split,
  Reshape,
  Transpose,
  AllReduce,
  // Block- and thread-graph structure.
  InputIterator,
  OutputSaver,
  AccumSum,
  AccumMax,
  AccumConcat,
  AccumRescaledSum,
};

constexpr unsigned kNumOpKinds =
    static_cast<unsigned>(OpKind::AccumRescaledSum) + 1;

/// Marks a grid or loop dimension that replicates a tensor instead of
/// partitioning one of its data dimensions (the paper's φ).
constexpr int64_t kReplica = -1;

/// How a block (or thread) graph partitions a tensor: the grid, the map from
/// each grid dimension to a data dimension (or kReplica), the for-loop range
/// and the map from the loop dimension to a data dimension (or kReplica).
struct TilingParams {
  /// Block graphs partition over the grid of blocks; thread graphs over the
  /// thread layout of a block. Only the wording of diagnostics differs.
  enum class Level { Block, Thread };
  Level level = Level::Block;
  llvm::SmallVector<int64_t, 3> grid;
  llvm::SmallVector<int64_t, 3> gridMap;
  int64_t forloopRange = 1;
  int64_t loopMap = kReplica;

  static TilingParams get(Level level, llvm::ArrayRef<int64_t> grid,
                          llvm::ArrayRef<int64_t> gridMap,
                          int64_t forloopRange, int64_t loopMap) {
    TilingParams tiling;
    tiling.level = level;
    tiling.grid.assign(grid.begin(), grid.end());
    tiling.gridMap.assign(gridMap.begin(), gridMap.end());
    tiling.forloopRange = forloopRange;
    tiling.loopMap = loopMap;
    return tiling;
  }
};

/// The parameters an operator may carry. Each kind reads only its own fields.
struct OpParams {
  /// ReduceSum/ReduceMax/Concat/Split/AccumConcat: the dimension acted on.
  int64_t dim = 0;
  /// ReduceSum/ReduceMax: keep the reduced dimension with size 1.
  bool keepDim = true;
  /// MulScalar/AddScalar: the scalar; RmsNorm: epsilon.
  double scalar = 0.0;
  /// Transpose: permutation; Split: sizes; Reshape: result shape.
  llvm::SmallVector<int64_t, 4> ints;
  /// InputIterator/OutputSaver/AccumConcat: the enclosing graph's tiling.
  TilingParams tiling;
};

using Shape = llvm::SmallVector<int64_t, 4>;

/// How an operator enters the finite-field fingerprint, which decides the
/// fragment the probabilistic proof covers (Lax: multilinear operators,
/// division, at most one exponential on any input-to-output path).
enum class FingerprintClass : uint8_t {
  /// Polynomial in its operands, or data movement: exact in both fields.
  Polynomial,
  /// Division by the modular inverse.
  Division,
  /// Contains one exponential (exp, silu): the exponent-field component of
  /// its result is undefined, so no second exponential may follow.
  Exponential,
  /// A square root (sqrt, rms_norm).
  SquareRoot,
  /// No fingerprint (relu, max, gelu, pow, ...): tested in float64 only.
  Outside,
};

/// How an operator's abstract expression is built.
enum class AbstractForm : uint8_t {
  /// From its formula, each primitive by its own abstract meaning.
  Formula,
  /// One uninterpreted function named after the operator, as Mirage's
  /// abstract expressions treat it.
  Uninterpreted,
  /// The algebra's own `silu`.
  Silu,
};

/// The parameters an operator's ops carry (the OpParams fields it reads).
enum class ParamForm : uint8_t {
  None,
  /// `scalar` (mul_scalar, add_scalar).
  Scalar,
  /// `scalar` as the epsilon of a normalization (rms_norm).
  Epsilon,
  /// `dim` and `keepDim` (reductions).
  ReduceDim,
  /// `dim` (concat, accum_concat).
  Dim,
  /// `dim` and the sizes in `ints` (split).
  DimSizes,
  /// A permutation in `ints` (transpose).
  Permutation,
  /// The result shape in `ints` (reshape), which the result type carries.
  ResultShape,
  /// The enclosing graph's `tiling` only (input iterators, output savers).
  Tiling,
};

/// How an accumulator combines its operand over a graph's for-loop.
enum class Accumulation : uint8_t {
  /// Not an accumulator.
  None,
  Sum,
  Max,
  /// Concatenates the iterations' tiles along `dim`.
  Concat,
  /// The online-softmax sum: x weighted by exp(m - running max of m).
  RescaledSum,
};

/// Static facts about an operator kind.
struct OpInfo {
  OpKind kind;
  /// The mnemonic shared by its ops in every dialect (e.g. "matmul").
  llvm::StringRef name;
  unsigned minOperands;
  /// std::nullopt for variadic operators.
  std::optional<unsigned> maxOperands;
  /// Elementwise ops may be fused into thread graphs.
  bool elementwise;
  FingerprintClass fingerprint;
  /// The float64 evaluation's own rounding, in units of the unit roundoff
  /// u = 2^-53, relative to the result (0: exact). Contractions and rms_norm
  /// add theirs per summed term instead (gamma_n, docs/Verification.md).
  unsigned roundingUlps;
  /// Multiplies its first operand elementwise by a factor its other operand
  /// gives (mul, div): applied to a matmul's left operand with a factor that
  /// does not vary along the contracted dim, it can as well be applied to
  /// the matmul's result.
  bool scales;
  /// How its abstract expression (AbstractExpr.h) is built.
  AbstractForm abstractForm = AbstractForm::Formula;
  /// The operator's scalar formula over its operands `x0` and `x1` and its
  /// scalar parameter `s` (Formula.h): the definition of an elementwise
  /// operator, from which its evaluations, fingerprint, degree, abstract
  /// expression, cost and code follow, and the pattern by which the
  /// conversions from other IRs (docs/Embedding.md) recognize an operator;
  /// empty for operators defined otherwise (normalization, data movement,
  /// structure).
  llvm::StringRef formula = {};
  /// The parameters its ops carry.
  ParamForm params = ParamForm::None;
  /// How it accumulates over the for-loop (accumulators only).
  Accumulation accumulation = Accumulation::None;
  /// Only moves elements (concat, split, reshape, transpose, all_reduce): a
  /// kernel-level operator with nothing to compute inside a block graph.
  bool movesData = false;
  /// Its two operands may be swapped.
  bool commutative = false;

  // Setters for the table's rows, which give the facts above by name.
  OpInfo withParams(ParamForm form) const {
    OpInfo info = *this;
    info.params = form;
    return info;
  }
  OpInfo withAccumulation(Accumulation kind) const {
    OpInfo info = *this;
    info.accumulation = kind;
    return info;
  }
  OpInfo movingData() const {
    OpInfo info = *this;
    info.movesData = true;
    return info;
  }
  OpInfo commuting() const {
    OpInfo info = *this;
    info.commutative = true;
    return info;
  }
};

/// Returns the static facts of `kind`.
const OpInfo &getOpInfo(OpKind kind);

/// Whether a transpose's `permutation` swaps its last two dims and keeps
/// the others in place (a matmul's right operand read as stored [n, k]).
bool swapsLastTwoDims(llvm::ArrayRef<int64_t> permutation);

/// The shape rule: the result shapes of `kind` applied to operands of the
/// given shapes, or an error whose message names the offending operand and
/// dimension.
llvm::Expected<llvm::SmallVector<Shape, 1>>
inferShapes(OpKind kind, llvm::ArrayRef<llvm::ArrayRef<int64_t>> operandShapes,
            const OpParams &params);

/// The cost facet: the arithmetic of an operator on operands of the given
/// shapes, as multiply-adds of a contraction (matmul) and other element
/// operations (a transcendental counts four).
struct OpWork {
  double multiplyAdds = 0;
  double elementOps = 0;
};
OpWork getWork(OpKind kind, llvm::ArrayRef<llvm::ArrayRef<int64_t>> operandShapes,
               llvm::ArrayRef<int64_t> resultShape, const OpParams &params);

/// Whether a tile matmul of these shapes fits `mma.sync m16n8k16`: 16-bit
/// elements, k a multiple of 16, n of 8, batch dims equal or on one side.
/// The code generator and the search's cost model both decide by it.
bool fitsTensorCoreTiles(llvm::ArrayRef<int64_t> lhs,
                         llvm::ArrayRef<int64_t> rhs, unsigned elementBytes);

/// The columns one tensor-core job of such a matmul covers (a job is 16
/// rows of the result by 16 columns, or by 8 where n is not a multiple of
/// 16, over the whole k): the code generator deals jobs to warps, and the
/// speed model charges each warp its chain of jobs.
int64_t getTensorCoreJobColumns(int64_t n);

/// The independent accumulators a tensor-core job keeps over consecutive
/// k steps of 16 (summed after its k loop): 4 where the steps divide by 4,
/// else 2, else 1. Dependent mma.sync stall on each one's latency; the code
/// generator interleaves the chains and the speed model charges a job's k
/// over them.
int64_t getTensorCoreChains(int64_t k);

/// The dimension map, one per operator (in the spirit of linalg's indexing
/// maps): the operator's iteration space and, for each dim of each operand
/// and result, the space dim it indexes. A space dim is parallel, reduced
/// (a matmul's k, a reduction's dim: no result dim indexes it), normalized
/// (reduced inside the operator and broadcast back along it, RMSNorm's
/// row: a tile needs all of it, but the partial sums fold, so a block graph
/// may loop over it and finish after the loop) or whole (the operator
/// needs all of it at once and nothing folds: a concatenated or split
/// dim). An operand or result dim is a space dim, kBroadcastDim (size
/// 1 against a larger space dim) or kWholeDim (it indexes no space dim: a
/// kept reduced dim of size 1, a dim a reshape regroups, a structure op's
/// dim whose size changes). The tiling facet (getTileDims), the axis sets
/// (inferAxisSets), the search's schedule classes (Schedule.cpp), the
/// default block graphs and the tile IR's axes are read off it. Only the
/// search's schedules loop over a normalized dim (its abstract expressions
/// check the result); the default graphs and kn-fuse keep it whole.
enum class SpaceDimKind : uint8_t { Parallel, Reduced, Normalized, Whole };
/// Whether a tile of the operator must hold all of a space dim of `kind`.
inline bool needsWholeDim(SpaceDimKind kind) {
  return kind == SpaceDimKind::Normalized || kind == SpaceDimKind::Whole;
}
constexpr int64_t kWholeDim = -2;
constexpr int64_t kBroadcastDim = -3;
struct DimMap {
  Shape space;
  llvm::SmallVector<SpaceDimKind, 4> kinds;
  llvm::SmallVector<llvm::SmallVector<int64_t, 4>, 2> operands, results;
  /// What folds partial results over chunks of a reduced dim.
  OpKind accumulator = OpKind::AccumSum;
  /// Computed tile by tile; false for a collective and the graph structure
  /// ops, which have no tiling facet.
  bool tiled = true;
  /// A reshape regroups dims: only one-to-one runs are mapped, and axis
  /// sets do not follow.
  bool regroups = false;
};
/// `resultShape` is the first result's shape: the rules assume inferShapes
/// accepts the operands and parameters and gave it; they return nullopt on
/// some invalid inputs (ranks, dims, permutations, element counts), not on
/// every one.
std::optional<DimMap>
getDimMap(OpKind kind, llvm::ArrayRef<llvm::ArrayRef<int64_t>> operandShapes,
          llvm::ArrayRef<int64_t> resultShape, const OpParams &params);

/// Axis sets: per axis of a tensor, a bit set of the input axes it is
/// indexed together with (the search's axis labels). A result axis joins
/// the sets of the operand axes on its space dim (getDimMap) that span it,
/// and of every operand axis on a space dim it needs whole (normalized or
/// whole: a concatenation's pieces, a norm's weight): elementwise operators
/// join the sets of the axes they align (a broadcast axis adds none), a
/// matmul keeps its left operand's rows and right operand's columns and
/// drops the contracted axis, a reduction empties its axis, data movement
/// carries them along. Nullopt where an operator has no such rule (reshape).
using AxisSets = llvm::SmallVector<uint64_t, 4>;
std::optional<AxisSets>
inferAxisSets(OpKind kind, llvm::ArrayRef<const AxisSets *> operands,
              llvm::ArrayRef<llvm::ArrayRef<int64_t>> operandShapes,
              llvm::ArrayRef<int64_t> resultShape, const OpParams &params);

/// The tiling facet, read off the dimension map: how the dims of an
/// operator's operands and results line up with the dims of its iteration
/// space, which is what cutting several operators into the same tiles
/// (kernel fusion) needs. Each operand and result dim is either a space dim
/// (a block's tile of that tensor takes the chunk of the space dim the
/// block owns), kWholeDim (the operator needs all of it in one tile: a dim
/// on a space dim it needs whole or on none) or kBroadcastDim. A space dim
/// marked `reduced` has no result dim: a tile that holds only a chunk of it
/// gives a partial result, which `accumulator` folds across chunks (a for-loop
/// over the dim). Nullopt for operators that are not computed tile by tile
/// (structure ops, all_reduce).
struct TileDims {
  Shape space;
  llvm::SmallVector<bool, 4> reduced;
  llvm::SmallVector<llvm::SmallVector<int64_t, 4>, 2> operands, results;
  OpKind accumulator = OpKind::AccumSum;
};
std::optional<TileDims>
getTileDims(OpKind kind, llvm::ArrayRef<llvm::ArrayRef<int64_t>> operandShapes,
            const OpParams &params);

/// numpy-style broadcast of two shapes, right-aligned.
llvm::Expected<Shape> broadcastShapes(llvm::ArrayRef<int64_t> lhs,
                                      llvm::ArrayRef<int64_t> rhs);

/// The name of grid dimension `index` ("x", "y" or "z").
llvm::StringRef gridDimName(unsigned index);

/// Formats a shape as `2x4096` ("scalar" for rank 0), for messages.
std::string formatShape(llvm::ArrayRef<int64_t> shape);

/// Number of elements of a shape whose element count is known to fit in
/// int64 (a verified op's; see getCheckedNumElements otherwise).
int64_t getNumElements(llvm::ArrayRef<int64_t> shape);

/// Number of elements of any shape: nullopt when a size is not positive or
/// the product exceeds INT64_MAX.
std::optional<int64_t> getCheckedNumElements(llvm::ArrayRef<int64_t> shape);

} // namespace mirage

#endif // MIRAGE_SEMANTICS_OPSEMANTICS_H
