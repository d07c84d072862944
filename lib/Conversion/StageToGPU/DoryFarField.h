//===- DoryFarField.h - Kernels of Dory's far field and early exit -*- C++ -*-===//
//
// The launch shapes and bodies of window_attention (WindowAttention.cpp),
// far_field_push, landmark_capture, landmark_seal and exit_test, and the guard a dispatch
// with `skip_if` wraps its body in. Kept apart from KernelBuilder.h so the
// Dory far field stays one concept in its own files.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_CONVERSION_STAGETOGPU_DORYFARFIELD_H
#define KILN_LIB_CONVERSION_STAGETOGPU_DORYFARFIELD_H

#include "KernelBuilder.h"

namespace kiln {

KernelShape shapeOf(stage::WindowAttentionOp op, const StageToGPUOptions &o);
void buildKernel(stage::WindowAttentionOp op, KernelBuilder &kb);
KernelShape shapeOf(stage::FarFieldPushOp op, const StageToGPUOptions &o);
void buildKernel(stage::FarFieldPushOp op, KernelBuilder &kb);
KernelShape shapeOf(stage::LandmarkCaptureOp op, const StageToGPUOptions &o);
void buildKernel(stage::LandmarkCaptureOp op, KernelBuilder &kb);
KernelShape shapeOf(stage::LandmarkSealOp op, const StageToGPUOptions &o);
void buildKernel(stage::LandmarkSealOp op, KernelBuilder &kb);
KernelShape shapeOf(stage::ExitTestOp op, const StageToGPUOptions &o);
void buildKernel(stage::ExitTestOp op, KernelBuilder &kb);

/// The far part of window_attention for one query head (reference
/// attendNearFar): `exponent` is c = max(nearMax, max_b f + z_b), `mass` F
/// (0 where the far part is dropped or absent), `count` the landmarks whose
/// values addFarValues adds (0 likewise); `gains` (workgroup memory) and
/// `farSums` are null without a far field. Every thread must reach it; all
/// get the same values.
struct FarPart {
  mlir::Value exponent, mass, count, gains, farSums;
};
FarPart buildFarPart(stage::WindowAttentionOp op, KernelBuilder &kb, mlir::Value kvHead,
                     mlir::Value qBase, mlir::Value nearMax);
/// acc + Σ_b gain_b · θ_b[dim] over the far part's landmarks, in order.
mlir::Value addFarValues(KernelBuilder &kb, const FarPart &far, mlir::Value kvHead,
                         mlir::Value dim, mlir::Value acc);

/// Small helpers of the far-field kernels (window_attention reads the far
/// state far_field_push writes).
namespace farfield {
/// meta[word] (i32) as an index.
mlir::Value metaIndex(KernelBuilder &kb, mlir::Value meta, mlir::Value word);
mlir::Value ne(KernelBuilder &kb, mlir::Value a, mlir::Value c);
mlir::Value andI(KernelBuilder &kb, mlir::Value a, mlir::Value c);
mlir::Value fge(KernelBuilder &kb, mlir::Value a, mlir::Value c);
/// dots[b] = scale · Σ_d landmarkAt(b, d) · vectorAt(d) over d < hd, for
/// b < count (≤ m): a landmark's dims split over up to W / m lanes whose
/// partial sums meet in workgroup memory (one barrier), so the lanes' loads
/// are in flight together instead of one lane walking all hd. Lane b of a
/// strided walk over count writes dots[b]; every thread must reach it.
void landmarkDots(KernelBuilder &kb, mlir::Value count, int64_t m, int64_t hd,
                  mlir::Value scale, mlir::Value dots,
                  const std::function<mlir::Value(mlir::Value, mlir::Value)> &landmarkAt,
                  const std::function<mlir::Value(mlir::Value)> &vectorAt);
} // namespace farfield

/// A loop over [lb, ub) carrying one f32 (or any one value). Upstream
/// SCF-to-SPIR-V keeps loop results in a variable stored only by the loop
/// body, so a loop that runs zero times yields an uninitialised value (0 on
/// lavapipe), not `init`: the result is selected against `init` here.
mlir::Value carriedLoop(KernelBuilder &kb, mlir::Value lb, mlir::Value ub,
                        mlir::Value init,
                        const std::function<mlir::Value(mlir::Value, mlir::Value)> &body);
/// The workgroup's strided walk over [0, count) carrying one value, with the
/// same zero-trip guard (a lane past `count` gets `init`).
mlir::Value stridedCarried(KernelBuilder &kb, mlir::Value count, mlir::Value init,
                           const std::function<mlir::Value(mlir::Value, mlir::Value)> &body);

/// With `skip_if(%flag)[w]`: opens `scf.if flag[w] == 0` and moves the
/// builder into it, so every workgroup returns at once when the flag is set;
/// the caller builds the stages, then moves after the returned op. Null (and
/// nothing built) without a skip flag.
mlir::Operation *openSkipGuard(stage::DispatchOp dispatch, KernelBuilder &kb);

} // namespace kiln

#endif // KILN_LIB_CONVERSION_STAGETOGPU_DORYFARFIELD_H
