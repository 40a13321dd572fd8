// The adversarial half that the autoencoder and VQ-GAN tasks share: a 3D
// PatchGAN discriminator (model.discriminator, on the generator's output
// channels) that joins the run at a given step, its weighted term in the
// generator's loss, and its own least-squares loss on real volumes against
// the generator's last reconstructions. A task holds one and calls it from
// its modules, optimizer groups and compute_loss (autoencoder_task.cpp,
// vqgan_task.cpp); without a discriminator (weight 0) every call is a no-op.
#pragma once

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>

#include <map>
#include <string>
#include <vector>

#include "config/job_spec.hpp"
#include "models/patch_discriminator.hpp"
#include "state/trained_modules.hpp"

namespace medsynth {

class PatchGanTraining {
 public:
  PatchGanTraining() = default;  // no discriminator
  // Builds the discriminator when `weight` > 0 (its weights are drawn here:
  // construct it after the generator, as the tasks always did).
  PatchGanTraining(const JobSpec& job, double weight, int start_step);

  bool enabled() const { return static_cast<bool>(discriminator_); }
  // The discriminator's optimizer group runs from start_step on.
  bool active(int step) const { return enabled() && step >= start_step_; }

  // `loss` plus the weighted adversarial term of `reconstruction` when active
  // at `step` (train/gen_adv_loss in `terms`); keeps the reconstruction for
  // the discriminator's pass, which follows for the same batch.
  at::Tensor with_generator_term(at::Tensor loss, const at::Tensor& reconstruction, int step,
                                 std::map<std::string, double>& terms);
  // The discriminator's loss: `real` volumes against the kept reconstructions (train/disc_loss).
  at::Tensor discriminator_loss(const at::Tensor& real, std::map<std::string, double>& terms);

  void add_module(std::vector<NamedModule>& modules) const;       // "discriminator"
  void add_optimizer_group(std::vector<OptimizerGroup>& groups);  // "discriminator"
  void to(const c10::Device& device);
  void train_mode(bool on);

 private:
  PatchDiscriminator discriminator_{nullptr};
  double weight_ = 0;
  int start_step_ = 0;
  at::Tensor last_reconstruction_;
};

}  // namespace medsynth
