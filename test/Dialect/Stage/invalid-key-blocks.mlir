// REQUIRES: compiler
// The split_keys form's rules (StageFusion.cpp, canSplitKeys) and stage.key_blocks'
// own, each named by its diagnostic.
// RUN: kiln-opt %s -split-input-file -verify-diagnostics

func.func @outside(%b: memref<3x1x19xf32>, %c: memref<3xi32>) {
  // expected-error @+1 {{a split_keys dispatch is a stage.key_scores, a stage.key_blocks and a stage.attention or stage.window_attention}}
  stage.dispatch attributes {fusion = "split_keys"} {
    stage.key_blocks partials(%b : memref<3x1x19xf32>) counters(%c : memref<3xi32>) {block_keys = 64 : i64}
  }
  return
}

// -----

func.func @plain(%b: memref<3x1x19xf32>, %c: memref<3xi32>) {
  stage.dispatch {
    // expected-error @+1 {{belongs in a stage.dispatch of fusion "split_keys"}}
    stage.key_blocks partials(%b : memref<3x1x19xf32>) counters(%c : memref<3xi32>) {block_keys = 64 : i64}
  }
  return
}

// -----

func.func @zero_keys(%b: memref<3x1x19xf32>, %c: memref<3xi32>) {
  stage.dispatch {
    // expected-error @+1 {{block_keys must be in [1, 4096], got 0}}
    stage.key_blocks partials(%b : memref<3x1x19xf32>) counters(%c : memref<3xi32>) {block_keys = 0 : i64}
  }
  return
}

// -----

func.func @partials(%q: memref<48xf32>, %kr: memref<1x8x16xf32>, %vr: memref<1x8x16xf32>,
                    %p: memref<4xi32>, %s: memref<3x8xf32>, %o: memref<48xf32>,
                    %b: memref<3x2x19xf32>, %c: memref<3xi32>) {
  // expected-error @+1 {{stage #1 ('stage.key_blocks') partials must be [3 heads, 1 blocks of 8 of the 8 key slots, 19 (hd + 3) floats]}}
  stage.dispatch attributes {fusion = "split_keys"} {
    stage.key_scores q(%q : memref<48xf32>) k_ring(%kr : memref<1x8x16xf32>) params(%p : memref<4xi32>) scores(%s : memref<3x8xf32>) {scale = 0.25 : f32}
    stage.key_blocks partials(%b : memref<3x2x19xf32>) counters(%c : memref<3xi32>) {block_keys = 8 : i64}
    stage.attention scores(%s : memref<3x8xf32>) v_ring(%vr : memref<1x8x16xf32>) params(%p : memref<4xi32>) out(%o : memref<48xf32>)
  }
  return
}

// -----

func.func @counters(%q: memref<48xf32>, %kr: memref<1x8x16xf32>, %vr: memref<1x8x16xf32>,
                    %p: memref<4xi32>, %s: memref<3x8xf32>, %o: memref<48xf32>,
                    %b: memref<3x1x19xf32>, %c: memref<2xi32>) {
  // expected-error @+1 {{counters must hold a word per head (3)}}
  stage.dispatch attributes {fusion = "split_keys"} {
    stage.key_scores q(%q : memref<48xf32>) k_ring(%kr : memref<1x8x16xf32>) params(%p : memref<4xi32>) scores(%s : memref<3x8xf32>) {scale = 0.25 : f32}
    stage.key_blocks partials(%b : memref<3x1x19xf32>) counters(%c : memref<2xi32>) {block_keys = 8 : i64}
    stage.attention scores(%s : memref<3x8xf32>) v_ring(%vr : memref<1x8x16xf32>) params(%p : memref<4xi32>) out(%o : memref<48xf32>)
  }
  return
}

// -----

func.func @windows(%q: memref<48xf32>, %kr: memref<1x8x16xf32>, %vr: memref<1x8x16xf32>,
                   %p: memref<4xi32>, %s: memref<3x8xf32>, %o: memref<48xf32>,
                   %b: memref<3x1x19xf32>, %c: memref<3xi32>) {
  // expected-error @+1 {{stage #2 ('stage.attention') sees another window of KV head 0 than stage #0 scores}}
  stage.dispatch attributes {fusion = "split_keys"} {
    stage.key_scores q(%q : memref<48xf32>) k_ring(%kr : memref<1x8x16xf32>) params(%p : memref<4xi32>) scores(%s : memref<3x8xf32>) {group_windows = array<i64: 5>, scale = 0.25 : f32}
    stage.key_blocks partials(%b : memref<3x1x19xf32>) counters(%c : memref<3xi32>) {block_keys = 8 : i64}
    stage.attention scores(%s : memref<3x8xf32>) v_ring(%vr : memref<1x8x16xf32>) params(%p : memref<4xi32>) out(%o : memref<48xf32>)
  }
  return
}

