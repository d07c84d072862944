// REQUIRES: compiler
// RUN: kiln-opt %s -split-input-file -verify-diagnostics
func.func @push(%kr: memref<1x8x24xf32>, %vr: memref<1x8x24xf32>, %p: memref<4xi32>, %l: memref<1x3x24xf32>, %s: memref<1x3x26xf32>, %meta: memref<3xi32>) {
  stage.dispatch {
    // expected-error @+1 {{window must be in [1, 8] (the ring capacity), got 12}}
    stage.far_field_push k_ring(%kr : memref<1x8x24xf32>) v_ring(%vr : memref<1x8x24xf32>) params(%p : memref<4xi32>) landmarks(%l : memref<1x3x24xf32>) far_sums(%s : memref<1x3x26xf32>) far_meta(%meta : memref<3xi32>) {window = 12 : i64, scale = 4.0 : f32}
  }
  return
}

// -----

func.func @push(%kr: memref<1x8x24xf32>, %vr: memref<1x8x16xf32>, %p: memref<4xi32>, %l: memref<1x3x24xf32>, %s: memref<1x3x26xf32>, %meta: memref<3xi32>) {
  stage.dispatch {
    // expected-error @+1 {{k_ring and v_ring must have one type}}
    stage.far_field_push k_ring(%kr : memref<1x8x24xf32>) v_ring(%vr : memref<1x8x16xf32>) params(%p : memref<4xi32>) landmarks(%l : memref<1x3x24xf32>) far_sums(%s : memref<1x3x26xf32>) far_meta(%meta : memref<3xi32>) {window = 5 : i64, scale = 4.0 : f32}
  }
  return
}

// -----

func.func @push(%kr: memref<1x8x24xf32>, %vr: memref<1x8x24xf32>, %p: memref<4xi32>, %l: memref<2x3x24xf32>, %s: memref<1x3x26xf32>, %meta: memref<3xi32>) {
  stage.dispatch {
    // expected-error @+1 {{landmarks must be [kvh = 1, m, hd = 24]}}
    stage.far_field_push k_ring(%kr : memref<1x8x24xf32>) v_ring(%vr : memref<1x8x24xf32>) params(%p : memref<4xi32>) landmarks(%l : memref<2x3x24xf32>) far_sums(%s : memref<1x3x26xf32>) far_meta(%meta : memref<3xi32>) {window = 5 : i64, scale = 4.0 : f32}
  }
  return
}

// -----

func.func @push(%kr: memref<1x8x24xf32>, %vr: memref<1x8x24xf32>, %p: memref<4xi32>, %l: memref<1x3x24xf32>, %s: memref<1x4x26xf32>, %meta: memref<3xi32>) {
  stage.dispatch {
    // expected-error @+1 {{far_sums must be [kvh = 1, m = 3, hd + 2 = 26]}}
    stage.far_field_push k_ring(%kr : memref<1x8x24xf32>) v_ring(%vr : memref<1x8x24xf32>) params(%p : memref<4xi32>) landmarks(%l : memref<1x3x24xf32>) far_sums(%s : memref<1x4x26xf32>) far_meta(%meta : memref<3xi32>) {window = 5 : i64, scale = 4.0 : f32}
  }
  return
}

// -----

func.func @push(%kr: memref<1x8x24xf32>, %vr: memref<1x8x24xf32>, %p: memref<4xi32>, %l: memref<1x3x24xf32>, %s: memref<1x3x26xf32>, %meta: memref<4xi32>) {
  stage.dispatch {
    // expected-error @+1 {{far_meta has 4 elements, expected 3}}
    stage.far_field_push k_ring(%kr : memref<1x8x24xf32>) v_ring(%vr : memref<1x8x24xf32>) params(%p : memref<4xi32>) landmarks(%l : memref<1x3x24xf32>) far_sums(%s : memref<1x3x26xf32>) far_meta(%meta : memref<4xi32>) {window = 5 : i64, scale = 4.0 : f32}
  }
  return
}

// -----

func.func @push(%kr: memref<1x8x24xf32>, %vr: memref<1x8x24xf32>, %p: memref<4xi32>, %l: memref<1x3x24xf32>, %s: memref<1x3x26xf32>, %meta: memref<3xi32>) {
  stage.dispatch {
    // expected-error @+1 {{scale must be finite and positive}}
    stage.far_field_push k_ring(%kr : memref<1x8x24xf32>) v_ring(%vr : memref<1x8x24xf32>) params(%p : memref<4xi32>) landmarks(%l : memref<1x3x24xf32>) far_sums(%s : memref<1x3x26xf32>) far_meta(%meta : memref<3xi32>) {window = 5 : i64, scale = -1.0 : f32}
  }
  return
}

// -----

