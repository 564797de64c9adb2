// Partitions for a persistent kernel of N workers (MPK section 4.2): the
// cut whose busiest worker moves the fewest bytes, and the kn.partition
// override.
// RUN: mirage-opt %s --kn-default-block-graphs="persistent=true" --split-input-file --verify-diagnostics | FileCheck %s
// RUN: mirage-opt %s --kn-default-block-graphs="persistent=true workers=16" --split-input-file --verify-diagnostics | FileCheck %s --check-prefix=FEW

// A decode matmul: 128 tasks of 48 columns (6144 / 128, a multiple of 8)
// load less per worker than 96 of 64 or two waves of 192 x 32.
// CHECK-LABEL: func.func @decode_matmul
// CHECK: tb.graph grid [128] threads 128 forloop 32
// CHECK: tb.input_iterator %{{.*}} imap <x -> replica> fmap <i -> 1> : tensor<1x4096xf16> -> !tb.tile<1x128xf16>
// CHECK: tb.input_iterator %{{.*}} imap <x -> 1> fmap <i -> 0> : tensor<4096x6144xf16> -> !tb.tile<128x48xf16>
// With 16 workers, 16 tasks of 384 columns.
// FEW-LABEL: func.func @decode_matmul
// FEW: tb.graph grid [16] threads 128 forloop 32
func.func @decode_matmul(%x: tensor<1x4096xf16>, %w: tensor<4096x6144xf16>) -> tensor<1x6144xf16> {
  %y = kn.matmul %x, %w : tensor<1x4096xf16>, tensor<4096x6144xf16>
  return %y : tensor<1x6144xf16>
}

// -----

// An elementwise op on a short row: a task's fixed cost (16 KiB) keeps it
// from being spread over every worker in pieces of 96 elements; 24 tasks of
// 512. A tiny op takes one or two workers.
// CHECK-LABEL: func.func @short_row
// CHECK: tb.graph grid [24] threads 128 forloop 1
// CHECK: tb.input_iterator %{{.*}} imap <x -> 1> fmap <i -> replica> : tensor<1x12288xf16> -> !tb.tile<1x512xf16>
// CHECK: tb.graph grid [2] threads 128 forloop 1
// CHECK: tb.input_iterator %{{.*}} imap <x -> 1> fmap <i -> replica> : tensor<1x64xf16> -> !tb.tile<1x32xf16>
func.func @short_row(%v: tensor<1x12288xf16>, %s: tensor<1x64xf16>) -> (tensor<1x12288xf16>, tensor<1x64xf16>) {
  %a = kn.silu %v : tensor<1x12288xf16>
  %b = kn.exp %s : tensor<1x64xf16>
  return %a, %b : tensor<1x12288xf16>, tensor<1x64xf16>
}

// -----

// rms_norm keeps rows whole: a single row is one task; 32 heads of 128 are
// cut over the heads, two per task.
// CHECK-LABEL: func.func @norms
// CHECK: tb.graph grid [1] threads 128 forloop 1
// CHECK: tb.graph grid [16] threads 128 forloop 1
// CHECK: tb.input_iterator %{{.*}} imap <x -> 1> fmap <i -> replica> : tensor<1x32x128xf16> -> !tb.tile<1x2x128xf16>
func.func @norms(%x: tensor<1x4096xf16>, %g: tensor<4096xf16>, %q: tensor<1x32x128xf16>) -> (tensor<1x4096xf16>, tensor<1x32x128xf16>) {
  %a = kn.rms_norm %x weight %g {eps = 1.0e-6 : f64} : tensor<1x4096xf16>, tensor<4096xf16>
  %b = kn.rms_norm %q {eps = 1.0e-6 : f64} : tensor<1x32x128xf16>
  return %a, %b : tensor<1x4096xf16>, tensor<1x32x128xf16>
}

// -----

// The attribute overrides the choice: 3 blocks along the columns.
// CHECK-LABEL: func.func @override
// CHECK: tb.graph grid [3] threads 128 forloop 1
// CHECK: tb.output_saver %{{.*}} omap <x -> 1> : !tb.tile<1x4096xf16> -> tensor<1x12288xf16>
func.func @override(%a: tensor<1x12288xf16>, %b: tensor<1x12288xf16>) -> tensor<1x12288xf16> {
  %c = kn.mul %a, %b {kn.partition = array<i64: 1, 3>} : tensor<1x12288xf16>, tensor<1x12288xf16>
  return %c : tensor<1x12288xf16>
}

