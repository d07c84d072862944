// REQUIRES: compiler
// RUN: kiln-opt %s -split-input-file -verify-diagnostics

func.func @vocab(%x: memref<52xf32>, %rows: memref<7x7xvector<4xi32>>, %lc: memref<3xf32>, %p: memref<4xi32>, %l: memref<7xf32>) {
  stage.dispatch {
    // expected-error @+1 {{vocabulary (7) must be num_clusters (3) times cluster_size}}
    stage.head_rows input(%x : memref<52xf32>) rows(%rows : memref<7x7xvector<4xi32>>) cluster_logits(%lc : memref<3xf32>) params(%p : memref<4xi32>) out(%l : memref<7xf32>) {format = #stage.format<f16>}
  }
  return
}

// -----

func.func @centres(%x: memref<52xf32>, %mu: memref<5x50xf32>, %b: memref<5xf32>, %sel: memref<1xi32>) {
  stage.dispatch {
    // expected-error @+1 {{centres rows hold 50 values, expected hidden = 52}}
    stage.router input(%x : memref<52xf32>) centres(%mu : memref<5x50xf32>) bias(%b : memref<5xf32>) selected(%sel : memref<1xi32>)
  }
  return
}

// -----

func.func @mode(%h: memref<64xf32>) {
  stage.dispatch {
    // expected-error @+1 {{mode must be 0..4}}
    stage.dory_mix hidden(%h : memref<64xf32>) entry(%h : memref<64xf32>) state(%h : memref<64xf32>) {mode = 5 : i64, eps = 1.0e-06 : f32}
  }
  return
}

// -----

func.func @sample_out(%v: memref<16xf32>, %s: memref<4xi32>) {
  stage.dispatch {
    // expected-error @+1 {{output has 4 elements, expected 2 (the token and its log-probability; 3 with a continue word)}}
    stage.sample values(%v : memref<16xf32>) out(%s : memref<4xi32>)
  }
  return
}

// -----

func.func @sample_continue(%v: memref<16xf32>, %p: memref<6xi32>, %s: memref<3xi32>) {
  stage.dispatch {
    // expected-error @+1 {{a continue word (output of 3) compares the pick with params word 6: params must hold at least 7 words}}
    stage.sample values(%v : memref<16xf32>) params(%p : memref<6xi32>) out(%s : memref<3xi32>)
  }
  return
}

// -----

func.func @sample_vocab(%v: memref<16777216xf32>, %s: memref<2xi32>) {
  stage.dispatch {
    // expected-error @+1 {{vocabulary of 16777216 tokens: device sampling holds ids below 2^24}}
    stage.sample values(%v : memref<16777216xf32>) out(%s : memref<2xi32>) {logits}
  }
  return
}

// -----

func.func @sample_params(%v: memref<16xf32>, %p: memref<4xi32>, %s: memref<2xi32>) {
  stage.dispatch {
    // expected-error @+1 {{params must hold at least 6 words (the draw reads temperature, top_p and a random u32 from words 3-5), got 4}}
    stage.sample values(%v : memref<16xf32>) params(%p : memref<4xi32>) out(%s : memref<2xi32>)
  }
  return
}
