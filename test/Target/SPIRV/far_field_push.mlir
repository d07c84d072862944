// REQUIRES: compiler, spirv-val
// RUN: kiln-translate %s --emit=spirv -o %t.spv && spirv-val --target-env vulkan1.1 %t.spv
// RUN: kiln-translate %s --emit=msl | FileCheck %s
// RUN: kiln-translate %s --emit=spirv-dialect | FileCheck %s --check-prefix=SPV

// CHECK: // kernel far_field_push threadgroup 256x1x1
// CHECK: kernel void far_field_push(
// SPV: spirv.module @__spv__{{.*}} Logical GLSL450
// SPV: spirv.EntryPoint "GLCompute" @far_field_push
// SPV: spirv.ExecutionMode @far_field_push "LocalSize", 256, 1, 1
func.func @f(%kr: memref<1x8x24xf32>, %vr: memref<1x8x24xf32>, %p: memref<4xi32>, %l: memref<1x3x24xf32>, %s: memref<1x3x26xf32>, %meta: memref<3xi32>) {
  stage.dispatch "far_field_push" {
    stage.far_field_push k_ring(%kr : memref<1x8x24xf32>) v_ring(%vr : memref<1x8x24xf32>) params(%p : memref<4xi32>) landmarks(%l : memref<1x3x24xf32>) far_sums(%s : memref<1x3x26xf32>) far_meta(%meta : memref<3xi32>) {window = 5 : i64, scale = 4.89898 : f32}
  }
  return
}
