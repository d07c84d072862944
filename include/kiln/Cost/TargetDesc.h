//===- TargetDesc.h - A GPU target's cost parameters, as data ---*- C++ -*-===//
//
// A target is described by numbers, not by code: targets/<name>.json holds the
// cost of a dispatch boundary (with and without a barrier), of a submit, the
// streaming bandwidth, and the limits kernels are shaped by. kiln-calibrate
// measures them on a device and writes the same file. Passes never compare
// vendor ids or hard-code timings; they read a TargetDesc through CostModel.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COST_TARGETDESC_H
#define KILN_COST_TARGETDESC_H

#include "kiln/IO/Error.h"

#include <cstdint>
#include <string>

namespace kiln::cost {

/// A two-way kernel switch a target sets per weight format (its f16 and
/// q8_2f mat-vecs measured apart).
struct PerFormatSwitch {
  bool f16 = false;
  bool q8 = false;
};

/// A mat-vec item shape a target sets per weight format, measured:
/// rows an item x 16-byte groups a thread (0: the kernel's default).
struct MatvecItemShape {
  uint32_t rows = 0;
  uint32_t groups = 0;
};
struct PerFormatItemShape {
  MatvecItemShape f16;
  MatvecItemShape q8;
};

struct TargetDesc {
  std::string name;   ///< e.g. "h200"
  std::string api;    ///< "vulkan" or "metal"
  std::string source; ///< where the figures come from (measured, datasheet)
  /// Cost of a dispatch that depends on the one before it (a barrier between).
  double boundaryMicros = 5.0;
  /// Cost of a dispatch independent of the one before it (no barrier; overlaps).
  double boundaryNoBarrierMicros = 1.0;
  /// Cost of one submit plus fence wait.
  double submitMicros = 50.0;
  /// Streaming read bandwidth of the whole device, GB/s (1e9 bytes/s).
  double readBandwidthGBps = 100.0;
  /// What one workgroup alone can stream, GB/s: a stage squeezed into one
  /// workgroup is bounded by this, not by the device's bandwidth.
  double singleWorkgroupBandwidthGBps = 10.0;
  /// Fraction of readBandwidth a wide decode mat-vec reaches.
  double matvecEfficiency = 0.8;
  /// The same for a mat-vec over q8_2f codes (optional: 0 means
  /// matvecEfficiency); fitted to profiles (bench/calibrate/fit_profile.py).
  double q8MatvecEfficiency = 0;
  double effectiveQ8MatvecEfficiency() const {
    return q8MatvecEfficiency > 0 ? q8MatvecEfficiency : matvecEfficiency;
  }
  /// f32 arithmetic throughput, GFLOP/s.
  double computeGFlops = 1000.0;
  uint32_t subgroupSize = 32;
  /// Whether kernels may reduce across a subgroup (SPIR-V
  /// GroupNonUniformArithmetic; Vulkan's subgroup arithmetic feature).
  /// Optional, default false: reductions then go through workgroup memory.
  bool subgroupArithmetic = false;
  uint32_t maxWorkgroupSize = 256;
  /// Threads of a one-workgroup reduction (rmsnorm, slerp, router, sampling)
  /// and gdn_step, measured per device. Optional, 0 = 256 (capped by
  /// maxWorkgroupSize); a power of two.
  uint32_t reduceWorkgroupSize = 0;
  /// Head dims one attention / window_attention workgroup sums, measured per
  /// device (optional, 0 = 16; a power of two).
  uint32_t attentionValueDims = 0;
  /// Whether a subgroup, not a workgroup, computes each mat-vec item
  /// (optional `matvec_items`: "workgroup", the default, or "subgroup";
  /// used only with subgroupArithmetic).
  bool matvecSubgroupItems = false;
  /// How a q8_2f code becomes an f32 (optional `q8_decode`: "convert", the
  /// default, a shift pair and an int-to-float conversion; or "exponent",
  /// the byte under 2^23's exponent and one subtract).
  bool q8DecodeByExponent = false;
  /// The other mat-vec kernel switches a target may choose once measured
  /// (docs/stages.md): `matvec_sums` "lanes" (default) | "scalar",
  /// `matvec_norm` "before" (default) | "after", `matvec_grid_limit`
  /// (0 = none, at most 65535).
  /// `matvec_sums` and `matvec_norm` may also be set per weight format:
  /// {"f16": word, "q8_2f": word} (a format left out keeps the default).
  PerFormatSwitch matvecScalarSums;
  PerFormatSwitch matvecNormAfterDots;
  uint32_t matvecGridLimit = 0;
  /// `matvec_item_shape` (optional): [rows, groups] for both formats, or
  /// {"f16": [rows, groups], "q8_2f": [rows, groups]}; rows in [1, 16],
  /// groups in [1, 64] (kiln-compile's --matvec-rows-per-item and
  /// --matvec-groups-per-thread override).
  PerFormatItemShape matvecItemShape;
  uint32_t maxSharedMemoryBytes = 16384;
  /// Workgroups that run at once at full speed (SMs, CUs, cores).
  uint32_t computeUnits = 1;
  /// One workgroup barrier of a 256-thread workgroup (optional, default 0):
  /// on lavapipe a workgroup's threads are fibres of one core, and a fused
  /// one-workgroup kernel is dominated by its reductions' barriers.
  double workgroupBarrierMicros = 0;
  /// Bandwidth of re-reads that hit the cache (a mat-vec recomputing its
  /// activation reads the input vectors once per row), GB/s. Optional: 0
  /// means 4 x readBandwidthGBps.
  double cacheBandwidthGBps = 0;
  /// Bytes of the last-level cache that weights prefetched ahead of their
  /// mat-vecs may hold at once (`kiln-prefetch-weights`, docs/fusion.md).
  /// Optional: 0, the default, prefetches nothing.
  uint64_t prefetchCacheBytes = 0;
  /// Rows a call of the multi-row @prefill program an Embryo plan gets when
  /// kiln-compile is not given --prefill-rows (`prefill_rows`, optional): 0,
  /// the default, none (a prompt row a call); else in [2, 1024].
  uint32_t prefillRows = 0;
  double effectiveCacheBandwidthGBps() const {
    return cacheBandwidthGBps > 0 ? cacheBandwidthGBps : 4.0 * readBandwidthGBps;
  }
};

/// Parses a descriptor; every missing or out-of-range field is a named error.
io::Expected<TargetDesc> parseTargetDesc(const std::string &jsonText);
io::Expected<TargetDesc> loadTargetDesc(const std::string &path);
std::string targetDescToJson(const TargetDesc &desc);
/// Writes atomically (temporary file, then rename).
io::Status saveTargetDesc(const TargetDesc &desc, const std::string &path);

} // namespace kiln::cost

#endif // KILN_COST_TARGETDESC_H
