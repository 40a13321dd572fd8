// What the memorization audit needs before it can run, in a header without
// LibTorch: the console checks a synthetic dataset's training folder against
// it before the first case is generated (issue 53 item 4), not after hours of
// generation when `evaluate` refuses.
#pragma once

#include <cstddef>

namespace medsynth {

// Each training case is compared with its nearest other training case (the
// distance a generated image must keep), so one alone cannot be audited.
inline constexpr std::size_t k_memorization_min_training_cases = 2;

}  // namespace medsynth
