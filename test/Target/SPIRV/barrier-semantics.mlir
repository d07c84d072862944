// What a workgroup barrier orders. By default every barrier also orders
// storage-buffer memory (UniformMemory). With --barriers-where-needed
// (kiln-compile --barrier-semantics needed) only a kernel that hands values
// between its threads through a storage buffer keeps it: a mat-vec, whose
// barriers only order its reduction's workgroup memory, drops it; a fused
// norm -> mat-vec kernel, whose mat-vec reads what the norm wrote, keeps it.
// REQUIRES: compiler, spirv-val
// RUN: kiln-translate %s --kernel=matvec --emit=spirv-dialect | FileCheck %s --check-prefix=STORAGE
// RUN: kiln-translate %s --kernel=matvec --emit=spirv-dialect --barriers-where-needed | FileCheck %s --check-prefix=NEEDED
// RUN: kiln-translate %s --kernel=norm_matvec --emit=spirv-dialect --barriers-where-needed | FileCheck %s --check-prefix=STORAGE
// RUN: kiln-translate %s --kernel=matvec --barriers-where-needed --emit=spirv -o %t.spv && spirv-val --target-env vulkan1.1 %t.spv

// STORAGE: spirv.ControlBarrier <Workgroup>, <Workgroup>, <AcquireRelease|UniformMemory|WorkgroupMemory>
// NEEDED-NOT: UniformMemory
// NEEDED: spirv.ControlBarrier <Workgroup>, <Workgroup>, <AcquireRelease|WorkgroupMemory>
// NEEDED-NOT: UniformMemory
func.func @f(%w: memref<72x25xvector<4xi32>>, %x: memref<200xf32>, %y: memref<72xf32>,
             %nw: memref<200xf32>, %n: memref<200xf32>, %z: memref<72xf32>) {
  stage.dispatch "matvec" {
    stage.matvec weight(%w : memref<72x25xvector<4xi32>>) input(%x : memref<200xf32>) out(%y : memref<72xf32>) {format = #stage.format<f16>}
  }
  stage.dispatch "norm_matvec" attributes {fusion = "one_workgroup"} {
    stage.rmsnorm residual(%x : memref<200xf32>) weight(%nw : memref<200xf32>) outs(%n : memref<200xf32>) {eps = 1.0e-06 : f32}
    stage.matvec weight(%w : memref<72x25xvector<4xi32>>) input(%n : memref<200xf32>) out(%z : memref<72xf32>) {format = #stage.format<f16>}
  }
  return
}
