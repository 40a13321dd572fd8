// RAII autocast region: bf16 on CPU, fp16 on CUDA (the seeds' AMP), or the
// dtype asked for (bf16 on CUDA needs no loss scaling). Restores the previous
// state on exit, and clears the cast cache like torch.autocast.
#pragma once

#include <c10/core/DeviceType.h>
#include <c10/core/ScalarType.h>

#include <optional>

namespace medsynth {

// Whether `training.amp` pays off on `device`: always on CUDA; on a CPU only
// where LibTorch has native bf16 kernels (AVX-512 core or AMX on x86, bf16 on
// Arm). Elsewhere its bf16 convolutions fall back to a reference GEMM that ran
// ~25x slower than fp32 on an AVX2-only EPYC, so there amp means fp32.
// MEDSYNTH_CPU_BF16=1 (or 0) in the environment forces the CPU answer.
bool autocast_pays_off(c10::DeviceType device);

class AutocastScope {
 public:
  // Enabled only when `enabled` and autocast_pays_off(device). `dtype`:
  // the device's default above when not given.
  AutocastScope(bool enabled, c10::DeviceType device, std::optional<c10::ScalarType> dtype = std::nullopt);
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
