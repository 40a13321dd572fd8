// Counts the floating-point operations of convolutions as they run, through
// ATen's RecordFunction callbacks (no model-specific formula to keep in sync).
// Forward FLOPs = 2 * N * Cout * prod(out spatial) * Cin/groups * prod(kernel);
// a training step counts backward as twice the forward (grad input + grad weight).
#pragma once

#include <atomic>
#include <cstdint>

namespace medsynth::bench {

class ConvFlopCounter {
 public:
  ConvFlopCounter();   // starts counting on this thread
  ~ConvFlopCounter();
  double forward_flops() const { return static_cast<double>(flops_.load()); }

 private:
  std::uint64_t handle_ = 0;
  std::atomic<std::uint64_t> flops_{0};
};

}  // namespace medsynth::bench
