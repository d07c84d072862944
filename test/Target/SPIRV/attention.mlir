// REQUIRES: compiler, spirv-val
// RUN: kiln-translate %s --emit=spirv -o %t.spv && spirv-val --target-env vulkan1.1 %t.spv
// RUN: kiln-translate %s --emit=msl | FileCheck %s
// RUN: kiln-translate %s --emit=spirv-dialect | FileCheck %s --check-prefix=SPV

// CHECK: // kernel attention threadgroup 256x1x1
// CHECK: kernel void attention(
// SPV: spirv.module @__spv__{{.*}} Logical GLSL450
// SPV: spirv.EntryPoint "GLCompute" @attention
// SPV: spirv.ExecutionMode @attention "LocalSize", 256, 1, 1
func.func @f(%s: memref<3x10xf32>, %vr: memref<1x8x16xf32>, %sv: memref<1x2x16xf32>, %p: memref<4xi32>, %o: memref<48xf32>) {
  stage.dispatch "attention" {
    stage.attention scores(%s : memref<3x10xf32>) v_ring(%vr : memref<1x8x16xf32>) sink_v(%sv : memref<1x2x16xf32>) params(%p : memref<4xi32>) out(%o : memref<48xf32>) {group_windows = array<i64: 5>}
  }
  return
}
