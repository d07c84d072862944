// REQUIRES: compiler
// convert-stage-to-gpu of a `last_workgroup` dispatch: the mat-vec on its own
// grid (64 workgroups of 32 threads); then every thread releases its writes at
// device scope (no acquire: an L1 kept), the workgroup meets, thread 0 adds one to the counter and
// compares the count with the launched grid (gpu.grid_dim, not the planned
// one), the last workgroup resets the counter to zero, and the verdict goes
// through workgroup memory to every thread; in the last workgroup each thread
// fences again (acquiring the others' writes) and runs the slerp.
// RUN: kiln-opt %s --convert-stage-to-gpu | FileCheck %s

// CHECK:      gpu.launch_func  @kiln_kernels::@proj__slerp blocks in (%c64, %c1, %c1) threads in (%c32, %c1, %c1)
// CHECK:      gpu.func @proj__slerp(
// CHECK-SAME:   %[[COUNTER:arg[0-9]+]]: memref<4xi32>
// CHECK-SAME:   workgroup({{.*}}, %[[VERDICT:arg[0-9]+]] : memref<1xf32, #gpu.address_space<workgroup>>)
// CHECK:        memref.store {{.*}} : memref<256xf32>
// CHECK:        %[[GRID:.*]] = gpu.grid_dim  x
// CHECK-NEXT:   %[[GRID32:.*]] = arith.index_cast %[[GRID]] : index to i32
// CHECK:        spirv.MemoryBarrier <Device>, <Release|UniformMemory>
// CHECK-NEXT:   gpu.barrier
// CHECK:        %[[TID:.*]] = gpu.thread_id  x
// CHECK:        %[[FIRST:.*]] = arith.cmpi eq, %[[TID]]
// CHECK-NEXT:   scf.if %[[FIRST]] {
// CHECK:          %[[BEFORE:.*]] = memref.atomic_rmw addi %{{.*}}, %[[COUNTER]][%{{.*}}] : (i32, memref<4xi32>) -> i32
// CHECK-NEXT:     %[[COUNT:.*]] = arith.addi %[[BEFORE]]
// CHECK-NEXT:     %[[LAST:.*]] = arith.cmpi eq, %[[COUNT]], %[[GRID32]] : i32
// CHECK-NEXT:     scf.if %[[LAST]] {
// CHECK:            memref.store %c0_i32, %[[COUNTER]]
// CHECK:          arith.select %[[LAST]]
// CHECK-NEXT:     memref.store {{.*}}, %[[VERDICT]]
// CHECK:        gpu.barrier
// CHECK:        memref.load %[[VERDICT]]
// CHECK:        scf.if
// CHECK-NEXT:     spirv.MemoryBarrier <Device>, <AcquireRelease|UniformMemory>
// CHECK:          math.rsqrt
// CHECK:        gpu.return
func.func @residual(%m: memref<256x8xvector<4xi32>>, %x: memref<64xf32>, %o: memref<256xf32>,
                    %h: memref<256xf32>, %a: memref<256xf32>, %c: memref<4xi32>) {
  stage.dispatch "proj__slerp" attributes {fusion = "last_workgroup"} {
    stage.matvec weight(%m : memref<256x8xvector<4xi32>>) input(%x : memref<64xf32>) out(%o : memref<256xf32>) {format = #stage.format<f16>}
    stage.last_workgroup counter(%c : memref<4xi32>)
    stage.slerp hidden(%h : memref<256xf32>) update(%o : memref<256xf32>) alpha(%a : memref<256xf32>) {eps = 1.0e-06 : f32}
  }
  return
}
