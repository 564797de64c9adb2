// One case per diagnostic of mirage-convert-nvgpu-to-nvvm: bf16 mma.sync
// ops that PTX has no instruction for (the nvgpu verifier accepts them;
// it already rejects mixed multiplicand types).
// RUN: mirage-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(gpu.module(mirage-convert-nvgpu-to-nvvm))'

gpu.module @f16_accumulators {
  gpu.func @f16_accumulators(%a: vector<4x2xbf16>, %b: vector<2x2xbf16>, %c: vector<2x2xf16>) -> vector<2x2xf16> {
    // expected-error @+1 {{'nvgpu.mma.sync' op with bf16 multiplicands needs f32 accumulators (PTX has no others for them), got 'f16'}}
    %d = nvgpu.mma.sync (%a, %b, %c) {mmaShape = [16, 8, 16]} : (vector<4x2xbf16>, vector<2x2xbf16>, vector<2x2xf16>) -> vector<2x2xf16>
    gpu.return %d : vector<2x2xf16>
  }
}

// -----

gpu.module @m8n8k8 {
  gpu.func @m8n8k8(%a: vector<1x2xbf16>, %b: vector<1x2xbf16>, %c: vector<1x2xf32>) -> vector<1x2xf32> {
    // expected-error @+1 {{'nvgpu.mma.sync' op with bf16 multiplicands must have shape m16n8k16 or m16n8k8, got m8n8k8}}
    %d = nvgpu.mma.sync (%a, %b, %c) {mmaShape = [8, 8, 8]} : (vector<1x2xbf16>, vector<1x2xbf16>, vector<1x2xf32>) -> vector<1x2xf32>
    gpu.return %d : vector<1x2xf32>
  }
}
