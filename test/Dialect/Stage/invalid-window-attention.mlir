// REQUIRES: compiler
// RUN: kiln-opt %s -split-input-file -verify-diagnostics
func.func @f(%q: memref<72xf32, strided<[2]>>, %vr: memref<1x8x24xf32>, %g: memref<72xf32>, %sg: memref<72xf32>, %p: memref<4xi32>, %o: memref<72xf32>, %sc: memref<3x5xf32>) {
  stage.dispatch {
    // expected-error @+1 {{operand #0 must have the identity layout}}
    stage.window_attention q(%q : memref<72xf32, strided<[2]>>) scores(%sc : memref<3x5xf32>) v_ring(%vr : memref<1x8x24xf32>) gate(%g : memref<72xf32>) gate_scale(%sg : memref<72xf32>) params(%p : memref<4xi32>) out(%o : memref<72xf32>) {window = 5 : i64, scale = 4.0 : f32}
  }
  return
}

// -----

func.func @f(%q: memref<72xf32>, %vr: memref<1x8x24xf32>, %g: memref<72xf32>, %sg: memref<72xf32>, %p: memref<3xi32>, %o: memref<72xf32>, %sc: memref<3x5xf32>) {
  stage.dispatch {
    // expected-error @+1 {{params must hold at least 4 words}}
    stage.window_attention q(%q : memref<72xf32>) scores(%sc : memref<3x5xf32>) v_ring(%vr : memref<1x8x24xf32>) gate(%g : memref<72xf32>) gate_scale(%sg : memref<72xf32>) params(%p : memref<3xi32>) out(%o : memref<72xf32>) {window = 5 : i64, scale = 4.0 : f32}
  }
  return
}

// -----

func.func @f(%q: memref<72xf32>, %vr: memref<1x8x24xf32>, %g: memref<72xf32>, %sg: memref<72xf32>, %p: memref<4xi32>, %o: memref<72xf32>, %sc: memref<3x5xf32>) {
  stage.dispatch {
    // expected-error @+1 {{position_word 4 is outside params (4 words)}}
    stage.window_attention q(%q : memref<72xf32>) scores(%sc : memref<3x5xf32>) v_ring(%vr : memref<1x8x24xf32>) gate(%g : memref<72xf32>) gate_scale(%sg : memref<72xf32>) params(%p : memref<4xi32>) out(%o : memref<72xf32>) {window = 5 : i64, scale = 4.0 : f32, position_word = 4 : i64}
  }
  return
}

// -----

func.func @f(%q: memref<72xf32>, %vr: memref<1x8x24xf32>, %g: memref<72xf32>, %sg: memref<72xf32>, %p: memref<4xi32>, %o: memref<72xf32>, %sc: memref<3x5xf32>) {
  stage.dispatch {
    // expected-error @+1 {{scale must be finite and positive, got 0}}
    stage.window_attention q(%q : memref<72xf32>) scores(%sc : memref<3x5xf32>) v_ring(%vr : memref<1x8x24xf32>) gate(%g : memref<72xf32>) gate_scale(%sg : memref<72xf32>) params(%p : memref<4xi32>) out(%o : memref<72xf32>) {window = 5 : i64, scale = 0.0 : f32}
  }
  return
}

// -----

func.func @f(%q: memref<70xf32>, %vr: memref<1x8x24xf32>, %g: memref<72xf32>, %sg: memref<72xf32>, %p: memref<4xi32>, %o: memref<72xf32>, %sc: memref<2x5xf32>) {
  stage.dispatch {
    // expected-error @+1 {{q has 70 values, not a whole number of heads of 24}}
    stage.window_attention q(%q : memref<70xf32>) scores(%sc : memref<2x5xf32>) v_ring(%vr : memref<1x8x24xf32>) gate(%g : memref<72xf32>) gate_scale(%sg : memref<72xf32>) params(%p : memref<4xi32>) out(%o : memref<72xf32>) {window = 5 : i64, scale = 4.0 : f32}
  }
  return
}

// -----

func.func @f(%q: memref<72xf32>, %vr: memref<2x8x24xf32>, %g: memref<72xf32>, %sg: memref<72xf32>, %p: memref<4xi32>, %o: memref<72xf32>, %sc: memref<3x5xf32>) {
  stage.dispatch {
    // expected-error @+1 {{query heads (3) must be a multiple of KV heads (2)}}
    stage.window_attention q(%q : memref<72xf32>) scores(%sc : memref<3x5xf32>) v_ring(%vr : memref<2x8x24xf32>) gate(%g : memref<72xf32>) gate_scale(%sg : memref<72xf32>) params(%p : memref<4xi32>) out(%o : memref<72xf32>) {window = 5 : i64, scale = 4.0 : f32}
  }
  return
}