// -----

func.func @override_not_dividing(%a: tensor<1x12288xf16>) -> tensor<1x12288xf16> {
  // expected-error @+1 {{'kn.exp' op has a 'kn.partition' that cannot cut dim 1 of size 12288 into 5 parts}}
  %c = kn.exp %a {kn.partition = array<i64: 1, 5>} : tensor<1x12288xf16>
  return %c : tensor<1x12288xf16>
}

// -----

func.func @override_rank(%a: tensor<1x12288xf16>) -> tensor<1x12288xf16> {
  // expected-error @+1 {{'kn.exp' op has a 'kn.partition' that has 1 parts for 2 dims}}
  %c = kn.exp %a {kn.partition = array<i64: 4>} : tensor<1x12288xf16>
  return %c : tensor<1x12288xf16>
}

// -----

func.func @override_whole_rows(%x: tensor<4x4096xf16>) -> tensor<4x4096xf16> {
  // expected-error @+1 {{'kn.rms_norm' op has a 'kn.partition' that must keep dim 1 whole}}
  %a = kn.rms_norm %x {eps = 1.0e-6 : f64, kn.partition = array<i64: 1, 2>} : tensor<4x4096xf16>
  return %a : tensor<4x4096xf16>
}

// -----

func.func @override_four_dims(%x: tensor<2x2x2x2xf16>) -> tensor<2x2x2x2xf16> {
  // expected-error @+1 {{'kn.exp' op has a 'kn.partition' that cuts 4 dims; a grid has at most 3}}
  %a = kn.exp %x {kn.partition = array<i64: 2, 2, 2, 2>} : tensor<2x2x2x2xf16>
  return %a : tensor<2x2x2x2xf16>
}

// -----

// A matmul's iteration space is its result's dims then k; k may be named
// (it stays whole) or left out, as may a reduction's last dim.
// CHECK-LABEL: func.func @override_matmul_k
// CHECK: tb.graph grid [2] threads 128
// CHECK: tb.graph grid [2] threads 128
// CHECK: tb.graph grid [4] threads 128
func.func @override_matmul_k(%x: tensor<4x64xf16>, %w: tensor<64x64xf16>) -> (tensor<4x64xf16>, tensor<4x64xf16>, tensor<4x1xf16>) {
  %a = kn.matmul %x, %w {kn.partition = array<i64: 1, 2>} : tensor<4x64xf16>, tensor<64x64xf16>
  %b = kn.matmul %x, %w {kn.partition = array<i64: 1, 2, 1>} : tensor<4x64xf16>, tensor<64x64xf16>
  %s = kn.reduce_sum %x dim 1 {kn.partition = array<i64: 4>} : tensor<4x64xf16>
  return %a, %b, %s : tensor<4x64xf16>, tensor<4x64xf16>, tensor<4x1xf16>
}

// -----

func.func @override_matmul_cuts_k(%x: tensor<4x64xf16>, %w: tensor<64x64xf16>) -> tensor<4x64xf16> {
  // expected-error @+1 {{'kn.matmul' op has a 'kn.partition' that must keep dim 2 whole}}
  %a = kn.matmul %x, %w {kn.partition = array<i64: 1, 2, 2>} : tensor<4x64xf16>, tensor<64x64xf16>
  return %a : tensor<4x64xf16>
}

// -----

func.func @override_matmul_rank(%x: tensor<4x64xf16>, %w: tensor<64x64xf16>) -> tensor<4x64xf16> {
  // expected-error @+1 {{'kn.matmul' op has a 'kn.partition' that has 4 parts for 3 dims (2 without the trailing reduced dims)}}
  %a = kn.matmul %x, %w {kn.partition = array<i64: 1, 2, 1, 1>} : tensor<4x64xf16>, tensor<64x64xf16>
  return %a : tensor<4x64xf16>
}

// -----

func.func @override_rms_norm_rank(%x: tensor<4x64xf16>) -> tensor<4x64xf16> {
  // expected-error @+1 {{'kn.rms_norm' op has a 'kn.partition' that has 1 parts for 2 dims}}
  %a = kn.rms_norm %x {eps = 1.0e-6 : f64, kn.partition = array<i64: 4>} : tensor<4x64xf16>
  return %a : tensor<4x64xf16>
}
