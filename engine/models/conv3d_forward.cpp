#include "models/conv3d_forward.hpp"

#include <ATen/autocast_mode.h>
#include <ATen/core/grad_mode.h>

namespace medsynth {
namespace {

// Autocast off on the CPU for one call; restored on exit, also by an exception.
class CpuAutocastOff {
 public:
  CpuAutocastOff() : was_(at::autocast::is_autocast_enabled(at::kCPU)) { at::autocast::set_autocast_enabled(at::kCPU, false); }
  ~CpuAutocastOff() { at::autocast::set_autocast_enabled(at::kCPU, was_); }
  CpuAutocastOff(const CpuAutocastOff&) = delete;
  CpuAutocastOff& operator=(const CpuAutocastOff&) = delete;

 private:
  bool was_;
};

}  // namespace

bool conv3d_needs_fp32(const torch::nn::Conv3dImpl& conv, const at::Tensor& x) {
  if (!x.is_cpu() || x.dim() != 5 || !at::autocast::is_autocast_enabled(at::kCPU)) return false;
  if (at::autocast::get_autocast_dtype(at::kCPU) != at::kBFloat16) return false;
  // Only the weight gradient is wrong: without one (sampling, validation,
  // frozen weights) bf16 is right, and the deepest level of a diffusion UNet
  // on a 16^3 latent stays in bf16 (issue 51: the fp32 detour cost a third
  // of the sampling loop's convolution time).
  if (!at::GradMode::is_enabled() || !conv.weight.requires_grad()) return false;
  const auto& kernel = conv.options.kernel_size();
  for (int d = 0; d < 3; ++d)
    if (x.size(2 + d) < kernel->at(d)) return true;
  return false;
}

at::Tensor conv3d_forward(torch::nn::Conv3dImpl& conv, const at::Tensor& x) {
  if (!conv3d_needs_fp32(conv, x)) return conv.forward(x);
  CpuAutocastOff off;
  return conv.forward(x.to(at::kFloat));
}

}  // namespace medsynth
