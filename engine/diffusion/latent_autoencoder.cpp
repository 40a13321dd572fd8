#include "diffusion/latent_autoencoder.hpp"

#include <memory>

#include <ATen/ATen.h>

#include "core/error.hpp"
#include "train/autoencoder_task.hpp"
#include "train/sliding_window_inference.hpp"
#include "train/tensor_file.hpp"
#include "train/training_state.hpp"

namespace medsynth {

AutoencoderKL load_autoencoder(const JobSpec& job, const std::string& checkpoint, const c10::Device& device) {
  JobSpec ae_job = job;
  ae_job.task = "autoencoder";
  AutoencoderTask task(ae_job);
  TensorFile file = read_tensor_file(checkpoint);
  restore_weights(task, file, checkpoint, /*prefer_ema=*/true);
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
  auto autoencoder = std::make_shared<AutoencoderKL>(load_autoencoder(job, checkpoint, device));
  return [autoencoder](const at::Tensor& x) { return (*autoencoder)->encode(x).first; };
}

int autoencoder_scale(const AutoencoderSpec& spec) { return 1 << (spec.num_channels.size() - 1); }

namespace {

// MAISI decodes with a 0.4 overlap: with less, tiles near a seam miss too much
// of the decoder's receptive field (tests/engine/diffusion/tiled_decode_test.cpp).
constexpr double kOverlap = 0.4;

// 1 in the middle, falling linearly to 1/(n/2) at both ends: tiles weigh most
// where their decoder saw the most context.
at::Tensor ramp(std::int64_t n, const at::TensorOptions& options) {
  auto i = at::arange(n, options.dtype(at::kFloat));
  return at::minimum(i + 1, n - i).clamp_max(static_cast<double>((n + 1) / 2)) / static_cast<double>((n + 1) / 2);
}

}  // namespace

at::Tensor encode_mean_tiled(AutoencoderKLImpl& ae, const at::Tensor& x, int tile, const std::function<bool(int, int)>& on_tile) {
  at::NoGradGuard no_grad;
  const std::int64_t s = std::int64_t{1} << (ae.options().num_channels.size() - 1);
  if (tile <= 0) return ae.encode(x).first;
  if (x.dim() != 5 || x.size(2) % s != 0 || x.size(3) % s != 0 || x.size(4) % s != 0)
    return ae.encode(x).first;  // whose input check names what is wrong
  const std::int64_t Z = x.size(2) / s, Y = x.size(3) / s, X = x.size(4) / s;  // latent sizes
  if (tile >= Z && tile >= Y && tile >= X) return ae.encode(x).first;
  const std::int64_t tz = std::min<std::int64_t>(tile, Z), ty = std::min<std::int64_t>(tile, Y), tx = std::min<std::int64_t>(tile, X);
  const auto zs = window_starts(Z, tz, kOverlap), ys = window_starts(Y, ty, kOverlap), xs = window_starts(X, tx, kOverlap);
  const int total = static_cast<int>(zs.size() * ys.size() * xs.size());
  int done = 0;
  at::Tensor out, weight;
  for (auto z0 : zs)
    for (auto y0 : ys)
      for (auto x0 : xs) {
        const auto piece = ae.encode(x.narrow(2, z0 * s, tz * s).narrow(3, y0 * s, ty * s).narrow(4, x0 * s, tx * s)).first.to(at::kFloat);
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

at::Tensor decode_tiled(AutoencoderKLImpl& ae, const at::Tensor& z, int tile, const std::function<bool(int, int)>& on_tile) {
  at::NoGradGuard no_grad;
  const std::int64_t Z = z.size(2), Y = z.size(3), X = z.size(4);
  if (tile <= 0 || (tile >= Z && tile >= Y && tile >= X)) return ae.decode(z);
  const std::int64_t s = std::int64_t{1} << (ae.options().num_channels.size() - 1);
  at::Tensor out, weight;
  const auto zs = window_starts(Z, std::min<std::int64_t>(tile, Z), kOverlap);
  const auto ys = window_starts(Y, std::min<std::int64_t>(tile, Y), kOverlap);
  const auto xs = window_starts(X, std::min<std::int64_t>(tile, X), kOverlap);
  const int total = static_cast<int>(zs.size() * ys.size() * xs.size());
  int done = 0;
  for (auto z0 : zs)
    for (auto y0 : ys)
      for (auto x0 : xs) {
        const std::int64_t tz = std::min<std::int64_t>(tile, Z), ty = std::min<std::int64_t>(tile, Y), tx = std::min<std::int64_t>(tile, X);
        auto piece = ae.decode(z.narrow(2, z0, tz).narrow(3, y0, ty).narrow(4, x0, tx)).to(at::kFloat);
        if (!out.defined()) {
          out = at::zeros({1, piece.size(1), Z * s, Y * s, X * s}, piece.options());
          weight = at::zeros({1, 1, Z * s, Y * s, X * s}, piece.options());
        }
        auto w = ramp(tz * s, piece.options()).view({-1, 1, 1}) * ramp(ty * s, piece.options()).view({1, -1, 1}) *
                 ramp(tx * s, piece.options()).view({1, 1, -1});
        auto region = [&](at::Tensor t) { return t.narrow(2, z0 * s, tz * s).narrow(3, y0 * s, ty * s).narrow(4, x0 * s, tx * s); };
        region(out).add_(piece * w);
        region(weight).add_(w);
        if (on_tile && !on_tile(++done, total)) return out.div_(weight.clamp_min_(1e-12));
      }
  return out.div_(weight);  // in place: at 512^3 a second full-size image is 0.5 GB
}

}  // namespace medsynth
