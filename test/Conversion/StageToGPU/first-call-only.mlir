// REQUIRES: compiler
// A launch whose stages all act only in a session's first call (FirstCallOnly:
// landmark_capture, landmark_seal) carries stage.first_call_only, which the plan writer
// turns into DispatchCalls First; a dispatch of any other stage does not (neither has a
// fused form, so each is a dispatch of its own).
// RUN: kiln-opt %s --convert-stage-to-gpu | FileCheck %s

// CHECK-LABEL: func.func @capture
// CHECK: gpu.launch_func @kiln_kernels::@capture
// CHECK-SAME: {stage.first_call_only}
func.func @capture(%q: memref<72xf32>, %p: memref<4xi32>, %meta: memref<3xi32>, %l: memref<1x3x24xf32>) {
  stage.dispatch "capture" {
    stage.landmark_capture q(%q : memref<72xf32>) params(%p : memref<4xi32>) far_meta(%meta : memref<3xi32>) landmarks(%l : memref<1x3x24xf32>)
  }
  return
}

// CHECK-LABEL: func.func @others
// CHECK: gpu.launch_func @kiln_kernels::@add
// CHECK-NOT: stage.first_call_only
// CHECK: return
func.func @others(%a: memref<72xf32>, %b: memref<72xf32>, %o: memref<72xf32>) {
  stage.dispatch "add" {
    stage.add ins(%a, %b : memref<72xf32>, memref<72xf32>) out(%o : memref<72xf32>)
  }
  return
}