func.func @push(%kr: memref<1x8x24xf32>, %vr: memref<1x8x24xf32>, %p: memref<4xi32>, %l: memref<1x3x24xf32>, %s: memref<1x3x26xf32>, %meta: memref<3xi32>) {
  stage.dispatch {
    // expected-error @+1 {{position_word 7 is outside params (4 words)}}
    stage.far_field_push k_ring(%kr : memref<1x8x24xf32>) v_ring(%vr : memref<1x8x24xf32>) params(%p : memref<4xi32>) landmarks(%l : memref<1x3x24xf32>) far_sums(%s : memref<1x3x26xf32>) far_meta(%meta : memref<3xi32>) {window = 5 : i64, scale = 4.0 : f32, position_word = 7 : i64}
  }
  return
}

// -----

func.func @push(%kr: memref<1x?x24xf32>, %vr: memref<1x?x24xf32>, %p: memref<4xi32>, %l: memref<1x3x24xf32>, %s: memref<1x3x26xf32>, %meta: memref<3xi32>) {
  stage.dispatch {
    // expected-error @+1 {{operand #0 must have a static shape}}
    stage.far_field_push k_ring(%kr : memref<1x?x24xf32>) v_ring(%vr : memref<1x?x24xf32>) params(%p : memref<4xi32>) landmarks(%l : memref<1x3x24xf32>) far_sums(%s : memref<1x3x26xf32>) far_meta(%meta : memref<3xi32>) {window = 5 : i64, scale = 4.0 : f32}
  }
  return
}

// -----

func.func @capture(%q: memref<72xf32>, %p: memref<4xi32>, %meta: memref<3xi32>, %l: memref<1x3x24xf32>) {
  stage.dispatch {
    // expected-error @+1 {{stride must be at least 1, got 0}}
    stage.landmark_capture q(%q : memref<72xf32>) params(%p : memref<4xi32>) far_meta(%meta : memref<3xi32>) landmarks(%l : memref<1x3x24xf32>) {stride = 0 : i64}
  }
  return
}

// -----

func.func @capture(%q: memref<50xf32>, %p: memref<4xi32>, %meta: memref<3xi32>, %l: memref<1x3x24xf32>) {
  stage.dispatch {
    // expected-error @+1 {{q has 50 values, not a whole number of heads of 24}}
    stage.landmark_capture q(%q : memref<50xf32>) params(%p : memref<4xi32>) far_meta(%meta : memref<3xi32>) landmarks(%l : memref<1x3x24xf32>)
  }
  return
}

// -----

func.func @capture(%q: memref<72xf32>, %p: memref<4xi32>, %meta: memref<6xi32>, %l: memref<2x3x24xf32>) {
  stage.dispatch {
    // expected-error @+1 {{query heads (3) must be a multiple of KV heads (2)}}
    stage.landmark_capture q(%q : memref<72xf32>) params(%p : memref<4xi32>) far_meta(%meta : memref<6xi32>) landmarks(%l : memref<2x3x24xf32>)
  }
  return
}

// -----

func.func @capture(%q: memref<72xf32>, %p: memref<4xi32>, %meta: memref<1xi32>, %l: memref<1x3x24xf32>) {
  stage.dispatch {
    // expected-error @+1 {{far_meta has 1 elements, expected 3}}
    stage.landmark_capture q(%q : memref<72xf32>) params(%p : memref<4xi32>) far_meta(%meta : memref<1xi32>) landmarks(%l : memref<1x3x24xf32>)
  }
  return
}

// -----

func.func @capture(%q: memref<72xf32>, %p: memref<4xi32>, %meta: memref<3xi32>, %l: memref<1x40x24xf32>) {
  stage.dispatch {
    // expected-error @+1 {{landmarks per KV head must be in [1, 32], got 40}}
    stage.landmark_capture q(%q : memref<72xf32>) params(%p : memref<4xi32>) far_meta(%meta : memref<3xi32>) landmarks(%l : memref<1x40x24xf32>)
  }
  return
}

// -----

func.func @seal(%l: memref<1x3x24xf32>, %p: memref<4xi32>, %m: memref<1x3x3xf32>, %s: memref<1x3x26xf32>, %meta: memref<3xi32>) {
  stage.dispatch {
    // expected-error @+1 {{stride must be at least 1, got -2}}
    stage.landmark_seal landmarks(%l : memref<1x3x24xf32>) params(%p : memref<4xi32>) inverse(%m : memref<1x3x3xf32>) far_sums(%s : memref<1x3x26xf32>) far_meta(%meta : memref<3xi32>) {scale = 4.0 : f32, stride = -2 : i64}
  }
  return
}

// -----

