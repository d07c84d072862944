// REQUIRES: compiler, spirv-val
// RUN: kiln-translate %s --emit=spirv -o %t.spv && spirv-val --target-env vulkan1.1 %t.spv
// RUN: kiln-translate %s --emit=msl | FileCheck %s
// RUN: kiln-translate %s --emit=spirv-dialect | FileCheck %s --check-prefix=SPV

// CHECK: // kernel exit_test threadgroup 256x1x1
// CHECK: kernel void exit_test(
// SPV: spirv.module @__spv__{{.*}} Logical GLSL450
// SPV: spirv.EntryPoint "GLCompute" @exit_test
// SPV: spirv.ExecutionMode @exit_test "LocalSize", 256, 1, 1
func.func @f(%lp: memref<2x40xf32>, %f: memref<1xi32>) {
  stage.dispatch "exit_test" {
    stage.exit_test input(%lp : memref<2x40xf32>) flag(%f : memref<1xi32>) {threshold = 0.9 : f64}
  }
  return
}