// -----

func.func @scores(%q: memref<48xf32>, %kr: memref<1x8x16xf32>, %vr: memref<1x8x16xf32>,
                  %p: memref<4xi32>, %s: memref<3x8xf32>, %s2: memref<3x8xf32>, %o: memref<48xf32>,
                  %b: memref<3x1x19xf32>, %c: memref<3xi32>) {
  // expected-error @+1 {{stage #2 ('stage.attention') reads other scores than stage #0 writes}}
  stage.dispatch attributes {fusion = "split_keys"} {
    stage.key_scores q(%q : memref<48xf32>) k_ring(%kr : memref<1x8x16xf32>) params(%p : memref<4xi32>) scores(%s : memref<3x8xf32>) {scale = 0.25 : f32}
    stage.key_blocks partials(%b : memref<3x1x19xf32>) counters(%c : memref<3xi32>) {block_keys = 8 : i64}
    stage.attention scores(%s2 : memref<3x8xf32>) v_ring(%vr : memref<1x8x16xf32>) params(%p : memref<4xi32>) out(%o : memref<48xf32>)
  }
  return
}

// -----

func.func @elsewhere(%b: memref<3x1x19xf32>, %c: memref<3xi32>, %x: memref<64xf32>, %y: memref<64xf32>) {
  stage.dispatch attributes {fusion = "concurrent"} {
    stage.add ins(%x, %x : memref<64xf32>, memref<64xf32>) out(%y : memref<64xf32>)
    // expected-error @+1 {{belongs in a stage.dispatch of fusion "split_keys"}}
    stage.key_blocks partials(%b : memref<3x1x19xf32>) counters(%c : memref<3xi32>) {block_keys = 8 : i64}
  }
  return
}

// -----

// A malformed stage inside a split_keys dispatch is refused by its own
// verifier before the form's rules read its shapes (the MLIR parser fuzzer
// found the form's rules reading an unverified stage).
func.func @rank(%q: memref<48xf32>, %kr: memref<1x8x16xf32>, %vr: memref<1x8x16xf32>,
                %p: memref<4xi32>, %s: memref<3x8xf32>, %o: memref<48xf32>,
                %b: memref<19xf32>, %c: memref<3xi32>) {
  stage.dispatch attributes {fusion = "split_keys"} {
    stage.key_scores q(%q : memref<48xf32>) k_ring(%kr : memref<1x8x16xf32>) params(%p : memref<4xi32>) scores(%s : memref<3x8xf32>) {scale = 0.25 : f32}
    // expected-error @+1 {{operand #0 must be 3D memref of 32-bit float values}}
    stage.key_blocks partials(%b : memref<19xf32>) counters(%c : memref<3xi32>) {block_keys = 8 : i64}
    stage.attention scores(%s : memref<3x8xf32>) v_ring(%vr : memref<1x8x16xf32>) params(%p : memref<4xi32>) out(%o : memref<48xf32>)
  }
  return
}

// -----

// The MLIR parser fuzzer's find: the marker without its block_keys.
func.func @no_block_keys(%q: memref<48xf32>, %kr: memref<1x8x16xf32>, %vr: memref<1x8x16xf32>,
                         %p: memref<4xi32>, %s: memref<3x8xf32>, %o: memref<48xf32>,
                         %b: memref<3x1x19xf32>, %c: memref<3xi32>) {
  stage.dispatch attributes {fusion = "split_keys"} {
    stage.key_scores q(%q : memref<48xf32>) k_ring(%kr : memref<1x8x16xf32>) params(%p : memref<4xi32>) scores(%s : memref<3x8xf32>) {scale = 0.25 : f32}
    // expected-error @+1 {{requires attribute 'block_keys'}}
    stage.key_blocks partials(%b : memref<3x1x19xf32>) counters(%c : memref<3xi32>) {blockk_eys = 8 : i64}
    stage.attention scores(%s : memref<3x8xf32>) v_ring(%vr : memref<1x8x16xf32>) params(%p : memref<4xi32>) out(%o : memref<48xf32>)
  }
  return
}
