// RAII autocast region: bf16 on CPU, fp16 on CUDA (the seeds' AMP). Restores
// the previous state on exit, and clears the cast cache like torch.autocast.
#pragma once

#include <c10/core/DeviceType.h>

namespace medsynth {

class AutocastScope {
 public:
  AutocastScope(bool enabled, c10::DeviceType device);
  ~AutocastScope();
  AutocastScope(const AutocastScope&) = delete;
  AutocastScope& operator=(const AutocastScope&) = delete;

 private:
  bool enabled_;
  c10::DeviceType device_;
  bool previous_enabled_ = false;
  c10::ScalarType previous_dtype_{};
};

}  // namespace medsynth
