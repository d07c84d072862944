// REQUIRES: compiler
// The same FFN under three boundary costs (Inputs/fuse-boundary-*.json: device
// 100 GB/s, one workgroup 4 GB/s, compute never the limit). Each run takes
// the partition of least estimated time; the report prints every dispatch's
// estimate (kernel + boundary) and the total.
// RUN: kiln-opt %s --split-input-file --kiln-fuse-dispatches="target-file=%S/Inputs/fuse-boundary-0us.json emit-report=true" 2>&1 | FileCheck %s --check-prefix=B0
// RUN: kiln-opt %s --split-input-file --kiln-fuse-dispatches="target-file=%S/Inputs/fuse-boundary-5us.json emit-report=true" 2>&1 | FileCheck %s --check-prefix=B5
// RUN: kiln-opt %s --split-input-file --kiln-fuse-dispatches="target-file=%S/Inputs/fuse-boundary-8us.json emit-report=true" 2>&1 | FileCheck %s --check-prefix=B8
// RUN: kiln-opt %s --split-input-file --kiln-fuse-dispatches="target-file=%S/Inputs/fuse-boundary-0us.json emit-report=true" 2>&1 | FileCheck %s --check-prefix=P0
// RUN: kiln-opt %s --split-input-file --kiln-fuse-dispatches="target-file=%S/Inputs/fuse-boundary-5us.json emit-report=true" 2>&1 | FileCheck %s --check-prefix=P5
// RUN: kiln-opt %s --split-input-file --kiln-fuse-dispatches="target-file=%S/Inputs/fuse-boundary-8us.json emit-report=true" 2>&1 | FileCheck %s --check-prefix=P8

// Kernel times (bytes / bandwidth): norm 0.192 µs (one workgroup anyway);
// gate and up 0.172 each on the device, 4.288 each squeezed into one
// workgroup; act 0.192 / 0.384; down 0.255 / 6.368; gate, up and act as a
// row epilogue (a workgroup per row, act in the row's thread) 0.358.
// Partitions and totals (b = boundary µs):
//   4 dispatches {norm} {gate,up concurrent} {act} {down}: 0.982 + 4b
//   3 dispatches {norm} {gate,up,act row_epilogue} {down}: 0.805 + 3b
//   2 dispatches {norm,gate,up,act one workgroup} {down}:  9.152 + 0.255 + 2b
//   1 dispatch   {everything in one workgroup}:            15.520 + b
// b = 0: 0.805 (3) < 0.982 (4) < 9.407 (2); b = 5: 15.805 (3) < 19.407 (2)
// < 20.52 (1); b = 8: 23.520 (1) < 24.805 (3) < 25.407 (2).

// B0-LABEL: fusion report: target lit-0us
// B0:       0.192 us  norm [rmsnorm]
// B0-NEXT:  0.358 us  gate__up__act [matvec, matvec, silu_mul] row_epilogue
// B0-NEXT:  0.255 us  down [matvec]
// B0-NEXT: total: 3 dispatches, 5 stages, 0.805 us per token (estimate)
// B0-LABEL: func.func @ffn
// B0:      stage.dispatch "norm" attributes {stage.estimated_us = 1.920000e-01 : f64}
// B0:      stage.dispatch "gate__up__act" attributes {fusion = "row_epilogue"
// B0-NEXT:   stage.matvec weight(%arg3
// B0-NEXT:   stage.matvec weight(%arg5
// B0-NEXT:   stage.silu_mul
// B0-NEXT: {{^ *}$}}
// B0-NEXT: stage.dispatch "down"

// B5-LABEL: fusion report: target lit-5us
// B5:       5.192 us  norm [rmsnorm]
// B5-NEXT:  5.358 us  gate__up__act [matvec, matvec, silu_mul] row_epilogue
// B5-NEXT:  5.255 us  down [matvec]
// B5-NEXT: total: 3 dispatches, 5 stages, 15.805 us per token (estimate)
// B5-LABEL: func.func @ffn
// B5:      stage.dispatch "gate__up__act" attributes {fusion = "row_epilogue", stage.estimated_us = 5.358000e+00 : f64} {
// B5-NEXT:   stage.matvec
// B5-NEXT:   stage.matvec
// B5-NEXT:   stage.silu_mul
// B5-NEXT: {{^ *}$}}
// B5-NEXT: stage.dispatch "down" attributes {stage.estimated_us = 5.255000e+00 : f64} {

