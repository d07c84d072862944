// REQUIRES: compiler
// RUN: kiln-opt %s | kiln-opt | FileCheck %s
// Round trip of Dory's far-field and early-exit stages and the dispatch skip
// flag (StageOps.td, "Dory far field and early exit").

// CHECK-LABEL: func.func @far_field_step
func.func @far_field_step(%q: memref<72xf32>, %kr: memref<1x8x24xf32>, %vr: memref<1x8x24xf32>,
                          %g: memref<72xf32>, %sg: memref<72xf32>, %p: memref<4xi32>,
                          %l: memref<1x3x24xf32>, %m: memref<1x3x3xf32>, %s: memref<1x3x26xf32>,
                          %meta: memref<3xi32>, %o: memref<72xf32>, %fold: memref<72xf32>,
                          %exit: memref<2xi32>, %sc: memref<3x8xf32>) {
  // CHECK: stage.dispatch "push" {
  // CHECK-NEXT: stage.far_field_push k_ring(%{{.*}} : memref<1x8x24xf32>) v_ring(%{{.*}} : memref<1x8x24xf32>) params(%{{.*}} : memref<4xi32>) landmarks(%{{.*}} : memref<1x3x24xf32>) far_sums(%{{.*}} : memref<1x3x26xf32>) far_meta(%{{.*}} : memref<3xi32>) {scale = 4.898980e+00 : f32, window = 5 : i64}
  stage.dispatch "push" {
    stage.far_field_push k_ring(%kr : memref<1x8x24xf32>) v_ring(%vr : memref<1x8x24xf32>)
        params(%p : memref<4xi32>) landmarks(%l : memref<1x3x24xf32>)
        far_sums(%s : memref<1x3x26xf32>) far_meta(%meta : memref<3xi32>)
        {window = 5 : i64, scale = 4.89898 : f32}
  }
  // CHECK: stage.landmark_capture q(%{{.*}} : memref<72xf32>) params(%{{.*}} : memref<4xi32>) far_meta(%{{.*}} : memref<3xi32>) landmarks(%{{.*}} : memref<1x3x24xf32>)
  // CHECK-NOT: stride
  stage.dispatch "capture" {
    stage.landmark_capture q(%q : memref<72xf32>) params(%p : memref<4xi32>)
        far_meta(%meta : memref<3xi32>) landmarks(%l : memref<1x3x24xf32>)
  }
  // CHECK: stage.landmark_seal landmarks(%{{.*}} : memref<1x3x24xf32>) params(%{{.*}} : memref<4xi32>) inverse(%{{.*}} : memref<1x3x3xf32>) far_sums(%{{.*}} : memref<1x3x26xf32>) far_meta(%{{.*}} : memref<3xi32>)
  // CHECK-SAME: position_word = 3 : i64
  // CHECK-SAME: stride = 4 : i64
  stage.dispatch "seal" {
    stage.landmark_seal landmarks(%l : memref<1x3x24xf32>) params(%p : memref<4xi32>)
        inverse(%m : memref<1x3x3xf32>) far_sums(%s : memref<1x3x26xf32>)
        far_meta(%meta : memref<3xi32>) {scale = 4.89898 : f32, stride = 4 : i64, position_word = 3 : i64}
  }
  // CHECK: stage.window_attention q(%{{.*}} : memref<72xf32>) scores(%{{.*}} : memref<3x8xf32>) v_ring(%{{.*}} : memref<1x8x24xf32>) gate(%{{.*}} : memref<72xf32>) gate_scale(%{{.*}} : memref<72xf32>) params(%{{.*}} : memref<4xi32>) far(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : memref<1x3x24xf32>, memref<1x3x3xf32>, memref<1x3x26xf32>, memref<3xi32>) out(%{{.*}} : memref<72xf32>) fold(%{{.*}} : memref<72xf32>)
  // CHECK-SAME: rectify
  stage.dispatch "attend" {
    stage.window_attention q(%q : memref<72xf32>) scores(%sc : memref<3x8xf32>)
        v_ring(%vr : memref<1x8x24xf32>) gate(%g : memref<72xf32>) gate_scale(%sg : memref<72xf32>)
        params(%p : memref<4xi32>)
        far(%l, %m, %s, %meta : memref<1x3x24xf32>, memref<1x3x3xf32>, memref<1x3x26xf32>, memref<3xi32>)
        out(%o : memref<72xf32>) fold(%fold : memref<72xf32>) {window = 5 : i64, scale = 4.89898 : f32, rectify}
  }
  // Sink values (issue 15) between the ring and the gate.
  // CHECK: stage.window_attention q(%{{.*}} : memref<72xf32>) scores(%{{.*}} : memref<3x8xf32>) v_ring(%{{.*}} : memref<1x8x24xf32>) sink_v(%{{.*}} : memref<1x3x24xf32>) gate(%{{.*}} : memref<72xf32>)
  stage.dispatch "attend_sinks" {
    stage.window_attention q(%q : memref<72xf32>) scores(%sc : memref<3x8xf32>)
        v_ring(%vr : memref<1x8x24xf32>) sink_v(%l : memref<1x3x24xf32>)
        gate(%g : memref<72xf32>) gate_scale(%sg : memref<72xf32>)
        params(%p : memref<4xi32>)
        far(%l, %m, %s, %meta : memref<1x3x24xf32>, memref<1x3x3xf32>, memref<1x3x26xf32>, memref<3xi32>)
        out(%o : memref<72xf32>) {window = 5 : i64, scale = 4.89898 : f32}
  }
  // CHECK: stage.window_attention
  // CHECK-NOT: far(
  // CHECK-SAME: out(
  stage.dispatch "near_only" {
    stage.window_attention q(%q : memref<72xf32>) scores(%sc : memref<3x8xf32>)
        v_ring(%vr : memref<1x8x24xf32>) gate(%g : memref<72xf32>) gate_scale(%sg : memref<72xf32>)
        params(%p : memref<4xi32>) out(%o : memref<72xf32>) {window = 8 : i64, scale = 1.0 : f32}
  }
  return
}

