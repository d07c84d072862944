// REQUIRES: compiler, spirv-val
// RUN: kiln-translate %s --emit=spirv -o %t.spv && spirv-val --target-env vulkan1.1 %t.spv
// RUN: kiln-translate %s --emit=msl | FileCheck %s
// RUN: kiln-translate %s --emit=spirv-dialect | FileCheck %s --check-prefix=SPV

// CHECK: // kernel silu_mul threadgroup 64x1x1
// CHECK: kernel void silu_mul(
// SPV: spirv.module @__spv__{{.*}} Logical GLSL450
// SPV: spirv.EntryPoint "GLCompute" @silu_mul
// SPV: spirv.ExecutionMode @silu_mul "LocalSize", 64, 1, 1
func.func @f(%a: memref<20xf32>, %b: memref<20xf32>, %o: memref<20xf32>) {
  stage.dispatch "silu_mul" { stage.silu_mul ins(%a, %b : memref<20xf32>, memref<20xf32>) out(%o : memref<20xf32>) fold(%a : memref<20xf32>) }
  return
}
