#include "train/fused_adamw.hpp"

#include <ATen/ATen.h>

#include <map>
#include <memory>
#include <tuple>

namespace medsynth {
namespace {

using torch::optim::AdamWOptions;
using torch::optim::AdamWParamState;

// The kernel takes every tensor of one call on one device with one dtype:
// (device type, device index, dtype).
using KernelKey = std::tuple<int, int, int>;

struct KernelCall {
  c10::Device device{c10::kCPU};
  std::vector<at::Tensor> params, grads, exp_avgs, exp_avg_sqs;
  std::vector<float> steps;  // after this update: the kernel's bias corrections use them
};

AdamWParamState& state_of(torch::optim::Optimizer& optimizer, const at::Tensor& p) {
  auto& states = optimizer.state();
  auto key = p.unsafeGetTensorImpl();
  auto it = states.find(key);
  if (it == states.end()) {
    // torch's AdamW starts a parameter's moments at zero in its own layout.
    auto state = std::make_unique<AdamWParamState>();
    state->step(0);
    state->exp_avg(at::zeros_like(p, at::MemoryFormat::Preserve));
    state->exp_avg_sq(at::zeros_like(p, at::MemoryFormat::Preserve));
    it = states.emplace(key, std::move(state)).first;
  }
  return static_cast<AdamWParamState&>(*it->second);
}

// `t` in the memory order of `like` (a dense tensor): itself when it already is.
at::Tensor in_layout_of(const at::Tensor& like, const at::Tensor& t) {
  if (t.strides() == like.strides()) return t;
  auto out = at::empty_like(like, at::MemoryFormat::Preserve);
  out.copy_(t);
  return out;
}

// The kernel walks each tensor's memory as one run of numel elements, so a
// channels-last weight (the fp32 CPU layout) goes in as the flat view of its
// block; its gradient and moments share its strides (in_layout_of), so
// element i is the same weight in all four.
at::Tensor flat(const at::Tensor& t) { return t.as_strided({t.numel()}, {1}, t.storage_offset()); }

}  // namespace

at::Tensor FusedAdamW::step(LossClosure closure) {
  if (!kernel_applies()) return torch::optim::AdamW::step(std::move(closure));
  at::NoGradGuard no_grad;
  at::Tensor loss;
  if (closure != nullptr) {
    at::AutoGradMode enable_grad(true);
    loss = closure();
  }
  for (auto& group : param_groups()) step_group(group);
  return loss;
}

bool FusedAdamW::kernel_applies() const {
  for (const auto& group : param_groups()) {
    if (static_cast<const AdamWOptions&>(group.options()).amsgrad()) return false;
    for (const auto& p : group.params())
      if (p.grad().defined() && (p.grad().is_sparse() || !p.is_non_overlapping_and_dense())) return false;
  }
  return true;
}

void FusedAdamW::step_group(torch::optim::OptimizerParamGroup& group) {
  const auto& options = static_cast<const AdamWOptions&>(group.options());
  std::map<KernelKey, KernelCall> calls;
  for (auto& p : group.params()) {
    if (!p.grad().defined()) continue;
    auto& s = state_of(*this, p);
    // A resumed checkpoint holds its moments contiguous; laid out as the
    // weight once, they stay so.
    s.exp_avg(in_layout_of(p, s.exp_avg()));
    s.exp_avg_sq(in_layout_of(p, s.exp_avg_sq()));
    s.step(s.step() + 1);
    auto& call = calls[{static_cast<int>(p.device().type()), p.device().index(), static_cast<int>(p.scalar_type())}];
    call.device = p.device();
    call.params.push_back(flat(p));
    call.grads.push_back(flat(in_layout_of(p, p.grad())));
    call.exp_avgs.push_back(flat(s.exp_avg()));
    call.exp_avg_sqs.push_back(flat(s.exp_avg_sq()));
    call.steps.push_back(static_cast<float>(s.step()));
  }
  const auto [beta1, beta2] = options.betas();
  for (auto& [key, call] : calls) {
    // One host-to-device copy for all the steps of the call, then views.
    const auto steps = at::tensor(call.steps).to(call.device);
    const auto step_views = steps.unbind(0);
    at::_fused_adamw_(call.params, call.grads, call.exp_avgs, call.exp_avg_sqs, /*max_exp_avg_sqs=*/{}, step_views,
                      options.lr(), beta1, beta2, options.weight_decay(), options.eps(), /*amsgrad=*/false,
                      /*maximize=*/false);
  }
}

}  // namespace medsynth
