// A routed-expert mat-vec (q8_2f, 4 stacked candidates, column field in the
// stage) after the router that writes its index: valid SPIR-V, and MSL.
// REQUIRES: compiler, spirv-val
// RUN: kiln-translate %s --emit=spirv -o %t.spv && spirv-val --target-env vulkan1.1 %t.spv
// RUN: kiln-translate %s --emit=msl | FileCheck %s

// CHECK: kernel void matvec_expert(
func.func @f(%w: memref<384x5xvector<4xi32>>, %sel: memref<1xi32>, %s: memref<384xf32>, %t: memref<288xf32>,
             %x: memref<72xf32>, %y: memref<96xf32>) {
  stage.dispatch "matvec_expert" {
    stage.matvec weight(%w : memref<384x5xvector<4xi32>>) expert(%sel : memref<1xi32>) row_scale(%s : memref<384xf32>)
        col_scale(%t : memref<288xf32>) input(%x : memref<72xf32>) out(%y : memref<96xf32>)
        {experts = 4 : i64, format = #stage.format<q8_2f>}
  }
  return
}
