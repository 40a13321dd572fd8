#include "train/patch_gan_training.hpp"

#include <ATen/ATen.h>

#include "metrics/losses.hpp"
#include "train/task.hpp"

namespace medsynth {

PatchGanTraining::PatchGanTraining(const JobSpec& job, double weight, int start_step, View view, double feature_weight)
    : weight_(weight), feature_weight_(feature_weight), start_step_(start_step), view_(view) {
  if (view == View::slices) {
    name_ = "slice_discriminator";
    term_prefix_ = "train/slice_";
  }
  if (!(weight > 0)) return;
  PatchDiscriminatorOptions d = job.model.discriminator;  // the network's part of the section
  d.in_channels = job.model.autoencoder.out_channels;
  d.spatial_dims = view == View::slices ? 2 : 3;
  discriminator_ = PatchDiscriminator(d);
}

namespace {

// One random slice along depth per sample, the same for the pair (medicaldiffusion's "frames").
std::pair<at::Tensor, at::Tensor> random_slices(const at::Tensor& a, const at::Tensor& b) {
  const at::Tensor depth = at::randint(a.size(2), {a.size(0)}, at::TensorOptions().dtype(at::kLong)).to(a.device());
  const at::Tensor index = depth.view({-1, 1, 1, 1, 1}).expand({a.size(0), a.size(1), 1, a.size(3), a.size(4)});
  return {a.gather(2, index).squeeze(2), b.gather(2, index).squeeze(2)};
}

}  // namespace

at::Tensor PatchGanTraining::with_generator_term(at::Tensor loss, const at::Tensor& reconstruction,
                                                 const at::Tensor& real, int step,
                                                 std::map<std::string, double>& terms) {
  if (!enabled()) return loss;
  at::Tensor fake = reconstruction, truth = real;
  if (view_ == View::slices) std::tie(fake, truth) = random_slices(reconstruction, real);
  if (active(step)) {
    // The generator's terms must not leave gradients in the discriminator,
    // whose own pass follows and accumulates across micro-batches.
    for (auto& p : discriminator_->parameters()) p.requires_grad_(false);
    const std::vector<at::Tensor> fake_features = discriminator_->features(fake);
    at::Tensor adv = generator_adversarial_loss(fake_features.back().to(at::kFloat));
    loss = loss + weight_ * adv;
    terms[term_prefix_ + "gen_adv_loss"] += adv.item<double>();
    if (feature_weight_ > 0) {
      std::vector<at::Tensor> real_features;
      {
        at::NoGradGuard no_grad;
        real_features = discriminator_->features(truth);
      }
      at::Tensor matching = at::zeros({}, loss.options());
      for (std::size_t i = 0; i + 1 < fake_features.size(); ++i)  // every layer but the logits
        matching = matching + (fake_features[i].to(at::kFloat) - real_features[i].to(at::kFloat)).abs().mean();
      loss = loss + feature_weight_ * matching;
      terms[term_prefix_ + "gan_feat_loss"] += matching.item<double>();
    }
    for (auto& p : discriminator_->parameters()) p.requires_grad_(true);
  }
  last_real_ = truth.detach();
  last_reconstruction_ = fake.detach();
  return loss;
}

at::Tensor PatchGanTraining::discriminator_loss(std::map<std::string, double>& terms) {
  at::Tensor real_logits = discriminator_->forward(last_real_);
  at::Tensor fake_logits = discriminator_->forward(last_reconstruction_);
  at::Tensor loss = medsynth::discriminator_loss(real_logits.to(at::kFloat), fake_logits.to(at::kFloat));
  terms[term_prefix_ + "disc_loss"] += loss.item<double>();
  return loss;
}

void PatchGanTraining::add_module(std::vector<NamedModule>& modules) const {
  if (enabled()) modules.push_back({name_, discriminator_.ptr()});
}

void PatchGanTraining::add_optimizer_group(std::vector<OptimizerGroup>& groups) {
  if (enabled()) groups.push_back(optimizer_group(name_, name_, *discriminator_));
}

void PatchGanTraining::to(const c10::Device& device) {
  if (enabled()) discriminator_->to(device);
}

void PatchGanTraining::train_mode(bool on) {
  if (enabled()) discriminator_->train(on);
}

}  // namespace medsynth
