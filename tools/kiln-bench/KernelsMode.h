//===- KernelsMode.h - kiln-bench kernels: each kernel of a plan alone ----===//
#ifndef KILN_TOOLS_KILN_BENCH_KERNELSMODE_H
#define KILN_TOOLS_KILN_BENCH_KERNELSMODE_H

/// `kiln-bench kernels PLAN --weights W [options]`; argv[0] is "kernels".
/// Returns the process exit code (0, 1 on a runtime error, 2 on bad arguments).
int runKernelsMode(int argc, char **argv);

#endif // KILN_TOOLS_KILN_BENCH_KERNELSMODE_H
