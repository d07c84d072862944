// REQUIRES: compiler
// convert-stage-to-gpu of a `split_keys` dispatch: one kernel on a grid of 4 heads x
// ceil(40 / 16) = 3 blocks (256 threads a workgroup); workgroup w scores and sums block
// w mod 3 of head w / 3, writes its header (maximum, weight sum, lowest kept score at
// words 0..2) and value sums to partials[head, block], releases its writes at device
// scope and adds one to counters[head]; the workgroup that brings the count to 3 resets
// the word and, after acquiring the others' writes, combines the head's blocks into
// the output.
// RUN: kiln-opt %s --convert-stage-to-gpu | FileCheck %s

// CHECK:      gpu.launch_func  @kiln_kernels::@ring blocks in (%c12, %c1, %c1) threads in (%c256, %c1, %c1)
// CHECK:      gpu.func @ring(
// CHECK-SAME:   %[[PARTIALS:arg[0-9]+]]: memref<4x3x19xf32>, %[[COUNTERS:arg[0-9]+]]: memref<4xi32>
// CHECK:        %[[WG:.*]] = gpu.block_id  x
// CHECK-NEXT:   %[[THREE:.*]] = arith.constant 3 : index
// CHECK-NEXT:   %[[HEAD:.*]] = arith.divui %[[WG]], %[[THREE]]
// CHECK-NEXT:   %[[BLOCK:.*]] = arith.remui %[[WG]], %[[THREE]]
// CHECK:        memref.store %{{.*}}, %[[PARTIALS]][%[[HEAD]], %[[BLOCK]], %{{.*}}] : memref<4x3x19xf32>
// CHECK:        memref.store %{{.*}}, %[[PARTIALS]][%[[HEAD]], %[[BLOCK]], %c2{{.*}}] : memref<4x3x19xf32>
// CHECK:        spirv.MemoryBarrier <Device>, <Release|UniformMemory>
// CHECK-NEXT:   gpu.barrier
// CHECK:        %[[BEFORE:.*]] = memref.atomic_rmw addi %{{.*}}, %[[COUNTERS]][%[[HEAD]]] : (i32, memref<4xi32>) -> i32
// CHECK-NEXT:   %[[COUNT:.*]] = arith.addi %[[BEFORE]]
// CHECK-NEXT:   %[[LAST:.*]] = arith.cmpi eq, %[[COUNT]], %c3_i32 : i32
// CHECK-NEXT:   scf.if %[[LAST]] {
// CHECK:          memref.store %c0_i32, %[[COUNTERS]][%[[HEAD]]]
// CHECK:        scf.if
// CHECK-NEXT:     spirv.MemoryBarrier <Device>, <AcquireRelease|UniformMemory>
// CHECK:          memref.load %[[PARTIALS]][%[[HEAD]], %{{.*}}, %c0
// CHECK:          math.exp
// CHECK:          memref.store {{.*}} : memref<64xf32>
// CHECK:        gpu.return
func.func @anchor(%q: memref<64xf32>, %kr: memref<2x40x16xf32>, %vr: memref<2x40x16xf32>,
                  %p: memref<4xi32>, %s: memref<4x40xf32>, %o: memref<64xf32>,
                  %b: memref<4x3x19xf32>, %c: memref<4xi32>) {
  stage.dispatch "ring" attributes {fusion = "split_keys"} {
    stage.key_scores q(%q : memref<64xf32>) k_ring(%kr : memref<2x40x16xf32>)
        params(%p : memref<4xi32>) scores(%s : memref<4x40xf32>) {scale = 0.25 : f32}
    stage.key_blocks partials(%b : memref<4x3x19xf32>) counters(%c : memref<4xi32>) {block_keys = 16 : i64}
    stage.attention scores(%s : memref<4x40xf32>) v_ring(%vr : memref<2x40x16xf32>)
        params(%p : memref<4xi32>) out(%o : memref<64xf32>)
  }
  return
}
