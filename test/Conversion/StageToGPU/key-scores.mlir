// REQUIRES: compiler
// stage.key_scores: a workgroup per (query head, block of keys). Head dim 16 at width 256:
// 16 lanes a key (one dim each), 16 keys a pass, 8 keys a lane (32 loads in flight over
// 8 keys at most), so a block is 128 keys; every key's 16 partials meet in workgroup
// memory (8 keys x 256 lanes) behind one barrier. The block test is uniform (every
// thread sees the same first key and count).
// RUN: kiln-opt %s -split-input-file --convert-stage-to-gpu | FileCheck %s

// 3 heads x 1 block (sinks 2 + ring 8 = 10 keys).
// CHECK-LABEL: func.func @one_block
// CHECK: gpu.launch_func @kiln_kernels::@scores blocks in (%c3, %c1, %c1) threads in (%c256, %c1, %c1)
// CHECK: gpu.func @scores({{.*}}) workgroup(%{{.*}} : memref<2048xf32, #gpu.address_space<workgroup>>) kernel
// CHECK: scf.if
// A block that may hold sinks (its first key below the sink count; uniform) loads the
// sink and ring rows of a lane's first key (its later keys, 16 and more past the block's
// first, are never among the 2 sinks); any other block the ring rows alone.
// CHECK: scf.if %{{.*}} -> (f32, f32, f32, f32, f32, f32, f32, f32)
// CHECK: memref.load %{{.*}} : memref<1x2x16xf32>
// CHECK-NOT: memref<1x2x16xf32>
// CHECK: } else {
// CHECK-NOT: memref<1x2x16xf32>
// CHECK: scf.yield
// CHECK: gpu.barrier
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
func.func @one_block(%qr: memref<48xf32>, %qp: memref<48xf32>, %kr: memref<1x8x16xf32>, %sk: memref<1x2x16xf32>, %p: memref<4xi32>, %s: memref<3x10xf32>) {
  stage.dispatch "scores" {
    stage.key_scores q(%qr : memref<48xf32>) sink_q(%qp : memref<48xf32>) k_ring(%kr : memref<1x8x16xf32>) sink_k(%sk : memref<1x2x16xf32>) params(%p : memref<4xi32>) scores(%s : memref<3x10xf32>) {group_windows = array<i64: 5>, scale = 0.25 : f32}
  }
  return
}

// -----

// A 300-row ring: 3 blocks of 128 keys a head, 3 heads: 9 workgroups; the score of key u
// of head h goes to scores[h, u].
// CHECK-LABEL: func.func @three_blocks
// CHECK: gpu.launch_func @kiln_kernels::@scores blocks in (%c9, %c1, %c1) threads in (%c256, %c1, %c1)
// CHECK: memref.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : memref<3x300xf32>
func.func @three_blocks(%q: memref<48xf32>, %kr: memref<1x300x16xf32>, %p: memref<4xi32>, %s: memref<3x300xf32>) {
  stage.dispatch "scores" {
    stage.key_scores q(%q : memref<48xf32>) k_ring(%kr : memref<1x300x16xf32>) params(%p : memref<4xi32>) scores(%s : memref<3x300xf32>) {scale = 0.25 : f32}
  }
  return
}
