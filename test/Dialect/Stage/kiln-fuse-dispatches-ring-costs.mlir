// The cost of the stages whose kernels touch a row of a long ring (issue 16): a
// rope_kv_write writes one row per KV head, so a ring of 4,096 rows costs what a ring of
// 8 does (its whole ring was priced as written: 136 us here); a far_field_push before
// its window fills reads its meta words and stops (position 100 < window 4,096), and at a
// full window (the default position) folds a key into the landmark sums.
// RUN: kiln-opt %s --kiln-fuse-dispatches="target-file=%S/Inputs/fuse-boundary-5us.json fuse=false emit-report=true" 2>&1 >/dev/null | FileCheck %s --check-prefix=FULL
// RUN: kiln-opt %s --kiln-fuse-dispatches="target-file=%S/Inputs/fuse-boundary-5us.json fuse=false emit-report=true position=100" 2>&1 >/dev/null | FileCheck %s --check-prefix=P100
// FULL:      #0        5.132 us  short_ring [rope_kv_write]
// FULL-NEXT: #1        5.132 us  long_ring [rope_kv_write]
// FULL-NEXT: #2      136.373 us  push [far_field_push]
// P100:      #0        5.132 us  short_ring [rope_kv_write]
// P100-NEXT: #1        5.132 us  long_ring [rope_kv_write]
// P100-NEXT: #2        5.007 us  push [far_field_push]
func.func @rings(%q: memref<32xf32>, %k: memref<16xf32>, %v: memref<16xf32>, %p: memref<4xi32>, %qr: memref<32xf32>,
                 %ks: memref<1x8x16xf32>, %vs: memref<1x8x16xf32>, %kl: memref<1x4096x16xf32>, %vl: memref<1x4096x16xf32>,
                 %lm: memref<1x3x16xf32>, %sums: memref<1x3x18xf32>, %meta: memref<3xi32>) {
  stage.dispatch "short_ring" {
    stage.rope_kv_write q(%q : memref<32xf32>) k(%k : memref<16xf32>) v(%v : memref<16xf32>) params(%p : memref<4xi32>) q_out(%qr : memref<32xf32>) k_ring(%ks : memref<1x8x16xf32>) v_ring(%vs : memref<1x8x16xf32>) {rope_theta = 1.000000e+04 : f32, rotary_dim = 16 : i64}
  }
  stage.dispatch "long_ring" {
    stage.rope_kv_write q(%q : memref<32xf32>) k(%k : memref<16xf32>) v(%v : memref<16xf32>) params(%p : memref<4xi32>) q_out(%qr : memref<32xf32>) k_ring(%kl : memref<1x4096x16xf32>) v_ring(%vl : memref<1x4096x16xf32>) {rope_theta = 1.000000e+04 : f32, rotary_dim = 16 : i64}
  }
  stage.dispatch "push" {
    stage.far_field_push k_ring(%kl : memref<1x4096x16xf32>) v_ring(%vl : memref<1x4096x16xf32>) params(%p : memref<4xi32>) landmarks(%lm : memref<1x3x16xf32>) far_sums(%sums : memref<1x3x18xf32>) far_meta(%meta : memref<3xi32>) {window = 4096 : i64, scale = 0.25 : f32}
  }
  return
}