// B8-LABEL: fusion report: target lit-8us
// B8:      23.520 us  norm__gate__up__act__down [rmsnorm, matvec, matvec, silu_mul, matvec] one_workgroup
// B8-NEXT: total: 1 dispatches, 5 stages, 23.520 us per token (estimate)
// B8-LABEL: func.func @ffn
// B8:      stage.dispatch "norm__gate__up__act__down" attributes {fusion = "one_workgroup"
// B8-COUNT-5: stage.{{rmsnorm|matvec|silu_mul}}
// B8-NEXT: {{^ *}$}}
// B8-NEXT: return
func.func @ffn(%h: memref<64xf32>, %w: memref<64xf32>, %x: memref<64xf32>,
               %m1: memref<128x8xvector<4xi32>>, %y: memref<128xf32>,
               %m2: memref<128x8xvector<4xi32>>, %u: memref<128xf32>,
               %z: memref<128xf32>, %m3: memref<96x16xvector<4xi32>>, %d: memref<96xf32>) {
  stage.dispatch "norm" {
    stage.rmsnorm residual(%h : memref<64xf32>) weight(%w : memref<64xf32>) outs(%x : memref<64xf32>) {eps = 1.0e-06 : f32}
  }
  stage.dispatch "gate" {
    stage.matvec weight(%m1 : memref<128x8xvector<4xi32>>) input(%x : memref<64xf32>) out(%y : memref<128xf32>) {format = #stage.format<f16>}
  }
  stage.dispatch "up" {
    stage.matvec weight(%m2 : memref<128x8xvector<4xi32>>) input(%x : memref<64xf32>) out(%u : memref<128xf32>) {format = #stage.format<f16>}
  }
  stage.dispatch "act" {
    stage.silu_mul ins(%y, %u : memref<128xf32>, memref<128xf32>) out(%z : memref<128xf32>)
  }
  stage.dispatch "down" {
    stage.matvec weight(%m3 : memref<96x16xvector<4xi32>>) input(%z : memref<128xf32>) out(%d : memref<96xf32>) {format = #stage.format<f16>}
  }
  return
}

// -----

// ASAP order: "k" depends only on the norm, so it moves up before the
// scale of q ("qs"), which it shares nothing with; the rope stage needs
// both. At 0 µs q, k and qs share one concurrent kernel: qs reads only q's
// rows, so it runs as q's row epilogue beside k's rows (0.072 µs, less than
// q alone plus k ∥ qs). The attention stages (key scores, then attention)
// have grids of their own and never join another kernel.
// B0-LABEL: func.func @siblings
// B0:      stage.dispatch "norm"
// B0:      stage.dispatch "q__k__qs" attributes {fusion = "concurrent"
// B0:      stage.dispatch "rope"
// B0:      stage.dispatch "scores"
// B0:      stage.dispatch "attention"
// B8-LABEL: func.func @siblings
// B8:      stage.dispatch "norm__q__k__qs__rope" attributes {fusion = "one_workgroup"
// B8:      stage.dispatch "scores" attributes {stage.estimated_us
// B8-NEXT:   stage.key_scores
// B8:      stage.dispatch "attention" attributes {stage.estimated_us
// B8-NEXT:   stage.attention
// B8-NEXT: {{^ *}$}}
// B8-NEXT: return
func.func @siblings(%h: memref<64xf32>, %w: memref<64xf32>, %x: memref<64xf32>,
                    %mq: memref<32x8xvector<4xi32>>, %q: memref<32xf32>, %g: memref<32xf32>, %q2: memref<32xf32>,
                    %mk: memref<16x8xvector<4xi32>>, %k: memref<16xf32>,
                    %v: memref<16xf32>, %p: memref<4xi32>, %qr: memref<32xf32>,
                    %kr: memref<1x8x16xf32>, %vr: memref<1x8x16xf32>, %o: memref<32xf32>,
                    %s: memref<2x8xf32>) {
  stage.dispatch "norm" {
    stage.rmsnorm residual(%h : memref<64xf32>) weight(%w : memref<64xf32>) outs(%x : memref<64xf32>) {eps = 1.0e-06 : f32}
  }
  stage.dispatch "q" {
    stage.matvec weight(%mq : memref<32x8xvector<4xi32>>) input(%x : memref<64xf32>) out(%q : memref<32xf32>) {format = #stage.format<f16>}
  }
  stage.dispatch "qs" {
    stage.mul ins(%q, %g : memref<32xf32>, memref<32xf32>) out(%q2 : memref<32xf32>)
  }
  stage.dispatch "k" {
    stage.matvec weight(%mk : memref<16x8xvector<4xi32>>) input(%x : memref<64xf32>) out(%k : memref<16xf32>) {format = #stage.format<f16>}
  }
  stage.dispatch "rope" {
    stage.rope_kv_write q(%q2 : memref<32xf32>) k(%k : memref<16xf32>) v(%v : memref<16xf32>) params(%p : memref<4xi32>) q_out(%qr : memref<32xf32>) k_ring(%kr : memref<1x8x16xf32>) v_ring(%vr : memref<1x8x16xf32>) {rope_theta = 1.000000e+04 : f32, rotary_dim = 16 : i64}
  }
  stage.dispatch "scores" {
    stage.key_scores q(%qr : memref<32xf32>) k_ring(%kr : memref<1x8x16xf32>) params(%p : memref<4xi32>) scores(%s : memref<2x8xf32>) {scale = 0.25 : f32}
  }
  stage.dispatch "attention" {
    stage.attention scores(%s : memref<2x8xf32>) v_ring(%vr : memref<1x8x16xf32>) params(%p : memref<4xi32>) out(%o : memref<32xf32>)
  }
  return
}

// -----

// Two independent adds would run concurrently, but the 16M-value one alone
// needs 262144 workgroups: one grid may not exceed 65535 on every Vulkan
// device, and squeezed into one workgroup it costs far more than a boundary,
// so they stay apart even at 8 µs.
// B8-LABEL: func.func @huge_siblings
// B8-NOT: fusion =
// B8: stage.dispatch "big" attributes {stage.estimated_us
// B8-NOT: fusion =
// B8: stage.dispatch "small" attributes {stage.estimated_us
// B8-NOT: fusion =
// B8: return
func.func @huge_siblings(%x: memref<16777216xf32>, %y: memref<16777216xf32>,
                         %a: memref<16xf32>, %b: memref<16xf32>) {
  stage.dispatch "big" {
    stage.add ins(%x, %x : memref<16777216xf32>, memref<16777216xf32>) out(%y : memref<16777216xf32>)
  }
  stage.dispatch "small" {
    stage.add ins(%a, %a : memref<16xf32>, memref<16xf32>) out(%b : memref<16xf32>)
  }
  return
}

// -----

// Dory's scaled SwiGLU (prefixes P*: the reports print before the modules):
// two scales, then the activation, 128 values each (64-thread workgroups: 2;
// 1.536 KB per stage). Concurrent {scales}: 3.072 KB
// over 4 workgroups (16 GB/s) = 0.192; {act} 0.192. Pointwise {all}: 4.608 KB
// over the 2 workgroups one stage has (8 GB/s) = 0.576; one workgroup {all}:
// 4.608 KB at 4 GB/s = 1.152, never the best.
// b = 0: 0.384 (2) < 0.576 (1); b = 5: 5.576 (1) < 10.384 (2); b = 8 likewise.
// P0-LABEL: func @scaled_swiglu
// P0-NEXT:  0.192 us  gate_scale__up_scale [mul, mul] concurrent
// P0-NEXT:  0.192 us  act [silu_mul]
// P0-NEXT: total: 2 dispatches, 3 stages, 0.384 us per token (estimate)
// P5-LABEL: func @scaled_swiglu
// P5-NEXT:  5.576 us  gate_scale__up_scale__act [mul, mul, silu_mul] pointwise
// P5-NEXT: total: 1 dispatches, 3 stages, 5.576 us per token (estimate)
// P5-LABEL: func.func @scaled_swiglu
// P5:      stage.dispatch "gate_scale__up_scale__act" attributes {fusion = "pointwise"
// P8-LABEL: func @scaled_swiglu
// P8-NEXT:  8.576 us  gate_scale__up_scale__act [mul, mul, silu_mul] pointwise
// P8-NEXT: total: 1 dispatches, 3 stages, 8.576 us per token (estimate)
func.func @scaled_swiglu(%g: memref<128xf32>, %sg: memref<128xf32>, %u: memref<128xf32>,
                         %su: memref<128xf32>, %gs: memref<128xf32>, %us: memref<128xf32>,
                         %z: memref<128xf32>) {
  stage.dispatch "gate_scale" {
    stage.mul ins(%g, %sg : memref<128xf32>, memref<128xf32>) out(%gs : memref<128xf32>)
  }
  stage.dispatch "up_scale" {
    stage.mul ins(%u, %su : memref<128xf32>, memref<128xf32>) out(%us : memref<128xf32>)
  }
  stage.dispatch "act" {
    stage.silu_mul ins(%gs, %us : memref<128xf32>, memref<128xf32>) out(%z : memref<128xf32>)
  }
  return
}
