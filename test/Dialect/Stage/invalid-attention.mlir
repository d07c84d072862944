// REQUIRES: compiler
// RUN: kiln-opt %s -split-input-file -verify-diagnostics

func.func @heads(%o: memref<48xf32>, %vr: memref<2x8x16xf32>, %p: memref<4xi32>, %s: memref<3x8xf32>) {
  stage.dispatch {
    // expected-error @+1 {{query heads (3) must be a multiple of KV heads (2)}}
    stage.attention scores(%s : memref<3x8xf32>) v_ring(%vr : memref<2x8x16xf32>) params(%p : memref<4xi32>) out(%o : memref<48xf32>)
  }
  return
}

// -----

func.func @window(%o: memref<48xf32>, %vr: memref<1x8x16xf32>, %p: memref<4xi32>, %s: memref<3x8xf32>) {
  stage.dispatch {
    // expected-error @+1 {{each group window must be in [1, 8] (the ring), got 9}}
    stage.attention scores(%s : memref<3x8xf32>) v_ring(%vr : memref<1x8x16xf32>) params(%p : memref<4xi32>) out(%o : memref<48xf32>) {group_windows = array<i64: 9>}
  }
  return
}

// -----

func.func @params(%o: memref<48xf32>, %vr: memref<1x8x16xf32>, %p: memref<2xi32>, %s: memref<3x8xf32>) {
  stage.dispatch {
    // expected-error @+1 {{params must hold at least 4 words}}
    stage.attention scores(%s : memref<3x8xf32>) v_ring(%vr : memref<1x8x16xf32>) params(%p : memref<2xi32>) out(%o : memref<48xf32>)
  }
  return
}

// -----

func.func @short_scores(%o: memref<48xf32>, %vr: memref<1x8x16xf32>, %sv: memref<1x2x16xf32>, %p: memref<4xi32>, %s: memref<3x8xf32>) {
  stage.dispatch {
    // expected-error @+1 {{scores must be [qh = 3, at least sinks + window = 10], got 'memref<3x8xf32>'}}
    stage.attention scores(%s : memref<3x8xf32>) v_ring(%vr : memref<1x8x16xf32>) sink_v(%sv : memref<1x2x16xf32>) params(%p : memref<4xi32>) out(%o : memref<48xf32>)
  }
  return
}

// -----

func.func @sink_shape(%o: memref<48xf32>, %vr: memref<1x8x16xf32>, %sv: memref<1x2x8xf32>, %p: memref<4xi32>, %s: memref<3x10xf32>) {
  stage.dispatch {
    // expected-error @+1 {{sink_v must be [kvh = 1, ns, hd = 16], got 'memref<1x2x8xf32>'}}
    stage.attention scores(%s : memref<3x10xf32>) v_ring(%vr : memref<1x8x16xf32>) sink_v(%sv : memref<1x2x8xf32>) params(%p : memref<4xi32>) out(%o : memref<48xf32>)
  }
  return
}

// -----

func.func @scores_heads(%q: memref<48xf32>, %kr: memref<1x8x16xf32>, %p: memref<4xi32>, %s: memref<2x8xf32>) {
  stage.dispatch {
    // expected-error @+1 {{scores must be [qh = 3, at least sinks + window = 8], got 'memref<2x8xf32>'}}
    stage.key_scores q(%q : memref<48xf32>) k_ring(%kr : memref<1x8x16xf32>) params(%p : memref<4xi32>) scores(%s : memref<2x8xf32>) {scale = 0.25 : f32}
  }
  return
}

// -----

func.func @scores_window(%q: memref<48xf32>, %kr: memref<1x8x16xf32>, %p: memref<4xi32>, %s: memref<3x8xf32>) {
  stage.dispatch {
    // expected-error @+1 {{window must be in [1, 8] (the ring capacity), got 9}}
    stage.key_scores q(%q : memref<48xf32>) k_ring(%kr : memref<1x8x16xf32>) params(%p : memref<4xi32>) scores(%s : memref<3x8xf32>) {scale = 0.25 : f32, window = 9 : i64}
  }
  return
}

// -----

func.func @scores_both_windows(%q: memref<48xf32>, %kr: memref<1x8x16xf32>, %p: memref<4xi32>, %s: memref<3x8xf32>) {
  stage.dispatch {
    // expected-error @+1 {{give group_windows or window, not both}}
    stage.key_scores q(%q : memref<48xf32>) k_ring(%kr : memref<1x8x16xf32>) params(%p : memref<4xi32>) scores(%s : memref<3x8xf32>) {group_windows = array<i64: 4>, scale = 0.25 : f32, window = 4 : i64}
  }
  return
}

// -----

func.func @scores_sink_query(%q: memref<48xf32>, %kr: memref<1x8x16xf32>, %p: memref<4xi32>, %s: memref<3x8xf32>) {
  stage.dispatch {
    // expected-error @+1 {{sink_q scores sink keys: it needs sink_k}}
    stage.key_scores q(%q : memref<48xf32>) sink_q(%q : memref<48xf32>) k_ring(%kr : memref<1x8x16xf32>) params(%p : memref<4xi32>) scores(%s : memref<3x8xf32>) {scale = 0.25 : f32}
  }
  return
}

// -----

func.func @scores_scale(%q: memref<48xf32>, %kr: memref<1x8x16xf32>, %p: memref<4xi32>, %s: memref<3x8xf32>) {
  stage.dispatch {
    // expected-error @+1 {{scale must be finite and positive, got 0}}
    stage.key_scores q(%q : memref<48xf32>) k_ring(%kr : memref<1x8x16xf32>) params(%p : memref<4xi32>) scores(%s : memref<3x8xf32>) {scale = 0.0 : f32}
  }
  return
}

// -----

func.func @scores_position_word(%q: memref<48xf32>, %kr: memref<1x8x16xf32>, %p: memref<4xi32>, %s: memref<3x8xf32>) {
  stage.dispatch {
    // expected-error @+1 {{position_word 4 is outside params (4 words)}}
    stage.key_scores q(%q : memref<48xf32>) k_ring(%kr : memref<1x8x16xf32>) params(%p : memref<4xi32>) scores(%s : memref<3x8xf32>) {scale = 0.25 : f32, position_word = 4 : i64}
  }
  return
}
