// Times each distinct kernel of a program alone (kiln_session_time_kernels, the
// `kiln-bench kernels` mode): its first dispatch recorded `repetitions` times, each
// after a fill of a scratch buffer large enough to evict the caches and a barrier, with
// a timestamp pair around the dispatch only. The buffers hold whatever the session left
// there (a decode step's values, so indirect grids and device flags are real).
#ifndef KILN_RUNTIME_SESSION_KERNEL_TIMER_H
#define KILN_RUNTIME_SESSION_KERNEL_TIMER_H

#include "plan/loaded_plan.h"
#include "session/recorder.h"
#include "vulkan/device.h"

#include "kiln/schemas/plan_generated.h"

#include <string>
#include <vector>

namespace kiln::rt {

struct KernelTiming {
  uint32_t kernel = 0;
  uint32_t firstDispatch = 0;   // index in the program
  uint32_t dispatches = 0;      // the program's dispatches of this kernel
  uint64_t boundBytes = 0;      // the first dispatch's bound ranges (an upper bound of its traffic)
  double estimatedUs = -1;      // the plan's estimate of that dispatch
  std::vector<double> runsMs;   // one a repetition
};

/// A flush of 0 bytes records no fill.
Status timeKernels(const vk::Device &device, const LoadedPlan &plan,
                   const kiln::plan::Program &program, const RecordInputs &inputs,
                   uint32_t repetitions, uint64_t flushBytes, std::vector<KernelTiming> &out);

} // namespace kiln::rt

#endif // KILN_RUNTIME_SESSION_KERNEL_TIMER_H
