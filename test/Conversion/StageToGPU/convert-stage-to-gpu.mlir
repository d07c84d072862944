// REQUIRES: compiler
// RUN: kiln-opt %s --convert-stage-to-gpu --split-input-file | FileCheck %s
// RUN: kiln-opt %s --convert-stage-to-gpu="reduce-workgroup-size=16" --split-input-file | FileCheck %s --check-prefix=CAP16
// RUN: kiln-opt %s --convert-stage-to-gpu="vector-activations=false" --split-input-file | FileCheck %s --check-prefix=SCALAR

// One mat-vec: a workgroup per 4 rows (72 rows, 18 workgroups) whose
// threads walk the rows' 25 16-byte groups side by side (25 / 4 groups a
// thread, at least 32 threads), then reduce the 4 sums at once (4 x 32
// slots); the dispatch becomes a launch whose operands are the
// kernel's bindings. The reduce-workgroup-size option caps the threads.
// CHECK-LABEL: func.func @matvec
// CHECK-NOT: stage.dispatch
// CHECK: gpu.launch_func @kiln_kernels::@proj blocks in (%c18, %{{.*}}, %{{.*}}) threads in (%c32, %{{.*}}, %{{.*}}) args(%arg0 : memref<72x25xvector<4xi32>>, %arg1 : memref<200xf32>, %arg2 : memref<72xf32>)
// CHECK: gpu.module @kiln_kernels
// CHECK: gpu.func @proj(%{{.*}}: memref<72x25xvector<4xi32>>, %{{.*}}: memref<200xf32>, %{{.*}}: memref<72xf32>) workgroup(%{{.*}} : memref<128xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 32, 1, 1>}
// CHECK: scf.for
// CHECK: memref.load %{{.*}} : memref<72x25xvector<4xi32>>
// CHECK: vector.reduction <add>
// CHECK: gpu.barrier
// CAP16-LABEL: func.func @matvec
// CAP16: known_block_size = array<i32: 16, 1, 1>
module {
func.func @matvec(%w: memref<72x25xvector<4xi32>>, %x: memref<200xf32>, %y: memref<72xf32>) {
  stage.dispatch "proj" {
    stage.matvec weight(%w : memref<72x25xvector<4xi32>>) input(%x : memref<200xf32>) out(%y : memref<72xf32>) {format = #stage.format<f16>}
  }
  return
}
}

// -----

// A normed mat-vec reads its input and norm weight four columns a load
// through second bindings of their buffers, memref<50xvector<4xf32>>, which
// the host function gets as arguments of its own (vector-activations; off,
// one f32 a load); a plain input (@matvec above) keeps f32 loads.
// CHECK-LABEL: func.func @matvec_views
// CHECK-SAME: %arg4: memref<50xvector<4xf32>>, %arg5: memref<50xvector<4xf32>>)
// CHECK: gpu.launch_func @kiln_kernels::@normed {{.*}} args(%arg0 : memref<72x25xvector<4xi32>>, %arg1 : memref<200xf32>, %arg2 : memref<200xf32>, %arg3 : memref<72xf32>, %arg4 : memref<50xvector<4xf32>>, %arg5 : memref<50xvector<4xf32>>)
// CHECK: gpu.func @normed(%{{.*}}: memref<72x25xvector<4xi32>>, %{{.*}}: memref<200xf32>, %{{.*}}: memref<200xf32>, %{{.*}}: memref<72xf32>, %[[X:.*]]: memref<50xvector<4xf32>>, %[[N:.*]]: memref<50xvector<4xf32>>)
// CHECK: scf.for
// CHECK: memref.load %{{.*}} : memref<72x25xvector<4xi32>>
// CHECK: memref.load %[[X]][%{{.*}}] : memref<50xvector<4xf32>>
// CHECK: memref.load %[[N]][%{{.*}}] : memref<50xvector<4xf32>>
// CHECK: vector.shuffle %{{.*}}, %{{.*}} [0, 2, 4, 6]
// CHECK: vector.shuffle %{{.*}}, %{{.*}} [1, 3, 5, 7]
// SCALAR-LABEL: func.func @matvec_views
// SCALAR-SAME: %arg3: memref<72xf32>) {
// SCALAR-NOT: xvector<4xf32>>
// SCALAR: gpu.func @normed(
// SCALAR-NOT: xvector<4xf32>>
// SCALAR: gpu.return
module {
func.func @matvec_views(%w: memref<72x25xvector<4xi32>>, %x: memref<200xf32>, %n: memref<200xf32>, %y: memref<72xf32>) {
  stage.dispatch "normed" {
    stage.matvec weight(%w : memref<72x25xvector<4xi32>>) input(%x : memref<200xf32>) norm(%n : memref<200xf32>) out(%y : memref<72xf32>) {format = #stage.format<f16>, norm_eps = 1.0e-06 : f32}
  }
  return
}
}

// -----

// No vector view where the columns do not fill the last 16-byte group (196
// columns: 24.5 groups), nor of a buffer the kernel writes (the norm's output,
// read by the mat-vec after it in the same workgroup).
// CHECK-LABEL: func.func @no_views
// CHECK-NOT: vector<4xf32>>
// CHECK: gpu.launch_func @kiln_kernels::@ragged
// CHECK-NOT: vector<4xf32>>
// CHECK: gpu.launch_func @kiln_kernels::@written
// CHECK-NOT: xvector<4xf32>>
// CHECK: gpu.module
module {
func.func @no_views(%w: memref<72x25xvector<4xi32>>, %x: memref<196xf32>, %xn: memref<196xf32>,
                    %y: memref<72xf32>, %h: memref<200xf32>, %nw: memref<200xf32>,
                    %n: memref<200xf32>) {
  stage.dispatch "ragged" {
    stage.matvec weight(%w : memref<72x25xvector<4xi32>>) input(%x : memref<196xf32>) norm(%xn : memref<196xf32>) out(%y : memref<72xf32>) {format = #stage.format<f16>, norm_eps = 1.0e-06 : f32}
  }
  stage.dispatch "written" attributes {fusion = "one_workgroup"} {
    stage.rmsnorm residual(%h : memref<200xf32>) weight(%nw : memref<200xf32>) outs(%n : memref<200xf32>) {eps = 1.0e-06 : f32}
    stage.matvec weight(%w : memref<72x25xvector<4xi32>>) input(%n : memref<200xf32>) norm(%nw : memref<200xf32>) out(%y : memref<72xf32>) {format = #stage.format<f16>, norm_eps = 1.0e-06 : f32}
  }
  return
}
}

// -----

// Two single-workgroup stages fuse into one kernel: a barrier separates them,
// the reductions share one workgroup attribution as wide as the widest (three
// values x 256 threads), and each buffer binds once.
// CHECK-LABEL: func.func @fused
// CHECK: gpu.launch_func @kiln_kernels::@tail {{.*}} args(%arg0 : memref<52xf32>, %arg1 : memref<52xf32>, %arg2 : memref<52xf32>, %arg3 : memref<3x52xf32>, %arg4 : memref<3xf32>)
// CHECK: gpu.func @tail({{.*}}) workgroup(%{{.*}} : memref<768xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 256, 1, 1>}
// CHECK: gpu.barrier
// CHECK: math.rsqrt
// CHECK: gpu.barrier
// CHECK: memref.store {{.*}} : memref<3xf32>
module {
func.func @fused(%h: memref<52xf32>, %w: memref<52xf32>, %x: memref<52xf32>, %c: memref<3x52xf32>, %lc: memref<3xf32>) {
  stage.dispatch "tail" attributes {fusion = "one_workgroup"} {
    stage.rmsnorm residual(%h : memref<52xf32>) weight(%w : memref<52xf32>) outs(%x : memref<52xf32>) {eps = 1.0e-06 : f32}
    stage.cluster_logits input(%x : memref<52xf32>) clusters(%c : memref<3x52xf32>) out(%lc : memref<3xf32>)
  }
  return
}
}

// -----

// The target allows subgroup arithmetic: reductions go through
// gpu.subgroup_reduce and read the subgroup id and count at run time.
// CHECK-LABEL: func.func @subgroups
// CHECK: gpu.func @norm
// CHECK: gpu.subgroup_reduce add
// CHECK: gpu.subgroup_id
// CHECK: gpu.num_subgroups
module attributes {spirv.target_env = #spirv.target_env<#spirv.vce<v1.3, [Shader, GroupNonUniform, GroupNonUniformArithmetic], []>, #spirv.resource_limits<>>} {
func.func @subgroups(%h: memref<52xf32>, %w: memref<52xf32>, %x: memref<52xf32>) {
  stage.dispatch "norm" {
    stage.rmsnorm residual(%h : memref<52xf32>) weight(%w : memref<52xf32>) outs(%x : memref<52xf32>) {eps = 1.0e-06 : f32}
  }
  return
}
}

// -----

// Unnamed dispatches get numbered names. Key scores launch a workgroup per
// (head, block of keys): 3 heads x 1 block of 8 keys; attention a workgroup
// per (head, 16 dims): 3 heads x 1 slice.
// CHECK-LABEL: func.func @names
// CHECK: gpu.launch_func @kiln_kernels::@dispatch_0 blocks in (%c3, %{{.*}}, %{{.*}})
// CHECK: gpu.launch_func @kiln_kernels::@dispatch_1 blocks in (%c3{{(_[0-9]+)?}}, %{{.*}}, %{{.*}})
// CHECK: gpu.func @dispatch_0
// CHECK: gpu.block_id x
module {
func.func @names(%qr: memref<48xf32>, %kr: memref<1x8x16xf32>, %p: memref<4xi32>, %o: memref<48xf32>, %s: memref<3x8xf32>) {
  stage.dispatch {
    stage.key_scores q(%qr : memref<48xf32>) k_ring(%kr : memref<1x8x16xf32>) params(%p : memref<4xi32>) scores(%s : memref<3x8xf32>) {scale = 0.25 : f32}
  }
  stage.dispatch {
    stage.attention scores(%s : memref<3x8xf32>) v_ring(%kr : memref<1x8x16xf32>) params(%p : memref<4xi32>) out(%o : memref<48xf32>)
  }
  return
}
}

// -----

// A routed expert: the kernel reads the router's word once, clamps it to the
// last of the 4 candidates, and offsets the weight row and the q8_2f scales
// by e·R and e·C; the column field multiplies the input inside the kernel.
// 96 rows of one expert, 8 a workgroup (q8_2f's default): 12 workgroups.
// CHECK-LABEL: func.func @matvec_expert
// CHECK: gpu.launch_func @kiln_kernels::@expert_gate blocks in (%c12, %{{.*}}, %{{.*}}) threads in (%{{.*}}, %{{.*}}, %{{.*}}) args(%arg0 : memref<384x5xvector<4xi32>>, %arg1 : memref<1xi32>, %arg2 : memref<384xf32>, %arg3 : memref<288xf32>, %arg4 : memref<72xf32>, %arg5 : memref<96xf32>)
// CHECK: gpu.func @expert_gate(
// CHECK: %[[WORD:.*]] = memref.load %{{.*}}[%{{.*}}] : memref<1xi32>
// CHECK: %[[E:.*]] = arith.index_castui %[[WORD]] : i32 to index
// CHECK: arith.minui %[[E]], %{{.*}} : index
// CHECK: memref.load %{{.*}} : memref<384x5xvector<4xi32>>
// CHECK: memref.load %{{.*}} : memref<288xf32>
// CHECK: memref.load %{{.*}} : memref<384xf32>
module {
func.func @matvec_expert(%w: memref<384x5xvector<4xi32>>, %sel: memref<1xi32>, %s: memref<384xf32>, %t: memref<288xf32>,
                         %x: memref<72xf32>, %y: memref<96xf32>) {
  stage.dispatch "expert_gate" {
    stage.matvec weight(%w : memref<384x5xvector<4xi32>>) expert(%sel : memref<1xi32>) row_scale(%s : memref<384xf32>)
        col_scale(%t : memref<288xf32>) input(%x : memref<72xf32>) out(%y : memref<96xf32>)
        {experts = 4 : i64, format = #stage.format<q8_2f>}
  }
  return
}
}

// -----

// Pointwise: the stages' own grid (200 values: 4 workgroups of 64), thread i
// computes element i of each stage in order, no barrier between them.
// CHECK-LABEL: func.func @pointwise
// CHECK: gpu.launch_func @kiln_kernels::@scale__act blocks in (%c4, %{{.*}}, %{{.*}}) threads in (%c64, %{{.*}}, %{{.*}})
// CHECK: gpu.func @scale__act(
// CHECK-NOT: gpu.barrier
// CHECK: arith.mulf
// CHECK-NOT: gpu.barrier
// CHECK: math.exp
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
module {
func.func @pointwise(%g: memref<200xf32>, %s: memref<200xf32>, %gs: memref<200xf32>, %u: memref<200xf32>, %z: memref<200xf32>) {
  stage.dispatch "scale__act" attributes {fusion = "pointwise"} {
    stage.mul ins(%g, %s : memref<200xf32>, memref<200xf32>) out(%gs : memref<200xf32>)
    stage.silu_mul ins(%gs, %u : memref<200xf32>, memref<200xf32>) out(%z : memref<200xf32>)
  }
  return
}
}

// -----

// One workgroup of elementwise stages only: the reducing width (256 threads),
// not the elementwise one (64), walks the values: 1 iteration of 256 per stage.
// CHECK-LABEL: func.func @one_workgroup_elementwise
// CHECK: gpu.launch_func @kiln_kernels::@chain blocks in (%c1{{.*}}, %{{.*}}, %{{.*}}) threads in (%c256, %{{.*}}, %{{.*}})
// CHECK: gpu.func @chain({{.*}}) kernel attributes {known_block_size = array<i32: 256, 1, 1>}
// CHECK: gpu.barrier
module {
func.func @one_workgroup_elementwise(%g: memref<200xf32>, %s: memref<200xf32>, %gs: memref<200xf32>, %u: memref<200xf32>, %z: memref<200xf32>) {
  stage.dispatch "chain" attributes {fusion = "one_workgroup"} {
    stage.mul ins(%g, %s : memref<200xf32>, memref<200xf32>) out(%gs : memref<200xf32>)
    stage.silu_mul ins(%gs, %u : memref<200xf32>, memref<200xf32>) out(%z : memref<200xf32>)
  }
  return
}
}

// -----

// Row epilogue: a workgroup per 4 rows (24), computing their gate and up rows
// in one pass over the shared input (8 loads in flight, one reduction of 8
// sums in 8 x 32 slots), then thread r alone computes silu(g)·u for row r.
// CHECK-LABEL: func.func @row_epilogue
// CHECK: gpu.launch_func @kiln_kernels::@gate__up__act blocks in (%c24, %{{.*}}, %{{.*}})
// CHECK: gpu.func @gate__up__act({{.*}}) workgroup(%{{.*}} : memref<256xf32, #gpu.address_space<workgroup>>)
// CHECK: scf.for
// CHECK-COUNT-8: memref.load {{.*}} : memref<96x8xvector<4xi32>>
// CHECK: gpu.barrier
// CHECK: memref.store {{.*}} : memref<96xf32>
// CHECK-NOT: gpu.barrier
// CHECK: memref.store {{.*}} : memref<96xf32>
// CHECK: arith.cmpi ult, %thread_id_x
// CHECK: scf.if
// CHECK: math.exp
// CHECK: memref.store {{.*}} : memref<96xf32>
module {
func.func @row_epilogue(%x: memref<64xf32>, %m1: memref<96x8xvector<4xi32>>, %g: memref<96xf32>,
                        %m2: memref<96x8xvector<4xi32>>, %u: memref<96xf32>, %z: memref<96xf32>) {
  stage.dispatch "gate__up__act" attributes {fusion = "row_epilogue"} {
    stage.matvec weight(%m1 : memref<96x8xvector<4xi32>>) input(%x : memref<64xf32>) out(%g : memref<96xf32>) {format = #stage.format<f16>}
    stage.matvec weight(%m2 : memref<96x8xvector<4xi32>>) input(%x : memref<64xf32>) out(%u : memref<96xf32>) {format = #stage.format<f16>}
    stage.silu_mul ins(%g, %u : memref<96xf32>, memref<96xf32>) out(%z : memref<96xf32>)
  }
  return
}
}

// -----

// A concurrent member may carry a row epilogue: qkv's rows (24 workgroups of
// 4 rows) each run the conv for their channel in the row's thread, beside z's
// rows (8 workgroups): one grid of 32.
// CHECK-LABEL: func.func @concurrent_row_epilogue
// CHECK: gpu.launch_func @kiln_kernels::@qkv__z__conv blocks in (%c32, %{{.*}}, %{{.*}})
// CHECK: gpu.func @qkv__z__conv(
// CHECK: arith.cmpi ult, %thread_id_x
// CHECK: scf.if
// CHECK: memref.load {{.*}} : memref<3x96xf32>
// CHECK: math.exp
// CHECK: memref.store {{.*}} : memref<3x96xf32>
module {
func.func @concurrent_row_epilogue(%x: memref<64xf32>, %m1: memref<96x8xvector<4xi32>>, %qkv: memref<96xf32>,
                                   %m2: memref<32x8xvector<4xi32>>, %z: memref<32xf32>,
                                   %taps: memref<96x4xf32>, %ring: memref<3x96xf32>, %c: memref<96xf32>) {
  stage.dispatch "qkv__z__conv" attributes {fusion = "concurrent"} {
    stage.matvec weight(%m1 : memref<96x8xvector<4xi32>>) input(%x : memref<64xf32>) out(%qkv : memref<96xf32>) {format = #stage.format<f16>}
    stage.matvec weight(%m2 : memref<32x8xvector<4xi32>>) input(%x : memref<64xf32>) out(%z : memref<32xf32>) {format = #stage.format<f16>}
    stage.conv_ring input(%qkv : memref<96xf32>) taps(%taps : memref<96x4xf32>) ring(%ring : memref<3x96xf32>) out(%c : memref<96xf32>)
  }
  return
}
}
