// REQUIRES: compiler
// RUN: kiln-opt %s --convert-stage-to-gpu -split-input-file -verify-diagnostics
// RUN: not kiln-opt %s --convert-stage-to-gpu="reduce-workgroup-size=100" -split-input-file 2>&1 | FileCheck %s --check-prefix=POW2

// A tree reduction halves the workgroup each step: its size must be a power
// of two, and the pass says so instead of emitting a wrong kernel.
// POW2: error: workgroup sizes of reducing kernels must be a power of two, got 100
module {
func.func @norm(%h: memref<52xf32>, %w: memref<52xf32>, %x: memref<52xf32>) {
  stage.dispatch {
    stage.rmsnorm residual(%h : memref<52xf32>) weight(%w : memref<52xf32>) outs(%x : memref<52xf32>) {eps = 1.0e-06 : f32}
  }
  return
}
}

// -----

// The runtime's plan verifier numbers a kernel's bindings 0..31: a dispatch
// over more buffers is refused here, not by the runtime at load time.
module {
func.func @wide(%b0: memref<4xf32>, %b1: memref<4xf32>, %b2: memref<4xf32>, %b3: memref<4xf32>, %b4: memref<4xf32>, %b5: memref<4xf32>, %b6: memref<4xf32>, %b7: memref<4xf32>, %b8: memref<4xf32>, %b9: memref<4xf32>, %b10: memref<4xf32>, %b11: memref<4xf32>, %b12: memref<4xf32>, %b13: memref<4xf32>, %b14: memref<4xf32>, %b15: memref<4xf32>, %b16: memref<4xf32>, %b17: memref<4xf32>, %b18: memref<4xf32>, %b19: memref<4xf32>, %b20: memref<4xf32>, %b21: memref<4xf32>, %b22: memref<4xf32>, %b23: memref<4xf32>, %b24: memref<4xf32>, %b25: memref<4xf32>, %b26: memref<4xf32>, %b27: memref<4xf32>, %b28: memref<4xf32>, %b29: memref<4xf32>, %b30: memref<4xf32>, %b31: memref<4xf32>, %b32: memref<4xf32>) {
  // expected-error @+1 {{binds 33 buffers; a kernel takes at most 32 (the runtime's plan verifier)}}
  stage.dispatch "wide" attributes {fusion = "pointwise"} {
    stage.add ins(%b0, %b1 : memref<4xf32>, memref<4xf32>) out(%b2 : memref<4xf32>)
    stage.add ins(%b3, %b4 : memref<4xf32>, memref<4xf32>) out(%b5 : memref<4xf32>)
    stage.add ins(%b6, %b7 : memref<4xf32>, memref<4xf32>) out(%b8 : memref<4xf32>)
    stage.add ins(%b9, %b10 : memref<4xf32>, memref<4xf32>) out(%b11 : memref<4xf32>)
    stage.add ins(%b12, %b13 : memref<4xf32>, memref<4xf32>) out(%b14 : memref<4xf32>)
    stage.add ins(%b15, %b16 : memref<4xf32>, memref<4xf32>) out(%b17 : memref<4xf32>)
    stage.add ins(%b18, %b19 : memref<4xf32>, memref<4xf32>) out(%b20 : memref<4xf32>)
    stage.add ins(%b21, %b22 : memref<4xf32>, memref<4xf32>) out(%b23 : memref<4xf32>)
    stage.add ins(%b24, %b25 : memref<4xf32>, memref<4xf32>) out(%b26 : memref<4xf32>)
    stage.add ins(%b27, %b28 : memref<4xf32>, memref<4xf32>) out(%b29 : memref<4xf32>)
    stage.add ins(%b30, %b31 : memref<4xf32>, memref<4xf32>) out(%b32 : memref<4xf32>)
  }
  return
}
}
