// Options that take one of a fixed set of values are checked when the
// pipeline is parsed: an unknown value is an error naming the option, the
// value and the valid values, the tool exits non-zero, and nothing runs (no
// IR is printed, no note with the module, no binary written).
//
// The pipelines, given as flags and inside --pass-pipeline:
// RUN: not mirage-opt %s --mirage-to-ptx=format=ptx 2>&1 | FileCheck %s --check-prefix=FORMAT --implicit-check-not=func.func --implicit-check-not=note: --implicit-check-not=gpu.binary
// RUN: not mirage-opt %s --mirage-to-ptx="chip=sm_99" 2>&1 | FileCheck %s --check-prefix=CHIP --implicit-check-not=func.func --implicit-check-not=note:
// RUN: not mirage-opt %s --pass-pipeline="builtin.module(mirage-to-ptx{format=cubin})" 2>&1 | FileCheck %s --check-prefix=NESTED --implicit-check-not=func.func --implicit-check-not=note:
// RUN: not mirage-opt %s --mirage-to-megakernel="device=a100" 2>&1 | FileCheck %s --check-prefix=MEGA-DEVICE --implicit-check-not=func.func --implicit-check-not=note:
// RUN: not mirage-opt %s --mirage-to-megakernel="chip=sm_75" 2>&1 | FileCheck %s --check-prefix=MEGA-CHIP --implicit-check-not=func.func --implicit-check-not=note:
// RUN: not mirage-opt %s --mirage-to-ptx="ptx=7" 2>&1 | FileCheck %s --check-prefix=PTX --implicit-check-not=func.func --implicit-check-not=note: --implicit-check-not=warning
// RUN: not mirage-opt %s --mirage-to-megakernel="chip=sm_90a ptx=80" 2>&1 | FileCheck %s --check-prefix=MEGA-PTX --implicit-check-not=func.func --implicit-check-not=note:
// RUN: not mirage-opt %s --mirage-to-task-graph="workers=-3" 2>&1 | FileCheck %s --check-prefix=TASK-WORKERS --implicit-check-not=func.func --implicit-check-not=kn-fuse
// RUN: not mirage-opt %s --mirage-to-task-graph="device=b200" 2>&1 | FileCheck %s --check-prefix=TASK-DEVICE --implicit-check-not=func.func --implicit-check-not=note:
// RUN: not mirage-opt %s --mirage-linalg-to-ptx="format=sass" 2>&1 | FileCheck %s --check-prefix=LINALG-FORMAT --implicit-check-not=func.func --implicit-check-not=note:
// RUN: not mirage-opt %s --mirage-tosa-to-ptx="superoptimize=true device=a100" 2>&1 | FileCheck %s --check-prefix=TOSA-DEVICE --implicit-check-not=func.func --implicit-check-not=note:
//
// The passes, as flags and nested in a textual pipeline:
// RUN: not mirage-opt %s --kn-fuse="chip=sm_42" 2>&1 | FileCheck %s --check-prefix=FUSE-CHIP --implicit-check-not=func.func --implicit-check-not=note:
// RUN: not mirage-opt %s --pass-pipeline="builtin.module(func.func(kn-fuse{device=a100}))" 2>&1 | FileCheck %s --check-prefix=FUSE-DEVICE --implicit-check-not=kn. --implicit-check-not=note:
// RUN: not mirage-opt %s --convert-kn-to-gpu="chip=sm_42" 2>&1 | FileCheck %s --check-prefix=KN-GPU-CHIP --implicit-check-not=func.func --implicit-check-not=note:
// RUN: not mirage-opt %s --convert-kn-to-gpu="wgmma=true" 2>&1 | FileCheck %s --check-prefix=KN-GPU-WGMMA --implicit-check-not=func.func --implicit-check-not=note:
// RUN: not mirage-opt %s --convert-kn-to-gpu="chip=sm_90a warp-specialize=true" 2>&1 | FileCheck %s --check-prefix=KN-GPU-WS-TMA --implicit-check-not=func.func --implicit-check-not=note:
// RUN: not mirage-opt %s --convert-kn-to-gpu="chip=sm_90 tma=true warp-specialize=true" 2>&1 | FileCheck %s --check-prefix=KN-GPU-WS-CHIP --implicit-check-not=func.func --implicit-check-not=note:
// RUN: not mirage-opt %s --mirage-to-ptx="chip=sm_90a warp-specialize=true" 2>&1 | FileCheck %s --check-prefix=PTX-WS --implicit-check-not=func.func --implicit-check-not=note:
// RUN: rm -rf %t && not mirage-bundle %s -o %t --warp-specialize 2>&1 | FileCheck %s --check-prefix=BUNDLE-WS --implicit-check-not="[1/"
// RUN: rm -rf %t && not mirage-bundle %s -o %t --tma --warp-specialize --chip=sm_90 2>&1 | FileCheck %s --check-prefix=BUNDLE-WS-CHIP --implicit-check-not="[1/"
// RUN: not mirage-opt %s --convert-tg-to-gpu="chip=sm_42" 2>&1 | FileCheck %s --check-prefix=TG-GPU-CHIP --implicit-check-not=func.func --implicit-check-not=note:
// RUN: not mirage-opt %s --mirage-superoptimize="device=a100" 2>&1 | FileCheck %s --check-prefix=SEARCH-DEVICE --implicit-check-not=func.func --implicit-check-not=note:
// RUN: not mirage-opt %s --mirage-tile-eqsat="rules=loops,fusoin" 2>&1 | FileCheck %s --check-prefix=EQSAT-RULES --implicit-check-not=func.func --implicit-check-not=note:
// RUN: not mirage-opt %s --mirage-tile-eqsat="device=a100" 2>&1 | FileCheck %s --check-prefix=EQSAT-DEVICE --implicit-check-not=func.func --implicit-check-not=note:
// RUN: not mirage-opt %s --mirage-superoptimize="time-budget=-1" 2>&1 | FileCheck %s --check-prefix=SEARCH-BUDGET --implicit-check-not=func.func --implicit-check-not=note:
// RUN: not mirage-opt %s --tg-schedule="device=a100" 2>&1 | FileCheck %s --check-prefix=SCHEDULE-DEVICE --implicit-check-not=func.func --implicit-check-not=note:
// RUN: not mirage-opt %s --tg-check-schedule="device=a100" 2>&1 | FileCheck %s --check-prefix=CHECK-SCHEDULE-DEVICE --implicit-check-not=func.func --implicit-check-not=note:
//
// mirage-bundle's flags, before the input is read or a bundle written:
// RUN: rm -rf %t && not mirage-bundle %s -o %t --chip=sm_89a 2>&1 | FileCheck %s --check-prefix=BUNDLE-CHIP --implicit-check-not="[1/"
// RUN: not mirage-bundle %s -o %t --megakernel --device=a100 2>&1 | FileCheck %s --check-prefix=BUNDLE-DEVICE --implicit-check-not="[1/"
// RUN: not mirage-bundle %s -o %t --ptx=7 2>&1 | FileCheck %s --check-prefix=BUNDLE-PTX --implicit-check-not="[1/"
// RUN: not ls %t
//
// Valid values still pass:
// RUN: mirage-opt %s --mirage-to-ptx="chip=sm_80 format=isa" -o /dev/null
// RUN: mirage-opt %s --kn-fuse="device=h200 chip=sm_100a" -o /dev/null
// RUN: mirage-opt %s --mirage-to-ptx="chip=sm_80 ptx=78" -o /dev/null

