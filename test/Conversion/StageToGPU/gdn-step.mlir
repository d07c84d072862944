// REQUIRES: compiler
// stage.gdn_step: a workgroup per value head (3 heads, the reduction width 256) that
// updates its own [12 x 20] slice of the state in place: the state's loads come first
// (held in registers across the head's reductions), its stores go back to the same
// rows of the same head (the workgroup id), and the head's 20 outputs are written last.
// Two 12-float workgroup buffers (the key dimension, dk = 12) sit beside the reduction's.
// RUN: kiln-opt %s --convert-stage-to-gpu | FileCheck %s

// CHECK: gpu.launch_func @kiln_kernels::@gdn_step blocks in (%c3, %c1, %c1) threads in (%c256, %c1, %c1)
// CHECK: gpu.func @gdn_step({{.*}}) workgroup(%{{.*}} : memref<512xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<12xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<12xf32, #gpu.address_space<workgroup>>
// CHECK: %[[HEAD:.*]] = gpu.block_id x
// CHECK: memref.load %arg7[%[[HEAD]], %[[ROW0:[0-9]+]], %{{.*}}] : memref<3x12x20xf32>
// CHECK: memref.load %arg7[%[[HEAD]], %[[ROW1:[0-9]+]], %{{.*}}] : memref<3x12x20xf32>
// CHECK: gpu.barrier
// CHECK: memref.store %{{.*}}, %arg7[%[[HEAD]], %[[ROW0]], %{{.*}}] : memref<3x12x20xf32>
// CHECK: memref.store %{{.*}}, %arg7[%[[HEAD]], %[[ROW1]], %{{.*}}] : memref<3x12x20xf32>
// CHECK: memref.store %{{.*}}, %arg8[%{{.*}}] : memref<60xf32>
// CHECK-NEXT: }
// CHECK-NEXT: gpu.return
func.func @f(%cq: memref<84xf32>, %z: memref<60xf32>, %a: memref<3xf32>, %b: memref<3xf32>, %al: memref<3xf32>, %dt: memref<3xf32>, %n: memref<20xf32>, %s: memref<3x12x20xf32>, %o: memref<60xf32>) {
  stage.dispatch "gdn_step" {
    stage.gdn_step qkv(%cq : memref<84xf32>) z(%z : memref<60xf32>) a(%a : memref<3xf32>) b(%b : memref<3xf32>) a_log(%al : memref<3xf32>) dt_bias(%dt : memref<3xf32>) norm(%n : memref<20xf32>) state(%s : memref<3x12x20xf32>) out(%o : memref<60xf32>) {num_k_heads = 1 : i64, eps = 1.0e-06 : f32}
  }
  return
}
