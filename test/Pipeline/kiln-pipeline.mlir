// REQUIRES: compiler
// kiln-opt runs the whole compile pipeline as one registered pipeline: a
// kiln model down to stages, to fused stages (fusion's regions, no kernels
// yet), then to GPU kernels, with and without fusion; fused stages go on to
// kernels without being fused again.
// RUN: kiln-opt %s --pass-pipeline='builtin.module(kiln-pipeline{to=stages})' | FileCheck %s --check-prefix=STAGES
// RUN: kiln-opt %s --pass-pipeline='builtin.module(kiln-pipeline{fusion=none})' | FileCheck %s --check-prefix=UNFUSED
// RUN: kiln-opt %s --pass-pipeline='builtin.module(kiln-pipeline{fusion=cost cost-target=apple-m4})' | FileCheck %s --check-prefix=FUSED
// RUN: kiln-opt %s --pass-pipeline='builtin.module(kiln-pipeline{to=fused cost-target=apple-m4})' | FileCheck %s --check-prefix=REGIONS
// RUN: kiln-opt %s --pass-pipeline='builtin.module(kiln-pipeline{to=fused cost-target=apple-m4})' | kiln-opt --pass-pipeline='builtin.module(kiln-pipeline{from=fused})' | FileCheck %s --check-prefix=FUSED

// STAGES-LABEL: func.func @decode
// STAGES: stage.dispatch "embed"
// STAGES: stage.dispatch "w"
// STAGES: stage.dispatch "head"
// STAGES: stage.dispatch "sample"
// REGIONS-LABEL: func.func @decode
// REGIONS: stage.dispatch "embed__w__head__sample" attributes {fusion = "one_workgroup"
// REGIONS-NOT: stage.dispatch
// REGIONS-NOT: gpu.launch_func
// UNFUSED-LABEL: func.func @decode
// UNFUSED-COUNT-4: gpu.launch_func
// UNFUSED-NOT: gpu.launch_func
// UNFUSED: gpu.module @kiln_kernels
// FUSED-LABEL: func.func @decode
// FUSED-COUNT-1: gpu.launch_func
// FUSED-NOT: gpu.launch_func
// FUSED: gpu.module @kiln_kernels
kiln.model @tiny embryo attributes {eps = 1.0e-06 : f32, hidden = 8 : i64, intermediate = 8 : i64, vocab = 4 : i64} {
  kiln.weight_decl @embed : !kiln.weight<[4, 8], f16>
  kiln.weight_decl @w : !kiln.weight<[8, 8], f16>
  kiln.weight_decl @head : !kiln.weight<[4, 8], f16>
  kiln.step {
  ^bb0(%token: index, %position: index):
    %e = kiln.weight @embed : !kiln.weight<[4, 8], f16>
    %h = kiln.embed %e[%token] : !kiln.weight<[4, 8], f16> -> tensor<8xf32>
    %w = kiln.weight @w : !kiln.weight<[8, 8], f16>
    %y = kiln.matvec %w, %h : !kiln.weight<[8, 8], f16>, tensor<8xf32> -> tensor<8xf32>
    %hw = kiln.weight @head : !kiln.weight<[4, 8], f16>
    %l = kiln.matvec %hw, %y : !kiln.weight<[4, 8], f16>, tensor<8xf32> -> tensor<4xf32>
    kiln.return %l : tensor<4xf32>
  }
}
