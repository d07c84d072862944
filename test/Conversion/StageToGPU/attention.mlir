// REQUIRES: compiler
// stage.attention and stage.window_attention read the scores stage.key_scores wrote: a
// workgroup per (query head, slice of D head dims), D the largest power of two <= 16
// dividing the head dim. Each holds the head's weights in workgroup memory (sinks +
// ring) beside the partial sums of its 256 threads.
// RUN: kiln-opt %s -split-input-file --convert-stage-to-gpu | FileCheck %s
// attention-value-dims=8 halves the slice: twice the workgroups (16 for the anchor's 4
// heads of 32 dims).
// RUN: kiln-opt %s -split-input-file --convert-stage-to-gpu="attention-value-dims=8" | FileCheck %s --check-prefix=D8
// D8-LABEL: func.func @anchor
// D8: gpu.launch_func @kiln_kernels::@attend blocks in (%c16, %c1, %c1) threads in (%c256, %c1, %c1)

// Head dim 32: 2 slices of 16 dims, 4 heads: 8 workgroups; 3 sinks + 320 ring rows of
// weights.
// CHECK-LABEL: func.func @anchor
// CHECK: gpu.launch_func @kiln_kernels::@attend blocks in (%c8, %c1, %c1) threads in (%c256, %c1, %c1)
// CHECK: gpu.func @attend({{.*}}) workgroup(%{{.*}} : memref<323xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<256xf32, #gpu.address_space<workgroup>>
// CHECK: memref.load %{{.*}}[%{{.*}}, %{{.*}}] : memref<4x323xf32>
// CHECK: math.exp
func.func @anchor(%s: memref<4x323xf32>, %vr: memref<2x320x32xf32>, %sv: memref<2x3x32xf32>, %p: memref<4xi32>, %o: memref<128xf32>) {
  stage.dispatch "attend" {
    stage.attention scores(%s : memref<4x323xf32>) v_ring(%vr : memref<2x320x32xf32>) sink_v(%sv : memref<2x3x32xf32>) params(%p : memref<4xi32>) out(%o : memref<128xf32>) {group_windows = array<i64: 320, 203>}
  }
  return
}

// -----

// Head dim 24: 3 slices of 8 dims, 3 heads: 9 workgroups; window 5 of weights.
// CHECK-LABEL: func.func @dory
// CHECK: gpu.launch_func @kiln_kernels::@attend blocks in (%c9, %c1, %c1) threads in (%c256, %c1, %c1)
// CHECK: gpu.func @attend({{.*}}) workgroup(%{{.*}} : memref<5xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<256xf32, #gpu.address_space<workgroup>>
func.func @dory(%q: memref<72xf32>, %s: memref<3x5xf32>, %vr: memref<1x8x24xf32>, %g: memref<72xf32>, %sg: memref<72xf32>, %p: memref<4xi32>, %o: memref<72xf32>) {
  stage.dispatch "attend" {
    stage.window_attention q(%q : memref<72xf32>) scores(%s : memref<3x5xf32>) v_ring(%vr : memref<1x8x24xf32>) gate(%g : memref<72xf32>) gate_scale(%sg : memref<72xf32>) params(%p : memref<4xi32>) out(%o : memref<72xf32>) {window = 5 : i64, scale = 4.0 : f32}
  }
  return
}
