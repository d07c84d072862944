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

// -----

func.func @bad_form(%x: memref<4xf32>, %y: memref<4xf32>) {
  // expected-error @+1 {{fusion must be "one_workgroup", "concurrent", "pointwise", "row_epilogue", "last_workgroup" or "split_keys", got "sideways"}}
  stage.dispatch attributes {fusion = "sideways"} {
    stage.add ins(%x, %x : memref<4xf32>, memref<4xf32>) out(%y : memref<4xf32>)
    stage.add ins(%x, %x : memref<4xf32>, memref<4xf32>) out(%y : memref<4xf32>)
  }
  return
}

// -----

// Concurrent stages run at once: one may not read what another writes.
func.func @dependent_concurrent(%x: memref<4xf32>, %y: memref<4xf32>, %z: memref<4xf32>) {
  // expected-error @+1 {{fusion "concurrent": stage #1 ('stage.add') touches a buffer stage #0 ('stage.add') writes (or the other way round): concurrent stages must be independent}}
  stage.dispatch attributes {fusion = "concurrent"} {
    stage.add ins(%x, %x : memref<4xf32>, memref<4xf32>) out(%y : memref<4xf32>)
    stage.add ins(%y, %x : memref<4xf32>, memref<4xf32>) out(%z : memref<4xf32>)
  }
  return
}

// -----

// gdn_step keeps a kernel of its own (its workgroup size differs from the
// per-head stages'): it has no fused form.
func.func @gdn_step_fused(%cq: memref<68xf32>, %z: memref<36xf32>, %a: memref<3xf32>,
                                     %n: memref<12xf32>, %s: memref<3x16x12xf32>, %o: memref<36xf32>, %p: memref<36xf32>) {
  // expected-error @+1 {{fusion "one_workgroup": stage #0 ('stage.gdn_step') has no fused form}}
  stage.dispatch attributes {fusion = "one_workgroup"} {
    stage.gdn_step qkv(%cq : memref<68xf32>) z(%z : memref<36xf32>) a(%a : memref<3xf32>) b(%a : memref<3xf32>)
        a_log(%a : memref<3xf32>) dt_bias(%a : memref<3xf32>) norm(%n : memref<12xf32>)
        state(%s : memref<3x16x12xf32>) out(%o : memref<36xf32>) {num_k_heads = 1 : i64, eps = 1.0e-06 : f32}
    stage.add ins(%o, %o : memref<36xf32>, memref<36xf32>) out(%p : memref<36xf32>)
  }
  return
}

// -----

// Pointwise stages share one index space: every buffer has one length.
func.func @pointwise_lengths(%x: memref<4xf32>, %y: memref<4xf32>, %a: memref<8xf32>, %b: memref<8xf32>) {
  // expected-error @+1 {{fusion "pointwise": stage #1 ('stage.add') has a buffer of 8 values, the chain 4: pointwise stages share one index space}}
  stage.dispatch attributes {fusion = "pointwise"} {
    stage.add ins(%x, %x : memref<4xf32>, memref<4xf32>) out(%y : memref<4xf32>)
    stage.add ins(%a, %a : memref<8xf32>, memref<8xf32>) out(%b : memref<8xf32>)
  }
  return
}

// -----

// A reduction reads every element: it is not pointwise.
func.func @pointwise_reduction(%h: memref<4xf32>, %w: memref<4xf32>, %x: memref<4xf32>, %y: memref<4xf32>) {
  // expected-error @+1 {{fusion "pointwise": stage #1 ('stage.rmsnorm') is not elementwise}}
  stage.dispatch attributes {fusion = "pointwise"} {
    stage.add ins(%h, %h : memref<4xf32>, memref<4xf32>) out(%y : memref<4xf32>)
    stage.rmsnorm residual(%y : memref<4xf32>) weight(%w : memref<4xf32>) outs(%x : memref<4xf32>) {eps = 1.0e-06 : f32}
  }
  return
}

