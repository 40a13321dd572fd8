// FusedAdamW (ATen's fused kernel) against torch::optim::AdamW, the loop it
// replaces: the same weights and moments after many steps up to rounding,
// with weight decay, two groups at different learning rates, a parameter
// that gets no gradient on some steps, a channels-last weight, and a state
// handed from one to the other as a resume does.
#include <gtest/gtest.h>

#include <ATen/ATen.h>
#include <torch/optim/adamw.h>

#include "train/fused_adamw.hpp"

using namespace medsynth;
using torch::optim::AdamW;
using torch::optim::AdamWOptions;
using torch::optim::AdamWParamState;

namespace {

struct Weights {
  at::Tensor conv, bias, rarely;  // rarely: a gradient on every third step only
  std::vector<at::Tensor> all() const { return {conv, bias, rarely}; }
};

Weights make_weights(bool channels_last) {
  at::manual_seed(7);
  Weights w{at::randn({8, 4, 3, 3, 3}), at::randn({8}), at::randn({5, 3})};
  if (channels_last) w.conv = w.conv.contiguous(at::MemoryFormat::ChannelsLast3d);
  for (auto* t : {&w.conv, &w.bias, &w.rarely}) t->set_requires_grad(true);
  return w;
}

Weights copy_of(const Weights& w) {
  Weights c{w.conv.detach().clone(), w.bias.detach().clone(), w.rarely.detach().clone()};
  for (auto* t : {&c.conv, &c.bias, &c.rarely}) t->set_requires_grad(true);
  return c;
}

std::vector<torch::optim::OptimizerParamGroup> groups(const Weights& w) {
  std::vector<torch::optim::OptimizerParamGroup> g;
  g.emplace_back(std::vector<at::Tensor>{w.conv, w.rarely},
                 std::make_unique<AdamWOptions>(AdamWOptions(2e-3).weight_decay(0.05)));
  g.emplace_back(std::vector<at::Tensor>{w.bias}, std::make_unique<AdamWOptions>(AdamWOptions(5e-4).weight_decay(0.0)));
  return g;
}

// The same gradients for both: drawn from a generator of the step alone.
void set_gradients(const Weights& w, int step) {
  at::manual_seed(1000 + step);
  w.conv.mutable_grad() = at::randn_like(w.conv) * 0.1;
  w.bias.mutable_grad() = at::randn_like(w.bias);
  if (step % 3 == 0)
    w.rarely.mutable_grad() = at::randn_like(w.rarely) * 10.0;
  else
    w.rarely.mutable_grad() = at::Tensor();
}

void run(torch::optim::Optimizer& o, const Weights& w, int from, int to) {
  for (int step = from; step < to; ++step) {
    set_gradients(w, step);
    o.step();
  }
}

AdamWParamState& state(torch::optim::Optimizer& o, const at::Tensor& p) {
  return static_cast<AdamWParamState&>(*o.state().at(p.unsafeGetTensorImpl()));
}

void expect_close(const at::Tensor& a, const at::Tensor& b, const char* what) {
  const double err = (a - b).abs().max().item<double>();
  const double scale = b.abs().max().item<double>();
  EXPECT_LE(err, 1e-6 * std::max(1.0, scale)) << what << ": max |fused - loop| = " << err;
}

void expect_same_run(AdamW& fused, AdamW& loop, const Weights& a, const Weights& b) {
  const char* names[] = {"conv", "bias", "rarely"};
  const auto pa = a.all(), pb = b.all();
  for (std::size_t i = 0; i < pa.size(); ++i) {
    SCOPED_TRACE(names[i]);
    expect_close(pa[i], pb[i], "weight");
    EXPECT_EQ(state(fused, pa[i]).step(), state(loop, pb[i]).step());
    expect_close(state(fused, pa[i]).exp_avg(), state(loop, pb[i]).exp_avg(), "exp_avg");
    expect_close(state(fused, pa[i]).exp_avg_sq(), state(loop, pb[i]).exp_avg_sq(), "exp_avg_sq");
  }
}

}  // namespace

TEST(FusedAdamW, FollowsTorchsLoopOverManySteps) {
  for (bool channels_last : {false, true}) {
    SCOPED_TRACE(channels_last ? "channels-last conv weight" : "contiguous");
    const Weights a = make_weights(channels_last);
    const Weights b = copy_of(a);
    FusedAdamW fused(groups(a));
    AdamW loop(groups(b));
    run(fused, a, 0, 60);
    run(loop, b, 0, 60);
    expect_same_run(fused, loop, a, b);
    EXPECT_EQ(state(fused, a.rarely).step(), 20) << "a parameter without a gradient is not stepped";
    // It moved: a kernel that did nothing would fail here.
    EXPECT_GT((a.conv - make_weights(channels_last).conv).abs().max().item<double>(), 1e-2);
    if (channels_last) EXPECT_TRUE(a.conv.is_contiguous(at::MemoryFormat::ChannelsLast3d));
  }
}

// A checkpoint restores torch's AdamWParamState (contiguous moments): the
// fused optimizer continues from a loop's state as the loop itself does.
TEST(FusedAdamW, ContinuesFromTheLoopsState) {
  const Weights a = make_weights(/*channels_last=*/true);
  const Weights b = copy_of(a);
  AdamW first(groups(a));
  run(first, a, 0, 10);
  AdamW loop(groups(b));
  run(loop, b, 0, 10);
  FusedAdamW fused(groups(a));
  for (const auto& p : a.all()) {
    const auto& s = state(first, p);
    auto copy = std::make_unique<AdamWParamState>();
    copy->step(s.step());
    copy->exp_avg(s.exp_avg().contiguous());
    copy->exp_avg_sq(s.exp_avg_sq().contiguous());
    fused.state()[p.unsafeGetTensorImpl()] = std::move(copy);
  }
  run(fused, a, 10, 30);
  run(loop, b, 10, 30);
  expect_same_run(fused, loop, a, b);
}

// The learning rate is read at each step, as the trainer's schedule sets it.
TEST(FusedAdamW, ReadsTheLearningRateEachStep) {
  const Weights a = make_weights(false);
  const Weights b = copy_of(a);
  FusedAdamW fused(groups(a));
  AdamW loop(groups(b));
  for (int step = 0; step < 12; ++step) {
    for (auto* o : std::initializer_list<torch::optim::Optimizer*>{&fused, &loop})
      for (auto& g : o->param_groups()) g.options().set_lr(1e-3 * (step + 1));
    run(fused, a, step, step + 1);
    run(loop, b, step, step + 1);
  }
  expect_same_run(fused, loop, a, b);
}