// FORMAT: error: mirage-to-ptx: unknown value 'ptx' for option 'format'; valid values: isa, bin, fatbin, llvm (or assembly, binary, fatbinary, offloading)
// CHIP: error: mirage-to-ptx: unknown value 'sm_99' for option 'chip'; valid values: sm_80, sm_86, sm_89, sm_90, sm_90a, sm_100a
// NESTED: error: mirage-to-ptx: unknown value 'cubin' for option 'format'; valid values: isa, bin, fatbin, llvm
// MEGA-DEVICE: error: mirage-to-megakernel: unknown value 'a100' for option 'device'; valid values: h100, h200
// MEGA-CHIP: error: mirage-to-megakernel: unknown value 'sm_75' for option 'chip'; valid values: sm_80,
// PTX: error: mirage-to-ptx: unknown value '7' for option 'ptx'; valid values: 0 (the chip's minimum), 83, 84, 85, 86, 87, 88, 90 for sm_90a
// MEGA-PTX: error: mirage-to-megakernel: unknown value '80' for option 'ptx'; valid values: 0 (the chip's minimum), 83,
// TASK-WORKERS: error: mirage-to-task-graph: workers must be 0 (the device's SMs) or positive
// TASK-DEVICE: error: mirage-to-task-graph: unknown value 'b200' for option 'device'; valid values: h100, h200
// LINALG-FORMAT: error: mirage-linalg-to-ptx: unknown value 'sass' for option 'format'; valid values: isa,
// TOSA-DEVICE: error: mirage-tosa-to-ptx: unknown value 'a100' for option 'device'; valid values: h100, h200
// FUSE-CHIP: error: kn-fuse: unknown value 'sm_42' for option 'chip'; valid values: sm_80, sm_86, sm_89, sm_90, sm_90a, sm_100a
// FUSE-DEVICE: error: kn-fuse: unknown value 'a100' for option 'device'; valid values: h100, h200
// KN-GPU-CHIP: error: convert-kn-to-gpu: unknown value 'sm_42' for option 'chip'; valid values: sm_80,
// KN-GPU-WGMMA: error: convert-kn-to-gpu: unknown value '' for option 'chip'; valid values: sm_90a with wgmma
// KN-GPU-WS-TMA: error: convert-kn-to-gpu: warp-specialize gives the copies of TMA kernels their own warps: it needs tma=true
// KN-GPU-WS-CHIP: error: convert-kn-to-gpu: unknown value 'sm_90' for option 'chip'; valid values: sm_90a with warp-specialize (setmaxnreg)
// PTX-WS: error: mirage-to-ptx: warp-specialize gives the copies of TMA kernels their own warps: it needs tma=true
// BUNDLE-WS-CHIP: error: mirage-bundle: --warp-specialize needs setmaxnreg: --chip=sm_90a, not sm_90
// BUNDLE-WS: error: mirage-bundle: --warp-specialize specializes the warps of TMA kernels: it needs --tma and per-operator kernels (no --megakernel)
// TG-GPU-CHIP: error: convert-tg-to-gpu: unknown value 'sm_42' for option 'chip'; valid values: sm_80,
// SEARCH-DEVICE: error: mirage-superoptimize: unknown value 'a100' for option 'device'; valid values: h100, h200
// EQSAT-RULES: error: mirage-tile-eqsat: unknown value 'fusoin' for option 'rules'; valid values: loops, fusion, algebra (comma-separated), all, none
// EQSAT-DEVICE: error: mirage-tile-eqsat: unknown value 'a100' for option 'device'; valid values: h100, h200
// SEARCH-BUDGET: error: mirage-superoptimize: time-budget and progress must be 0 (none) or positive
// SCHEDULE-DEVICE: error: tg-schedule: unknown value 'a100' for option 'device'; valid values: h100, h200
// CHECK-SCHEDULE-DEVICE: error: tg-check-schedule: unknown value 'a100' for option 'device'; valid values: h100, h200
// BUNDLE-CHIP: error: mirage-bundle: unknown value 'sm_89a' for option 'chip'; valid values: sm_80, sm_86, sm_89, sm_90, sm_90a, sm_100a
// BUNDLE-PTX: error: mirage-bundle: unknown value '7' for option 'ptx'; valid values: 0 (the chip's minimum), 83,
// BUNDLE-DEVICE: error: mirage-bundle: unknown value 'a100' for option '--device'; valid values: h100, h200

func.func @f(%x: tensor<16x64xf16>, %y: tensor<16x64xf16>) -> tensor<16x64xf16> {
  %0 = kn.add %x, %y : tensor<16x64xf16>, tensor<16x64xf16>
  %1 = kn.exp %0 : tensor<16x64xf16>
  return %1 : tensor<16x64xf16>
}
