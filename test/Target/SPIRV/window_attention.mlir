// REQUIRES: compiler, spirv-val
// RUN: kiln-translate %s --emit=spirv -o %t.spv && spirv-val --target-env vulkan1.1 %t.spv
// RUN: kiln-translate %s --emit=msl | FileCheck %s
// RUN: kiln-translate %s --emit=spirv-dialect | FileCheck %s --check-prefix=SPV

// CHECK: // kernel window_attention threadgroup 256x1x1
// CHECK: kernel void window_attention(
// SPV: spirv.module @__spv__{{.*}} Logical GLSL450
// SPV: spirv.EntryPoint "GLCompute" @window_attention
// SPV: spirv.ExecutionMode @window_attention "LocalSize", 256, 1, 1
func.func @f(%q: memref<72xf32>, %sc: memref<3x8xf32>, %vr: memref<1x8x24xf32>, %g: memref<72xf32>, %sg: memref<72xf32>, %p: memref<4xi32>, %l: memref<1x3x24xf32>, %m: memref<1x3x3xf32>, %s: memref<1x3x26xf32>, %meta: memref<3xi32>, %o: memref<72xf32>) {
  stage.dispatch "window_attention" {
    stage.window_attention q(%q : memref<72xf32>) scores(%sc : memref<3x8xf32>) v_ring(%vr : memref<1x8x24xf32>) gate(%g : memref<72xf32>) gate_scale(%sg : memref<72xf32>) params(%p : memref<4xi32>) far(%l, %m, %s, %meta : memref<1x3x24xf32>, memref<1x3x3xf32>, memref<1x3x26xf32>, memref<3xi32>) out(%o : memref<72xf32>) {window = 5 : i64, scale = 4.89898 : f32, rectify}
  }
  return
}
