// REQUIRES: compiler
// RUN: kiln-opt --convert-kiln-to-stage=prefill-rows=4 --kiln-plan-memory --convert-stage-to-gpu="prefill-matmat-min-blocks=1 prefill-gdn-held=1" %examples/embryo-tiny.mlir | FileCheck %s
// RUN: kiln-opt --convert-kiln-to-stage=prefill-rows=4 --kiln-plan-memory --convert-stage-to-gpu %examples/embryo-tiny.mlir | FileCheck %s --check-prefix=APART

// The kernels of a multi-row program (lib/Conversion/StageToGPU/Rows.h), embryo-tiny's
// @prefill of 4 rows a call. An activation binds whole (memref<4 x its type>, a host
// argument of the same placement), every kernel binds the params block (row count in
// word 8, the rows' tokens from word 9).

// Rows apart: a grid of (row, the stage's own workgroups); a row past the call's count
// returns; the row's token is params word 9 + row.
// CHECK: func.func @prefill(
// CHECK: gpu.launch_func  @kiln_kernels::@embed_1 blocks in (%c4, %{{.*}}) threads in (%c64, %{{.*}})  args(%{{.*}} : memref<256x9xvector<4xi32>>, %{{.*}} : memref<13xi32>, %{{.*}} : memref<4x72xf32>)
// A plain mat-vec runs its call rows together: a grid of blocks of 64 weight rows x 64
// call rows (68 rows: 2 blocks).
// CHECK: gpu.launch_func  @kiln_kernels::@layers_0_gdn_qkv_1 blocks in (%c2, %{{.*}}) threads in (%c256{{[_0-9]*}}, %{{.*}})  args(%{{.*}} : memref<68x5xvector<4xi32>>, %{{.*}} : memref<68xf32>, %{{.*}} : memref<4x72xf32>, %{{.*}} : memref<4x68xf32>, %{{.*}} : memref<13xi32>)
// CHECK: gpu.launch_func  @kiln_kernels::@layers_0_gdn_conv_ring_1 blocks in (%c2{{[_0-9]*}}, %{{.*}}) {{.*}} args(%{{.*}} : memref<4x68xf32>, %{{.*}} : memref<68x4xf32>, %{{.*}} : memref<3x68xf32>, %{{.*}} : memref<4x68xf32>, %{{.*}} : memref<13xi32>)
// CHECK: gpu.launch_func  @kiln_kernels::@layers_1_moe_experts___gate_1 blocks in (%c8{{[_0-9]*}}, %{{.*}}) threads in (%c256{{[_0-9]*}}, %{{.*}})  args(%{{.*}} : memref<384x5xvector<4xi32>>, %{{.*}} : memref<4x1xi32>,

// CHECK-LABEL: gpu.func @embed_1(
// CHECK-SAME: %[[P:[a-z0-9]+]]: memref<13xi32>, %[[OUT:[a-z0-9]+]]: memref<4x72xf32>)
// CHECK: %[[COUNT:[0-9]+]] = arith.index_castui
// CHECK: %[[ROW:[a-z_0-9]+]] = gpu.block_id  x
// CHECK: %[[OWN:[a-z_0-9]+]] = gpu.block_id  y
// CHECK: %[[LIVE:[0-9]+]] = arith.cmpi ult, %[[ROW]], %[[COUNT]] : index
// CHECK: scf.if %[[LIVE]] {
// CHECK: %[[WORD:[0-9]+]] = arith.addi %c9{{.*}}, %[[ROW]] : index
// CHECK: memref.load %[[P]][%[[WORD]]] : memref<13xi32>
// CHECK: memref.store %{{.*}}, %[[OUT]][%[[ROW]], %{{.*}}] : memref<4x72xf32>

