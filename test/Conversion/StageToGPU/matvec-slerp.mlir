// REQUIRES: compiler
// convert-stage-to-gpu: mat-vecs that take Dory's slerp (gate and up, one
// row epilogue) reduce the five sums of h, o and alpha in one workgroup
// reduction, once for both (they share the slerp), form the two factors
// (three rsqrt: |h|, |o|, |y|), and the one with hidden_out writes the new h
// in the workgroup of item 0, before the dot loop; the dot loop forms the new
// h four columns at a time from vector<4xf32> views of h, o and alpha. The
// plain kernel has none of it.
// RUN: kiln-opt %s --convert-stage-to-gpu | FileCheck %s
// matvec-slerp-after-dots: no reduction before the dot loop; the loop carries
// two vec4 sums a row (the row dotted with u and with w: 2 mat-vecs x 4 rows
// x 2) and the five slerp sums once for both (f32); one closing reduction of
// 16 + 5 values; three rsqrt after it; the new h stored by item 0's workgroup
// after the reduction. u, w and the five sums come from the vector views.
// RUN: kiln-opt %s --convert-stage-to-gpu="matvec-slerp-after-dots=true" | FileCheck %s --check-prefix=AFTER
// AFTER-LABEL: gpu.func @gate__up__act({{.*}}: memref<16xvector<4xf32>>, %{{.*}}: memref<16xvector<4xf32>>, %{{.*}}: memref<16xvector<4xf32>>)
// AFTER-NOT: gpu.subgroup_reduce
// AFTER-NOT: math.rsqrt
// AFTER: scf.for {{.*}} -> (vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, f32, f32, f32, f32, f32)
// AFTER: memref.load %{{.*}} : memref<16xvector<4xf32>>
// AFTER-COUNT-21: gpu.subgroup_reduce add
// AFTER-NOT: gpu.subgroup_reduce
// AFTER-COUNT-3: math.rsqrt
// AFTER-NOT: math.rsqrt
// AFTER: scf.if
// AFTER: memref.store {{.*}} : memref<64xf32>
// AFTER: gpu.return

// max-workgroup-memory-bytes: after the dots gate__up__act reduces 21 values
// in one 21 x 32-float buffer (2,688 bytes; the kernel's reductions share it);
// under a 2,048-byte limit it is built with the sums before the dots (8 x 32
// floats), and a limit below that is an error naming the kernel.
// RUN: kiln-opt %s --convert-stage-to-gpu="matvec-slerp-after-dots=true max-workgroup-memory-bytes=2688" | FileCheck %s --check-prefix=FITS
// FITS: gpu.func @gate__up__act({{.*}}) workgroup(%{{.*}} : memref<672xf32, #gpu.address_space<workgroup>>) kernel
// RUN: kiln-opt %s --convert-stage-to-gpu="matvec-slerp-after-dots=true max-workgroup-memory-bytes=2048" | FileCheck %s --check-prefix=NARROWED
// NARROWED: gpu.func @gate__up__act({{.*}}) workgroup(%{{.*}} : memref<256xf32, #gpu.address_space<workgroup>>) kernel
// NARROWED-COUNT-5: gpu.subgroup_reduce add
// NARROWED: scf.for
// RUN: not kiln-opt %s --convert-stage-to-gpu="max-workgroup-memory-bytes=1000" 2>&1 | FileCheck %s --check-prefix=TOO-SMALL
// TOO-SMALL: error: 'stage.dispatch' op kernel 'gate__up__act' needs 1024 bytes of workgroup memory; the target allows 1000 (max_shared_memory_bytes)

// CHECK-LABEL: gpu.func @gate__up__act({{.*}}: memref<16xvector<4xf32>>, %{{.*}}: memref<16xvector<4xf32>>, %{{.*}}: memref<16xvector<4xf32>>)
// CHECK-COUNT-5: gpu.subgroup_reduce add
// CHECK-NOT: gpu.subgroup_reduce
// CHECK-COUNT-3: math.rsqrt
// CHECK-NOT: math.rsqrt
// CHECK: scf.if
// CHECK: memref.store {{.*}} : memref<64xf32>
// CHECK: scf.for {{.*}} -> (vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>)
// CHECK: memref.load %{{.*}} : memref<16xvector<4xf32>>
// CHECK-NOT: math.rsqrt
// CHECK: gpu.return
// CHECK-LABEL: gpu.func @plain(
// CHECK-NOT: math.rsqrt
// CHECK: gpu.return
module attributes {spirv.target_env = #spirv.target_env<#spirv.vce<v1.3, [Shader, GroupNonUniform, GroupNonUniformArithmetic], []>, #spirv.resource_limits<>>} {
func.func @row_epilogue(%h: memref<64xf32>, %o: memref<64xf32>, %a: memref<64xf32>, %next: memref<64xf32>,
                        %m1: memref<96x8xvector<4xi32>>, %g: memref<96xf32>,
                        %m2: memref<96x8xvector<4xi32>>, %u: memref<96xf32>, %z: memref<96xf32>) {
  stage.dispatch "gate__up__act" attributes {fusion = "row_epilogue"} {
    stage.matvec weight(%m1 : memref<96x8xvector<4xi32>>) input(%h : memref<64xf32>) slerp(%o, %a : memref<64xf32>, memref<64xf32>) out(%g : memref<96xf32>) hidden_out(%next : memref<64xf32>) {format = #stage.format<f16>, slerp_eps = 1.0e-06 : f32}
    stage.matvec weight(%m2 : memref<96x8xvector<4xi32>>) input(%h : memref<64xf32>) slerp(%o, %a : memref<64xf32>, memref<64xf32>) out(%u : memref<96xf32>) {format = #stage.format<f16>, slerp_eps = 1.0e-06 : f32}
    stage.silu_mul ins(%g, %u : memref<96xf32>, memref<96xf32>) out(%z : memref<96xf32>)
  }
  stage.dispatch "plain" {
    stage.matvec weight(%m1 : memref<96x8xvector<4xi32>>) input(%h : memref<64xf32>) out(%g : memref<96xf32>) {format = #stage.format<f16>}
  }
  return
}
}
