// REQUIRES: compiler
// An attention with more keys than a kernel of its own holds (5000 > 4096) is split
// into a split_keys dispatch whatever the switches say (split-attention off, and with
// fuse=false too: its partials and counters are state buffers); one of 4096 keys stays
// two dispatches.
// RUN: kiln-opt %s --kiln-fuse-dispatches="target-file=%S/Inputs/fuse-boundary-5us.json" | FileCheck %s
// RUN: kiln-opt %s --kiln-fuse-dispatches="target-file=%S/Inputs/fuse-boundary-5us.json fuse=false" | FileCheck %s

// CHECK-LABEL: func.func @long
// CHECK-SAME:  memref<3x79x19xf32> {stage.buffer = #stage.buffer<kind = state, name = "long.scores.partials"
// CHECK:       stage.dispatch "long.scores__long.attention" attributes {fusion = "split_keys"
// CHECK-LABEL: func.func @short
// CHECK:       stage.dispatch "short.scores" attributes
// CHECK:       stage.dispatch "short.attention" attributes
func.func @long(%q: memref<48xf32>, %kr: memref<1x5000x16xf32>, %vr: memref<1x5000x16xf32>,
                %p: memref<4xi32>, %s: memref<3x5000xf32>, %o: memref<48xf32>) {
  stage.dispatch "long.scores" {
    stage.key_scores q(%q : memref<48xf32>) k_ring(%kr : memref<1x5000x16xf32>)
        params(%p : memref<4xi32>) scores(%s : memref<3x5000xf32>) {scale = 0.25 : f32}
  }
  stage.dispatch "long.attention" {
    stage.attention scores(%s : memref<3x5000xf32>) v_ring(%vr : memref<1x5000x16xf32>)
        params(%p : memref<4xi32>) out(%o : memref<48xf32>)
  }
  return
}

func.func @short(%q: memref<48xf32>, %kr: memref<1x4096x16xf32>, %vr: memref<1x4096x16xf32>,
                 %p: memref<4xi32>, %s: memref<3x4096xf32>, %o: memref<48xf32>) {
  stage.dispatch "short.scores" {
    stage.key_scores q(%q : memref<48xf32>) k_ring(%kr : memref<1x4096x16xf32>)
        params(%p : memref<4xi32>) scores(%s : memref<3x4096xf32>) {scale = 0.25 : f32}
  }
  stage.dispatch "short.attention" {
    stage.attention scores(%s : memref<3x4096xf32>) v_ring(%vr : memref<1x4096x16xf32>)
        params(%p : memref<4xi32>) out(%o : memref<48xf32>)
  }
  return
}
