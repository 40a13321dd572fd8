// The trained first stage as the latent stages use it: loaded from a
// checkpoint (EMA weights when present), encoding preprocessed volumes to
// latents, and decoding latents in overlapping tiles so that a large
// output (MAISI decodes 512^3 images) never holds the decoder's full-size
// activations at once. Used by the encode stage, generate and the
// memorization audit. The first stage is the KL autoencoder (MAISI) or a
// VQ-GAN (ldm.first_stage: vqgan; medicaldiffusion's DDPM on its codes).
#pragma once

#include <c10/core/Device.h>

#include <functional>
#include <string>

#include "config/job_spec.hpp"
#include "models/autoencoder_kl.hpp"
#include "models/vqgan.hpp"

namespace medsynth {

// The job's model.autoencoder with the weights of `checkpoint` (a medsynth
// checkpoint of an autoencoder run). UsageError when the checkpoint holds
// another model; DataError when it cannot be read.
AutoencoderKL load_autoencoder(const JobSpec& job, const std::string& checkpoint, const c10::Device& device);
// The job's first stage (ldm.first_stage) as a function from a volume
// [1, 1, Z, Y, X] to its latent (the memorization audit's latent space).
std::function<at::Tensor(const at::Tensor&)> latent_mean_encoder(const JobSpec& job, const std::string& checkpoint, const c10::Device& device);

// Image-space voxels per latent voxel along each axis (2^(levels - 1)).
int autoencoder_scale(const AutoencoderKLOptions& spec);

// Decodes z [1, C, z, y, x]. tile 0, or a latent of at most tile^3 voxels
// (NV-Generate's rule): in one piece; otherwise windows of `tile` latent
// voxels overlapping by 40 % (MAISI's setting), blended with weights that
// fall linearly toward each window's border.
// `on_tile(done, total)` after each tile (progress); returning false stops
// there and returns what is blended so far (the memory benchmark measures a
// 512^3 decode's peak from its first tiles: every tile is the same size).
// The latent mean of x [B, C, D, H, W] encoded in overlapping image tiles of
// `tile` latent voxels per edge (tile x 2^(levels-1) image voxels), blended
// like decode_tiled; tile <= 0 or larger than x: in one piece. Why: one
// 64-channel activation of a whole 512x512x256 CT is 17 GB, so MAISI's
// encoder cannot take it at once (upstream users run out of memory there);
// a tile's activations are bounded by its size. The encoder has no attention
// at MAISI's settings, so tiles with overlap agree with the whole inside
// (tiled_decode_test measures how closely).
at::Tensor encode_mean_tiled(AutoencoderKLImpl& autoencoder, const at::Tensor& x, int tile,
                             const std::function<bool(int done, int total)>& on_tile = {});
// How tiles overlap and blend: MONAI's sliding-window overlap, and weights
// that fall off toward a tile's border, where its decoder saw least context:
// a linear ramp, or MONAI's "gaussian" mode as its sliding window builds it
// for a decoder (sigma 0.125 of the latent window, nearest-resized to the
// image window), which NV-Generate decodes with at overlap 0.6666.
struct TileBlending {
  double overlap = 0.4;
  bool gaussian = false;
};
at::Tensor decode_tiled(AutoencoderKLImpl& autoencoder, const at::Tensor& z, int tile, const TileBlending& blending = {},
                        const std::function<bool(int done, int total)>& on_tile = {});

// A trained first stage of either kind, as the latent stages use it.
class FirstStage {
 public:
  using Coder = std::function<at::Tensor(const at::Tensor&)>;
  // KL: the latent mean; VQ-GAN: the codes before quantisation.
  at::Tensor encode(const at::Tensor& x) const { return encode_(x); }
  // VQ-GAN: each latent vector snapped to its nearest code, then decoded.
  at::Tensor decode(const at::Tensor& z) const { return decode_(z); }
  // As encode_mean_tiled / decode_tiled above, for either kind.
  at::Tensor encode_tiled(const at::Tensor& x, int tile) const;
  at::Tensor decode_tiled(const at::Tensor& z, int tile, const TileBlending& blending,
                          const std::function<bool(int done, int total)>& on_tile = {}) const;
  int scale() const { return scale_; }  // image voxels per latent voxel along each axis
  // The KL autoencoder (ldm.encode_sample draws from its q(z|x)); null for a VQ-GAN.
  AutoencoderKL kl() const { return kl_; }

  explicit FirstStage(AutoencoderKL kl);
  explicit FirstStage(Vqgan vqgan);

 private:
  AutoencoderKL kl_{nullptr};
  Vqgan vqgan_{nullptr};
  Coder encode_, decode_;
  int scale_ = 1;
};

// ldm.first_stage's network with the weights of `checkpoint`: the KL
// autoencoder (load_autoencoder), or the generator of a VQ-GAN run's
// checkpoint, built from this job's model.autoencoder and model.vqgan.
// UsageError naming ldm.autoencoder_checkpoint when the checkpoint is another
// task's or another network's.
FirstStage load_first_stage(const JobSpec& job, const std::string& checkpoint, const c10::Device& device);

}  // namespace medsynth
