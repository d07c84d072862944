// REQUIRES: compiler, spirv-val
// RUN: kiln-translate %s --emit=spirv -o %t.spv && spirv-val --target-env vulkan1.1 %t.spv
// RUN: kiln-translate %s --emit=msl | FileCheck %s
// RUN: kiln-translate %s --emit=spirv-dialect | FileCheck %s --check-prefix=SPV

// CHECK: // kernel embed_gather threadgroup 64x1x1
// CHECK: kernel void embed_gather(
// SPV: spirv.module @__spv__{{.*}} Logical GLSL450
// SPV: spirv.EntryPoint "GLCompute" @embed_gather
// SPV: spirv.ExecutionMode @embed_gather "LocalSize", 64, 1, 1
func.func @f(%e: memref<10x7xvector<4xi32>>, %p: memref<4xi32>, %h: memref<52xf32>) {
  stage.dispatch "embed_gather" {
    stage.embed_gather table(%e : memref<10x7xvector<4xi32>>) params(%p : memref<4xi32>) out(%h : memref<52xf32>)
  }
  return
}
