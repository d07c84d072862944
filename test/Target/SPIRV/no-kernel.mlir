// REQUIRES: compiler
// RUN: not kiln-translate %s --emit=spirv -o %t 2>&1 | FileCheck %s
// RUN: not kiln-translate %s --emit=wat 2>&1 | FileCheck %s --check-prefix=EMIT

// A module with neither stages nor kernels is refused with a reason, and no
// output file is left behind.
// CHECK: no gpu.func kernel to emit; run --convert-stage-to-gpu first
// EMIT: no gpu.func kernel to emit
func.func @empty() {
  return
}
