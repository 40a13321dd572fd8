// The engine's one sampling loop (issue 52), as MONAI's
// DiffusionInferer.sample has one: noise of the latent's shape, then for each
// of the scheduler's inference timesteps one prediction of the UNet and one
// scheduler step. What differs between generate, ControlNet generation and
// translation is the conditioning, said by SamplingConditioning, not by a
// loop of their own. Timed by tests/bench/ldm_sampling_bench.cpp through
// sample_latent (diffusion/generate_stage.hpp).
#pragma once

#include <ATen/core/Generator.h>
#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>

#include <cstdint>
#include <functional>

#include "models/unet_conditioning.hpp"

namespace medsynth {

class ControlNetGuidance;
class DiffusionModelUNetImpl;
class DiffusionScheduler;

struct SamplingConditioning {
  // The UNet's inputs beside x and t (class, spacing, body regions); empty
  // for a UNet without them.
  UnetEmbeddingInputs embedding;
  // A ControlNet that adds its residuals at every step (generate --label).
  const ControlNetGuidance* controlnet = nullptr;
  // Channels put before x at every step (translation: the known contrasts,
  // Fast-DDPM's concatenation); undefined for none.
  at::Tensor concatenated;
  // Classifier-free guidance (NV-Generate's cfg_guidance_scale): each step's
  // prediction is uncond + scale x (cond - uncond), uncond made with class
  // label 0; needs embedding.class_labels. 0: off.
  double guidance_scale = 0.0;
  // Regenerating a region of a known latent (generate --inpaint), as RePaint
  // does for any scheduler: where `keep` is 1 the latent is replaced after
  // every step by `known` noised to the step's next timestep (fresh noise
  // from the generator), and by `known` itself after the last step, so only
  // the region (keep 0) is sampled, in context. Undefined: no region.
  at::Tensor known;  // [B, C, ...] the latent's shape, already scaled
  at::Tensor keep;   // [B or 1, 1, ...] on the latent's grid, 1 or 0
};

// The reverse process for one batch of `shape`; the initial noise and every
// step's noise (stochastic schedulers) come from `generator`, on the CPU, so
// a seed gives the same image on every device.
at::Tensor reverse_process(DiffusionModelUNetImpl& unet, const DiffusionScheduler& scheduler, at::IntArrayRef shape,
                           at::Generator generator, const c10::Device& device, const SamplingConditioning& conditioning,
                           const std::function<void(std::int64_t done, std::int64_t total)>& on_step = {});

}  // namespace medsynth
