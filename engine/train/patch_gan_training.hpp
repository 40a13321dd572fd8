// The adversarial half that the autoencoder and VQ-GAN tasks share: a
// PatchGAN discriminator (model.discriminator, on the generator's output
// channels) that joins the run at a given step, its weighted term in the
// generator's loss, optionally a feature-matching term, and its own
// least-squares loss on real images against the generator's last
// reconstructions. It judges whole volumes (the 3D network) or one random
// axial slice per sample (the 2D network: medicaldiffusion's "image"
// discriminator beside its 3D "video" one). A task holds one per
// discriminator and calls it from its modules, optimizer groups and
// compute_loss (autoencoder_task.cpp, vqgan_task.cpp); without a
// discriminator (weight 0) every call is a no-op.
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
  enum class View { volumes, slices };

  PatchGanTraining() = default;  // no discriminator
  // Builds the discriminator when `weight` > 0 (its weights are drawn here:
  // construct it after the generator, as the tasks always did). Module,
  // optimizer group and terms are named "discriminator"/train/gen_adv_loss,
  // train/disc_loss, train/gan_feat_loss for volumes, with "slice_" before
  // them for slices.
  PatchGanTraining(const JobSpec& job, double weight, int start_step, View view = View::volumes,
                   double feature_weight = 0.0);

  bool enabled() const { return static_cast<bool>(discriminator_); }
  // The discriminator's optimizer group runs from start_step on.
  bool active(int step) const { return enabled() && step >= start_step_; }

  // `loss` plus, when active at `step`, the weighted adversarial term of
  // `reconstruction` and feature_weight x the L1 distance of the
  // discriminator's layer outputs for it and for `real` (pix2pixHD's feature
  // matching, as medicaldiffusion sums it). Keeps both (as slices, for the
  // slice view) for the discriminator's pass, which follows for the same batch.
  at::Tensor with_generator_term(at::Tensor loss, const at::Tensor& reconstruction, const at::Tensor& real, int step,
                                 std::map<std::string, double>& terms);
  // The discriminator's loss: the kept real images against the kept reconstructions.
  at::Tensor discriminator_loss(std::map<std::string, double>& terms);

  void add_module(std::vector<NamedModule>& modules) const;       // "discriminator" | "slice_discriminator"
  void add_optimizer_group(std::vector<OptimizerGroup>& groups);  // the same name
  void to(const c10::Device& device);
  void train_mode(bool on);

 private:
  PatchDiscriminator discriminator_{nullptr};
  double weight_ = 0, feature_weight_ = 0;
  int start_step_ = 0;
  View view_ = View::volumes;
  std::string name_ = "discriminator", term_prefix_ = "train/";
  at::Tensor last_real_, last_reconstruction_;
};

}  // namespace medsynth
