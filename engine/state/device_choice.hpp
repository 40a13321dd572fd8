// Which device a rank trains on: CUDA when asked for or available ("auto"),
// always cuda:LOCAL_RANK — the device index is the rank within its node, never
// the global rank (upstream MAISI scripts break on a second node exactly
// there). Used by the train verb (before connecting the process group) and
// the trainer.
#pragma once

#include <c10/core/Device.h>

#include <string>

namespace medsynth {

// UsageError when CUDA is requested but absent, or local_rank has no GPU.
c10::Device training_device(const std::string& requested, int local_rank);

}  // namespace medsynth