// Together (embryo-tiny's GDN projections are q8_2f): the block's weights decoded and
// its call rows' activations copied into workgroup memory a step of 32 columns at a
// time, four weight rows (32 columns x 16 quads) and four call rows (32 columns x 17:
// 16 quads and a pad) to a vec4; the next step's loads are issued before this step's
// products (carried in registers); each thread multiplies a vec4 of weights by each of
// its four call rows (fused multiply-adds) and stores (call row, weight row).
// CHECK-LABEL: gpu.func @layers_0_gdn_qkv_1(
// CHECK-SAME: %[[IN:[a-z0-9]+]]: memref<4x72xf32>, %[[Y:[a-z0-9]+]]: memref<4x68xf32>, %{{.*}}: memref<13xi32>) workgroup(%[[W:[a-z0-9]+]] : memref<512xvector<4xf32>, #gpu.address_space<workgroup>>, %[[A:[a-z0-9]+]] : memref<544xvector<4xf32>, #gpu.address_space<workgroup>>)
// CHECK: memref.load %[[IN]][%{{.*}}, %{{.*}}] : memref<4x72xf32>
// CHECK: scf.for
// CHECK: arith.shrsi
// CHECK: memref.store %{{.*}}, %[[W]][%{{.*}}] : memref<512xvector<4xf32>, #gpu.address_space<workgroup>>
// CHECK: memref.store %{{.*}}, %[[A]][%{{.*}}] : memref<544xvector<4xf32>, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK: memref.load %[[IN]][%{{.*}}, %{{.*}}] : memref<4x72xf32>
// CHECK: memref.load %[[A]][%{{.*}}] : memref<544xvector<4xf32>, #gpu.address_space<workgroup>>
// CHECK: memref.load %[[W]][%{{.*}}] : memref<512xvector<4xf32>, #gpu.address_space<workgroup>>
// CHECK: math.fma %{{.*}} : vector<4xf32>
// CHECK: gpu.barrier
// CHECK: memref.store %{{.*}}, %[[Y]][%{{.*}}, %{{.*}}] : memref<4x68xf32>

// In order: the conv ring's own grid walks the rows, a barrier between them.
// CHECK-LABEL: gpu.func @layers_0_gdn_conv_ring_1(
// CHECK: scf.for %[[R:[a-z0-9]+]] = %c0{{.*}} to %{{.*}} step %c1
// CHECK: memref.load %{{.*}}[%[[R]], %{{.*}}] : memref<4x68xf32>
// CHECK: gpu.barrier

// With the defaults (a matrix product needs 8 blocks), embryo-tiny's 68-row projection
// (2 blocks) runs its call rows apart: a workgroup per (call row, item of 8 rows).
// APART: func.func @prefill(
// APART: gpu.launch_func  @kiln_kernels::@layers_0_gdn_qkv_1 blocks in (%c4{{[_0-9]*}}, %c9{{[_0-9]*}}, %{{.*}})

// The GDN step holds a head's state across the call's rows (GdnRows.cpp): each thread
// loads its state cells once, carries them through the loop over the call's rows, and
// stores them once after it.
// CHECK-LABEL: gpu.func @layers_0_gdn_state_1(
// CHECK: %[[CELL:[0-9]+]] = memref.load %{{.*}}[%block_id_x, %{{.*}}, %{{.*}}] : memref<3x16x12xf32>
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %[[CELL]]) -> (f32)
// CHECK-NOT: memref.load %{{.*}} : memref<3x16x12xf32>
// CHECK: memref.store %{{[0-9]+}}, %{{.*}}[%block_id_x, %{{.*}}, %{{.*}}] : memref<3x16x12xf32>
// CHECK: gpu.return

// A routed expert's product (embryo-tiny, q8_2f: 4 experts of 96 rows, so 4 x 2 blocks
// of weight rows for the call's block of rows): each block counts the call rows routed
// to its expert (a count a thread in workgroup memory, a barrier, their prefix), lists
// its block of them, and reads each listed row's activations times the expert's column
// scale; its weight rows start at the expert's.
// CHECK-LABEL: gpu.func @layers_1_moe_experts___gate_1(
// CHECK-SAME: %[[EW:[a-z0-9]+]]: memref<384x5xvector<4xi32>>, %[[ROUTE:[a-z0-9]+]]: memref<4x1xi32>, %{{.*}}: memref<384xf32>, %[[COLS:[a-z0-9]+]]: memref<288xf32>, %[[EIN:[a-z0-9]+]]: memref<4x72xf32>
// CHECK-SAME: %[[LIST:[a-z0-9]+]] : memref<64xi32, #gpu.address_space<workgroup>>, %[[COUNTS:[a-z0-9]+]] : memref<256xi32, #gpu.address_space<workgroup>>
// CHECK: memref.load %[[ROUTE]][%{{.*}}, %{{.*}}] : memref<4x1xi32>
// CHECK: memref.store %{{.*}}, %[[COUNTS]][%{{.*}}] : memref<256xi32, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK: memref.load %[[COUNTS]][%{{.*}}] : memref<256xi32, #gpu.address_space<workgroup>>
// CHECK: memref.store %{{.*}}, %[[LIST]][%{{.*}}] : memref<64xi32, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK: memref.load %[[EW]][%{{.*}}, %{{.*}}] : memref<384x5xvector<4xi32>>
// CHECK: memref.load %[[COLS]][%{{.*}}] : memref<288xf32>
// CHECK: memref.load %[[LIST]][%{{.*}}] : memref<64xi32, #gpu.address_space<workgroup>>
// CHECK: memref.load %[[EIN]][%{{.*}}, %{{.*}}] : memref<4x72xf32>
