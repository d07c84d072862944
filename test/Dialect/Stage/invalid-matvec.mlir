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

// -----

func.func @experts_without_index(%w: memref<96x7xvector<4xi32>>, %x: memref<52xf32>, %y: memref<24xf32>) {
  stage.dispatch {
    // expected-error @+1 {{experts = 4 needs an expert operand (the index stage.router writes) to pick one}}
    stage.matvec weight(%w : memref<96x7xvector<4xi32>>) input(%x : memref<52xf32>) out(%y : memref<24xf32>) {experts = 4 : i64, format = #stage.format<f16>}
  }
  return
}

// -----

func.func @experts_stack(%w: memref<98x7xvector<4xi32>>, %e: memref<1xi32>, %x: memref<52xf32>, %y: memref<24xf32>) {
  stage.dispatch {
    // expected-error @+1 {{weight has 98 rows, not a multiple of experts (4): the candidates are stacked row-wise}}
    stage.matvec weight(%w : memref<98x7xvector<4xi32>>) expert(%e : memref<1xi32>) input(%x : memref<52xf32>) out(%y : memref<24xf32>) {experts = 4 : i64, format = #stage.format<f16>}
  }
  return
}

// -----

func.func @experts_out_rows(%w: memref<96x7xvector<4xi32>>, %e: memref<1xi32>, %x: memref<52xf32>, %y: memref<96xf32>) {
  stage.dispatch {
    // expected-error @+1 {{without split-K the output must be memref<24xf32>}}
    stage.matvec weight(%w : memref<96x7xvector<4xi32>>) expert(%e : memref<1xi32>) input(%x : memref<52xf32>) out(%y : memref<96xf32>) {experts = 4 : i64, format = #stage.format<f16>}
  }
  return
}

// -----

func.func @experts_index_word(%w: memref<96x7xvector<4xi32>>, %e: memref<2xi32>, %x: memref<52xf32>, %y: memref<24xf32>) {
  stage.dispatch {
    // expected-error @+1 {{expert has 2 elements, expected 1 (one selected index)}}
    stage.matvec weight(%w : memref<96x7xvector<4xi32>>) expert(%e : memref<2xi32>) input(%x : memref<52xf32>) out(%y : memref<24xf32>) {experts = 4 : i64, format = #stage.format<f16>}
  }
  return
}

// -----

func.func @experts_row_scale(%w: memref<96x4xvector<4xi32>>, %e: memref<1xi32>, %s: memref<24xf32>, %x: memref<52xf32>, %y: memref<24xf32>) {
  stage.dispatch {
    // expected-error @+1 {{row_scale has 24 elements, expected 96 (one scale per row of each expert)}}
    stage.matvec weight(%w : memref<96x4xvector<4xi32>>) expert(%e : memref<1xi32>) row_scale(%s : memref<24xf32>) input(%x : memref<52xf32>) out(%y : memref<24xf32>) {experts = 4 : i64, format = #stage.format<q8_2f>}
  }
  return
}

// -----

func.func @experts_col_scale(%w: memref<96x4xvector<4xi32>>, %e: memref<1xi32>, %s: memref<96xf32>, %t: memref<52xf32>, %x: memref<52xf32>, %y: memref<24xf32>) {
  stage.dispatch {
    // expected-error @+1 {{col_scale has 52 elements, expected 208 (one scale per column of each expert)}}
    stage.matvec weight(%w : memref<96x4xvector<4xi32>>) expert(%e : memref<1xi32>) row_scale(%s : memref<96xf32>) col_scale(%t : memref<52xf32>) input(%x : memref<52xf32>) out(%y : memref<24xf32>) {experts = 4 : i64, format = #stage.format<q8_2f>}
  }
  return
}

// -----

func.func @col_scale_f16(%w: memref<24x7xvector<4xi32>>, %t: memref<52xf32>, %x: memref<52xf32>, %y: memref<24xf32>) {
  stage.dispatch {
    // expected-error @+1 {{f16 takes no col_scale operand}}
    stage.matvec weight(%w : memref<24x7xvector<4xi32>>) col_scale(%t : memref<52xf32>) input(%x : memref<52xf32>) out(%y : memref<24xf32>) {format = #stage.format<f16>}
  }
  return
}

// -----

func.func @experts_zero(%w: memref<24x7xvector<4xi32>>, %e: memref<1xi32>, %x: memref<52xf32>, %y: memref<24xf32>) {
  stage.dispatch {
    // expected-error @+1 {{experts must be at least 1, got 0}}
    stage.matvec weight(%w : memref<24x7xvector<4xi32>>) expert(%e : memref<1xi32>) input(%x : memref<52xf32>) out(%y : memref<24xf32>) {experts = 0 : i64, format = #stage.format<f16>}
  }
  return
}

// -----

func.func @norm_without_eps(%w: memref<24x7xvector<4xi32>>, %x: memref<52xf32>, %n: memref<52xf32>, %y: memref<24xf32>) {
  stage.dispatch {
    // expected-error @+1 {{norm and norm_eps come together}}
    stage.matvec weight(%w : memref<24x7xvector<4xi32>>) input(%x : memref<52xf32>) norm(%n : memref<52xf32>) out(%y : memref<24xf32>) {format = #stage.format<f16>}
  }
  return
}

// -----

func.func @norm_wrong_length(%w: memref<24x7xvector<4xi32>>, %x: memref<52xf32>, %n: memref<51xf32>, %y: memref<24xf32>) {
  stage.dispatch {
    // expected-error @+1 {{one norm weight per column}}
    stage.matvec weight(%w : memref<24x7xvector<4xi32>>) input(%x : memref<52xf32>) norm(%n : memref<51xf32>) out(%y : memref<24xf32>) {format = #stage.format<f16>, norm_eps = 1.0e-06 : f32}
  }
  return
}

// -----

func.func @slerp_without_eps(%w: memref<24x7xvector<4xi32>>, %x: memref<52xf32>, %o: memref<52xf32>, %a: memref<52xf32>, %y: memref<24xf32>) {
  stage.dispatch {
    // expected-error @+1 {{a slerp needs its update, alpha and slerp_eps together}}
    stage.matvec weight(%w : memref<24x7xvector<4xi32>>) input(%x : memref<52xf32>) slerp(%o, %a : memref<52xf32>, memref<52xf32>) out(%y : memref<24xf32>) {format = #stage.format<f16>}
  }
  return
}

// -----

func.func @slerp_wrong_length(%w: memref<24x7xvector<4xi32>>, %x: memref<52xf32>, %o: memref<51xf32>, %a: memref<52xf32>, %y: memref<24xf32>) {
  stage.dispatch {
    // expected-error @+1 {{the update matches the hidden state}}
    stage.matvec weight(%w : memref<24x7xvector<4xi32>>) input(%x : memref<52xf32>) slerp(%o, %a : memref<51xf32>, memref<52xf32>) out(%y : memref<24xf32>) {format = #stage.format<f16>, slerp_eps = 1.0e-06 : f32}
  }
  return
}

// -----

func.func @slerp_with_norm(%w: memref<24x7xvector<4xi32>>, %x: memref<52xf32>, %n: memref<52xf32>, %o: memref<52xf32>, %a: memref<52xf32>, %y: memref<24xf32>) {
  stage.dispatch {
    // expected-error @+1 {{a slerp reads the plain hidden state of one matrix: not with a norm, an activation or experts}}
    stage.matvec weight(%w : memref<24x7xvector<4xi32>>) input(%x : memref<52xf32>) norm(%n : memref<52xf32>) slerp(%o, %a : memref<52xf32>, memref<52xf32>) out(%y : memref<24xf32>) {format = #stage.format<f16>, norm_eps = 1.0e-06 : f32, slerp_eps = 1.0e-06 : f32}
  }
  return
}

// -----

func.func @hidden_out_without_slerp(%w: memref<24x7xvector<4xi32>>, %x: memref<52xf32>, %y: memref<24xf32>, %h: memref<52xf32>) {
  stage.dispatch {
    // expected-error @+1 {{hidden_out receives a slerp's new hidden state: it needs slerp}}
    stage.matvec weight(%w : memref<24x7xvector<4xi32>>) input(%x : memref<52xf32>) out(%y : memref<24xf32>) hidden_out(%h : memref<52xf32>) {format = #stage.format<f16>}
  }
  return
}

// -----

func.func @hidden_out_in_place(%w: memref<24x7xvector<4xi32>>, %x: memref<52xf32>, %o: memref<52xf32>, %a: memref<52xf32>, %y: memref<24xf32>) {
  stage.dispatch {
    // expected-error @+1 {{hidden_out must not be a buffer the mat-vec reads: other workgroups still read it}}
    stage.matvec weight(%w : memref<24x7xvector<4xi32>>) input(%x : memref<52xf32>) slerp(%o, %a : memref<52xf32>, memref<52xf32>) out(%y : memref<24xf32>) hidden_out(%x : memref<52xf32>) {format = #stage.format<f16>, slerp_eps = 1.0e-06 : f32}
  }
  return
}
