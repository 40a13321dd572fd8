// The machine's own limits, measured in the same run as the benchmarks
// (docs/performance.md reports kernels as a fraction of these):
// FP32 FMA peak from a register-resident FMA kernel, and memory bandwidth from
// a STREAM-like triad. Compiled with -march=native (benchmarks only).
#pragma once

#include <string>

namespace medsynth::bench {

struct MachineLimits {
  double fp32_peak_gflops = 0;   // all threads
  double triad_gb_per_s = 0;     // a[i] = b[i] + s*c[i], 3 arrays counted
  int threads = 0;
  std::string cpu;
  std::string flags;             // the SIMD flags that matter here
};

MachineLimits measure_machine_limits(int threads);

}  // namespace medsynth::bench
