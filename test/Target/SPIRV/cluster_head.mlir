// REQUIRES: compiler, spirv-val
// RUN: kiln-translate %s --emit=spirv -o %t.spv && spirv-val --target-env vulkan1.1 %t.spv
// RUN: kiln-translate %s --emit=msl | FileCheck %s
// RUN: kiln-translate %s --emit=spirv-dialect | FileCheck %s --check-prefix=SPV

// CHECK: // kernel cluster_head threadgroup 256x1x1
// CHECK: kernel void cluster_head(
// SPV: spirv.module @__spv__{{.*}} Logical GLSL450
// SPV: spirv.EntryPoint "GLCompute" @cluster_head
// SPV: spirv.ExecutionMode @cluster_head "LocalSize", 256, 1, 1
func.func @f(%h: memref<52xf32>, %w: memref<52xf32>, %x: memref<52xf32>, %c: memref<3x52xf32>, %lc: memref<3xf32>) {
  stage.dispatch "cluster_head" attributes {fusion = "one_workgroup"} {
    stage.rmsnorm residual(%h : memref<52xf32>) weight(%w : memref<52xf32>) outs(%x : memref<52xf32>) {eps = 1.0e-06 : f32}
    stage.cluster_logits input(%x : memref<52xf32>) clusters(%c : memref<3x52xf32>) out(%lc : memref<3xf32>)
  }
  return
}
