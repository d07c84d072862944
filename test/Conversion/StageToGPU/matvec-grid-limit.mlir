// REQUIRES: compiler
// convert-stage-to-gpu{matvec-grid-limit=5}: 72 rows of 4 are 18 items; the
// grid stops at 5 workgroups, each walking items id, id + 5, ... (the default
// launches one workgroup an item: 18).
// RUN: kiln-opt %s --convert-stage-to-gpu="matvec-grid-limit=5" | FileCheck %s --check-prefix=LIMIT
// RUN: kiln-opt %s --convert-stage-to-gpu | FileCheck %s --check-prefix=ALL

// LIMIT: gpu.launch_func @kiln_kernels::@matvec_f16 blocks in (%c5, %c1, %c1) threads in (%c32, %c1, %c1)
// LIMIT: gpu.func @matvec_f16(
// LIMIT: %[[ID:.*]] = gpu.block_id x
// LIMIT: scf.for %{{.*}} = %[[ID]] to %c18{{.*}} step %c5
// ALL: gpu.launch_func @kiln_kernels::@matvec_f16 blocks in (%c18, %c1, %c1)
// ALL: scf.for %{{.*}} = %{{.*}} to %c18{{.*}} step %c18
func.func @plain(%w: memref<72x25xvector<4xi32>>, %x: memref<200xf32>, %y: memref<72xf32>) {
  stage.dispatch "matvec_f16" {
    stage.matvec weight(%w : memref<72x25xvector<4xi32>>) input(%x : memref<200xf32>) out(%y : memref<72xf32>) {format = #stage.format<f16>}
  }
  return
}
