// REQUIRES: compiler
// RUN: kiln-opt --convert-kiln-to-stage=prefill-rows=4 --kiln-plan-memory %examples/embryo-tiny.mlir | FileCheck %s
// RUN: kiln-opt --convert-kiln-to-stage --kiln-plan-memory %examples/embryo-tiny.mlir | FileCheck %s --check-prefix=DECODE
// RUN: not kiln-opt --convert-kiln-to-stage=prefill-rows=1 %examples/embryo-tiny.mlir 2>&1 | FileCheck %s --check-prefix=ONE
// RUN: not kiln-opt --convert-kiln-to-stage=prefill-rows=8 %examples/dory-tiny.mlir 2>&1 | FileCheck %s --check-prefix=DORY

// prefill-rows=4: @decode as before, and @prefill, the same step over up to 4 rows a
// call (docs/pipeline.md, "Rows"). Both programs share the weights, the state, the
// params block and the readback: one slot each, whichever program names them. The
// anchor rings, written up to 4 rows ahead of their attentions, hold window + 3 = 19
// keys, and each attention names its group windows (16 and 6).

// CHECK: func.func @decode(%{{.*}}: memref<8xi32> {stage.buffer = #stage.buffer<kind = params, name = "params", slot = [[PARAMS:[0-9]+]], byte_size = 32>}
// CHECK-SAME: memref<2x19x16xf32> {stage.buffer = #stage.buffer<kind = state, name = "layers.1.attn.kv.k", slot = [[RING:[0-9]+]], byte_size = 2432>}
// CHECK-SAME: memref<256xf32> {stage.buffer = #stage.buffer<kind = readback, name = "readback", slot = [[READBACK:[0-9]+]], byte_size = 1024>}
// CHECK: stage.key_scores {{.*}} k_ring(%{{.*}} : memref<2x19x16xf32>) {{.*}} {group_windows = array<i64: 16, 6>
// CHECK: stage.sample

// The call's row count (params word 8) and its rows' tokens (words 9-12) follow the
// decode words; an activation holds a row per call row (`rows = 4`, four times the
// bytes) and keeps one row's type in the stages; the head's cluster log-probabilities
// and the readback hold the last row's only; no sample (the host samples after a
// prompt).
// CHECK: func.func @prefill(%[[P:[a-z0-9]+]]: memref<13xi32> {stage.buffer = #stage.buffer<kind = params, name = "params", slot = [[PARAMS]], byte_size = 52>}
// CHECK-SAME: memref<96xf32> {stage.buffer = #stage.buffer<kind = scratch, name = "plane.layers.0.ffn.gate.out", slot = {{[0-9]+}}, byte_size = 1536, rows = 4>}
// CHECK-SAME: memref<2x19x16xf32> {stage.buffer = #stage.buffer<kind = state, name = "layers.1.attn.kv.k", slot = [[RING]], byte_size = 2432>}
// CHECK-SAME: memref<16xf32> {stage.buffer = #stage.buffer<kind = scratch, name = "plane.log_softmax", slot = {{[0-9]+}}, byte_size = 64>}
// CHECK-SAME: memref<256xf32> {stage.buffer = #stage.buffer<kind = readback, name = "readback", slot = [[READBACK]], byte_size = 1024>}
// CHECK-SAME: kiln.max_rows = 4 : i64
// CHECK-SAME: stage.params = [#stage.param<name = "head_top_p", word = 7, rule = "HeadTopP">, #stage.param<name = "row_count", word = 8, rule = "RowCount">, #stage.param<name = "tokens", word = 9, rule = "Tokens", n = 4>]
// CHECK: stage.embed_gather {{.*}} params(%[[P]] : memref<13xi32>) out(%{{.*}} : memref<72xf32>)
// CHECK: stage.key_scores {{.*}} k_ring(%{{.*}} : memref<2x19x16xf32>) {{.*}} {group_windows = array<i64: 16, 6>
// CHECK: stage.head_rows
// CHECK-NOT: stage.sample
// CHECK: return

// Without it the rings hold the window and nothing is named twice.
// DECODE: memref<2x16x16xf32> {stage.buffer = #stage.buffer<kind = state, name = "layers.1.attn.kv.k"
// DECODE-NOT: func.func @prefill

// ONE: prefill-rows must be 0 (no @prefill) or in [2, 1024], got 1
// DORY: a multi-row @prefill is built for Embryo only
