#include "diffusion/reverse_process.hpp"

#include <ATen/ATen.h>

#include "core/error.hpp"
#include "diffusion/controlnet_guidance.hpp"
#include "models/diffusion_model_unet.hpp"
#include "schedulers/diffusion_scheduler.hpp"

namespace medsynth {

at::Tensor reverse_process(DiffusionModelUNetImpl& unet, const DiffusionScheduler& scheduler, at::IntArrayRef shape,
                           at::Generator generator, const c10::Device& device, const SamplingConditioning& conditioning,
                           const std::function<void(std::int64_t, std::int64_t)>& on_step) {
  const double guidance_scale = conditioning.guidance_scale;
  if (guidance_scale > 0 && !conditioning.embedding.class_labels.defined())
    throw UsageError(
        "generate.guidance_scale: classifier-free guidance needs a UNet with a class embedding (num_class_embeds)");
  // The unconditional inputs: class label 0, as NV-Generate's training drops
  // labels to 0 and its sampler guides against zeros_like(modality).
  UnetEmbeddingInputs unconditional = conditioning.embedding;
  if (guidance_scale > 0) unconditional.class_labels = at::zeros_like(conditioning.embedding.class_labels);
  const at::Tensor& before = conditioning.concatenated;
  // One UNet pass (with the ControlNet's residuals when steered).
  const auto predict = [&](const at::Tensor& x, const at::Tensor& timesteps, const UnetEmbeddingInputs& embedding,
                           bool unconditional_pass) {
    UnetConditioning step;
    step.embedding = embedding;
    if (conditioning.controlnet) conditioning.controlnet->steer(x, timesteps, step, unconditional_pass);
    const at::Tensor input = before.defined() ? at::cat({before, x.to(before.scalar_type())}, 1) : x;
    return unet.forward(input, timesteps, step).to(at::kFloat);
  };
  const auto cpu = at::TensorOptions().dtype(at::kFloat);
  auto x = at::randn(shape, generator, cpu).to(device);
  const double numel = static_cast<double>(shape[2] * shape[3] * shape[4]);
  const auto steps = scheduler.inference_timesteps(numel);
  const bool inpainting = conditioning.known.defined();
  // A choice, not a blend: the kept part is the known latent bit for bit.
  const at::Tensor keep = inpainting ? conditioning.keep.to(device).gt(0.5) : at::Tensor();
  const at::Tensor known = inpainting ? conditioning.known.to(device, at::kFloat) : at::Tensor();
  // The known part at timestep t (t < 0: the clean latent); its noise is the
  // initial noise at the start and fresh noise after each step.
  const auto known_at = [&](double t, const at::Tensor& noise) {
    if (t < 0) return known;
    return scheduler.add_noise(known, noise,
                               at::full({shape[0]}, t, at::TensorOptions().dtype(at::kDouble)).to(device));
  };
  if (inpainting) {
    if (known.sizes() != x.sizes())
      throw RuntimeError("reverse_process: the known latent's shape differs from the sampled one");
    if (!steps.empty()) x = at::where(keep, known_at(steps.front(), x), x);
  }
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const double t = steps[i], next = i + 1 < steps.size() ? steps[i + 1] : -1.0;
    const auto timesteps = at::full({shape[0]}, t, cpu).to(device);
    auto out = predict(x, timesteps, conditioning.embedding, false);
    // Two passes rather than NV-Generate's doubled batch: the same sums per
    // sample, half the peak memory, and a ControlNet steers each as it is.
    if (guidance_scale > 0) {
      const auto uncond = predict(x, timesteps, unconditional, true);
      out = uncond + guidance_scale * (out - uncond);
    }
    auto noise = scheduler.stochastic() ? at::randn(shape, generator, cpu).to(device) : at::Tensor();
    x = scheduler.step(out, t, next, x, noise);
    if (inpainting)
      x = at::where(keep, known_at(next, next < 0 ? at::Tensor() : at::randn(shape, generator, cpu).to(device)), x);
    if (on_step) on_step(static_cast<std::int64_t>(i + 1), static_cast<std::int64_t>(steps.size()));
  }
  return x;
}

}  // namespace medsynth
