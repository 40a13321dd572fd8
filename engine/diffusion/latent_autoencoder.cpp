#include "diffusion/latent_autoencoder.hpp"

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

// MONAI's Gaussian importance: exp(-(i - centre)^2 / (2 sigma^2)), sigma =
// 0.125 n, floored at its smallest positive value so that no voxel is unweighted.
at::Tensor gaussian(std::int64_t n, const at::TensorOptions& options) {
  const auto i = at::arange(n, options.dtype(at::kFloat));
  const double centre = (static_cast<double>(n) - 1.0) / 2.0, sigma = 0.125 * static_cast<double>(n);
  auto g = at::exp(-0.5 * at::pow((i - centre) / sigma, 2));
  return g.clamp_min(g.min().item<double>() > 0 ? g.min().item<double>() : 1e-6);
}

at::Tensor tile_weight(std::int64_t n, bool use_gaussian, const at::TensorOptions& options) {
  return use_gaussian ? gaussian(n, options) : ramp(n, options);
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
  if (tile <= 0 || (tile >= Z && tile >= Y && tile >= X)) return decode(z);
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
        const bool g = blending.gaussian;
        auto w = tile_weight(tz * s, g, piece.options()).view({-1, 1, 1}) * tile_weight(ty * s, g, piece.options()).view({1, -1, 1}) *
                 tile_weight(tx * s, g, piece.options()).view({1, 1, -1});
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
