// REQUIRES: compiler
// Weight prefetch (docs/fusion.md): the target of Inputs/fuse-boundary-5us.json
// reads 100 GB/s (100,000 bytes a us; its cache 4x that). Each slerp dispatch
// is estimated at 10 us and reads 768 bytes, so it has about 9.99 us of idle
// memory time: a budget of 999,232 bytes, which cache-bytes=600000 caps.
//   state1 (nothing pending): 600,000 bytes: all of %w1 (16,384 groups,
//     262,144 bytes), then the first 21,116 groups of %w2 (337,856 bytes).
//   proj1 is a mat-vec: it prefetches nothing (no from-matvecs); it reads %w1.
//   state2: %w2's 337,856 bytes are still pending, so 262,144 may come:
//     %w2's next 16,384 groups, from group 21,116.
//   proj2 reads %w2. The readers' estimates drop by the prefetched bytes at
//   memory speed less the same at cache speed: proj1 10 -> 8.034 us (262,144
//   bytes), proj2 10 -> 5.5 (600,000 bytes).
// Without a cache budget (the target has no prefetch_cache_bytes) nothing
// changes.
// RUN: kiln-opt %s --kiln-prefetch-weights="target-file=%S/Inputs/fuse-boundary-5us.json cache-bytes=600000" | FileCheck %s
// RUN: kiln-opt %s --kiln-prefetch-weights="target-file=%S/Inputs/fuse-boundary-5us.json" | FileCheck %s --check-prefix=OFF
// RUN: kiln-opt %s --kiln-prefetch-weights="target-file=%S/Inputs/fuse-boundary-5us.json cache-bytes=600000 from-matvecs=true" | FileCheck %s --check-prefix=MV

// CHECK-LABEL: func.func @layer(
// CHECK-SAME: %[[SINK:[a-z0-9]+]]: memref<4xi32> {stage.buffer = #stage.buffer<kind = state, name = "prefetch.sink", byte_size = 16>})
// CHECK: stage.dispatch "state1"
// CHECK-NEXT: stage.slerp
// CHECK-NEXT: stage.prefetch source(%arg3 : memref<256x64xvector<4xi32>>) sink(%[[SINK]] : memref<4xi32>) {first_group = 0 : i64, groups = 16384 : i64}
// CHECK-NEXT: stage.prefetch source(%arg5 : memref<1024x64xvector<4xi32>>) sink(%[[SINK]] : memref<4xi32>) {first_group = 0 : i64, groups = 21116 : i64}
// CHECK-NEXT: {{^ *}}}
// CHECK: stage.dispatch "proj1" attributes {stage.estimated_us = 8.034000e+00 : f64}
// CHECK-NEXT: stage.matvec
// CHECK-NEXT: {{^ *}}}
// CHECK: stage.dispatch "state2"
// CHECK-NEXT: stage.slerp
// CHECK-NEXT: stage.prefetch source(%arg5 : memref<1024x64xvector<4xi32>>) sink(%[[SINK]] : memref<4xi32>) {first_group = 21116 : i64, groups = 16384 : i64}
// CHECK-NEXT: {{^ *}}}
// CHECK: stage.dispatch "proj2" attributes {stage.estimated_us = 5.500000e+00 : f64}

// OFF-NOT: stage.prefetch
// OFF-NOT: prefetch.sink

// With from-matvecs, proj1 (10 us for 262,144 bytes: 7.38 us idle) prefetches
// the rest of %w2 the cap allows after state1's.
// MV: stage.dispatch "proj1"
// MV-NEXT: stage.matvec
// MV-NEXT: stage.prefetch source(%arg5 : memref<1024x64xvector<4xi32>>) sink(%{{.*}} : memref<4xi32>) {first_group = 21116 : i64, groups = 16384 : i64}
func.func @layer(%h: memref<64xf32>, %o: memref<64xf32>, %a: memref<64xf32>,
                 %w1: memref<256x64xvector<4xi32>>, %y1: memref<256xf32>,
                 %w2: memref<1024x64xvector<4xi32>>, %y2: memref<1024xf32>,
                 %x: memref<512xf32>) {
  stage.dispatch "state1" attributes {stage.estimated_us = 10.0 : f64} {
    stage.slerp hidden(%h : memref<64xf32>) update(%o : memref<64xf32>) alpha(%a : memref<64xf32>) {eps = 1.0e-06 : f32}
  }
  stage.dispatch "proj1" attributes {stage.estimated_us = 10.0 : f64} {
    stage.matvec weight(%w1 : memref<256x64xvector<4xi32>>) input(%x : memref<512xf32>) out(%y1 : memref<256xf32>) {format = #stage.format<f16>}
  }
  stage.dispatch "state2" attributes {stage.estimated_us = 10.0 : f64} {
    stage.slerp hidden(%h : memref<64xf32>) update(%o : memref<64xf32>) alpha(%a : memref<64xf32>) {eps = 1.0e-06 : f32}
  }
  stage.dispatch "proj2" attributes {stage.estimated_us = 10.0 : f64} {
    stage.matvec weight(%w2 : memref<1024x64xvector<4xi32>>) input(%x : memref<512xf32>) out(%y2 : memref<1024xf32>) {format = #stage.format<f16>}
  }
  return
}
