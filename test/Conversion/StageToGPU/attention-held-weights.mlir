// REQUIRES: compiler
// An attention kernel of its own holds every weight of a head in workgroup memory:
// past 4096 keys convert-stage-to-gpu refuses it by name. kiln-fuse-dispatches splits
// such an attention (split_keys, kiln-fuse-dispatches-split-oversized.mlir), which has
// no such limit.
// RUN: kiln-opt %s -split-input-file -verify-diagnostics --convert-stage-to-gpu

func.func @ring(%o: memref<48xf32>, %vr: memref<1x5000x16xf32>, %p: memref<4xi32>, %s: memref<3x5000xf32>) {
  stage.dispatch {
    // expected-error @+1 {{sinks + ring window = 5000 keys exceed the 4096 weights a workgroup holds (as a kernel of its own; in a split_keys dispatch there is no such limit)}}
    stage.attention scores(%s : memref<3x5000xf32>) v_ring(%vr : memref<1x5000x16xf32>) params(%p : memref<4xi32>) out(%o : memref<48xf32>)
  }
  return
}

// -----

func.func @near(%q: memref<72xf32>, %vr: memref<1x8x24xf32>, %sk: memref<1x4090x24xf32>, %g: memref<72xf32>, %sg: memref<72xf32>, %p: memref<4xi32>, %o: memref<72xf32>, %sc: memref<3x8180xf32>) {
  stage.dispatch {
    // expected-error @+1 {{sinks + window = 4090 + 8 = 4098 exceeds the 4096 near scores a workgroup holds (as a kernel of its own; in a split_keys dispatch there is no such limit)}}
    stage.window_attention q(%q : memref<72xf32>) scores(%sc : memref<3x8180xf32>) v_ring(%vr : memref<1x8x24xf32>) sink_v(%sk : memref<1x4090x24xf32>) gate(%g : memref<72xf32>) gate_scale(%sg : memref<72xf32>) params(%p : memref<4xi32>) out(%o : memref<72xf32>) {window = 8 : i64, scale = 4.0 : f32}
  }
  return
}
