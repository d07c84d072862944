// REQUIRES: compiler
// RUN: kiln-opt %s --convert-stage-to-gpu="reduce-workgroup-size=100" -split-input-file -verify-diagnostics

// A tree reduction halves the workgroup each step: its size must be a power
// of two, and the pass says so instead of emitting a wrong kernel.
// expected-error @+1 {{workgroup sizes of reducing kernels must be a power of two, got 100}}
module {
func.func @norm(%h: memref<52xf32>, %w: memref<52xf32>, %x: memref<52xf32>) {
  stage.dispatch {
    stage.rmsnorm residual(%h : memref<52xf32>) weight(%w : memref<52xf32>) outs(%x : memref<52xf32>) {eps = 1.0e-06 : f32}
  }
  return
}
}