// -----

func.func @f(%q: memref<72xf32>, %vr: memref<1x8x24xf32>, %g: memref<48xf32>, %sg: memref<72xf32>, %p: memref<4xi32>, %o: memref<72xf32>, %sc: memref<3x5xf32>) {
  stage.dispatch {
    // expected-error @+1 {{gate has 48 elements, expected 72 (qh·hd)}}
    stage.window_attention q(%q : memref<72xf32>) scores(%sc : memref<3x5xf32>) v_ring(%vr : memref<1x8x24xf32>) gate(%g : memref<48xf32>) gate_scale(%sg : memref<72xf32>) params(%p : memref<4xi32>) out(%o : memref<72xf32>) {window = 5 : i64, scale = 4.0 : f32}
  }
  return
}

// -----

func.func @f(%q: memref<72xf32>, %vr: memref<1x8x24xf32>, %g: memref<72xf32>, %sg: memref<48xf32>, %p: memref<4xi32>, %o: memref<72xf32>, %sc: memref<3x5xf32>) {
  stage.dispatch {
    // expected-error @+1 {{gate_scale has 48 elements, expected 72 (qh·hd)}}
    stage.window_attention q(%q : memref<72xf32>) scores(%sc : memref<3x5xf32>) v_ring(%vr : memref<1x8x24xf32>) gate(%g : memref<72xf32>) gate_scale(%sg : memref<48xf32>) params(%p : memref<4xi32>) out(%o : memref<72xf32>) {window = 5 : i64, scale = 4.0 : f32}
  }
  return
}

// -----

func.func @f(%q: memref<72xf32>, %vr: memref<1x8x24xf32>, %g: memref<72xf32>, %sg: memref<72xf32>, %p: memref<4xi32>, %o: memref<48xf32>, %sc: memref<3x5xf32>) {
  stage.dispatch {
    // expected-error @+1 {{output has 48 elements, expected 72 (qh·hd)}}
    stage.window_attention q(%q : memref<72xf32>) scores(%sc : memref<3x5xf32>) v_ring(%vr : memref<1x8x24xf32>) gate(%g : memref<72xf32>) gate_scale(%sg : memref<72xf32>) params(%p : memref<4xi32>) out(%o : memref<48xf32>) {window = 5 : i64, scale = 4.0 : f32}
  }
  return
}

// -----

func.func @f(%q: memref<72xf32>, %vr: memref<1x8x24xf32>, %g: memref<72xf32>, %sg: memref<72xf32>, %p: memref<4xi32>, %o: memref<72xf32>, %f: memref<48xf32>, %sc: memref<3x5xf32>) {
  stage.dispatch {
    // expected-error @+1 {{fold has 48 elements, expected 72 (a column field per output value)}}
    stage.window_attention q(%q : memref<72xf32>) scores(%sc : memref<3x5xf32>) v_ring(%vr : memref<1x8x24xf32>) gate(%g : memref<72xf32>) gate_scale(%sg : memref<72xf32>) params(%p : memref<4xi32>) out(%o : memref<72xf32>) fold(%f : memref<48xf32>) {window = 5 : i64, scale = 4.0 : f32}
  }
  return
}

// -----

func.func @f(%q: memref<72xf32>, %vr: memref<1x8x24xf32>, %g: memref<72xf32>, %sg: memref<72xf32>, %p: memref<4xi32>, %o: memref<72xf32>, %sc: memref<3x9xf32>) {
  stage.dispatch {
    // expected-error @+1 {{window must be in [1, 8] (the ring capacity), got 9}}
    stage.window_attention q(%q : memref<72xf32>) scores(%sc : memref<3x9xf32>) v_ring(%vr : memref<1x8x24xf32>) gate(%g : memref<72xf32>) gate_scale(%sg : memref<72xf32>) params(%p : memref<4xi32>) out(%o : memref<72xf32>) {window = 9 : i64, scale = 4.0 : f32}
  }
  return
}

// -----

