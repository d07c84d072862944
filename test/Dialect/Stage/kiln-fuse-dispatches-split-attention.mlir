// REQUIRES: compiler
// kiln-fuse-dispatches' split-attention: a key_scores dispatch and the attention
// dispatch reading its scores become one split_keys dispatch, a stage.key_blocks
// between them whose partials ([4 heads, ceil(42 / 16) = 3 blocks, 16 + 3 floats])
// and per-head counters are new state buffers named after the dispatch. A norm that
// touches neither stays where it is (the attention moves up past it). Dory's
// window_attention merges the same way. A pair whose attention reads other scores,
// and everything with the switch off (the default), stay apart.
// RUN: kiln-opt %s --kiln-fuse-dispatches="target-file=%S/Inputs/fuse-boundary-5us.json split-attention=true block-keys=16" | FileCheck %s
// RUN: kiln-opt %s --kiln-fuse-dispatches="target-file=%S/Inputs/fuse-boundary-5us.json" | FileCheck %s --check-prefix=APART
// RUN: not kiln-opt %s --kiln-fuse-dispatches="target-file=%S/Inputs/fuse-boundary-5us.json split-attention=true block-keys=0" 2>&1 | FileCheck %s --check-prefix=BAD

// CHECK-LABEL: func.func @anchor
// CHECK-SAME:  %[[B:[a-z0-9]+]]: memref<4x3x19xf32> {stage.buffer = #stage.buffer<kind = state, name = "ring.scores.partials", byte_size = 912>}
// CHECK-SAME:  %[[C:[a-z0-9]+]]: memref<4xi32> {stage.buffer = #stage.buffer<kind = state, name = "ring.scores.counters", byte_size = 16>})
// CHECK:       stage.dispatch "ring.scores__ring.attention" attributes {fusion = "split_keys"
// CHECK-NEXT:    stage.key_scores
// CHECK-NEXT:    stage.key_blocks partials(%[[B]] : memref<4x3x19xf32>) counters(%[[C]] : memref<4xi32>) {block_keys = 16 : i64}
// CHECK-NEXT:    stage.attention
// CHECK-NEXT:  {{^ *}$}}
// CHECK-NEXT:  stage.dispatch "norm"
// CHECK-LABEL: func.func @other_scores
// CHECK:       stage.dispatch "ring.scores" attributes
// CHECK:       stage.dispatch "ring.attention" attributes
// CHECK-LABEL: func.func @near
// CHECK-SAME:  memref<3x1x27xf32> {stage.buffer = #stage.buffer<kind = state, name = "near.scores.partials"
// CHECK:       stage.dispatch "near.scores__near.attention" attributes {fusion = "split_keys"
// CHECK-NEXT:    stage.key_scores
// CHECK-NEXT:    stage.key_blocks {{.*}} {block_keys = 16 : i64}
// CHECK-NEXT:    stage.window_attention

// APART-NOT:   split_keys
// APART-NOT:   key_blocks

// BAD: kiln-fuse-dispatches: block-keys must be at least 1
func.func @anchor(%q: memref<64xf32>, %qp: memref<64xf32>, %kr: memref<2x40x16xf32>,
                  %sk: memref<2x2x16xf32>, %vr: memref<2x40x16xf32>, %sv: memref<2x2x16xf32>,
                  %p: memref<4xi32>, %s: memref<4x42xf32>, %o: memref<64xf32>,
                  %r: memref<64xf32>, %w: memref<64xf32>, %n: memref<64xf32>) {
  stage.dispatch "ring.scores" {
    stage.key_scores q(%q : memref<64xf32>) sink_q(%qp : memref<64xf32>) k_ring(%kr : memref<2x40x16xf32>)
        sink_k(%sk : memref<2x2x16xf32>) params(%p : memref<4xi32>) scores(%s : memref<4x42xf32>)
        {group_windows = array<i64: 40, 20>, scale = 0.25 : f32}
  }
  stage.dispatch "norm" {
    stage.rmsnorm residual(%r : memref<64xf32>) weight(%w : memref<64xf32>) outs(%n : memref<64xf32>) {eps = 1.0e-06 : f32}
  }
  stage.dispatch "ring.attention" {
    stage.attention scores(%s : memref<4x42xf32>) v_ring(%vr : memref<2x40x16xf32>) sink_v(%sv : memref<2x2x16xf32>)
        params(%p : memref<4xi32>) out(%o : memref<64xf32>) {group_windows = array<i64: 40, 20>}
  }
  return
}

func.func @other_scores(%q: memref<64xf32>, %kr: memref<2x40x16xf32>, %vr: memref<2x40x16xf32>,
                        %p: memref<4xi32>, %s: memref<4x40xf32>, %s2: memref<4x40xf32>,
                        %o: memref<64xf32>) {
  stage.dispatch "ring.scores" {
    stage.key_scores q(%q : memref<64xf32>) k_ring(%kr : memref<2x40x16xf32>)
        params(%p : memref<4xi32>) scores(%s : memref<4x40xf32>) {scale = 0.25 : f32}
  }
  stage.dispatch "ring.attention" {
    stage.attention scores(%s2 : memref<4x40xf32>) v_ring(%vr : memref<2x40x16xf32>)
        params(%p : memref<4xi32>) out(%o : memref<64xf32>)
  }
  return
}

func.func @near(%q: memref<72xf32>, %kr: memref<1x8x24xf32>, %vr: memref<1x8x24xf32>,
                %g: memref<72xf32>, %sg: memref<72xf32>, %p: memref<4xi32>,
                %s: memref<3x8xf32>, %o: memref<72xf32>) {
  stage.dispatch "near.scores" {
    stage.key_scores q(%q : memref<72xf32>) k_ring(%kr : memref<1x8x24xf32>)
        params(%p : memref<4xi32>) scores(%s : memref<3x8xf32>) {window = 5 : i64, scale = 0.2 : f32}
  }
  stage.dispatch "near.attention" {
    stage.window_attention q(%q : memref<72xf32>) scores(%s : memref<3x8xf32>)
        v_ring(%vr : memref<1x8x24xf32>) gate(%g : memref<72xf32>) gate_scale(%sg : memref<72xf32>)
        params(%p : memref<4xi32>) out(%o : memref<72xf32>) {window = 5 : i64, scale = 0.2 : f32}
  }
  return
}
