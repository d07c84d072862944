// REQUIRES: compiler
// RUN: kiln-opt %s -split-input-file -verify-diagnostics

func.func @not_fusable(%w: memref<72x25xvector<4xi32>>, %x: memref<200xf32>, %y: memref<72xf32>, %g: memref<200xf32>) {
  // expected-error @+1 {{with 2 stages needs every stage to run in one workgroup}}
  stage.dispatch {
    stage.rmsnorm residual(%x : memref<200xf32>) weight(%g : memref<200xf32>) outs(%x : memref<200xf32>) {eps = 1.0e-06 : f32}
    stage.matvec weight(%w : memref<72x25xvector<4xi32>>) input(%x : memref<200xf32>) out(%y : memref<72xf32>) {format = #stage.format<f16>}
  }
  return
}

// -----

func.func @empty() {
  // expected-error @+1 {{must hold at least one stage}}
  stage.dispatch {
  }
  return
}

// -----

func.func @foreign(%x: memref<4xf32>) {
  // expected-error @+1 {{may hold only stage ops, found 'memref.dealloc'}}
  stage.dispatch {
    memref.dealloc %x : memref<4xf32>
  }
  return
}
