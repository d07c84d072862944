// REQUIRES: compiler
// stage.embed_gather: one thread per 16-byte group of the token's row (7 groups of a
// 52-wide f16 row: one 64-thread workgroup); the row is params word 0 (the token), and
// each thread stores its group's 8 halves, the last group cut at column 52.
// RUN: kiln-opt %s --convert-stage-to-gpu | FileCheck %s

// CHECK: gpu.launch_func @kiln_kernels::@embed_gather blocks in (%c1{{.*}}, %c1, %c1) threads in (%c64, %c1, %c1)
// CHECK: gpu.func @embed_gather(%arg0: memref<10x7xvector<4xi32>>, %arg1: memref<4xi32>, %arg2: memref<52xf32>) kernel
// CHECK: %[[TOKEN:.*]] = memref.load %arg1[%c0] : memref<4xi32>
// CHECK: memref.load %arg0[%{{.*}}, %{{.*}}] : memref<10x7xvector<4xi32>>
// CHECK-COUNT-8: memref.store %{{.*}}, %arg2[%{{.*}}] : memref<52xf32>
// CHECK-NOT: memref.store
// CHECK: gpu.return
func.func @f(%e: memref<10x7xvector<4xi32>>, %p: memref<4xi32>, %h: memref<52xf32>) {
  stage.dispatch "embed_gather" {
    stage.embed_gather table(%e : memref<10x7xvector<4xi32>>) params(%p : memref<4xi32>) out(%h : memref<52xf32>)
  }
  return
}
