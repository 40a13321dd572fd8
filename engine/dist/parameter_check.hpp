// The debug check of distributed.check_parameters_every: are the parameters
// bit-identical on every rank? A divergence means a bug in gradient sync, a
// non-deterministic op applied differently per rank, or a rank that skipped
// a step; the error names the first differing tensor. Used by the trainer.
#pragma once

#include <ATen/core/Tensor.h>

#include <string>
#include <vector>

#include "dist/process_group.hpp"

namespace medsynth {

// Collective: every rank must call it with the same names/shapes. Throws
// RuntimeError on every rank when any rank differs from rank 0.
void check_parameters_identical(DistContext& context, const std::vector<std::string>& names, const std::vector<at::Tensor>& tensors);

}  // namespace medsynth
