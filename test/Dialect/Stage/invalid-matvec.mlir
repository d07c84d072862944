// REQUIRES: compiler
// RUN: kiln-opt %s -split-input-file -verify-diagnostics

func.func @groups(%w: memref<72x24xvector<4xi32>>, %x: memref<200xf32>, %y: memref<72xf32>) {
  stage.dispatch {
    // expected-error @+1 {{weight rows hold 24 16-byte groups, expected ceil(200/8) = 25}}
    stage.matvec weight(%w : memref<72x24xvector<4xi32>>) input(%x : memref<200xf32>) out(%y : memref<72xf32>) {format = #stage.format<f16>}
  }
  return
}

// -----

func.func @q8_needs_scale(%w: memref<72x13xvector<4xi32>>, %x: memref<200xf32>, %y: memref<72xf32>) {
  stage.dispatch {
    // expected-error @+1 {{q8_2f needs a row_scale operand}}
    stage.matvec weight(%w : memref<72x13xvector<4xi32>>) input(%x : memref<200xf32>) out(%y : memref<72xf32>) {format = #stage.format<q8_2f>}
  }
  return
}

// -----

func.func @planes(%w: memref<72x25xvector<4xi32>>, %x: memref<200xf32>, %y: memref<72xf32>) {
  stage.dispatch {
    // expected-error @+1 {{split_k = 3 needs the output planes memref<3x72xf32>}}
    stage.matvec weight(%w : memref<72x25xvector<4xi32>>) input(%x : memref<200xf32>) out(%y : memref<72xf32>) {format = #stage.format<f16>, split_k = 3 : i64}
  }
  return
}

// -----

func.func @split_range(%w: memref<72x25xvector<4xi32>>, %x: memref<200xf32>, %y: memref<26x72xf32>) {
  stage.dispatch {
    // expected-error @+1 {{split_k must be in [1, 25] (the row's groups), got 26}}
    stage.matvec weight(%w : memref<72x25xvector<4xi32>>) input(%x : memref<200xf32>) out(%y : memref<26x72xf32>) {format = #stage.format<f16>, split_k = 26 : i64}
  }
  return
}

// -----

func.func @fold_planes(%w: memref<72x25xvector<4xi32>>, %x: memref<200xf32>, %y: memref<2x72xf32>, %f: memref<72xf32>) {
  stage.dispatch {
    // expected-error @+1 {{cannot fold a column field into split-K partial planes}}
    stage.matvec weight(%w : memref<72x25xvector<4xi32>>) input(%x : memref<200xf32>) out(%y : memref<2x72xf32>) fold(%f : memref<72xf32>) {format = #stage.format<f16>, split_k = 2 : i64}
  }
  return
}

// -----

func.func @up_without_act(%w: memref<72x25xvector<4xi32>>, %x: memref<200xf32>, %y: memref<72xf32>) {
  stage.dispatch {
    // expected-error @+1 {{an up operand needs activation silu_mul}}
    stage.matvec weight(%w : memref<72x25xvector<4xi32>>) input(%x : memref<200xf32>) up(%x : memref<200xf32>) out(%y : memref<72xf32>) {format = #stage.format<f16>}
  }
  return
}

// -----

func.func @dynamic(%w: memref<72x25xvector<4xi32>>, %x: memref<?xf32>, %y: memref<72xf32>) {
  stage.dispatch {
    // expected-error @+1 {{operand #1 must have a static shape}}
    stage.matvec weight(%w : memref<72x25xvector<4xi32>>) input(%x : memref<?xf32>) out(%y : memref<72xf32>) {format = #stage.format<f16>}
  }
  return
}