// -----

// A row epilogue's mat-vecs share one shape: a workgroup per row serves both.
func.func @row_epilogue_shapes(%x: memref<64xf32>, %m1: memref<96x8xvector<4xi32>>, %g: memref<96xf32>,
                               %m2: memref<32x8xvector<4xi32>>, %u: memref<32xf32>, %z: memref<96xf32>) {
  // expected-error @+1 {{fusion "row_epilogue": stage #1 ('stage.matvec') has another shape than stage #0: one workgroup per row serves mat-vecs of one shape}}
  stage.dispatch attributes {fusion = "row_epilogue"} {
    stage.matvec weight(%m1 : memref<96x8xvector<4xi32>>) input(%x : memref<64xf32>) out(%g : memref<96xf32>) {format = #stage.format<f16>}
    stage.matvec weight(%m2 : memref<32x8xvector<4xi32>>) input(%x : memref<64xf32>) out(%u : memref<32xf32>) {format = #stage.format<f16>}
    stage.silu_mul ins(%g, %g : memref<96xf32>, memref<96xf32>) out(%z : memref<96xf32>)
  }
  return
}

// -----

// The epilogue may not write what another row's mat-vec still reads.
func.func @row_epilogue_writes_input(%x: memref<96xf32>, %m: memref<96x12xvector<4xi32>>, %g: memref<96xf32>) {
  // expected-error @+1 {{fusion "row_epilogue": stage #1 ('stage.add') writes a buffer stage #0 ('stage.matvec') reads across rows}}
  stage.dispatch attributes {fusion = "row_epilogue"} {
    stage.matvec weight(%m : memref<96x12xvector<4xi32>>) input(%x : memref<96xf32>) out(%g : memref<96xf32>) {format = #stage.format<f16>}
    stage.add ins(%g, %x : memref<96xf32>, memref<96xf32>) out(%x : memref<96xf32>)
  }
  return
}

// -----

func.func @prefetch_before_stage(%h: memref<64xf32>, %w: memref<8x8xvector<4xi32>>, %s: memref<4xi32>) {
  // expected-error @+1 {{holds 'stage.slerp' after a stage.prefetch: prefetches come last}}
  stage.dispatch {
    stage.prefetch source(%w : memref<8x8xvector<4xi32>>) sink(%s : memref<4xi32>) {first_group = 0, groups = 64}
    stage.slerp hidden(%h : memref<64xf32>) update(%h : memref<64xf32>) alpha(%h : memref<64xf32>) {eps = 1.0e-06 : f32}
  }
  return
}

// -----

func.func @prefetch_alone(%w: memref<8x8xvector<4xi32>>, %s: memref<4xi32>) {
  // expected-error @+1 {{must hold a stage besides its prefetches}}
  stage.dispatch {
    stage.prefetch source(%w : memref<8x8xvector<4xi32>>) sink(%s : memref<4xi32>) {first_group = 0, groups = 64}
  }
  return
}

// -----

func.func @prefetch_past_the_matrix(%h: memref<64xf32>, %w: memref<8x8xvector<4xi32>>, %s: memref<4xi32>) {
  stage.dispatch {
    stage.slerp hidden(%h : memref<64xf32>) update(%h : memref<64xf32>) alpha(%h : memref<64xf32>) {eps = 1.0e-06 : f32}
    // expected-error @+1 {{groups [60, 60 + 8) must be a non-empty range within the source's 64 groups}}
    stage.prefetch source(%w : memref<8x8xvector<4xi32>>) sink(%s : memref<4xi32>) {first_group = 60, groups = 8}
  }
  return
}

// -----

// A last-workgroup tail: one lead stage, the counter, then the tail.
func.func @tail_without_marker(%w: memref<64x8xvector<4xi32>>, %x: memref<64xf32>, %o: memref<64xf32>, %h: memref<64xf32>, %a: memref<64xf32>) {
  // expected-error @+1 {{fusion "last_workgroup": a last_workgroup dispatch is one stage, a stage.last_workgroup and the stages of its tail}}
  stage.dispatch attributes {fusion = "last_workgroup"} {
    stage.matvec weight(%w : memref<64x8xvector<4xi32>>) input(%x : memref<64xf32>) out(%o : memref<64xf32>) {format = #stage.format<f16>}
    stage.slerp hidden(%h : memref<64xf32>) update(%o : memref<64xf32>) alpha(%a : memref<64xf32>) {eps = 1.0e-06 : f32}
  }
  return
}

// -----

// The marker's own verifier speaks first (a fused form is checked once its
// stages are verified).
func.func @marker_elsewhere(%x: memref<4xf32>, %y: memref<4xf32>, %c: memref<4xi32>) {
  stage.dispatch attributes {fusion = "concurrent"} {
    stage.add ins(%x, %x : memref<4xf32>, memref<4xf32>) out(%y : memref<4xf32>)
    // expected-error @+1 {{belongs in a stage.dispatch of fusion "last_workgroup"}}
    stage.last_workgroup counter(%c : memref<4xi32>)
  }
  return
}

// -----

// The tail runs in one workgroup: no stage with a workgroup per head.
func.func @tail_per_head(%w: memref<64x8xvector<4xi32>>, %x: memref<64xf32>, %o: memref<64xf32>, %c: memref<4xi32>,
                         %k: memref<16xf32>, %s: memref<4x16xf32>, %p: memref<4xi32>, %qo: memref<64xf32>,
                         %kr: memref<1x8x16xf32>) {
  // expected-error @+1 {{fusion "last_workgroup": stage #2 ('stage.dory_prep') cannot run inside one workgroup}}
  stage.dispatch attributes {fusion = "last_workgroup"} {
    stage.matvec weight(%w : memref<64x8xvector<4xi32>>) input(%x : memref<64xf32>) out(%o : memref<64xf32>) {format = #stage.format<f16>}
    stage.last_workgroup counter(%c : memref<4xi32>)
    stage.dory_prep q(%o : memref<64xf32>) k(%k : memref<16xf32>) v(%k : memref<16xf32>) s_qk(%s : memref<4x16xf32>)
        params(%p : memref<4xi32>) q_out(%qo : memref<64xf32>) k_ring(%kr : memref<1x8x16xf32>)
        v_ring(%kr : memref<1x8x16xf32>) {rope_theta = 1.0e+04 : f32, eps = 1.0e-06 : f32}
  }
  return
}

// -----

// Its lead must have a grid to finish: a one-workgroup stage does not lead.
func.func @tail_after_slerp(%h: memref<64xf32>, %o: memref<64xf32>, %a: memref<64xf32>, %c: memref<4xi32>) {
  // expected-error @+1 {{fusion "last_workgroup": stage #0 ('stage.slerp') is no grid a last workgroup can follow (a mat-vec, a per-thread or a per-head stage)}}
  stage.dispatch attributes {fusion = "last_workgroup"} {
    stage.slerp hidden(%h : memref<64xf32>) update(%o : memref<64xf32>) alpha(%a : memref<64xf32>) {eps = 1.0e-06 : f32}
    stage.last_workgroup counter(%c : memref<4xi32>)
    stage.slerp hidden(%h : memref<64xf32>) update(%o : memref<64xf32>) alpha(%a : memref<64xf32>) {eps = 1.0e-06 : f32}
  }
  return
}

// -----

func.func @marker_unfused(%x: memref<4xf32>, %y: memref<4xf32>, %c: memref<4xi32>) {
  stage.dispatch {
    // expected-error @+1 {{belongs in a stage.dispatch of fusion "last_workgroup"}}
    stage.last_workgroup counter(%c : memref<4xi32>)
  }
  return
}
