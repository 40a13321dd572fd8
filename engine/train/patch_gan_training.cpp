#include "train/patch_gan_training.hpp"

#include <ATen/ATen.h>

#include "metrics/losses.hpp"
#include "train/task.hpp"

namespace medsynth {

PatchGanTraining::PatchGanTraining(const JobSpec& job, double weight, int start_step)
    : weight_(weight), start_step_(start_step) {
  if (!(weight > 0)) return;
  PatchDiscriminatorOptions d = job.model.discriminator;  // the network's part of the section
  d.in_channels = job.model.autoencoder.out_channels;
  discriminator_ = PatchDiscriminator(d);
}

at::Tensor PatchGanTraining::with_generator_term(at::Tensor loss, const at::Tensor& reconstruction, int step,
                                                 std::map<std::string, double>& terms) {
  if (active(step)) {
    // The generator's adversarial term must not leave gradients in the
    // discriminator, whose own pass follows and accumulates across micro-batches.
    for (auto& p : discriminator_->parameters()) p.requires_grad_(false);
    at::Tensor fake_logits = discriminator_->forward(reconstruction);
    for (auto& p : discriminator_->parameters()) p.requires_grad_(true);
    at::Tensor adv = generator_adversarial_loss(fake_logits.to(at::kFloat));
    loss = loss + weight_ * adv;
    terms["train/gen_adv_loss"] += adv.item<double>();
  }
  last_reconstruction_ = reconstruction.detach();
  return loss;
}

at::Tensor PatchGanTraining::discriminator_loss(const at::Tensor& real, std::map<std::string, double>& terms) {
  at::Tensor real_logits = discriminator_->forward(real);
  at::Tensor fake_logits = discriminator_->forward(last_reconstruction_);
  at::Tensor loss = medsynth::discriminator_loss(real_logits.to(at::kFloat), fake_logits.to(at::kFloat));
  terms["train/disc_loss"] += loss.item<double>();
  return loss;
}

void PatchGanTraining::add_module(std::vector<NamedModule>& modules) const {
  if (enabled()) modules.push_back({"discriminator", discriminator_.ptr()});
}

void PatchGanTraining::add_optimizer_group(std::vector<OptimizerGroup>& groups) {
  if (enabled()) groups.push_back(optimizer_group("discriminator", "discriminator", *discriminator_));
}

void PatchGanTraining::to(const c10::Device& device) {
  if (enabled()) discriminator_->to(device);
}

void PatchGanTraining::train_mode(bool on) {
  if (enabled()) discriminator_->train(on);
}

}  // namespace medsynth