func.func @f(%q: memref<72xf32>, %vr: memref<1x8x24xf32>, %g: memref<72xf32>, %sg: memref<72xf32>, %p: memref<4xi32>, %o: memref<72xf32>, %sc: memref<3x1xf32>) {
  stage.dispatch {
    // expected-error @+1 {{window must be in [1, 8] (the ring capacity), got 0}}
    stage.window_attention q(%q : memref<72xf32>) scores(%sc : memref<3x1xf32>) v_ring(%vr : memref<1x8x24xf32>) gate(%g : memref<72xf32>) gate_scale(%sg : memref<72xf32>) params(%p : memref<4xi32>) out(%o : memref<72xf32>) {window = 0 : i64, scale = 4.0 : f32}
  }
  return
}

// -----

func.func @f(%q: memref<72xf32>, %vr: memref<1x8x24xf32>, %g: memref<72xf32>, %sg: memref<72xf32>, %p: memref<4xi32>, %o: memref<72xf32>, %l: memref<1x3x16xf32>, %m: memref<1x3x3xf32>, %s: memref<1x3x26xf32>, %meta: memref<3xi32>, %sc: memref<3x5xf32>) {
  stage.dispatch {
    // expected-error @+1 {{landmarks must be [kvh = 1, m, hd = 24]}}
    stage.window_attention q(%q : memref<72xf32>) scores(%sc : memref<3x5xf32>) v_ring(%vr : memref<1x8x24xf32>) gate(%g : memref<72xf32>) gate_scale(%sg : memref<72xf32>) params(%p : memref<4xi32>) far(%l, %m, %s, %meta : memref<1x3x16xf32>, memref<1x3x3xf32>, memref<1x3x26xf32>, memref<3xi32>) out(%o : memref<72xf32>) {window = 5 : i64, scale = 4.0 : f32}
  }
  return
}

// -----

func.func @f(%q: memref<72xf32>, %vr: memref<1x8x24xf32>, %g: memref<72xf32>, %sg: memref<72xf32>, %p: memref<4xi32>, %o: memref<72xf32>, %l: memref<1x33x24xf32>, %m: memref<1x33x33xf32>, %s: memref<1x33x26xf32>, %meta: memref<3xi32>, %sc: memref<3x5xf32>) {
  stage.dispatch {
    // expected-error @+1 {{landmarks per KV head must be in [1, 32], got 33}}
    stage.window_attention q(%q : memref<72xf32>) scores(%sc : memref<3x5xf32>) v_ring(%vr : memref<1x8x24xf32>) gate(%g : memref<72xf32>) gate_scale(%sg : memref<72xf32>) params(%p : memref<4xi32>) far(%l, %m, %s, %meta : memref<1x33x24xf32>, memref<1x33x33xf32>, memref<1x33x26xf32>, memref<3xi32>) out(%o : memref<72xf32>) {window = 5 : i64, scale = 4.0 : f32}
  }
  return
}

// -----

func.func @f(%q: memref<72xf32>, %vr: memref<1x8x24xf32>, %g: memref<72xf32>, %sg: memref<72xf32>, %p: memref<4xi32>, %o: memref<72xf32>, %l: memref<1x3x24xf32>, %m: memref<1x3x4xf32>, %s: memref<1x3x26xf32>, %meta: memref<3xi32>, %sc: memref<3x5xf32>) {
  stage.dispatch {
    // expected-error @+1 {{inverse must be [kvh = 1, m = 3, m = 3]}}
    stage.window_attention q(%q : memref<72xf32>) scores(%sc : memref<3x5xf32>) v_ring(%vr : memref<1x8x24xf32>) gate(%g : memref<72xf32>) gate_scale(%sg : memref<72xf32>) params(%p : memref<4xi32>) far(%l, %m, %s, %meta : memref<1x3x24xf32>, memref<1x3x4xf32>, memref<1x3x26xf32>, memref<3xi32>) out(%o : memref<72xf32>) {window = 5 : i64, scale = 4.0 : f32}
  }
  return
}

// -----

