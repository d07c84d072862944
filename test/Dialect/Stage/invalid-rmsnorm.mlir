// REQUIRES: compiler
// RUN: kiln-opt %s -split-input-file -verify-diagnostics

func.func @planes(%h: memref<200xf32>, %p: memref<2x100xf32>, %w: memref<200xf32>, %x: memref<200xf32>) {
  stage.dispatch {
    // expected-error @+1 {{partials planes hold 100 values, expected the residual's 200}}
    stage.rmsnorm residual(%h : memref<200xf32>) partials(%p : memref<2x100xf32>) weight(%w : memref<200xf32>) outs(%x : memref<200xf32>) {eps = 1.0e-06 : f32}
  }
  return
}

// -----

func.func @folds(%h: memref<200xf32>, %w: memref<200xf32>, %x: memref<200xf32>) {
  stage.dispatch {
    // expected-error @+1 {{has 2 folds for 1 outputs}}
    stage.rmsnorm residual(%h : memref<200xf32>) weight(%w : memref<200xf32>) outs(%x : memref<200xf32>) folds(%w, %w : memref<200xf32>, memref<200xf32>) {eps = 1.0e-06 : f32}
  }
  return
}

// -----

func.func @eps(%h: memref<200xf32>, %w: memref<200xf32>, %x: memref<200xf32>) {
  stage.dispatch {
    // expected-error @+1 {{eps must be positive}}
    stage.rmsnorm residual(%h : memref<200xf32>) weight(%w : memref<200xf32>) outs(%x : memref<200xf32>) {eps = 0.0 : f32}
  }
  return
}
