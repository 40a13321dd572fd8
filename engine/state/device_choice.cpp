#include "state/device_choice.hpp"

#include <torch/cuda.h>

#include "core/error.hpp"

namespace medsynth {

c10::Device training_device(const std::string& requested, int local_rank) {
  const bool cuda = torch::cuda::is_available();
  if (requested == "cuda" && !cuda) throw UsageError("training.device: cuda requested but no CUDA device is available");
  if (requested == "cuda" || (requested == "auto" && cuda)) {
    const int count = static_cast<int>(torch::cuda::device_count());
    if (local_rank >= count)
      throw UsageError("local rank " + std::to_string(local_rank) + " has no GPU: this node has " + std::to_string(count) +
                       " CUDA device(s); start at most that many processes per node");
    return c10::Device(c10::kCUDA, static_cast<c10::DeviceIndex>(local_rank));
  }
  return c10::Device(c10::kCPU);
}

}  // namespace medsynth
