// REQUIRES: compiler
// What fusion never merges, however much a boundary costs (1000 µs here).
// RUN: kiln-opt %s --split-input-file --kiln-fuse-dispatches="target-file=%S/Inputs/fuse-boundary-8us.json boundary-us=1000" | FileCheck %s
// RUN: kiln-opt %s --split-input-file --kiln-fuse-dispatches="target-file=%S/Inputs/fuse-boundary-8us.json boundary-us=1000 max-bindings=4" | FileCheck %s --check-prefix=BIND

// A workgroup per head (gdn_step) cannot run inside one workgroup, and it
// reads what the norm writes, so it cannot run beside it either.
// CHECK-LABEL: func.func @per_head
// CHECK: stage.dispatch "norm" attributes {stage.estimated_us
// CHECK-NEXT: stage.rmsnorm
// CHECK-NEXT: {{^ *}$}}
// CHECK-NEXT: stage.dispatch "step" attributes {stage.estimated_us
func.func @per_head(%h: memref<36xf32>, %w: memref<36xf32>, %x: memref<36xf32>,
                    %cq: memref<68xf32>, %a: memref<3xf32>, %b: memref<3xf32>,
                    %al: memref<3xf32>, %dt: memref<3xf32>, %n: memref<12xf32>,
                    %s: memref<3x16x12xf32>, %o: memref<36xf32>) {
  stage.dispatch "norm" {
    stage.rmsnorm residual(%h : memref<36xf32>) weight(%w : memref<36xf32>) outs(%x : memref<36xf32>) {eps = 1.0e-06 : f32}
  }
  stage.dispatch "step" {
    stage.gdn_step qkv(%cq : memref<68xf32>) z(%x : memref<36xf32>) a(%a : memref<3xf32>) b(%b : memref<3xf32>)
        a_log(%al : memref<3xf32>) dt_bias(%dt : memref<3xf32>) norm(%n : memref<12xf32>)
        state(%s : memref<3x16x12xf32>) out(%o : memref<36xf32>) {num_k_heads = 1 : i64, eps = 1.0e-06 : f32}
  }
  return
}

// -----

// A stage with no fused form (the exit test) stays alone, and a dispatch
// under a skip flag fuses only with dispatches under the same flag word.
// CHECK-LABEL: func.func @opaque_and_skip
// CHECK: stage.dispatch "norm" attributes
// CHECK: stage.dispatch "exit" attributes
// CHECK: stage.dispatch "late" skip_if
// CHECK: stage.dispatch "later" skip_if
func.func @opaque_and_skip(%h: memref<40xf32>, %w: memref<40xf32>, %x: memref<40xf32>,
                           %flag: memref<2xi32>, %y: memref<40xf32>, %z: memref<40xf32>) {
  stage.dispatch "norm" {
    stage.rmsnorm residual(%h : memref<40xf32>) weight(%w : memref<40xf32>) outs(%x : memref<40xf32>) {eps = 1.0e-06 : f32}
  }
  stage.dispatch "exit" {
    stage.exit_test input(%x : memref<40xf32>) flag(%flag : memref<2xi32>) {threshold = 0.5 : f64, logits}
  }
  stage.dispatch "late" skip_if(%flag : memref<2xi32>)[0] {
    stage.add ins(%x, %h : memref<40xf32>, memref<40xf32>) out(%y : memref<40xf32>)
  }
  stage.dispatch "later" skip_if(%flag : memref<2xi32>)[1] {
    stage.add ins(%y, %h : memref<40xf32>, memref<40xf32>) out(%z : memref<40xf32>)
  }
  return
}

// -----

// One kernel binds one buffer per distinct operand: with max-bindings=4 the
// norm (3 buffers) and the mat-vec (2 more) need 5: they stay apart.
// BIND-LABEL: func.func @bindings
// BIND: stage.dispatch "norm" attributes
// BIND: stage.dispatch "proj" attributes
// CHECK-LABEL: func.func @bindings
// CHECK: stage.dispatch "norm__proj" attributes {fusion = "one_workgroup"
func.func @bindings(%h: memref<64xf32>, %w: memref<64xf32>, %x: memref<64xf32>,
                    %m: memref<16x8xvector<4xi32>>, %y: memref<16xf32>) {
  stage.dispatch "norm" {
    stage.rmsnorm residual(%h : memref<64xf32>) weight(%w : memref<64xf32>) outs(%x : memref<64xf32>) {eps = 1.0e-06 : f32}
  }
  stage.dispatch "proj" {
    stage.matvec weight(%m : memref<16x8xvector<4xi32>>) input(%x : memref<64xf32>) out(%y : memref<16xf32>) {format = #stage.format<f16>}
  }
  return
}

// -----

// A one-workgroup reduction (the router) does not run beside mat-vecs: the
// concurrent kernel would take the reduction's width for the mat-vec's row
// items. The projections still share a kernel.
// CHECK-LABEL: func.func @router_beside_matvecs
// CHECK: stage.dispatch "gate__up" attributes {fusion = "concurrent"
// CHECK-NEXT: stage.matvec
// CHECK-NEXT: stage.matvec
// CHECK-NEXT: {{^ *}$}}
// CHECK-NEXT: stage.dispatch "route" attributes {stage.estimated_us
// CHECK-NEXT: stage.router
func.func @router_beside_matvecs(%x: memref<512xf32>,
    %m1: memref<2048x64xvector<4xi32>>, %y: memref<2048xf32>,
    %m2: memref<2048x64xvector<4xi32>>, %u: memref<2048xf32>,
    %mu: memref<4x512xf32>, %b: memref<4xf32>, %sel: memref<1xi32>) {
  stage.dispatch "gate" {
    stage.matvec weight(%m1 : memref<2048x64xvector<4xi32>>) input(%x : memref<512xf32>) out(%y : memref<2048xf32>) {format = #stage.format<f16>}
  }
  stage.dispatch "up" {
    stage.matvec weight(%m2 : memref<2048x64xvector<4xi32>>) input(%x : memref<512xf32>) out(%u : memref<2048xf32>) {format = #stage.format<f16>}
  }
  stage.dispatch "route" {
    stage.router input(%x : memref<512xf32>) centres(%mu : memref<4x512xf32>) bias(%b : memref<4xf32>) selected(%sel : memref<1xi32>)
  }
  return
}
