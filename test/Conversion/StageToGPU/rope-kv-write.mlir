// REQUIRES: compiler
// stage.rope_kv_write: a thread per element of q, k and v (48 + 2 x 16 = 80 threads in
// workgroups of the row width, 64: 2 workgroups). The ring slot is the position (params
// word 1) mod the ring's 8 rows; pairs (i, i + rotary_dim/2) rotate by position · θ_i
// (θ from exp, then cos and sin); q goes to q_out, k and v to their rings at the slot.
// RUN: kiln-opt %s --convert-stage-to-gpu | FileCheck %s

// CHECK: gpu.launch_func @kiln_kernels::@rope_kv_write blocks in (%c2, %c1, %c1) threads in (%c64, %c1, %c1)
// CHECK: gpu.func @rope_kv_write(
// CHECK: %[[POS:.*]] = memref.load %arg3[%c1] : memref<4xi32>
// CHECK: %[[SLOT:.*]] = arith.remui %{{.*}}, %c8 : index
// CHECK: math.exp
// CHECK: math.cos
// CHECK: math.sin
// CHECK: memref.store %{{.*}}, %arg4[%{{.*}}] : memref<48xf32>
// CHECK-DAG: memref.store %{{.*}}, %arg5[%{{.*}}, %[[SLOT]], %{{.*}}] : memref<1x8x16xf32>
// CHECK-DAG: memref.store %{{.*}}, %arg6[%{{.*}}, %[[SLOT]], %{{.*}}] : memref<1x8x16xf32>
// CHECK: gpu.return
func.func @f(%q: memref<48xf32>, %k: memref<16xf32>, %v: memref<16xf32>, %p: memref<4xi32>, %qo: memref<48xf32>, %kr: memref<1x8x16xf32>, %vr: memref<1x8x16xf32>) {
  stage.dispatch "rope_kv_write" {
    stage.rope_kv_write q(%q : memref<48xf32>) k(%k : memref<16xf32>) v(%v : memref<16xf32>) params(%p : memref<4xi32>) q_out(%qo : memref<48xf32>) k_ring(%kr : memref<1x8x16xf32>) v_ring(%vr : memref<1x8x16xf32>) {rotary_dim = 8 : i64, rope_theta = 10000.0 : f32}
  }
  return
}
