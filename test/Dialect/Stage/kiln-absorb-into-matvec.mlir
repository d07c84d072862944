// REQUIRES: compiler
// RUN: kiln-opt %s --split-input-file --kiln-absorb-into-matvec="target-file=%S/Inputs/fuse-boundary-5us.json" | FileCheck %s
// RUN: kiln-opt %s --split-input-file --kiln-absorb-into-matvec="target-file=%S/Inputs/fuse-boundary-0us.json" | FileCheck %s --check-prefix=FREE

// A 5 µs boundary: the down projection reads silu(g) ⊙ u itself. With free
// boundaries (0 µs) the recomputation per row does not pay: nothing changes.
// CHECK-LABEL: func.func @absorbed
// CHECK-NOT: stage.silu_mul
// CHECK: stage.dispatch "down" {
// CHECK-NEXT: stage.matvec weight(%arg3 : memref<96x16xvector<4xi32>>) input(%arg0 : memref<128xf32>) up(%arg1 : memref<128xf32>) out(%arg4 : memref<96xf32>) {activation = #stage.activation<silu_mul>, format = #stage.format<f16>}
// FREE-LABEL: func.func @absorbed
// FREE: stage.silu_mul
// FREE: stage.matvec weight(%arg3 : memref<96x16xvector<4xi32>>) input(%arg2 : memref<128xf32>) out(%arg4 : memref<96xf32>) {format = #stage.format<f16>}
func.func @absorbed(%g: memref<128xf32>, %u: memref<128xf32>, %z: memref<128xf32>,
                    %m: memref<96x16xvector<4xi32>>, %d: memref<96xf32>) {
  stage.dispatch "act" {
    stage.silu_mul ins(%g, %u : memref<128xf32>, memref<128xf32>) out(%z : memref<128xf32>)
  }
  stage.dispatch "down" {
    stage.matvec weight(%m : memref<96x16xvector<4xi32>>) input(%z : memref<128xf32>) out(%d : memref<96xf32>) {format = #stage.format<f16>}
  }
  return
}

// -----

// q8_2f: the silu_mul's column field becomes the mat-vec's col_scale.
// CHECK-LABEL: func.func @q8_field
// CHECK-NOT: stage.silu_mul
// CHECK: stage.matvec weight(%arg4 : memref<96x8xvector<4xi32>>) row_scale(%arg5 : memref<96xf32>) col_scale(%arg3 : memref<128xf32>) input(%arg0 : memref<128xf32>) up(%arg1 : memref<128xf32>) out(%arg6 : memref<96xf32>) {activation = #stage.activation<silu_mul>, format = #stage.format<q8_2f>}
func.func @q8_field(%g: memref<128xf32>, %u: memref<128xf32>, %z: memref<128xf32>, %t: memref<128xf32>,
                    %m: memref<96x8xvector<4xi32>>, %s: memref<96xf32>, %d: memref<96xf32>) {
  stage.dispatch "act" {
    stage.silu_mul ins(%g, %u : memref<128xf32>, memref<128xf32>) out(%z : memref<128xf32>) fold(%t : memref<128xf32>)
  }
  stage.dispatch "down" {
    stage.matvec weight(%m : memref<96x8xvector<4xi32>>) row_scale(%s : memref<96xf32>) input(%z : memref<128xf32>) out(%d : memref<96xf32>) {format = #stage.format<q8_2f>}
  }
  return
}

// -----

// Two readers of the activation: it must stay.
// CHECK-LABEL: func.func @two_readers
// CHECK: stage.silu_mul
// CHECK: stage.matvec {{.*}} input(%arg2 : memref<128xf32>)
func.func @two_readers(%g: memref<128xf32>, %u: memref<128xf32>, %z: memref<128xf32>,
                       %m: memref<96x16xvector<4xi32>>, %d: memref<96xf32>, %e: memref<128xf32>) {
  stage.dispatch "act" {
    stage.silu_mul ins(%g, %u : memref<128xf32>, memref<128xf32>) out(%z : memref<128xf32>)
  }
  stage.dispatch "down" {
    stage.matvec weight(%m : memref<96x16xvector<4xi32>>) input(%z : memref<128xf32>) out(%d : memref<96xf32>) {format = #stage.format<f16>}
  }
  stage.dispatch "other" {
    stage.add ins(%z, %z : memref<128xf32>, memref<128xf32>) out(%e : memref<128xf32>)
  }
  return
}

// -----

// u is overwritten between the activation and the mat-vec: reading it later
// would read the new values.
// CHECK-LABEL: func.func @clobbered
// CHECK: stage.silu_mul
// CHECK: stage.add
// CHECK: stage.matvec {{.*}} input(%arg2 : memref<128xf32>)
func.func @clobbered(%g: memref<128xf32>, %u: memref<128xf32>, %z: memref<128xf32>,
                     %m: memref<96x16xvector<4xi32>>, %d: memref<96xf32>) {
  stage.dispatch "act" {
    stage.silu_mul ins(%g, %u : memref<128xf32>, memref<128xf32>) out(%z : memref<128xf32>)
  }
  stage.dispatch "bump" {
    stage.add ins(%g, %g : memref<128xf32>, memref<128xf32>) out(%u : memref<128xf32>)
  }
  stage.dispatch "down" {
    stage.matvec weight(%m : memref<96x16xvector<4xi32>>) input(%z : memref<128xf32>) out(%d : memref<96xf32>) {format = #stage.format<f16>}
  }
  return
}

// -----

// Dory's scale of a mat-vec's output: the mat-vec writes the scaled rows
// itself (fold), one dispatch less.
// CHECK-LABEL: func.func @scale
// CHECK-NOT: stage.mul
// CHECK: stage.dispatch "gate" {
// CHECK-NEXT: stage.matvec weight(%arg1 : memref<128x8xvector<4xi32>>) input(%arg0 : memref<64xf32>) out(%arg4 : memref<128xf32>) fold(%arg3 : memref<128xf32>) {format = #stage.format<f16>}
// CHECK-NOT: stage.dispatch
func.func @scale(%x: memref<64xf32>, %m: memref<128x8xvector<4xi32>>, %y: memref<128xf32>,
                 %s: memref<128xf32>, %ys: memref<128xf32>) {
  stage.dispatch "gate" {
    stage.matvec weight(%m : memref<128x8xvector<4xi32>>) input(%x : memref<64xf32>) out(%y : memref<128xf32>) {format = #stage.format<f16>}
  }
  stage.dispatch "gate_scale" {
    stage.mul ins(%y, %s : memref<128xf32>, memref<128xf32>) out(%ys : memref<128xf32>)
  }
  return
}

// -----

// The scale is computed between the two: it is not ready where the mat-vec
// runs, so nothing moves.
// CHECK-LABEL: func.func @scale_not_ready
// CHECK: stage.matvec {{.*}} out(%arg2 : memref<128xf32>) {format
// CHECK: stage.add
// CHECK: stage.mul
func.func @scale_not_ready(%x: memref<64xf32>, %m: memref<128x8xvector<4xi32>>, %y: memref<128xf32>,
                           %s: memref<128xf32>, %ys: memref<128xf32>, %t: memref<128xf32>) {
  stage.dispatch "gate" {
    stage.matvec weight(%m : memref<128x8xvector<4xi32>>) input(%x : memref<64xf32>) out(%y : memref<128xf32>) {format = #stage.format<f16>}
  }
  stage.dispatch "make_scale" {
    stage.add ins(%t, %t : memref<128xf32>, memref<128xf32>) out(%s : memref<128xf32>)
  }
  stage.dispatch "gate_scale" {
    stage.mul ins(%y, %s : memref<128xf32>, memref<128xf32>) out(%ys : memref<128xf32>)
  }
  return
}

// -----

// A norm read by two mat-vecs (q8_2f, a column field each): both read the
// residual and normalise it themselves, each taking its field as col_scale;
// the norm's dispatch is gone. With free boundaries nothing changes.
// CHECK-LABEL: func.func @norm_into_readers
// CHECK-NOT: stage.rmsnorm
// CHECK: stage.matvec weight(%arg6 : memref<96x8xvector<4xi32>>) row_scale(%arg7 : memref<96xf32>) col_scale(%arg4 : memref<128xf32>) input(%arg0 : memref<128xf32>) norm(%arg1 : memref<128xf32>) out(%arg8 : memref<96xf32>) {format = #stage.format<q8_2f>, norm_eps = 9.99999997E-7 : f32, norm_zero_centered}
// CHECK: stage.matvec weight(%arg9 : memref<32x8xvector<4xi32>>) row_scale(%arg10 : memref<32xf32>) col_scale(%arg5 : memref<128xf32>) input(%arg0 : memref<128xf32>) norm(%arg1 : memref<128xf32>) out(%arg11 : memref<32xf32>) {format = #stage.format<q8_2f>, norm_eps = 9.99999997E-7 : f32, norm_zero_centered}
// FREE-LABEL: func.func @norm_into_readers
// FREE: stage.rmsnorm
// FREE-NOT: norm(
func.func @norm_into_readers(%h: memref<128xf32>, %w: memref<128xf32>, %x: memref<128xf32>, %x2: memref<128xf32>,
                             %t1: memref<128xf32>, %t2: memref<128xf32>,
                             %m1: memref<96x8xvector<4xi32>>, %s1: memref<96xf32>, %d1: memref<96xf32>,
                             %m2: memref<32x8xvector<4xi32>>, %s2: memref<32xf32>, %d2: memref<32xf32>) {
  stage.dispatch "norm" {
    stage.rmsnorm residual(%h : memref<128xf32>) weight(%w : memref<128xf32>) outs(%x, %x2 : memref<128xf32>, memref<128xf32>) folds(%t1, %t2 : memref<128xf32>, memref<128xf32>) {eps = 1.0e-06 : f32, zero_centered}
  }
  stage.dispatch "a" {
    stage.matvec weight(%m1 : memref<96x8xvector<4xi32>>) row_scale(%s1 : memref<96xf32>) input(%x : memref<128xf32>) out(%d1 : memref<96xf32>) {format = #stage.format<q8_2f>}
  }
  stage.dispatch "b" {
    stage.matvec weight(%m2 : memref<32x8xvector<4xi32>>) row_scale(%s2 : memref<32xf32>) input(%x2 : memref<128xf32>) out(%d2 : memref<32xf32>) {format = #stage.format<q8_2f>}
  }
  return
}

// -----

// A norm's output that something other than a mat-vec reads stays.
// CHECK-LABEL: func.func @norm_read_elsewhere
// CHECK: stage.rmsnorm
// CHECK-NOT: norm(
func.func @norm_read_elsewhere(%h: memref<128xf32>, %w: memref<128xf32>, %x: memref<128xf32>,
                               %m: memref<96x16xvector<4xi32>>, %d: memref<96xf32>, %y: memref<128xf32>) {
  stage.dispatch "norm" {
    stage.rmsnorm residual(%h : memref<128xf32>) weight(%w : memref<128xf32>) outs(%x : memref<128xf32>) {eps = 1.0e-06 : f32}
  }
  stage.dispatch "a" {
    stage.matvec weight(%m : memref<96x16xvector<4xi32>>) input(%x : memref<128xf32>) out(%d : memref<96xf32>) {format = #stage.format<f16>}
  }
  stage.dispatch "b" {
    stage.add ins(%x, %h : memref<128xf32>, memref<128xf32>) out(%y : memref<128xf32>)
  }
  return
}

// -----

// One buffer listed as two outputs with different fields: no rewrite.
// CHECK-LABEL: func.func @norm_one_buffer_two_fields
// CHECK: stage.rmsnorm
// CHECK-NOT: norm(
func.func @norm_one_buffer_two_fields(%h: memref<128xf32>, %w: memref<128xf32>, %x: memref<128xf32>,
                                      %t1: memref<128xf32>, %t2: memref<128xf32>,
                                      %m: memref<96x8xvector<4xi32>>, %s: memref<96xf32>, %d: memref<96xf32>) {
  stage.dispatch "norm" {
    stage.rmsnorm residual(%h : memref<128xf32>) weight(%w : memref<128xf32>) outs(%x, %x : memref<128xf32>, memref<128xf32>) folds(%t1, %t2 : memref<128xf32>, memref<128xf32>) {eps = 1.0e-06 : f32}
  }
  stage.dispatch "a" {
    stage.matvec weight(%m : memref<96x8xvector<4xi32>>) row_scale(%s : memref<96xf32>) input(%x : memref<128xf32>) out(%d : memref<96xf32>) {format = #stage.format<q8_2f>}
  }
  return
}

// -----

// Dory's residual step read by two mat-vecs, then by a stage that is no
// mat-vec and by the next slerp: both mat-vecs read the old h and slerp it
// themselves, the first writing the new h to a new buffer (the function's
// last argument) that the later uses read. With free boundaries nothing
// changes.
// CHECK-LABEL: func.func @slerp_into_readers
// CHECK-SAME: %[[NEXT:arg[0-9]+]]: memref<64xf32>)
// CHECK: stage.dispatch "q" {
// CHECK-NEXT: stage.matvec weight(%arg3 : memref<96x8xvector<4xi32>>) input(%arg0 : memref<64xf32>) slerp(%arg1, %arg2 : memref<64xf32>, memref<64xf32>) out(%arg4 : memref<96xf32>) hidden_out(%[[NEXT]] : memref<64xf32>) {format = #stage.format<f16>, slerp_eps = 9.99999997E-7 : f32}
// CHECK: stage.dispatch "k" {
// CHECK-NEXT: stage.matvec weight(%arg5 : memref<32x8xvector<4xi32>>) input(%arg0 : memref<64xf32>) slerp(%arg1, %arg2 : memref<64xf32>, memref<64xf32>) out(%arg6 : memref<32xf32>) {format = #stage.format<f16>, slerp_eps = 9.99999997E-7 : f32}
// CHECK: stage.add ins(%[[NEXT]], %arg1 : memref<64xf32>, memref<64xf32>) out(%arg7 : memref<64xf32>)
// CHECK: stage.slerp hidden(%[[NEXT]] : memref<64xf32>) update(%arg7 : memref<64xf32>)
// FREE-LABEL: func.func @slerp_into_readers
// FREE: stage.slerp
// FREE-NOT: slerp(
func.func @slerp_into_readers(%h: memref<64xf32>, %o: memref<64xf32>, %a: memref<64xf32>,
                              %mq: memref<96x8xvector<4xi32>>, %q: memref<96xf32>,
                              %mk: memref<32x8xvector<4xi32>>, %k: memref<32xf32>,
                              %y: memref<64xf32>) {
  stage.dispatch "alpha" {
    stage.slerp hidden(%h : memref<64xf32>) update(%o : memref<64xf32>) alpha(%a : memref<64xf32>) {eps = 1.0e-06 : f32}
  }
  stage.dispatch "q" {
    stage.matvec weight(%mq : memref<96x8xvector<4xi32>>) input(%h : memref<64xf32>) out(%q : memref<96xf32>) {format = #stage.format<f16>}
  }
  stage.dispatch "k" {
    stage.matvec weight(%mk : memref<32x8xvector<4xi32>>) input(%h : memref<64xf32>) out(%k : memref<32xf32>) {format = #stage.format<f16>}
  }
  stage.dispatch "other" {
    stage.add ins(%h, %o : memref<64xf32>, memref<64xf32>) out(%y : memref<64xf32>)
  }
  stage.dispatch "alpha2" {
    stage.slerp hidden(%h : memref<64xf32>) update(%y : memref<64xf32>) alpha(%a : memref<64xf32>) {eps = 1.0e-06 : f32}
  }
  return
}

// -----

// The update is overwritten before the mat-vec runs: the slerp stays.
// CHECK-LABEL: func.func @slerp_update_clobbered
// FREE-LABEL: func.func @slerp_update_clobbered
// CHECK: stage.slerp
// CHECK-NOT: slerp(
func.func @slerp_update_clobbered(%h: memref<64xf32>, %o: memref<64xf32>, %a: memref<64xf32>,
                                  %mq: memref<96x8xvector<4xi32>>, %q: memref<96xf32>) {
  stage.dispatch "alpha" {
    stage.slerp hidden(%h : memref<64xf32>) update(%o : memref<64xf32>) alpha(%a : memref<64xf32>) {eps = 1.0e-06 : f32}
  }
  stage.dispatch "clobber" {
    stage.add ins(%a, %a : memref<64xf32>, memref<64xf32>) out(%o : memref<64xf32>)
  }
  stage.dispatch "q" {
    stage.matvec weight(%mq : memref<96x8xvector<4xi32>>) input(%h : memref<64xf32>) out(%q : memref<96xf32>) {format = #stage.format<f16>}
  }
  return
}

// -----

// A later use that runs whether or not the slerp's skip flag is up would
// read a new h that was never written: the slerp stays.
// CHECK-LABEL: func.func @slerp_later_use_unskipped
// CHECK: stage.slerp
// CHECK-NOT: slerp(
func.func @slerp_later_use_unskipped(%h: memref<64xf32>, %o: memref<64xf32>, %a: memref<64xf32>,
                                     %mq: memref<96x8xvector<4xi32>>, %q: memref<96xf32>,
                                     %y: memref<64xf32>, %exit: memref<1xi32>) {
  stage.dispatch "alpha" skip_if(%exit : memref<1xi32>) [0] {
    stage.slerp hidden(%h : memref<64xf32>) update(%o : memref<64xf32>) alpha(%a : memref<64xf32>) {eps = 1.0e-06 : f32}
  }
  stage.dispatch "q" skip_if(%exit : memref<1xi32>) [0] {
    stage.matvec weight(%mq : memref<96x8xvector<4xi32>>) input(%h : memref<64xf32>) out(%q : memref<96xf32>) {format = #stage.format<f16>}
  }
  stage.dispatch "always" {
    stage.add ins(%h, %o : memref<64xf32>, memref<64xf32>) out(%y : memref<64xf32>)
  }
  return
}

// -----

// q8_2f: the slerp's new h reaches its mat-vecs through the column fields'
// muls. Each mat-vec then reads the old h, slerps it and takes its field as
// col_scale; the muls are gone with the slerp.
// CHECK-LABEL: func.func @slerp_through_fields
// CHECK-SAME: %[[NEXT:arg[0-9]+]]: memref<64xf32>)
// CHECK-NOT: stage.mul
// CHECK-NOT: stage.slerp
// CHECK: stage.matvec weight(%arg7 : memref<96x4xvector<4xi32>>) row_scale(%arg8 : memref<96xf32>) col_scale(%arg3 : memref<64xf32>) input(%arg0 : memref<64xf32>) slerp(%arg1, %arg2 : memref<64xf32>, memref<64xf32>) out(%arg9 : memref<96xf32>) hidden_out(%[[NEXT]] : memref<64xf32>) {format = #stage.format<q8_2f>, slerp_eps = 9.99999997E-7 : f32}
// CHECK: stage.matvec weight(%arg10 : memref<96x4xvector<4xi32>>) row_scale(%arg11 : memref<96xf32>) col_scale(%arg4 : memref<64xf32>) input(%arg0 : memref<64xf32>) slerp(%arg1, %arg2 : memref<64xf32>, memref<64xf32>) out(%arg12 : memref<96xf32>) {format = #stage.format<q8_2f>, slerp_eps = 9.99999997E-7 : f32}
func.func @slerp_through_fields(%h: memref<64xf32>, %o: memref<64xf32>, %a: memref<64xf32>,
                                %t1: memref<64xf32>, %t2: memref<64xf32>,
                                %x1: memref<64xf32>, %x2: memref<64xf32>,
                                %m1: memref<96x4xvector<4xi32>>, %s1: memref<96xf32>, %d1: memref<96xf32>,
                                %m2: memref<96x4xvector<4xi32>>, %s2: memref<96xf32>, %d2: memref<96xf32>) {
  stage.dispatch "alpha" {
    stage.slerp hidden(%h : memref<64xf32>) update(%o : memref<64xf32>) alpha(%a : memref<64xf32>) {eps = 1.0e-06 : f32}
  }
  stage.dispatch "fold1" {
    stage.mul ins(%h, %t1 : memref<64xf32>, memref<64xf32>) out(%x1 : memref<64xf32>)
  }
  stage.dispatch "fold2" {
    stage.mul ins(%t2, %h : memref<64xf32>, memref<64xf32>) out(%x2 : memref<64xf32>)
  }
  stage.dispatch "gate" {
    stage.matvec weight(%m1 : memref<96x4xvector<4xi32>>) row_scale(%s1 : memref<96xf32>) input(%x1 : memref<64xf32>) out(%d1 : memref<96xf32>) {format = #stage.format<q8_2f>}
  }
  stage.dispatch "up" {
    stage.matvec weight(%m2 : memref<96x4xvector<4xi32>>) row_scale(%s2 : memref<96xf32>) input(%x2 : memref<64xf32>) out(%d2 : memref<96xf32>) {format = #stage.format<q8_2f>}
  }
  return
}
