// A decode-step MLP whose activation is marked data-dependent, as the
// expert an MoE router picks would be. In a mega-kernel the tasks of the
// kernel holding it, and those downstream up to a barrier, are dispatched
// just in time: the workers claim them in the graph's order as they go
// (docs/MegaKernel.md); per operator nothing changes.
func.func @jit_mlp(%x: tensor<8x4096xf16>, %w_up: tensor<4096x2048xf16>, %w_down: tensor<2048x4096xf16>) -> tensor<8x4096xf16> {
  %h = kn.matmul %x, %w_up : tensor<8x4096xf16>, tensor<4096x2048xf16>
  %a = kn.silu %h {kn.data_dependent} : tensor<8x2048xf16>
  %y = kn.matmul %a, %w_down : tensor<8x2048xf16>, tensor<2048x4096xf16>
  return %y : tensor<8x4096xf16>
}
