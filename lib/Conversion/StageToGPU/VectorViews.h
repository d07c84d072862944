//===- VectorViews.h - vector<4xf32> bindings of activation buffers -*- C++ -*-===//
//
// A mat-vec lane reads a 16-byte group of weights and the group's 8 (f16) or
// 16 (q8_2f) activations. Loaded one f32 at a time, lanes 32 or 64 bytes
// apart, each activation load touches as many cache lines as a vector load
// of four would (StageToGPUOptions::vectorActivations). SPIR-V for Vulkan
// cannot reinterpret a pointer, so a kernel that wants vector loads takes a
// second binding of the same buffer typed memref<N/4 x vector<4xf32>>; the
// host function gets a matching argument with the same stage.buffer
// attribute, which the plan writer binds to the same range.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_CONVERSION_STAGETOGPU_VECTORVIEWS_H
#define KILN_LIB_CONVERSION_STAGETOGPU_VECTORVIEWS_H

#include "kiln/Conversion/StageToGPU/StageToGPU.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Block.h"
#include "llvm/ADT/DenseMap.h"

namespace kiln {

/// The buffers of a dispatch `body` its kernel would read through vector
/// views, where options.vectorActivations holds for the stage's weight
/// format: the hidden state of head_rows, and the activations of a mat-vec
/// formed from several buffers (the input with a norm weight, a column scale
/// or an up input; no slerp), whose columns fill whole 16-byte groups, each a
/// 1-D f32 host-function argument of a whole number of vec4s. A mat-vec of a
/// plain input keeps f32 loads: on an H100 its view made it slower (q8_2f
/// down + add 13.7 -> 20.5 us, o + add 8.7 -> 10.5) where normed,
/// column-scaled ones gained (q8_2f gate||up 28.9 -> 23.6, q||k||v 17.4 ->
/// 13.5) and head_rows halved (79.7 -> 40.4; docs/performance.md).
llvm::SmallVector<mlir::Value> vectorViewCandidates(mlir::Block &body,
                                                    const StageToGPUOptions &options);

/// memref<N/4 x vector<4xf32>> in `buffer`'s memory space.
mlir::MemRefType vectorViewType(mlir::Value buffer);

/// A second host argument over `buffer`'s bytes, typed `type`, with argument
/// attributes `attrs` (its placement), added once per buffer (`made`
/// remembers it; the vector views and the row views each keep their own).
mlir::Value hostView(mlir::Value buffer, mlir::Type type, mlir::DictionaryAttr attrs,
                     llvm::DenseMap<mlir::Value, mlir::Value> &made);

/// The host function's view of its argument `buffer`: an argument of its
/// own, added once (`made` remembers it), with the same attributes.
mlir::Value hostVectorView(mlir::Value buffer, llvm::DenseMap<mlir::Value, mlir::Value> &made);

/// Whether anything in `func` writes through its argument `arg`.
bool writesArgument(mlir::gpu::GPUFuncOp func, mlir::Value arg);

} // namespace kiln

#endif // KILN_LIB_CONVERSION_STAGETOGPU_VECTORVIEWS_H
