// What every cuda test starts with: skip, saying why, where there is no GPU
// (the reason is printed in the test's output and ctest reports it Skipped),
// and the GPU the tests run on. Label `cuda`: `ctest -L cuda` (tests/gpu/README.md).
#pragma once

#include <gtest/gtest.h>

#include <c10/core/Device.h>
#include <torch/cuda.h>

#include "run/crash_report.hpp"

// In a TEST body (GTEST_SKIP returns from it). A crash on the GPU node then
// prints its stack into the test's output (run/crash_report.hpp).
#define MEDSYNTH_REQUIRE_CUDA()                                                               \
  do {                                                                                        \
    medsynth::install_crash_report();                                                         \
    if (!torch::cuda::is_available())                                                         \
      GTEST_SKIP() << "no CUDA device: torch::cuda::is_available() is false on this machine"; \
  } while (false)

namespace medsynth::test {

inline c10::Device cuda0() { return c10::Device(c10::kCUDA, 0); }

}  // namespace medsynth::test
