// REQUIRES: compiler
// RUN: kiln-opt --convert-kiln-to-stage=prefill-rows=4 --kiln-plan-memory --convert-stage-to-gpu="prefill-matmat-min-blocks=1 prefill-matmat-cooperative=1" %examples/embryo-tiny.mlir | FileCheck %s
// RUN: kiln-opt --convert-kiln-to-stage=prefill-rows=4 --kiln-plan-memory --convert-stage-to-gpu="prefill-matmat-min-blocks=1" %examples/embryo-tiny.mlir | FileCheck %s --check-prefix=FMA

// A @prefill blocked product on cooperative matrices (CooperativeMatMat.cpp): 128
// threads (4 subgroups of 32, recorded as the subgroup size the kernel needs) a block
// of 64 call rows x 128 weight rows; embryo-tiny's 68-row GDN projection is one block,
// a routed expert's product (4 experts of 96 rows) a block an expert.
// CHECK: gpu.launch_func  @kiln_kernels::@layers_0_gdn_qkv_1 blocks in (%c1{{[_0-9]*}}, %{{.*}}) threads in (%c128{{[_0-9]*}}, %{{.*}})
// CHECK: gpu.launch_func  @kiln_kernels::@layers_1_moe_experts___gate_1 blocks in (%c4{{[_0-9]*}}, %{{.*}}) threads in (%c128{{[_0-9]*}}, %{{.*}})

// Workgroup memory: the activations' two f16 halves and the weights as f16, 64, 64 and
// 128 rows of 40 halves (a step of 32 columns and 8 of padding), and two 16 x 8 f32
// tiles a subgroup for the outputs (the hi and the lo products).
// CHECK-LABEL: gpu.func @layers_0_gdn_qkv_1(
// CHECK-SAME: workgroup(%[[HI:[a-z0-9]+]] : memref<2560xf16, #gpu.address_space<workgroup>>, %[[LO:[a-z0-9]+]] : memref<2560xf16, #gpu.address_space<workgroup>>, %[[W:[a-z0-9]+]] : memref<5120xf16, #gpu.address_space<workgroup>>, %[[OUT:[a-z0-9]+]] : memref<1024xf32, #gpu.address_space<workgroup>>)
// CHECK-SAME: kernel attributes {kiln.cooperative_matrix, kiln.required_subgroup_size = 32 : i32, known_block_size = array<i32: 128, 1, 1>}
// CHECK: gpu.subgroup_id
// CHECK: gpu.lane_id
// 16 accumulators of 16 call rows x 8 weight rows a subgroup, and 16 for the lo half.
// CHECK: %[[ZERO:[0-9]+]] = gpu.subgroup_mma_constant_matrix %{{.*}} : !gpu.mma_matrix<16x8xf32, "COp">
// A step: the weights as f16, then the activation's halves stored (x carried from the
// step before): hi = x with its mantissa cut to 10 bits (a mask), lo = 2^11 (x - hi).
// CHECK: scf.for
// CHECK: memref.store %{{.*}}, %[[W]]
// CHECK: %[[BITS:[0-9]+]] = arith.bitcast %[[X:arg[0-9]+]] : f32 to i32
// CHECK-NEXT: %[[MASK:[a-z0-9_-]+]] = arith.constant -8192 : i32
// CHECK-NEXT: %[[CUT:[0-9]+]] = arith.andi %[[BITS]], %[[MASK]] : i32
// CHECK-NEXT: %[[HIGH:[0-9]+]] = arith.bitcast %[[CUT]] : i32 to f32
// CHECK-NEXT: %[[H:[0-9]+]] = arith.truncf %[[HIGH]] : f32 to f16
// CHECK-NEXT: memref.store %[[H]], %[[HI]]
// CHECK-NEXT: %[[REST:[0-9]+]] = arith.subf %[[X]], %[[HIGH]] : f32
// CHECK-NEXT: %[[SCALE:[a-z0-9_]+]] = arith.constant 2.048000e+03 : f32
// CHECK-NEXT: %[[UP:[0-9]+]] = arith.mulf %[[REST]], %[[SCALE]] : f32
// CHECK-NEXT: %[[L:[0-9]+]] = arith.truncf %[[UP]] : f32 to f16
// CHECK-NEXT: memref.store %[[L]], %[[LO]]
// CHECK: gpu.barrier
// ... then B (the weight rows, B's columns: transposed) and A from each half.
// CHECK: gpu.subgroup_mma_load_matrix %[[W]][%{{.*}}] {leadDimension = 40 : index, transpose} : memref<5120xf16, #gpu.address_space<workgroup>> -> !gpu.mma_matrix<16x8xf16, "BOp">
// CHECK: gpu.subgroup_mma_load_matrix %[[HI]][%{{.*}}] {leadDimension = 40 : index} : memref<2560xf16, #gpu.address_space<workgroup>> -> !gpu.mma_matrix<16x16xf16, "AOp">
// CHECK: gpu.subgroup_mma_compute {{.*}} : !gpu.mma_matrix<16x16xf16, "AOp">, !gpu.mma_matrix<16x8xf16, "BOp"> -> !gpu.mma_matrix<16x8xf32, "COp">
// CHECK: gpu.subgroup_mma_load_matrix %[[LO]][%{{.*}}] {leadDimension = 40 : index} : memref<2560xf16, #gpu.address_space<workgroup>> -> !gpu.mma_matrix<16x16xf16, "AOp">
// CHECK: gpu.barrier
// CHECK: scf.yield
// Each accumulator and its lo through the subgroup's tiles; hi + lo / 2^11 stored where
// inside the call and matrix.
// CHECK: gpu.subgroup_mma_store_matrix %{{.*}}, %[[OUT]][%{{.*}}] {leadDimension = 8 : index} : !gpu.mma_matrix<16x8xf32, "COp">, memref<1024xf32, #gpu.address_space<workgroup>>
// CHECK: gpu.subgroup_mma_store_matrix %{{.*}}, %[[OUT]][%{{.*}}] {leadDimension = 8 : index} : !gpu.mma_matrix<16x8xf32, "COp">, memref<1024xf32, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK: %[[SUM:[0-9]+]] = memref.load %[[OUT]]
// CHECK: %[[LOW:[0-9]+]] = memref.load %[[OUT]]
// CHECK: %[[BACK:[0-9]+]] = arith.mulf %[[LOW]], %{{.*}} : f32
// CHECK: arith.addf %[[SUM]], %[[BACK]] : f32
// CHECK-LABEL: gpu.func @layers_0_gdn_z_1(

// A routed expert's block lists its call rows (i32 workgroup memory: 64 listed rows, a
// count a thread) before its steps.
// CHECK-LABEL: gpu.func @layers_1_moe_experts___gate_1(
// CHECK-SAME: memref<64xi32, #gpu.address_space<workgroup>>, %{{.*}} : memref<128xi32, #gpu.address_space<workgroup>>)
// CHECK-SAME: kiln.cooperative_matrix
// CHECK: gpu.subgroup_mma_compute

// Without the option, the product's f32 tiles: no matrix unit, no subgroup size.
// FMA-LABEL: gpu.func @layers_0_gdn_qkv_1(
// FMA-NOT: kiln.required_subgroup_size
// FMA-NOT: gpu.subgroup_mma
// FMA: gpu.return
