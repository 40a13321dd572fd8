// Dynamic loss scaling for fp16 training on CUDA (LibTorch's C++ API has no
// GradScaler). The loss is multiplied by `scale` before backward; gradients
// are unscaled before clipping; a step with non-finite gradients is skipped
// and the scale halved; after `growth_interval` good steps it doubles.
// With bf16 autocast on CPU (or no AMP) the scaler is disabled (scale 1).
#pragma once

#include <ATen/core/Tensor.h>

#include <vector>

namespace medsynth {

struct LossScalerOptions {
  bool enabled = false;
  double init_scale = 65536.0;
  double growth_factor = 2.0;
  double backoff_factor = 0.5;
  int growth_interval = 2000;
};

class LossScaler {
 public:
  explicit LossScaler(LossScalerOptions options = {});
  at::Tensor scale_loss(const at::Tensor& loss) const;
  // Divides gradients by the scale; returns false when any is NaN/Inf.
  bool unscale_and_check(const std::vector<at::Tensor>& params) const;
  // Call after every optimizer step attempt with whether gradients were finite.
  void update(bool found_finite);
  double scale() const { return enabled_ ? scale_ : 1.0; }
  int growth_tracker() const { return growth_tracker_; }
  void restore(double scale, int growth_tracker);
  bool enabled() const { return enabled_; }

 private:
  bool enabled_;
  LossScalerOptions options_;
  double scale_;
  int growth_tracker_ = 0;
};

// True when every gradient of `params` is finite (no NaN/Inf).
bool gradients_finite(const std::vector<at::Tensor>& params);

}  // namespace medsynth
