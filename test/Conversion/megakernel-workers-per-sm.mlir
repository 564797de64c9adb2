// With workers left to tg-schedule, a mega-kernel gets as many workers per
// SM as its largest task body's shared memory allows (at most 4): the
// 2-layer small decoder's bodies fit 2 per SM (264 workers), and the kernel
// asks ptxas to fit 2 CTAs per SM (.minnctapersm). The Qwen3-8B-shaped
// step's bodies need 207 KB: one worker per SM, and the kernel says so
// (.minnctapersm 1: with the block size alone, ptxas aims at more CTAs per
// SM and caps registers). A given worker count stays as given.
// RUN: mirage-opt %examples/decoder_small.mlir --mirage-to-megakernel="format=isa" 2>/dev/null | FileCheck %s --check-prefix=SMALL
// RUN: mirage-opt %examples/qwen3_decode.mlir --mirage-to-megakernel="format=isa" 2>/dev/null | FileCheck %s --check-prefix=QWEN3
// RUN: mirage-opt %examples/decoder_small.mlir --mirage-to-megakernel="format=isa workers=132" 2>/dev/null | FileCheck %s --check-prefix=GIVEN

// SMALL: tg.graph @decoder_small_tasks from @decoder_small workers 264
// SMALL: .minnctapersm 2
// QWEN3: tg.graph @qwen3_decode_tasks from @qwen3_decode workers 132
// QWEN3: .minnctapersm 1
// GIVEN: tg.graph @decoder_small_tasks from @decoder_small workers 132
// GIVEN: .minnctapersm 1
