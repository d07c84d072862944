// REQUIRES: compiler
// stage.matvec: rows side by side in a workgroup (4 rows of 200 f16 columns, 25 groups,
// for 32 threads: 18 workgroups for 72 rows); a thread loads the same group of each of
// its workgroup's rows before any arithmetic (loads in flight), and the four rows'
// partials share one reduction buffer (4 x 32 floats). split_k 3 of a q8_2f mat-vec with
// the silu-mul epilogue runs 3 x 9 workgroups.
// RUN: kiln-opt %s -split-input-file --convert-stage-to-gpu | FileCheck %s
// matvec-plain-groups-per-thread=1: the 800-column plain f16 mat-vec (100 groups) takes
// 128 threads instead of 32; the q8_2f one with an up input keeps its 32.
// RUN: kiln-opt %s -split-input-file --convert-stage-to-gpu="matvec-plain-groups-per-thread=1" | FileCheck %s --check-prefix=PLAIN

// CHECK-LABEL: func.func @f16_rows
// CHECK: gpu.launch_func @kiln_kernels::@matvec_f16 blocks in (%c18, %c1, %c1) threads in (%c32, %c1, %c1)
// CHECK: gpu.func @matvec_f16({{.*}}) workgroup(%{{.*}} : memref<128xf32, #gpu.address_space<workgroup>>) kernel
// CHECK-COUNT-4: memref.load %arg0[%{{[0-9]+}}, %[[G:[0-9]+]]] : memref<72x25xvector<4xi32>>
// CHECK: memref.store %{{.*}}, %arg2[%{{.*}}] : memref<72xf32>
func.func @f16_rows(%w: memref<72x25xvector<4xi32>>, %x: memref<200xf32>, %y: memref<72xf32>) {
  stage.dispatch "matvec_f16" {
    stage.matvec weight(%w : memref<72x25xvector<4xi32>>) input(%x : memref<200xf32>) out(%y : memref<72xf32>) {format = #stage.format<f16>}
  }
  return
}

// -----

// CHECK-LABEL: func.func @q8_split
// CHECK: gpu.launch_func @kiln_kernels::@matvec_q8_split blocks in (%c27, %c1, %c1) threads in (%c32, %c1, %c1)
// PLAIN-LABEL: func.func @q8_split
// PLAIN: gpu.launch_func @kiln_kernels::@matvec_q8_split blocks in (%c27, %c1, %c1) threads in (%c32, %c1, %c1)
// CHECK: gpu.func @matvec_q8_split({{.*}}) workgroup(%{{.*}} : memref<256xf32, #gpu.address_space<workgroup>>) kernel
// CHECK: memref.store %{{.*}}, %arg4[%{{.*}}, %{{.*}}] : memref<3x72xf32>
func.func @q8_split(%w: memref<72x13xvector<4xi32>>, %s: memref<72xf32>, %g: memref<200xf32>, %u: memref<200xf32>, %y: memref<3x72xf32>) {
  stage.dispatch "matvec_q8_split" {
    stage.matvec weight(%w : memref<72x13xvector<4xi32>>) row_scale(%s : memref<72xf32>) input(%g : memref<200xf32>) up(%u : memref<200xf32>) out(%y : memref<3x72xf32>) {format = #stage.format<q8_2f>, activation = #stage.activation<silu_mul>, split_k = 3 : i64}
  }
  return
}

// -----

// CHECK-LABEL: func.func @f16_wide
// CHECK: gpu.launch_func @kiln_kernels::@matvec_f16_wide blocks in (%c18, %c1, %c1) threads in (%c32, %c1, %c1)
// PLAIN-LABEL: func.func @f16_wide
// PLAIN: gpu.launch_func @kiln_kernels::@matvec_f16_wide blocks in (%c18, %c1, %c1) threads in (%c128, %c1, %c1)
func.func @f16_wide(%w: memref<72x100xvector<4xi32>>, %x: memref<800xf32>, %y: memref<72xf32>) {
  stage.dispatch "matvec_f16_wide" {
    stage.matvec weight(%w : memref<72x100xvector<4xi32>>) input(%x : memref<800xf32>) out(%y : memref<72xf32>) {format = #stage.format<f16>}
  }
  return
}