func.func @f(%q: memref<72xf32>, %vr: memref<1x8x24xf32>, %g: memref<72xf32>, %sg: memref<72xf32>, %p: memref<4xi32>, %o: memref<72xf32>, %l: memref<1x3x24xf32>, %m: memref<1x3x3xf32>, %s: memref<1x3x24xf32>, %meta: memref<3xi32>, %sc: memref<3x5xf32>) {
  stage.dispatch {
    // expected-error @+1 {{far_sums must be [kvh = 1, m = 3, hd + 2 = 26] (z, n, then θ per landmark)}}
    stage.window_attention q(%q : memref<72xf32>) scores(%sc : memref<3x5xf32>) v_ring(%vr : memref<1x8x24xf32>) gate(%g : memref<72xf32>) gate_scale(%sg : memref<72xf32>) params(%p : memref<4xi32>) far(%l, %m, %s, %meta : memref<1x3x24xf32>, memref<1x3x3xf32>, memref<1x3x24xf32>, memref<3xi32>) out(%o : memref<72xf32>) {window = 5 : i64, scale = 4.0 : f32}
  }
  return
}

// -----

func.func @f(%q: memref<72xf32>, %vr: memref<1x8x24xf32>, %g: memref<72xf32>, %sg: memref<72xf32>, %p: memref<4xi32>, %o: memref<72xf32>, %l: memref<1x3x24xf32>, %m: memref<1x3x3xf32>, %s: memref<1x3x26xf32>, %meta: memref<2xi32>, %sc: memref<3x5xf32>) {
  stage.dispatch {
    // expected-error @+1 {{far_meta has 2 elements, expected 3 (3 words per KV head: count, next to fold, folded)}}
    stage.window_attention q(%q : memref<72xf32>) scores(%sc : memref<3x5xf32>) v_ring(%vr : memref<1x8x24xf32>) gate(%g : memref<72xf32>) gate_scale(%sg : memref<72xf32>) params(%p : memref<4xi32>) far(%l, %m, %s, %meta : memref<1x3x24xf32>, memref<1x3x3xf32>, memref<1x3x26xf32>, memref<2xi32>) out(%o : memref<72xf32>) {window = 5 : i64, scale = 4.0 : f32}
  }
  return
}

// -----

func.func @f(%q: memref<72xf32>, %vr: memref<1x8x24xf32>, %g: memref<72xf32>, %sg: memref<72xf32>, %p: memref<4xi32>, %o: memref<72xf32>, %sc: memref<3x5xf32>) {
  stage.dispatch {
    // expected-error @+1 {{rectify clamps the far field's weights: it needs far(...)}}
    stage.window_attention q(%q : memref<72xf32>) scores(%sc : memref<3x5xf32>) v_ring(%vr : memref<1x8x24xf32>) gate(%g : memref<72xf32>) gate_scale(%sg : memref<72xf32>) params(%p : memref<4xi32>) out(%o : memref<72xf32>) {window = 5 : i64, scale = 4.0 : f32, rectify}
  }
  return
}

// -----

func.func @f(%q: memref<72xf32>, %vr: memref<1x8x24xf32>, %sk: memref<2x3x24xf32>, %g: memref<72xf32>, %sg: memref<72xf32>, %p: memref<4xi32>, %o: memref<72xf32>, %sc: memref<3x8xf32>) {
  stage.dispatch {
    // expected-error @+1 {{sink_v must be [kvh = 1, ns, hd = 24], got 'memref<2x3x24xf32>'}}
    stage.window_attention q(%q : memref<72xf32>) scores(%sc : memref<3x8xf32>) v_ring(%vr : memref<1x8x24xf32>) sink_v(%sk : memref<2x3x24xf32>) gate(%g : memref<72xf32>) gate_scale(%sg : memref<72xf32>) params(%p : memref<4xi32>) out(%o : memref<72xf32>) {window = 5 : i64, scale = 4.0 : f32}
  }
  return
}

// -----

func.func @f(%q: memref<72xf32>, %vr: memref<1x8x24xf32>, %sv: memref<1x3x24xf32>, %g: memref<72xf32>, %sg: memref<72xf32>, %p: memref<4xi32>, %o: memref<72xf32>, %sc: memref<3x5xf32>) {
  stage.dispatch {
    // expected-error @+1 {{scores must be [qh = 3, at least sinks + window = 8], got 'memref<3x5xf32>'}}
    stage.window_attention q(%q : memref<72xf32>) scores(%sc : memref<3x5xf32>) v_ring(%vr : memref<1x8x24xf32>) sink_v(%sv : memref<1x3x24xf32>) gate(%g : memref<72xf32>) gate_scale(%sg : memref<72xf32>) params(%p : memref<4xi32>) out(%o : memref<72xf32>) {window = 5 : i64, scale = 4.0 : f32}
  }
  return
}
