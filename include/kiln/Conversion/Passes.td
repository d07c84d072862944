//===- Passes.td - Kiln's conversion passes ------------------*- tablegen -*-===//
#ifndef KILN_CONVERSION_PASSES_TD
#define KILN_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

//===----------------------------------------------------------------------===//
// StageToGPU
//===----------------------------------------------------------------------===//

def ConvertStageToGPU : Pass<"convert-stage-to-gpu", "::mlir::ModuleOp"> {
  let summary = "Lower each stage.dispatch to a gpu.func kernel and a gpu.launch_func";
  let description = [{
    Every `stage.dispatch` becomes one `gpu.func` kernel in the module's
    `gpu.module @kiln_kernels`, with `known_block_size` set, workgroup memory
    as workgroup attributions, and arith/scf/memref/vector/math bodies. The
    dispatch is replaced by a `gpu.launch_func` whose grid and operand order
    (the kernel's bindings) the plan writer records.

    Reductions use the target's subgroup reduce when the module's
    `spirv.target_env` allows `GroupNonUniformArithmetic` (and
    `subgroup-reduce` is on), else a workgroup tree. Kernels never assume a
    subgroup size: they read subgroup id and count at run time.

    Before:
    ```mlir
    func.func @step(%w: memref<72x25xvector<4xi32>>, %x: memref<200xf32>, %y: memref<72xf32>) {
      stage.dispatch "proj" {
        stage.matvec weight(%w : memref<72x25xvector<4xi32>>) input(%x : memref<200xf32>)
            out(%y : memref<72xf32>) {format = #stage.format<f16>}
      }
      return
    }
    ```
    After:
    ```mlir
    gpu.module @kiln_kernels {
      gpu.func @proj(%w: memref<72x25xvector<4xi32>>, %x: memref<200xf32>, %y: memref<72xf32>)
          kernel attributes {known_block_size = array<i32: 64, 1, 1>} { ... }
    }
    func.func @step(...) {
      gpu.launch_func @kiln_kernels::@proj blocks in (%c2, %c1, %c1) threads in (%c64, %c1, %c1) args(...)
    }
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::gpu::GPUDialect",
    "::mlir::math::MathDialect", "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect", "::mlir::vector::VectorDialect"
  ];
  let options = [
    Option<"rowWorkgroupSize", "row-workgroup-size", "int64_t", /*default=*/"64",
           "Threads per workgroup of the row-parallel kernels (matvec, elementwise, ...)">,
    Option<"reduceWorkgroupSize", "reduce-workgroup-size", "int64_t", /*default=*/"256",
           "Threads per workgroup of the single-workgroup reductions (norms, router, ...); a power of two">,
    Option<"headWorkgroupSize", "head-workgroup-size", "int64_t", /*default=*/"64",
           "Threads per workgroup of the per-head kernels (gdn_step, attention, head_rows); a power of two">,
    Option<"subgroupReduce", "subgroup-reduce", "bool", /*default=*/"true",
           "Use gpu.subgroup_reduce when the target env allows GroupNonUniformArithmetic">
  ];
}

#endif // KILN_CONVERSION_PASSES_TD
