//===- AnalyticalCostModel.cpp - Roofline plus dispatch boundaries --------===//

#include "kiln/Cost/CostModel.h"

#include <algorithm>

namespace kiln::cost {
namespace {

class AnalyticalCostModel final : public CostModel {
public:
  explicit AnalyticalCostModel(TargetDesc target) : target_(std::move(target)) {}

  const TargetDesc &target() const override { return target_; }

  double stageMicros(const StageCost &stage, uint64_t workgroups) const override {
    uint64_t wg = std::max<uint64_t>(1, std::min(workgroups, stage.workgroups));
    // Bandwidth grows with the workgroups in flight until the device saturates;
    // a wide mat-vec saturates at its measured efficiency.
    double efficiency = !stage.isMatvec ? 1.0
                        : stage.quantized ? target_.effectiveQ8MatvecEfficiency()
                                          : target_.matvecEfficiency;
    double peak = target_.readBandwidthGBps * efficiency;
    double bandwidth = std::min(peak, target_.singleWorkgroupBandwidthGBps * double(wg));
    double busy = std::min(1.0, double(wg) / double(target_.computeUnits));
    double bytes = double(stage.bytesRead + stage.bytesWritten);
    double memoryMicros = bytes / (bandwidth * 1e3);           // GB/s -> bytes/us
    double computeMicros = double(stage.flops) / (target_.computeGFlops * busy * 1e3);
    // Barriers run one after another inside a workgroup; workgroups overlap
    // up to the compute units. Squeezed into fewer workgroups than its own,
    // a stage runs at the fused kernel's (256-thread) width.
    double width = wg >= stage.workgroups ? stage.ownWidth : 1.0;
    double barrierMicros = double(stage.barriers) * target_.workgroupBarrierMicros * width /
                           double(std::min<uint64_t>(wg, target_.computeUnits));
    // Cache re-reads share the device like memory reads: they scale with the
    // workgroups in flight too.
    double cacheMicros = double(stage.cacheBytes) /
                         (target_.effectiveCacheBandwidthGBps() * busy * 1e3);
    return std::max(memoryMicros, computeMicros) + cacheMicros + barrierMicros;
  }

  DispatchEstimate dispatchMicros(const std::vector<StageCost> &stages,
                                  bool barrierBefore) const override {
    DispatchEstimate e;
    e.boundaryMicros =
        barrierBefore ? target_.boundaryMicros : target_.boundaryNoBarrierMicros;
    if (stages.empty())
      return e;
    // One grid serves every stage of a fused dispatch: a stage whose reduction
    // must stay in one workgroup squeezes the others to its width.
    uint64_t wg = stages.front().workgroups;
    for (const StageCost &s : stages)
      wg = std::min(wg, s.workgroups);
    for (const StageCost &s : stages)
      e.kernelMicros += stageMicros(s, wg);
    return e;
  }

private:
  TargetDesc target_;
};

} // namespace

std::unique_ptr<CostModel> createAnalyticalCostModel(TargetDesc target) {
  return std::make_unique<AnalyticalCostModel>(std::move(target));
}

} // namespace kiln::cost
