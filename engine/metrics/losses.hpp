// The autoencoder's loss terms, as MONAI/MAISI define them. Called by the
// autoencoder task (train/) once per micro-batch; all return a scalar tensor
// that carries gradients.
#pragma once

#include <ATen/core/Tensor.h>

#include <string>

namespace medsynth {

// Mean absolute ("l1") or mean squared ("l2") error over every element.
// Throws UsageError for another kind or for tensors of different shapes
// (broadcasting would silently compare the wrong voxels).
at::Tensor reconstruction_loss(const at::Tensor& reconstruction, const at::Tensor& target, const std::string& kind);

// The diffusion objective's error per element, before any weighting or
// mean: |prediction - target| for "l1" (NV-Generate's L1Loss, with which
// NVIDIA trained the released MAISI networks) or its square for "mse" (MONAI's
// generative tutorials). Both in float32. UsageError naming ldm.diffusion_loss
// for another kind, or for tensors of different shapes.
at::Tensor diffusion_error(const at::Tensor& prediction, const at::Tensor& target, const std::string& kind);

// NV-Generate's region-contrastive terms (compute_region_contrasive_loss),
// from the prediction with a label, the one with its tumour-free label and
// the target, all [B, C, ...], and two [B, 1, ...] masks on the same grid:
//  - region: -(mean |prediction - tumour_free| over the region's voxels,
//    every channel), bounded below by -delta (relu(x + delta) - delta): the
//    two predictions are pushed apart where the label changed, no further
//    than delta;
//  - background: mean |tumour_free - target| over the background's voxels.
// Each mean divides by the count of voxels + 1e-5, as NV-Generate's does, so
// an empty region gives 0.
struct RegionContrastiveTerms {
  at::Tensor region, background;
};
RegionContrastiveTerms region_contrastive_terms(const at::Tensor& prediction, const at::Tensor& tumour_free,
                                                const at::Tensor& target, const at::Tensor& region,
                                                const at::Tensor& background, double delta);

// KL(N(mu, exp(logvar)) || N(0, 1)) = 0.5 * sum(mu^2 + exp(logvar) - logvar - 1)
// over all but the batch dimension, then the mean over the batch (MONAI's
// "sum / batch"). Works from the log-variance directly, clamped again to
// [logvar_min, logvar_max]: the seed's log(sigma^2) of an underflowed sigma
// was -inf and exploded the loss.
at::Tensor kl_loss(const at::Tensor& z_mu, const at::Tensor& z_log_var, double logvar_min = -30.0,
                   double logvar_max = 20.0);

// Least-squares GAN losses as MONAI's PatchAdversarialLoss(criterion=
// "least_squares") computes them with its defaults: the logits first pass a
// LeakyReLU(0.05), then an MSE against 1 (real) or 0 (fake).
// Generator: the fakes should look real.
at::Tensor generator_adversarial_loss(const at::Tensor& d_fake_logits);
// Discriminator: 0.5 * (MSE(real, 1) + MSE(fake, 0)), as MAISI's training
// averages the two. Pass the fake logits of a detached reconstruction.
at::Tensor discriminator_loss(const at::Tensor& d_real_logits, const at::Tensor& d_fake_logits);

}  // namespace medsynth
