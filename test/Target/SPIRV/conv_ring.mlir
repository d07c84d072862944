// REQUIRES: compiler, spirv-val
// RUN: kiln-translate %s --emit=spirv -o %t.spv && spirv-val --target-env vulkan1.1 %t.spv
// RUN: kiln-translate %s --emit=msl | FileCheck %s
// RUN: kiln-translate %s --emit=spirv-dialect | FileCheck %s --check-prefix=SPV

// CHECK: // kernel conv_ring threadgroup 64x1x1
// CHECK: kernel void conv_ring(
// SPV: spirv.module @__spv__{{.*}} Logical GLSL450
// SPV: spirv.EntryPoint "GLCompute" @conv_ring
// SPV: spirv.ExecutionMode @conv_ring "LocalSize", 64, 1, 1
func.func @f(%x: memref<52xf32>, %t: memref<52x4xf32>, %r: memref<3x52xf32>, %o: memref<52xf32>) {
  stage.dispatch "conv_ring" { stage.conv_ring input(%x : memref<52xf32>) taps(%t : memref<52x4xf32>) ring(%r : memref<3x52xf32>) out(%o : memref<52xf32>) }
  return
}
