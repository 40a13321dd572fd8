// NV-Generate's network configuration (configs/config_network_rflow.json,
// config_network_ddpm.json) read into our specs: `autoencoder_def`,
// `diffusion_unet_def`, `controlnet_def` and `noise_scheduler`, with MONAI
// bundle references ("@latent_channels", "$@image_channels") resolved against
// the file's top-level keys. Used by `medsynth-engine import-maisi`
// (diffusion/maisi_import.hpp) and readable by the console (no LibTorch).
// A key we do not know, a `_target_` that is not the MAISI network it should
// be, or an expression we cannot resolve is a DataError naming the file and
// the key: a silently ignored option would give a network that loads the
// weights and computes something else.
#pragma once

#include <optional>
#include <string>

#include "config/controlnet_spec.hpp"
#include "config/diffusion_spec.hpp"
#include "config/job_spec.hpp"

namespace medsynth {

struct MaisiNetworkConfig {
  std::string path;
  AutoencoderKLOptions autoencoder;
  DiffusionUnetOptions diffusion_unet;
  std::optional<ControlNetMaisiOptions> controlnet;
  SchedulerOptions scheduler;       // kind rflow (RFlowScheduler) or ddpm (DDPMScheduler)
  bool include_body_region = false; // ddpm-ct: top/bottom region inputs
};

// Throws DataError(path, reason) on a missing file, bad JSON, an unknown key
// or an unresolvable reference.
MaisiNetworkConfig read_maisi_network_config(const std::string& path);

}  // namespace medsynth
