// REQUIRES: compiler
// RUN: kiln-opt %s | kiln-opt | FileCheck %s

// CHECK-LABEL: func.func @embryo_layer
func.func @embryo_layer(%e: memref<10x7xvector<4xi32>>, %p: memref<4xi32>, %h: memref<52xf32>,
                        %parts: memref<2x52xf32>, %w: memref<52xf32>, %x: memref<52xf32>,
                        %wq: memref<12x4xvector<4xi32>>, %s: memref<12xf32>, %y: memref<2x12xf32>) {
  // CHECK: stage.dispatch "embed"
  // CHECK-NEXT: stage.embed_gather table(%{{.*}} : memref<10x7xvector<4xi32>>)
  stage.dispatch "embed" {
    stage.embed_gather table(%e : memref<10x7xvector<4xi32>>) params(%p : memref<4xi32>) out(%h : memref<52xf32>)
  }
  // CHECK: stage.rmsnorm residual(%{{.*}} : memref<52xf32>) partials(%{{.*}} : memref<2x52xf32>)
  // CHECK-SAME: zero_centered
  stage.dispatch {
    stage.rmsnorm residual(%h : memref<52xf32>) partials(%parts : memref<2x52xf32>) weight(%w : memref<52xf32>)
        outs(%x : memref<52xf32>) {eps = 1.0e-06 : f32, zero_centered}
  }
  // CHECK: stage.matvec weight(%{{.*}} : memref<12x4xvector<4xi32>>) row_scale(%{{.*}} : memref<12xf32>)
  // CHECK-SAME: format = #stage.format<q8_2f>
  // CHECK-SAME: split_k = 2
  stage.dispatch {
    stage.matvec weight(%wq : memref<12x4xvector<4xi32>>) row_scale(%s : memref<12xf32>) input(%x : memref<52xf32>)
        out(%y : memref<2x12xf32>) {format = #stage.format<q8_2f>, split_k = 2 : i64}
  }
  return
}

// CHECK-LABEL: func.func @fused_norms
// CHECK: stage.dispatch "tail" attributes {fusion = "one_workgroup"} {
// CHECK-NEXT: stage.rmsnorm
// CHECK-NEXT: stage.cluster_logits
func.func @fused_norms(%h: memref<52xf32>, %w: memref<52xf32>, %x: memref<52xf32>, %c: memref<3x52xf32>, %lc: memref<3xf32>) {
  stage.dispatch "tail" attributes {fusion = "one_workgroup"} {
    stage.rmsnorm residual(%h : memref<52xf32>) weight(%w : memref<52xf32>) outs(%x : memref<52xf32>) {eps = 1.0e-06 : f32}
    stage.cluster_logits input(%x : memref<52xf32>) clusters(%c : memref<3x52xf32>) out(%lc : memref<3xf32>)
  }
  return
}

// CHECK-LABEL: func.func @elementwise
// CHECK: stage.silu_mul ins(
// CHECK: stage.add ins(
// CHECK: stage.mul ins(
// CHECK: stage.sigmoid_gate ins(
func.func @elementwise(%a: memref<20xf32>, %b: memref<20xf32>, %o: memref<20xf32>) {
  stage.dispatch { stage.silu_mul ins(%a, %b : memref<20xf32>, memref<20xf32>) out(%o : memref<20xf32>) }
  stage.dispatch { stage.add ins(%a, %b : memref<20xf32>, memref<20xf32>) out(%o : memref<20xf32>) }
  stage.dispatch { stage.mul ins(%a, %b : memref<20xf32>, memref<20xf32>) out(%o : memref<20xf32>) }
  stage.dispatch { stage.sigmoid_gate ins(%a, %b : memref<20xf32>, memref<20xf32>) out(%o : memref<20xf32>) }
  return
}

// CHECK-LABEL: func.func @mixers
// CHECK: stage.conv_ring
// CHECK: stage.gdn_step
// CHECK-SAME: num_k_heads = 1
// CHECK: stage.rope_kv_write
// CHECK: stage.key_scores
// CHECK-SAME: sink_q(
// CHECK-SAME: sink_k(
// CHECK-SAME: group_windows = array<i64: 5>
// CHECK: stage.attention
// CHECK-SAME: sink_v(
// CHECK-SAME: group_windows = array<i64: 5>
func.func @mixers(%c: memref<84xf32>, %t: memref<84x4xf32>, %r: memref<3x84xf32>, %cq: memref<84xf32>,
                  %z: memref<60xf32>, %a: memref<3xf32>, %n: memref<20xf32>, %st: memref<3x12x20xf32>,
                  %o: memref<60xf32>, %q: memref<48xf32>, %k: memref<16xf32>, %p: memref<4xi32>,
                  %qr: memref<48xf32>, %kr: memref<1x8x16xf32>, %vr: memref<1x8x16xf32>,
                  %sk: memref<1x2x16xf32>, %ao: memref<48xf32>, %sc: memref<3x10xf32>) {
  stage.dispatch { stage.conv_ring input(%c : memref<84xf32>) taps(%t : memref<84x4xf32>) ring(%r : memref<3x84xf32>) out(%cq : memref<84xf32>) }
  stage.dispatch {
    stage.gdn_step qkv(%cq : memref<84xf32>) z(%z : memref<60xf32>) a(%a : memref<3xf32>) b(%a : memref<3xf32>)
        a_log(%a : memref<3xf32>) dt_bias(%a : memref<3xf32>) norm(%n : memref<20xf32>)
        state(%st : memref<3x12x20xf32>) out(%o : memref<60xf32>) {num_k_heads = 1 : i64, eps = 1.0e-06 : f32}
  }
  stage.dispatch {
    stage.rope_kv_write q(%q : memref<48xf32>) k(%k : memref<16xf32>) v(%k : memref<16xf32>) params(%p : memref<4xi32>)
        q_out(%qr : memref<48xf32>) k_ring(%kr : memref<1x8x16xf32>) v_ring(%vr : memref<1x8x16xf32>)
        {rotary_dim = 8 : i64, rope_theta = 1.0e+04 : f32}
  }
  stage.dispatch {
    stage.key_scores q(%qr : memref<48xf32>) sink_q(%q : memref<48xf32>) k_ring(%kr : memref<1x8x16xf32>)
        sink_k(%sk : memref<1x2x16xf32>) params(%p : memref<4xi32>) scores(%sc : memref<3x10xf32>)
        {group_windows = array<i64: 5>, scale = 0.25 : f32}
  }
  stage.dispatch {
    stage.attention scores(%sc : memref<3x10xf32>) v_ring(%vr : memref<1x8x16xf32>) sink_v(%sk : memref<1x2x16xf32>)
        params(%p : memref<4xi32>) out(%ao : memref<48xf32>) {group_windows = array<i64: 5>}
  }
  return
}

// CHECK-LABEL: func.func @router_and_head
// CHECK: stage.router
// CHECK-SAME: shells(
// CHECK: stage.head_rows
func.func @router_and_head(%x: memref<52xf32>, %mu: memref<5x52xf32>, %b: memref<5xf32>, %sel: memref<1xi32>,
                           %rows: memref<6x7xvector<4xi32>>, %lc: memref<3xf32>, %p: memref<4xi32>, %l: memref<6xf32>) {
  stage.dispatch {
    stage.router input(%x : memref<52xf32>) centres(%mu : memref<5x52xf32>) bias(%b : memref<5xf32>)
        shells(%b : memref<5xf32>) selected(%sel : memref<1xi32>)
  }
  stage.dispatch {
    stage.head_rows input(%x : memref<52xf32>) rows(%rows : memref<6x7xvector<4xi32>>) cluster_logits(%lc : memref<3xf32>)
        params(%p : memref<4xi32>) out(%l : memref<6xf32>) {format = #stage.format<f16>}
  }
  return
}

// CHECK-LABEL: func.func @dory
// CHECK: stage.dory_prep
// CHECK: stage.slerp
// CHECK: stage.dory_mix
// CHECK-SAME: mode = 1
func.func @dory(%q: memref<64xf32>, %k: memref<16xf32>, %s: memref<4x16xf32>, %p: memref<4xi32>,
                %qo: memref<64xf32>, %kr: memref<1x8x16xf32>, %h: memref<64xf32>) {
  stage.dispatch {
    stage.dory_prep q(%q : memref<64xf32>) k(%k : memref<16xf32>) v(%k : memref<16xf32>) s_qk(%s : memref<4x16xf32>)
        params(%p : memref<4xi32>) q_out(%qo : memref<64xf32>) k_ring(%kr : memref<1x8x16xf32>)
        v_ring(%kr : memref<1x8x16xf32>) {rope_theta = 1.0e+04 : f32, eps = 1.0e-06 : f32}
  }
  stage.dispatch { stage.slerp hidden(%h : memref<64xf32>) update(%q : memref<64xf32>) alpha(%qo : memref<64xf32>) {eps = 1.0e-06 : f32} }
  stage.dispatch { stage.dory_mix hidden(%h : memref<64xf32>) entry(%q : memref<64xf32>) state(%qo : memref<64xf32>) {mode = 1 : i64, eps = 1.0e-06 : f32} }
  return
}

// A routed expert: the router's word picks one of 4 stacked candidates
// (4 x 24 rows); q8_2f scales are stacked too and the column field is
// applied inside the mat-vec.

// CHECK-LABEL: func.func @routed_expert
func.func @routed_expert(%x: memref<52xf32>, %mu: memref<4x52xf32>, %u: memref<4x2x52xf32>,
                         %b: memref<4xf32>, %sh: memref<4xf32>, %sel: memref<1xi32>,
                         %wq: memref<96x4xvector<4xi32>>, %s: memref<96xf32>, %t: memref<208xf32>,
                         %wh: memref<96x7xvector<4xi32>>, %y: memref<24xf32>) {
  stage.dispatch "router" {
    stage.router input(%x : memref<52xf32>) centres(%mu : memref<4x52xf32>) basis(%u : memref<4x2x52xf32>)
        bias(%b : memref<4xf32>) shells(%sh : memref<4xf32>) selected(%sel : memref<1xi32>)
  }
  // CHECK: stage.matvec weight(%{{.*}} : memref<96x4xvector<4xi32>>) expert(%{{.*}} : memref<1xi32>) row_scale(%{{.*}} : memref<96xf32>) col_scale(%{{.*}} : memref<208xf32>) input
  // CHECK-SAME: experts = 4
  stage.dispatch "expert_q8" {
    stage.matvec weight(%wq : memref<96x4xvector<4xi32>>) expert(%sel : memref<1xi32>) row_scale(%s : memref<96xf32>)
        col_scale(%t : memref<208xf32>) input(%x : memref<52xf32>) out(%y : memref<24xf32>)
        {experts = 4 : i64, format = #stage.format<q8_2f>}
  }
  // CHECK: stage.matvec weight(%{{.*}} : memref<96x7xvector<4xi32>>) expert(%{{.*}} : memref<1xi32>) input
  // CHECK-SAME: experts = 4
  stage.dispatch "expert_f16" {
    stage.matvec weight(%wh : memref<96x7xvector<4xi32>>) expert(%sel : memref<1xi32>) input(%x : memref<52xf32>)
        out(%y : memref<24xf32>) {accumulate, experts = 4 : i64, format = #stage.format<f16>}
  }
  return
}
