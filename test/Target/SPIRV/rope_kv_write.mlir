// REQUIRES: compiler, spirv-val
// RUN: kiln-translate %s --emit=spirv -o %t.spv && spirv-val --target-env vulkan1.1 %t.spv
// RUN: kiln-translate %s --emit=msl | FileCheck %s
// RUN: kiln-translate %s --emit=spirv-dialect | FileCheck %s --check-prefix=SPV

// CHECK: // kernel rope_kv_write threadgroup 64x1x1
// CHECK: kernel void rope_kv_write(
// SPV: spirv.module @__spv__{{.*}} Logical GLSL450
// SPV: spirv.EntryPoint "GLCompute" @rope_kv_write
// SPV: spirv.ExecutionMode @rope_kv_write "LocalSize", 64, 1, 1
func.func @f(%q: memref<48xf32>, %k: memref<16xf32>, %v: memref<16xf32>, %p: memref<4xi32>, %qo: memref<48xf32>, %kr: memref<1x8x16xf32>, %vr: memref<1x8x16xf32>) {
  stage.dispatch "rope_kv_write" {
    stage.rope_kv_write q(%q : memref<48xf32>) k(%k : memref<16xf32>) v(%v : memref<16xf32>) params(%p : memref<4xi32>) q_out(%qo : memref<48xf32>) k_ring(%kr : memref<1x8x16xf32>) v_ring(%vr : memref<1x8x16xf32>) {rotary_dim = 8 : i64, rope_theta = 10000.0 : f32}
  }
  return
}
