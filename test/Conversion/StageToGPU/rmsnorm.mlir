// REQUIRES: compiler
// stage.rmsnorm with partial planes: one 256-thread workgroup holds the 200-wide row in
// registers (one element a thread); it adds the 3 split-k planes into the residual,
// writes the residual back, reduces the sum of squares through workgroup memory (10
// barriers: the tree of 256 and the broadcast), takes one rsqrt, and stores the
// normalised row.
// RUN: kiln-opt %s --convert-stage-to-gpu | FileCheck %s

// CHECK: gpu.launch_func @kiln_kernels::@rmsnorm blocks in (%c1{{.*}}, %c1, %c1) threads in (%c256, %c1, %c1)
// CHECK: gpu.func @rmsnorm({{.*}}) workgroup(%{{.*}} : memref<256xf32, #gpu.address_space<workgroup>>) kernel
// CHECK: memref.load %arg1[%c0{{.*}}, %{{.*}}] : memref<3x200xf32>
// CHECK: memref.load %arg1[%c1, %{{.*}}] : memref<3x200xf32>
// CHECK: memref.load %arg1[%c2, %{{.*}}] : memref<3x200xf32>
// CHECK: memref.store %{{.*}}, %arg0[%{{.*}}] : memref<200xf32>
// CHECK-COUNT-10: gpu.barrier
// CHECK-NOT: gpu.barrier
// CHECK: math.rsqrt
// CHECK-NOT: math.rsqrt
// CHECK: memref.store %{{.*}}, %arg3[%{{.*}}] : memref<200xf32>
// CHECK: gpu.return
func.func @f(%h: memref<200xf32>, %p: memref<3x200xf32>, %w: memref<200xf32>, %o: memref<200xf32>, %f: memref<200xf32>) {
  stage.dispatch "rmsnorm" {
    stage.rmsnorm residual(%h : memref<200xf32>) partials(%p : memref<3x200xf32>) weight(%w : memref<200xf32>) outs(%o : memref<200xf32>) folds(%f : memref<200xf32>) {eps = 1.0e-06 : f32, zero_centered}
  }
  return
}