// CHECK-LABEL: func.func @early_exit
func.func @early_exit(%lp: memref<2x40xf32>, %logits: memref<40xf32>, %flag: memref<2xi32>,
                      %h: memref<64xf32>, %in: memref<64xf32>, %st: memref<64xf32>) {
  // CHECK: stage.exit_test input(%{{.*}} : memref<2x40xf32>) flag(%{{.*}} : memref<2xi32>) {flag_word = 1 : i64, threshold = 9.000000e-01 : f64}
  stage.dispatch "exit_test" {
    stage.exit_test input(%lp : memref<2x40xf32>) flag(%flag : memref<2xi32>) {threshold = 0.9 : f64, flag_word = 1 : i64}
  }
  // CHECK: stage.exit_test input(%{{.*}} : memref<40xf32>) flag(%{{.*}} : memref<2xi32>) {logits, threshold = 5.000000e-01 : f64}
  stage.dispatch {
    stage.exit_test input(%logits : memref<40xf32>) flag(%flag : memref<2xi32>) {threshold = 0.5 : f64, logits}
  }
  // CHECK: stage.dispatch "resume" skip_if(%{{.*}} : memref<2xi32>) [1] {
  // CHECK-NEXT: stage.dory_mix
  stage.dispatch "resume" skip_if(%flag : memref<2xi32>)[1] {
    stage.dory_mix hidden(%h : memref<64xf32>) entry(%in : memref<64xf32>) state(%st : memref<64xf32>) {mode = 4 : i64, eps = 1.0e-06 : f32}
  }
  // CHECK: stage.dispatch skip_if(%{{.*}} : memref<2xi32>) [0] {
  stage.dispatch skip_if(%flag : memref<2xi32>)[0] {
    stage.dory_mix hidden(%h : memref<64xf32>) entry(%in : memref<64xf32>) state(%st : memref<64xf32>) {mode = 2 : i64, eps = 1.0e-06 : f32}
  }
  return
}
