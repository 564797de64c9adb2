//===- EvaluatorTest.cpp - Tile programs on concrete tensors --------------===//

#include "TestUtil.h"

#include "mirage/Semantics/Evaluation.h"
#include "mirage/TileEqsat/Analysis.h"

using namespace mirage;
using namespace mirage::tile;
using namespace mirage::tile::test;

namespace {

// C = X @ W tiled over n and k with an initialized accumulator equals the
// operator record's matmul of the whole tensors, for several tile sizes.
TEST(TileEvaluator, TiledMatmulMatchesRecord) {
  TileContext context;
  declareTensors(context);
  Term term = parse(context, R"(
    (loop:n 0 8 (tsize:tn)
      (seq (store (output:P) 0 (index fulltile tile:n))
           (loop:k 0 16 (tsize:tk)
             (store (output:P)
               (+ (load (output:P) (index fulltile tile:n))
                  (matmul (load (input:X) (index fulltile tile:k))
                          (load (input:W) (index tile:k tile:n))))
               (index fulltile tile:n)))))
  )");
  TensorStore inputs = randomInputs(context, 3);
  auto expected = cantFail(mirage::evaluate(
      OpKind::Matmul, {&inputs["X"], &inputs["W"]}, OpParams()));
  for (int64_t tn : {1, 2, 4, 8})
    for (int64_t tk : {2, 16}) {
      TileSizes sizes;
      sizes.sizes["tn"] = tn;
      sizes.sizes["tk"] = tk;
      TensorStore store = run(context, term, 3, sizes);
      ASSERT_EQ(store["P"].shape, expected[0].shape);
      for (auto [a, b] : llvm::zip(store["P"].data, expected[0].data))
        EXPECT_NEAR(a, b, 1e-12);
    }
}

TEST(TileEvaluator, ElemIndexAndReshapes) {
  TileContext context;
  declareTensors(context);
  // R[:, n/4, :] = unsqueeze(A[:, n:n+4], 1) for n = 0, 4: R is A reshaped
  // to [8, 2, 4].
  Term term = parse(context, R"(
    (seq (loop:n 0 8 4
           (store (variable:R) (unsqueeze:1 (load (input:A) (index fulltile tile:n)))
                  (index fulltile elem:n fulltile)))
         (loop:h 0 2 1
           (store (output:O3) (permute (load (variable:R) (index fulltile elem:h fulltile)) 1 0 2)
                  (index elem:h fulltile fulltile))))
  )");
  TensorStore store = run(context, term, 5);
  const F64Tensor &a = store["A"], &o = store["O3"];
  for (int h = 0; h < 2; ++h)
    for (int r = 0; r < 8; ++r)
      for (int c = 0; c < 4; ++c)
        EXPECT_EQ(o.data[(h * 8 + r) * 4 + c], a.data[r * 8 + h * 4 + c]);
}

TEST(TileEvaluator, Errors) {
  TileContext context;
  declareTensors(context);
  TensorStore store = randomInputs(context, 1);
  // Out of bounds: a const_tile past the end.
  Term bad = parse(context, "(store (output:O) (load (input:A) (index "
                            "(const_tile 4 8) fulltile)) (index fulltile "
                            "fulltile))");
  llvm::Error e = evaluateProgram(context, bad, store);
  ASSERT_TRUE(bool(e));
  EXPECT_NE(llvm::toString(std::move(e)).find("selects [4, 12)"),
            std::string::npos);
  // Unbound loop variable.
  Term unbound = parse(context, "(store (output:O) (load (input:A) (index "
                                "fulltile tile:n)) (index fulltile tile:n))");
  e = evaluateProgram(context, unbound, store);
  ASSERT_TRUE(bool(e));
  EXPECT_NE(llvm::toString(std::move(e)).find("not bound"), std::string::npos);
}

TEST(TileAnalysis, RegionsAndGuards) {
  TileContext context;
  declareTensors(context);
  const Language &language = context.getLanguage();
  auto data = [&](llvm::StringRef text) {
    return analyzeTerm(context, parse(context, text));
  };
  // A tile store in a loop writes the whole range, in full.
  TileData loop = data("(loop:n 0 8 (tsize:tn) (store (variable:T) (exp (load "
                       "(input:A) (index fulltile tile:n))) (index fulltile "
                       "tile:n)))");
  ASSERT_EQ(loop.writes.size(), 1u);
  EXPECT_EQ(language.getSymbolName(loop.writes[0].tensor), "T");
  EXPECT_EQ(loop.writes[0].dims[1].kind, RegionDim::Kind::Full);
  EXPECT_EQ(loop.mustWrites.size(), 1u);
  EXPECT_TRUE(loop.getVars().empty());
  EXPECT_TRUE(isIdempotent(loop));
  // An accumulation is not idempotent; with its initialization it is.
  TileData acc = data("(loop:k 0 16 (tsize:tk) (store (variable:Sum) (+ (load "
                      "(variable:Sum) (index fulltile fulltile)) (rsum:1 (load "
                      "(input:X) (index fulltile tile:k)))) (index fulltile "
                      "fulltile)))");
  EXPECT_FALSE(isIdempotent(acc));
  TileData init = data("(store (variable:Sum) 0 (index fulltile fulltile))");
  EXPECT_TRUE(isIdempotent(sequenceData(init, acc)));
  // Same-iteration tiles conflict; across iterations they do not.
  TileData w = data("(store (variable:T) (load (input:A) (index fulltile "
                    "tile:n)) (index fulltile tile:n))");
  TileData r = data("(store (output:O) (load (variable:T) (index fulltile "
                    "tile:n)) (index fulltile tile:n))");
  TileData rAll = data("(store (output:O) (load (variable:T) (index fulltile "
                       "fulltile)) (index fulltile fulltile))");
  SymbolId n = *language.lookupSymbol("n");
  EXPECT_TRUE(conflicts(w, r));
  EXPECT_FALSE(conflictsAcrossIterations(w, r, n));
  EXPECT_TRUE(conflictsAcrossIterations(w, rAll, n));
  // Disjoint constant ranges never conflict.
  TileData lo = data("(store (variable:T) (load (input:A) (index fulltile "
                     "(const_tile 0 4))) (index fulltile (const_tile 0 4)))");
  TileData hi = data("(store (variable:T) (load (input:B) (index fulltile "
                     "(const_tile 4 4))) (index fulltile (const_tile 4 4)))");
  EXPECT_FALSE(conflicts(lo, hi));
  // Shapes: symbolic tile dims.
  TileData value = data("(matmul (load (input:X) (index fulltile tile:k)) "
                        "(load (input:W) (index tile:k tile:n)))");
  ASSERT_FALSE(value.shapeError);
  ASSERT_EQ(value.shape.size(), 2u);
  EXPECT_EQ(value.shape[0], 8);
  EXPECT_TRUE(isSymbolicDim(value.shape[1]));
  EXPECT_EQ(language.getSymbolName(symbolicDimVar(value.shape[1])), "n");
  TileData mismatch = data("(matmul (load (input:X) (index fulltile tile:k)) "
                           "(load (input:W) (index tile:n tile:n)))");
  EXPECT_TRUE(mismatch.shapeError);
}

} // namespace