func.func @seal(%l: memref<1x3x24xf32>, %p: memref<4xi32>, %m: memref<1x3x2xf32>, %s: memref<1x3x26xf32>, %meta: memref<3xi32>) {
  stage.dispatch {
    // expected-error @+1 {{inverse must be [kvh = 1, m = 3, m = 3]}}
    stage.landmark_seal landmarks(%l : memref<1x3x24xf32>) params(%p : memref<4xi32>) inverse(%m : memref<1x3x2xf32>) far_sums(%s : memref<1x3x26xf32>) far_meta(%meta : memref<3xi32>) {scale = 4.0 : f32}
  }
  return
}

// -----

func.func @seal(%l: memref<1x3x24xf32>, %p: memref<4xi32>, %m: memref<1x3x3xf32>, %s: memref<1x3x25xf32>, %meta: memref<3xi32>) {
  stage.dispatch {
    // expected-error @+1 {{far_sums must be [kvh = 1, m = 3, hd + 2 = 26]}}
    stage.landmark_seal landmarks(%l : memref<1x3x24xf32>) params(%p : memref<4xi32>) inverse(%m : memref<1x3x3xf32>) far_sums(%s : memref<1x3x25xf32>) far_meta(%meta : memref<3xi32>) {scale = 4.0 : f32}
  }
  return
}

// -----

func.func @seal(%l: memref<1x3x24xf32>, %p: memref<4xi32>, %m: memref<1x3x3xf32>, %s: memref<1x3x26xf32>, %meta: memref<3xi32>) {
  stage.dispatch {
    // expected-error @+1 {{scale must be finite and positive}}
    stage.landmark_seal landmarks(%l : memref<1x3x24xf32>) params(%p : memref<4xi32>) inverse(%m : memref<1x3x3xf32>) far_sums(%s : memref<1x3x26xf32>) far_meta(%meta : memref<3xi32>) {scale = 0x7F800000 : f32}
  }
  return
}

// -----

func.func @seal(%l: memref<1x3x24xf32>, %p: memref<2xi32>, %m: memref<1x3x3xf32>, %s: memref<1x3x26xf32>, %meta: memref<3xi32>) {
  stage.dispatch {
    // expected-error @+1 {{params must hold at least 4 words}}
    stage.landmark_seal landmarks(%l : memref<1x3x24xf32>) params(%p : memref<2xi32>) inverse(%m : memref<1x3x3xf32>) far_sums(%s : memref<1x3x26xf32>) far_meta(%meta : memref<3xi32>) {scale = 4.0 : f32}
  }
  return
}

// -----

// dory_prep's capture: the landmarks must match the rings' KV heads and
// head_dim, and the stride comes with them.
func.func @prep_capture_shape(%q: memref<64xf32>, %k: memref<16xf32>, %s: memref<4x16xf32>, %p: memref<4xi32>,
                              %qo: memref<64xf32>, %kr: memref<1x8x16xf32>, %l: memref<1x3x8xf32>, %meta: memref<3xi32>) {
  stage.dispatch {
    // expected-error @+1 {{landmarks must be memref<1xMx16xf32> (KV heads x landmarks x head_dim), got 'memref<1x3x8xf32>'}}
    stage.dory_prep q(%q : memref<64xf32>) k(%k : memref<16xf32>) v(%k : memref<16xf32>) s_qk(%s : memref<4x16xf32>)
        params(%p : memref<4xi32>) q_out(%qo : memref<64xf32>) k_ring(%kr : memref<1x8x16xf32>)
        v_ring(%kr : memref<1x8x16xf32>) capture(%l, %meta : memref<1x3x8xf32>, memref<3xi32>)
        {rope_theta = 1.0e+04 : f32, eps = 1.0e-06 : f32, landmark_stride = 8 : i64}
  }
  return
}

// -----

func.func @prep_capture_no_stride(%q: memref<64xf32>, %k: memref<16xf32>, %s: memref<4x16xf32>, %p: memref<4xi32>,
                                  %qo: memref<64xf32>, %kr: memref<1x8x16xf32>, %l: memref<1x3x16xf32>, %meta: memref<3xi32>) {
  stage.dispatch {
    // expected-error @+1 {{a capture needs its landmarks, far_meta and landmark_stride together}}
    stage.dory_prep q(%q : memref<64xf32>) k(%k : memref<16xf32>) v(%k : memref<16xf32>) s_qk(%s : memref<4x16xf32>)
        params(%p : memref<4xi32>) q_out(%qo : memref<64xf32>) k_ring(%kr : memref<1x8x16xf32>)
        v_ring(%kr : memref<1x8x16xf32>) capture(%l, %meta : memref<1x3x16xf32>, memref<3xi32>)
        {rope_theta = 1.0e+04 : f32, eps = 1.0e-06 : f32}
  }
  return
}
