// REQUIRES: compiler
// RUN: kiln-opt %s -split-input-file -verify-diagnostics
func.func @threshold(%lp: memref<40xf32>, %f: memref<1xi32>) {
  stage.dispatch {
    // expected-error @+1 {{threshold must be in (0, 1] (a probability), got 1.5}}
    stage.exit_test input(%lp : memref<40xf32>) flag(%f : memref<1xi32>) {threshold = 1.5 : f64}
  }
  return
}

// -----

func.func @threshold_zero(%lp: memref<40xf32>, %f: memref<1xi32>) {
  stage.dispatch {
    // expected-error @+1 {{threshold must be in (0, 1] (a probability), got 0}}
    stage.exit_test input(%lp : memref<40xf32>) flag(%f : memref<1xi32>) {threshold = 0.0 : f64}
  }
  return
}

// -----

func.func @flag_word(%lp: memref<2x40xf32>, %f: memref<2xi32>) {
  stage.dispatch {
    // expected-error @+1 {{flag_word 2 is outside the flag buffer (2 words)}}
    stage.exit_test input(%lp : memref<2x40xf32>) flag(%f : memref<2xi32>) {threshold = 0.9 : f64, flag_word = 2 : i64}
  }
  return
}

// -----

func.func @rank(%lp: memref<2x2x40xf32>, %f: memref<2xi32>) {
  stage.dispatch {
    // expected-error @+1 {{operand #0 must be}}
    stage.exit_test input(%lp : memref<2x2x40xf32>) flag(%f : memref<2xi32>) {threshold = 0.9 : f64}
  }
  return
}

// -----

func.func @skip_word(%h: memref<64xf32>, %f: memref<2xi32>) {
  // expected-error @+1 {{skip_if word 2 is outside the flag buffer (2 words)}}
  stage.dispatch skip_if(%f : memref<2xi32>)[2] {
    stage.dory_mix hidden(%h : memref<64xf32>) entry(%h : memref<64xf32>) state(%h : memref<64xf32>) {mode = 2 : i64, eps = 1.0e-06 : f32}
  }
  return
}

// -----

func.func @skip_word_alone(%h: memref<64xf32>) {
  // expected-error @+1 {{skip_if needs both the flag buffer and its word}}
  stage.dispatch attributes {skip_word = 0 : i64} {
    stage.dory_mix hidden(%h : memref<64xf32>) entry(%h : memref<64xf32>) state(%h : memref<64xf32>) {mode = 2 : i64, eps = 1.0e-06 : f32}
  }
  return
}

// -----

func.func @skip_dynamic(%h: memref<64xf32>, %f: memref<?xi32>) {
  // expected-error @+1 {{skip_if flag must be a static identity-layout memref}}
  stage.dispatch skip_if(%f : memref<?xi32>)[0] {
    stage.dory_mix hidden(%h : memref<64xf32>) entry(%h : memref<64xf32>) state(%h : memref<64xf32>) {mode = 2 : i64, eps = 1.0e-06 : f32}
  }
  return
}

// -----

func.func @skip_type(%h: memref<64xf32>, %f: memref<2xf32>) {
  // expected-error @+1 {{operand #0 must be}}
  stage.dispatch skip_if(%f : memref<2xf32>)[0] {
    stage.dory_mix hidden(%h : memref<64xf32>) entry(%h : memref<64xf32>) state(%h : memref<64xf32>) {mode = 2 : i64, eps = 1.0e-06 : f32}
  }
  return
}
