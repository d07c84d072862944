// REQUIRES: compiler, spirv-val
// RUN: kiln-translate %s --emit=spirv -o %t.spv && spirv-val --target-env vulkan1.1 %t.spv
// RUN: kiln-translate %s --emit=msl | FileCheck %s
// RUN: kiln-translate %s --emit=spirv-dialect | FileCheck %s --check-prefix=SPV

// CHECK: // kernel router threadgroup 256x1x1
// CHECK: kernel void router(
// SPV: spirv.module @__spv__{{.*}} Logical GLSL450
// SPV: spirv.EntryPoint "GLCompute" @router
// SPV: spirv.ExecutionMode @router "LocalSize", 256, 1, 1
func.func @f(%x: memref<52xf32>, %mu: memref<5x52xf32>, %u: memref<5x2x52xf32>, %b: memref<5xf32>, %s: memref<5xf32>, %sel: memref<1xi32>) {
  stage.dispatch "router" {
    stage.router input(%x : memref<52xf32>) centres(%mu : memref<5x52xf32>) basis(%u : memref<5x2x52xf32>) bias(%b : memref<5xf32>) shells(%s : memref<5xf32>) selected(%sel : memref<1xi32>)
  }
  return
}
