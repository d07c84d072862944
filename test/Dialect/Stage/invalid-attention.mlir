// REQUIRES: compiler
// RUN: kiln-opt %s -split-input-file -verify-diagnostics

func.func @heads(%q: memref<48xf32>, %kr: memref<2x8x16xf32>, %p: memref<4xi32>) {
  stage.dispatch {
    // expected-error @+1 {{query heads (3) must be a multiple of KV heads (2)}}
    stage.attention q_rot(%q : memref<48xf32>) q_plain(%q : memref<48xf32>) k_ring(%kr : memref<2x8x16xf32>) v_ring(%kr : memref<2x8x16xf32>) params(%p : memref<4xi32>) out(%q : memref<48xf32>)
  }
  return
}

// -----

func.func @window(%q: memref<48xf32>, %kr: memref<1x8x16xf32>, %p: memref<4xi32>) {
  stage.dispatch {
    // expected-error @+1 {{each group window must be in [1, 8] (the ring), got 9}}
    stage.attention q_rot(%q : memref<48xf32>) q_plain(%q : memref<48xf32>) k_ring(%kr : memref<1x8x16xf32>) v_ring(%kr : memref<1x8x16xf32>) params(%p : memref<4xi32>) out(%q : memref<48xf32>) {group_windows = array<i64: 9>}
  }
  return
}

// -----

func.func @too_many_keys(%q: memref<48xf32>, %kr: memref<1x5000x16xf32>, %p: memref<4xi32>) {
  stage.dispatch {
    // expected-error @+1 {{sinks + ring window = 5000 keys exceed the 4096 scores a workgroup holds}}
    stage.attention q_rot(%q : memref<48xf32>) q_plain(%q : memref<48xf32>) k_ring(%kr : memref<1x5000x16xf32>) v_ring(%kr : memref<1x5000x16xf32>) params(%p : memref<4xi32>) out(%q : memref<48xf32>)
  }
  return
}

// -----

func.func @params(%q: memref<48xf32>, %kr: memref<1x8x16xf32>, %p: memref<2xi32>) {
  stage.dispatch {
    // expected-error @+1 {{params must hold at least 4 words}}
    stage.attention q_rot(%q : memref<48xf32>) q_plain(%q : memref<48xf32>) k_ring(%kr : memref<1x8x16xf32>) v_ring(%kr : memref<1x8x16xf32>) params(%p : memref<2xi32>) out(%q : memref<48xf32>)
  }
  return
}
