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
    "::mlir::scf::SCFDialect", "::mlir::spirv::SPIRVDialect",
    "::mlir::vector::VectorDialect"
  ];
  let options = [
    Option<"rowWorkgroupSize", "row-workgroup-size", "int64_t", /*default=*/"64",
           "Threads per workgroup of the row-parallel kernels (matvec, elementwise, ...)">,
    Option<"reduceWorkgroupSize", "reduce-workgroup-size", "int64_t", /*default=*/"256",
           "Threads per workgroup of the single-workgroup reductions (norms, router, ...); a power of two">,
    Option<"headWorkgroupSize", "head-workgroup-size", "int64_t", /*default=*/"64",
           "Threads per workgroup of the per-head kernels (gdn_step, attention, head_rows); a power of two">,
    Option<"attentionWorkgroupSize", "attention-workgroup-size", "int64_t", /*default=*/"256",
           "Threads per workgroup of key_scores, attention and window_attention (at most 256 used); a power of two">,
    Option<"attentionValueDims", "attention-value-dims", "int64_t", /*default=*/"0",
           "Head dims an attention / window_attention workgroup sums (a power of two); 0: up to 16">,
    Option<"subgroupReduce", "subgroup-reduce", "bool", /*default=*/"true",
           "Use gpu.subgroup_reduce when the target env allows GroupNonUniformArithmetic">,
    Option<"matvecRowsPerItem", "matvec-rows-per-item", "int64_t", /*default=*/"0",
           "Mat-vec rows one workgroup computes together (activations read once for all); 0: by format">,
    Option<"matvecGroupsPerThread", "matvec-groups-per-thread", "int64_t", /*default=*/"0",
           "16-byte weight groups a mat-vec thread reads per row (sets the workgroup size); 0: by format">,
    Option<"matvecPlainGroupsPerThread", "matvec-plain-groups-per-thread", "int64_t", /*default=*/"0",
           "Groups a thread for mat-vecs of one plain input (no norm, up, column scale or slerp); 0: as the others">,
    Option<"matvecLoadsInFlight", "matvec-loads-in-flight", "int64_t", /*default=*/"0",
           "16-byte weight loads a mat-vec thread issues before their arithmetic; 0: the default">,
    Option<"matvecSubgroupItems", "matvec-subgroup-items", "bool", /*default=*/"false",
           "A subgroup computes each mat-vec item (subgroup reduction only) instead of a workgroup; needs subgroup-reduce">,
    Option<"matvecScalarSums", "matvec-scalar-sums", "bool", /*default=*/"false",
           "Sum each mat-vec row in one f32 (multiply-add chains) instead of four lane sums">,
    Option<"matvecNormAfterDots", "matvec-norm-after-dots", "bool", /*default=*/"false",
           "A normed mat-vec sums its input's squares beside the dots and scales the row totals, instead of reducing the mean square first">,
    Option<"matvecGridLimit", "matvec-grid-limit", "int64_t", /*default=*/"0",
           "At most this many workgroups a mat-vec grid, walking the remaining items in turn; 0: no limit below 65535">,
    Option<"matvecStageInput", "matvec-stage-input", "bool", /*default=*/"false",
           "A mat-vec workgroup forms its activation once in workgroup memory for every item it walks">,
    Option<"prefillMatMatTile", "prefill-matmat-tile", "int64_t", /*default=*/"0",
           "A blocked product's thread tile: 4 (4 x 4 outputs, 256 threads a block), 8 (8 x 8, 64 threads) or 0 (8 for products of at least 512 blocks, else 4)">,
    Option<"prefillMatMatCooperative", "prefill-matmat-cooperative", "bool", /*default=*/"false",
           "A blocked product (not a routed expert's) runs on cooperative matrices (gpu.subgroup_mma_*, f16 halves of the activations, f32 sums); the kernel needs SPV_NV_cooperative_matrix and 32-lane subgroups">,
    Option<"prefillMatMatCooperativeSplit", "prefill-matmat-cooperative-split", "int64_t", /*default=*/"2",
           "How a cooperative-matrix product's activations become f16: 0 f16(x), 1 hi = f16(x) and lo = f16(x - hi) into the same accumulators, 2 hi by a 10-bit mantissa mask and lo = 2^11 (x - hi) into accumulators of its own">,
    Option<"prefillGdnHeld", "prefill-gdn-held", "bool", /*default=*/"true",
           "A multi-row program's GDN step holds a head's state in registers across the call's rows where a workgroup can">,
    Option<"prefillGdnChunkRows", "prefill-gdn-chunk-rows", "int64_t", /*default=*/"0",
           "Rows of a held GDN step's chunk (norms and gated outputs computed in parallel beside the serial part); 0: as many as 32 KiB of workgroup memory (or the target's less) holds">,
    Option<"gdnShuffleSums", "gdn-shuffle-sums", "bool", /*default=*/"false",
           "The decode GDN step sums a column's row slices with subgroup shuffles instead of through workgroup memory and two barriers (where the target env has GroupNonUniformShuffle)">,
    Option<"prefillGdnColumns", "prefill-gdn-columns", "int64_t", /*default=*/"0",
           "A held GDN step spreads a head's value columns over workgroups of this many columns (the last of a head's applies the gated norm); 0: a workgroup a head">,
    Option<"prefillGdnShuffleSums", "prefill-gdn-shuffle-sums", "bool", /*default=*/"false",
           "A held GDN step sums a column's row slices with subgroup shuffles instead of through workgroup memory and a barrier (where the target env has GroupNonUniformShuffle)">,
    Option<"prefillMatMatMinBlocks", "prefill-matmat-min-blocks", "int64_t", /*default=*/"8",
           "A multi-row program's plain mat-vec of at least this many blocks (64 weight rows x 64 call rows) runs as a blocked matrix product of the call's rows; fewer (or 0: none) run a workgroup per call row and item">,
    Option<"headRowsBySubgroup", "head-rows-subgroups", "bool", /*default=*/"true",
           "head_rows: subgroups compute a cluster's rows (subgroup reductions), its log-softmax in workgroup memory, instead of workgroup items; needs subgroup-reduce">,
    Option<"vectorActivations", "vector-activations", "bool", /*default=*/"true",
           "head_rows and mat-vecs whose activation is formed from several buffers read them as vector<4xf32> loads through a second, vec4-typed binding of each buffer, instead of f32 loads (both weight formats)">,
    Option<"matvecSlerpAfterDots", "matvec-slerp-after-dots", "bool", /*default=*/"false",
           "A mat-vec that takes a slerp sums its five products beside the dots (rows dotted with u and w apart) instead of reducing them before its weight loads">,
    Option<"q8DecodeByExponent", "q8-decode-by-exponent", "bool", /*default=*/"false",
           "q8_2f codes become f32s under 2^23's exponent (byte select, exclusive or, subtract) instead of shifts and an int-to-float conversion">,
    Option<"maxWorkgroupMemoryBytes", "max-workgroup-memory-bytes", "int64_t", /*default=*/"0",
           "Bytes of workgroup memory a kernel may declare (the target's max_shared_memory_bytes); a kernel over it is an error, unless taking its sums before the dots makes it fit; 0: unchecked">
  ];
}

