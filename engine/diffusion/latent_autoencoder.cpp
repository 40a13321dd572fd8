#include "diffusion/latent_autoencoder.hpp"

#include <algorithm>
#include <memory>

#include <ATen/ATen.h>

#include "core/error.hpp"
#include "train/autoencoder_task.hpp"
#include "data/sliding_window_inference.hpp"
#include "state/tensor_file.hpp"
#include "state/trained_modules.hpp"
#include "state/training_state.hpp"

namespace medsynth {

AutoencoderKL load_autoencoder(const JobSpec& job, const std::string& checkpoint, const c10::Device& device) {
  JobSpec ae_job = job;
  ae_job.task = "autoencoder";
  AutoencoderTask task(ae_job);
  TensorFile file = read_tensor_file(checkpoint);
  restore_weights(task.modules(), file, checkpoint, /*prefer_ema=*/true);
  for (const auto& m : task.modules()) {
    if (m.name != "autoencoder") continue;
    auto ae = std::dynamic_pointer_cast<AutoencoderKLImpl>(m.module);
    if (!ae) break;
    ae->to(device);
    ae->eval();
    return AutoencoderKL(ae);
  }
  throw RuntimeError("the autoencoder task has no module named 'autoencoder'");
}

std::function<at::Tensor(const at::Tensor&)> latent_mean_encoder(const JobSpec& job, const std::string& checkpoint, const c10::Device& device) {
  auto stage = std::make_shared<FirstStage>(load_first_stage(job, checkpoint, device));
  return [stage](const at::Tensor& x) {
    at::NoGradGuard no_grad;
    return stage->encode(x);
  };
}

int autoencoder_scale(const AutoencoderKLOptions& spec) { return spec.compression(); }

namespace {

// Our default overlap (encode, and decode unless the job says otherwise): with
// less, tiles near a seam miss too much of the coder's receptive field
// (tests/engine/diffusion/tiled_decode_test.cpp).
constexpr double kOverlap = 0.4;

// 1 in the middle, falling linearly to 1/(n/2) at both ends: tiles weigh most
// where their decoder saw the most context.
at::Tensor ramp(std::int64_t n, const at::TensorOptions& options) {
  auto i = at::arange(n, options.dtype(at::kFloat));
  return at::minimum(i + 1, n - i).clamp_max(static_cast<double>((n + 1) / 2)) / static_cast<double>((n + 1) / 2);
}

// MONAI's sliding-window importance for a decoder, as NV-Generate's tiled
// decode builds it (compute_importance_map, then the resize to the output
// window): the Gaussian of the latent window, exp(-x^2 / (2 sigma^2)) with x
// from the window's centre and sigma 0.125 of its edge, the 3D product
// clamped below at max(its minimum, 1e-3), then resized by nearest neighbour
// to the image window, which repeats each latent weight s times per axis.
// Built at image size instead, the blend was 4-5 HU from NV-Generate's.
at::Tensor monai_gaussian_tile(std::int64_t tz, std::int64_t ty, std::int64_t tx, std::int64_t s,
                               const at::TensorOptions& options) {
  const auto axis = [&](std::int64_t n) {
    const double half = (static_cast<double>(n) - 1.0) / 2.0, sigma = 0.125 * static_cast<double>(n);
    const auto x = at::arange(-half, half + 1.0, 1.0, options.dtype(at::kFloat));
    return at::exp(x * x / (-2.0 * sigma * sigma));
  };
  auto map = axis(tz).view({-1, 1, 1}) * axis(ty).view({1, -1, 1}) * axis(tx).view({1, 1, -1});
  map = map.clamp_min(std::max(map.min().item<double>(), 1e-3));
  return map.repeat_interleave(s, 0).repeat_interleave(s, 1).repeat_interleave(s, 2);
}

// The blend of one decoded tile of tz x ty x tx latent voxels.
at::Tensor tile_weight(std::int64_t tz, std::int64_t ty, std::int64_t tx, std::int64_t s, bool use_gaussian,
                       const at::TensorOptions& options) {
  if (use_gaussian) return monai_gaussian_tile(tz, ty, tx, s, options);
  return ramp(tz * s, options).view({-1, 1, 1}) * ramp(ty * s, options).view({1, -1, 1}) *
         ramp(tx * s, options).view({1, 1, -1});
}

}  // namespace

namespace {

using Coder = FirstStage::Coder;

at::Tensor encode_tiled_with(const Coder& encode, std::int64_t s, const at::Tensor& x, int tile,
                             const std::function<bool(int, int)>& on_tile) {
  at::NoGradGuard no_grad;
  if (tile <= 0) return encode(x);
  if (x.dim() != 5 || x.size(2) % s != 0 || x.size(3) % s != 0 || x.size(4) % s != 0)
    return encode(x);                                                          // whose input check names what is wrong
  const std::int64_t Z = x.size(2) / s, Y = x.size(3) / s, X = x.size(4) / s;  // latent sizes
  if (tile >= Z && tile >= Y && tile >= X) return encode(x);
  const std::int64_t tz = std::min<std::int64_t>(tile, Z), ty = std::min<std::int64_t>(tile, Y), tx = std::min<std::int64_t>(tile, X);
  const auto zs = window_starts(Z, tz, kOverlap), ys = window_starts(Y, ty, kOverlap), xs = window_starts(X, tx, kOverlap);
  const int total = static_cast<int>(zs.size() * ys.size() * xs.size());
  int done = 0;
  at::Tensor out, weight;
  for (auto z0 : zs)
    for (auto y0 : ys)
      for (auto x0 : xs) {
        const auto piece =
            encode(x.narrow(2, z0 * s, tz * s).narrow(3, y0 * s, ty * s).narrow(4, x0 * s, tx * s)).to(at::kFloat);
        if (!out.defined()) {
          out = at::zeros({x.size(0), piece.size(1), Z, Y, X}, piece.options());
          weight = at::zeros({1, 1, Z, Y, X}, piece.options());
        }
        const auto w = ramp(tz, piece.options()).view({-1, 1, 1}) * ramp(ty, piece.options()).view({1, -1, 1}) *
                       ramp(tx, piece.options()).view({1, 1, -1});
        auto region = [&](at::Tensor t) { return t.narrow(2, z0, tz).narrow(3, y0, ty).narrow(4, x0, tx); };
        region(out).add_(piece * w);
        region(weight).add_(w);
        if (on_tile && !on_tile(++done, total)) return out.div_(weight.clamp_min_(1e-12));
      }
  return out.div_(weight);
}

at::Tensor decode_tiled_with(const Coder& decode, std::int64_t s, const at::Tensor& z, int tile,
                             const TileBlending& blending, const std::function<bool(int, int)>& on_tile) {
  at::NoGradGuard no_grad;
  const std::int64_t Z = z.size(2), Y = z.size(3), X = z.size(4);
  // A latent of at most one tile's voxels decodes whole, as NV-Generate's
  // dynamic_infer does (numel <= prod(roi)): no more memory than one tile.
  const auto cube = static_cast<std::int64_t>(tile) * tile * tile;
  if (tile <= 0 || Z * Y * X <= cube) return decode(z);
  at::Tensor out, weight;
  const auto zs = window_starts(Z, std::min<std::int64_t>(tile, Z), blending.overlap);
  const auto ys = window_starts(Y, std::min<std::int64_t>(tile, Y), blending.overlap);
  const auto xs = window_starts(X, std::min<std::int64_t>(tile, X), blending.overlap);
  const int total = static_cast<int>(zs.size() * ys.size() * xs.size());
  int done = 0;
  for (auto z0 : zs)
    for (auto y0 : ys)
      for (auto x0 : xs) {
        const std::int64_t tz = std::min<std::int64_t>(tile, Z), ty = std::min<std::int64_t>(tile, Y), tx = std::min<std::int64_t>(tile, X);
        auto piece = decode(z.narrow(2, z0, tz).narrow(3, y0, ty).narrow(4, x0, tx)).to(at::kFloat);
        if (!out.defined()) {
          out = at::zeros({1, piece.size(1), Z * s, Y * s, X * s}, piece.options());
          weight = at::zeros({1, 1, Z * s, Y * s, X * s}, piece.options());
        }
        const auto w = tile_weight(tz, ty, tx, s, blending.gaussian, piece.options());
        auto region = [&](at::Tensor t) { return t.narrow(2, z0 * s, tz * s).narrow(3, y0 * s, ty * s).narrow(4, x0 * s, tx * s); };
        region(out).add_(piece * w);
        region(weight).add_(w);
        if (on_tile && !on_tile(++done, total)) return out.div_(weight.clamp_min_(1e-12));
      }
  return out.div_(weight);  // in place: at 512^3 a second full-size image is 0.5 GB
}

std::int64_t levels_scale(const AutoencoderKLImpl& ae) {
  return std::int64_t{1} << (ae.options().num_channels.size() - 1);
}

// The generator of a VQ-GAN run's checkpoint; its discriminators' tensors,
// which encoding and decoding do not need, are left in the file.
Vqgan load_vqgan(const JobSpec& job, const std::string& checkpoint, const c10::Device& device) {
  const TensorFile file = read_tensor_file(checkpoint);
  const auto task = file.metadata.find("task");
  if (task != file.metadata.end() && task->second != "vqgan")
    throw UsageError("ldm.autoencoder_checkpoint: " + checkpoint + " is a checkpoint of task " + task->second +
                     "; ldm.first_stage vqgan needs a VQ-GAN run's (task vqgan)");
  Vqgan vqgan(AutoencoderKLOptions::from_spec(job.model.autoencoder, job.loss), job.model.vqgan);
  TensorFile generator;
  generator.metadata = file.metadata;
  for (const auto& [name, t] : file.tensors)
    if (name.rfind("model.vqgan.", 0) == 0 || name.rfind("ema.vqgan.", 0) == 0) generator.tensors.emplace(name, t);
  try {
    restore_weights({NamedModule{"vqgan", vqgan.ptr()}}, generator, checkpoint, /*prefer_ema=*/true);
  } catch (const UsageError& e) {
    throw UsageError(std::string("ldm.autoencoder_checkpoint: ") + e.what() +
                     " (this job's model.autoencoder and model.vqgan must be the VQ-GAN run's)");
  }
  vqgan->to(device);
  vqgan->eval();
  return vqgan;
}

}  // namespace

at::Tensor encode_mean_tiled(AutoencoderKLImpl& ae, const at::Tensor& x, int tile,
                             const std::function<bool(int, int)>& on_tile) {
  return encode_tiled_with([&](const at::Tensor& v) { return ae.encode(v).first; }, levels_scale(ae), x, tile, on_tile);
}

at::Tensor decode_tiled(AutoencoderKLImpl& ae, const at::Tensor& z, int tile, const TileBlending& blending,
                        const std::function<bool(int, int)>& on_tile) {
  return decode_tiled_with([&](const at::Tensor& v) { return ae.decode(v); }, levels_scale(ae), z, tile, blending,
                           on_tile);
}

FirstStage::FirstStage(AutoencoderKL kl) : kl_(std::move(kl)) {
  AutoencoderKLImpl* ae = kl_.get();
  encode_ = [ae](const at::Tensor& x) { return ae->encode(x).first; };
  decode_ = [ae](const at::Tensor& z) { return ae->decode(z); };
  scale_ = static_cast<int>(levels_scale(*ae));
}

FirstStage::FirstStage(Vqgan vqgan) : vqgan_(std::move(vqgan)) {
  VqganImpl* vq = vqgan_.get();
  encode_ = [vq](const at::Tensor& x) { return vq->encode_codes(x); };
  decode_ = [vq](const at::Tensor& z) { return vq->decode_codes(z); };
  scale_ = vq->compression();
}

at::Tensor FirstStage::encode_tiled(const at::Tensor& x, int tile) const {
  return encode_tiled_with(encode_, scale_, x, tile, {});
}

at::Tensor FirstStage::decode_tiled(const at::Tensor& z, int tile, const TileBlending& blending,
                                    const std::function<bool(int, int)>& on_tile) const {
  return decode_tiled_with(decode_, scale_, z, tile, blending, on_tile);
}

FirstStage load_first_stage(const JobSpec& job, const std::string& checkpoint, const c10::Device& device) {
  if (job.ldm.first_stage == "vqgan") return FirstStage(load_vqgan(job, checkpoint, device));
  return FirstStage(load_autoencoder(job, checkpoint, device));
}

}  // namespace medsynth
