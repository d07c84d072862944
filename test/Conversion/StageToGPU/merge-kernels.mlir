// REQUIRES: compiler
// Identical kernels become one (convert-stage-to-gpu, docs/pipeline.md): the
// two slerps over same-shaped buffers lower to the same body, so both launches
// call @first, each labelled with its own dispatch's name; the slerp of
// another width keeps its kernel. kiln-compile --merge-kernels=false keeps a
// kernel per dispatch (test/tools/kiln-compile/kiln-compile-cli.test).
// RUN: kiln-opt %s --convert-stage-to-gpu | FileCheck %s

// CHECK: gpu.launch_func @kiln_kernels::@first {{.*}} args(%arg0 : memref<64xf32>, %arg1 : memref<64xf32>, %arg2 : memref<64xf32>) {stage.label = "first"}
// CHECK: gpu.launch_func @kiln_kernels::@first {{.*}} args(%arg3 : memref<64xf32>, %arg4 : memref<64xf32>, %arg5 : memref<64xf32>) {stage.label = "second"}
// CHECK: gpu.launch_func @kiln_kernels::@wider {{.*}} {stage.label = "wider"}
// CHECK: gpu.func @first(
// CHECK-NOT: gpu.func @second(
// CHECK: gpu.func @wider(
func.func @f(%h: memref<64xf32>, %o: memref<64xf32>, %a: memref<64xf32>,
             %h2: memref<64xf32>, %o2: memref<64xf32>, %a2: memref<64xf32>,
             %h3: memref<96xf32>, %o3: memref<96xf32>, %a3: memref<96xf32>) {
  stage.dispatch "first" { stage.slerp hidden(%h : memref<64xf32>) update(%o : memref<64xf32>) alpha(%a : memref<64xf32>) {eps = 1.0e-06 : f32} }
  stage.dispatch "second" { stage.slerp hidden(%h2 : memref<64xf32>) update(%o2 : memref<64xf32>) alpha(%a2 : memref<64xf32>) {eps = 1.0e-06 : f32} }
  stage.dispatch "wider" { stage.slerp hidden(%h3 : memref<96xf32>) update(%o3 : memref<96xf32>) alpha(%a3 : memref<96xf32>) {eps = 1.0e-06 : f32} }
  return
}
