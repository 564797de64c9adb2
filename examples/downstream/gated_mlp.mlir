// A gated MLP as a PyTorch front end writes it in linalg on tensors:
//   downstream-opt gated_mlp.mlir --mirage-linalg-to-ptx
func.func @gated_mlp(%x: tensor<8x64xf32>, %w1: tensor<64x128xf32>, %w3: tensor<64x128xf32>) -> tensor<8x128xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x128xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8x128xf32>) -> tensor<8x128xf32>
  %h1 = linalg.matmul ins(%x, %w1 : tensor<8x64xf32>, tensor<64x128xf32>) outs(%f : tensor<8x128xf32>) -> tensor<8x128xf32>
  %h3 = linalg.matmul ins(%x, %w3 : tensor<8x64xf32>, tensor<64x128xf32>) outs(%f : tensor<8x128xf32>) -> tensor<8x128xf32>
  %out = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                         iterator_types = ["parallel", "parallel"]}
      ins(%h1, %h3 : tensor<8x128xf32>, tensor<8x128xf32>) outs(%e : tensor<8x128xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %one = arith.constant 1.0 : f32
    %n = arith.negf %a : f32
    %ex = math.exp %n : f32
    %d = arith.addf %ex, %one : f32
    %s = arith.divf %a, %d : f32
    %m = arith.mulf %s, %b : f32
    linalg.yield %m : f32
  } -> tensor<8x128xf32>
  return %out : tensor<8x128xf32>
}