//===----------------------------------------------------------------------===//
// KilnToStage
//===----------------------------------------------------------------------===//

def ConvertKilnToStage : Pass<"convert-kiln-to-stage", "::mlir::ModuleOp"> {
  let summary = "Lower the kiln model graph to func @decode of stage.dispatch on memrefs";
  let description = [{
    Replaces the module's `kiln.model` by `func.func @decode` (docs/pipeline.md):
    every argument is one logical buffer (a static memref typed as
    docs/stages.md says) with a `stage.buffer` attribute (kind, name, slot,
    byte_offset; weights also list their safetensors tensors and layouts);
    the body is a sequence of `stage.dispatch`, one stage each. Fine kiln ops
    are regrouped into stages (conv + silu -> conv_ring; gdn_gates + gdn_step
    + gated_rms_norm -> gdn_step; rotary + kv_ring_write -> rope_kv_write or
    dory_prep; ...); the q8_2f column field is folded into the producer of a
    matrix's input where the producer allows it. The buffers have no slot
    yet: kiln-plan-memory places them (docs/memory.md).
    Anything no stage can compute is an error naming the op and the rule.

    Before:
    ```mlir
    kiln.model @m embryo attributes {...} {
      kiln.weight_decl @final_norm : tensor<72xf32>
      kiln.step {
      ^bb0(%token: index, %position: index, %top_p: f32):
        %x = kiln.rms_norm %h, %w {eps = 1.0e-06 : f32} : tensor<72xf32>
        ...
      }
    }
    ```
    After:
    ```mlir
    func.func @decode(%arg0: memref<72xf32> {stage.buffer = #stage.buffer<kind = weight,
        name = "final_norm", byte_size = 288, tensors = [#stage.tensor<...>]>},
        ...) attributes {stage.readback = #stage.readback<...>, stage.params = []} {
      stage.dispatch "final_norm" {
        stage.rmsnorm residual(%h : memref<72xf32>) weight(%arg0 : memref<72xf32>)
            outs(%x : memref<72xf32>) {eps = 1.0e-06 : f32}
      }
      ...
      return
    }
    ```
  }];
  let options = [
    Option<"prefillRows", "prefill-rows", "int64_t", /*default=*/"0",
           "Also build @prefill, a program taking up to this many prompt rows "
           "a call (0: @decode only; Embryo; docs/pipeline.md, \"Rows\")">
  ];
  let dependentDialects = [
    "::mlir::func::FuncDialect", "::mlir::memref::MemRefDialect",
    "::kiln::stage::StageDialect"
  ];
}

#endif // KILN_CONVERSION_PASSES_TD
