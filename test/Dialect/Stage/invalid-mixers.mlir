// REQUIRES: compiler
// RUN: kiln-opt %s -split-input-file -verify-diagnostics

func.func @ring_shape(%c: memref<84xf32>, %t: memref<84x4xf32>, %r: memref<2x84xf32>) {
  stage.dispatch {
    // expected-error @+1 {{ring must be memref<3x84xf32>}}
    stage.conv_ring input(%c : memref<84xf32>) taps(%t : memref<84x4xf32>) ring(%r : memref<2x84xf32>) out(%c : memref<84xf32>)
  }
  return
}

// -----

func.func @cdim(%cq: memref<80xf32>, %z: memref<60xf32>, %a: memref<3xf32>, %n: memref<20xf32>, %st: memref<3x12x20xf32>) {
  stage.dispatch {
    // expected-error @+1 {{qkv has 80 elements, expected 84 (2·nk·dk + nv·dv)}}
    stage.gdn_step qkv(%cq : memref<80xf32>) z(%z : memref<60xf32>) a(%a : memref<3xf32>) b(%a : memref<3xf32>) a_log(%a : memref<3xf32>) dt_bias(%a : memref<3xf32>) norm(%n : memref<20xf32>) state(%st : memref<3x12x20xf32>) out(%z : memref<60xf32>) {num_k_heads = 1 : i64, eps = 1.0e-06 : f32}
  }
  return
}

// -----

func.func @heads(%cq: memref<108xf32>, %z: memref<60xf32>, %a: memref<3xf32>, %n: memref<20xf32>, %st: memref<3x12x20xf32>) {
  stage.dispatch {
    // expected-error @+1 {{num_v_heads (3) must be a multiple of num_k_heads (2)}}
    stage.gdn_step qkv(%cq : memref<108xf32>) z(%z : memref<60xf32>) a(%a : memref<3xf32>) b(%a : memref<3xf32>) a_log(%a : memref<3xf32>) dt_bias(%a : memref<3xf32>) norm(%n : memref<20xf32>) state(%st : memref<3x12x20xf32>) out(%z : memref<60xf32>) {num_k_heads = 2 : i64, eps = 1.0e-06 : f32}
  }
  return
}

// -----

func.func @rotary(%q: memref<48xf32>, %k: memref<16xf32>, %p: memref<4xi32>, %kr: memref<1x8x16xf32>) {
  stage.dispatch {
    // expected-error @+1 {{rotary_dim must be even and in [0, head_dim = 16], got 7}}
    stage.rope_kv_write q(%q : memref<48xf32>) k(%k : memref<16xf32>) v(%k : memref<16xf32>) params(%p : memref<4xi32>) q_out(%q : memref<48xf32>) k_ring(%kr : memref<1x8x16xf32>) v_ring(%kr : memref<1x8x16xf32>) {rotary_dim = 7 : i64, rope_theta = 1.0e+04 : f32}
  }
  return
}
