// REQUIRES: compiler, spirv-val
// RUN: kiln-translate %s --emit=spirv -o %t.spv && spirv-val --target-env vulkan1.1 %t.spv
// RUN: kiln-translate %s --emit=msl | FileCheck %s
// RUN: kiln-translate %s --emit=spirv-dialect | FileCheck %s --check-prefix=SPV

// The flag is the last binding; the whole body sits under `flag[1] == 0`.
// CHECK: // kernel resume threadgroup 256x1x1
// CHECK: kernel void resume(
// SPV: spirv.func @resume
// SPV: spirv.Load "StorageBuffer"
// SPV: spirv.IEqual
// SPV: spirv.mlir.selection
// SPV: spirv.ControlBarrier
func.func @f(%h: memref<64xf32>, %in: memref<64xf32>, %st: memref<64xf32>, %flag: memref<2xi32>) {
  stage.dispatch "resume" skip_if(%flag : memref<2xi32>)[1] {
    stage.dory_mix hidden(%h : memref<64xf32>) entry(%in : memref<64xf32>) state(%st : memref<64xf32>) {mode = 4 : i64, eps = 1.0e-06 : f32}
  }
  return
}
