// MAISI's mask-conditioned generation: a label map steers the diffusion UNet
// through the ControlNet (models/controlnet_maisi.hpp) at every step of the
// reverse process, as NV-Generate's image-from-mask inference does. The label
// becomes the ControlNet's condition as MAISI encodes it: each voxel's label
// value written in `bits` binary channels (value 5 -> channels 0 and 2 set),
// at image resolution. Used by generate_stage.cpp when `generate --label`
// names a label map; the run holds the ControlNet's checkpoint and the
// NV-Generate network config it was imported with (import-maisi).
#pragma once

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>

#include <string>

#include "models/controlnet_maisi.hpp"
#include "volume/volume.hpp"

namespace medsynth {

struct UnetConditioning;

// [1, bits, ...] float: the label's binary digits, spatial axes in the
// networks' order (xyz: [X, Y, Z]; zyx: [Z, Y, X]). DataError naming `source`
// when a voxel is negative, not whole, or needs more than `bits` digits.
at::Tensor binary_label_channels(const Volume& label, int bits, bool xyz, const std::string& source);

class ControlNetGuidance {
 public:
  // The ControlNet of `network_config` (its controlnet_def) with the weights
  // of `checkpoint` (model.controlnet.* names), steering with `label`; with
  // `tumour_free_unconditional`, guidance's unconditional pass is steered by
  // the label's tumour-free counterpart (data/tumour_free_label.hpp), as
  // NV-Generate's image-from-mask guides.
  ControlNetGuidance(const std::string& network_config, const std::string& checkpoint, const Volume& label,
                     const std::string& label_source, bool xyz, const c10::Device& device,
                     bool tumour_free_unconditional = false);
  // Adds the ControlNet's residuals for (x, t) to `conditioning` (class
  // labels come from conditioning.embedding, as MAISI passes the modality).
  // `unconditional`: guidance's unconditional pass.
  void steer(const at::Tensor& x, const at::Tensor& timesteps, UnetConditioning& conditioning,
             bool unconditional = false) const;

 private:
  mutable ControlNetMaisi net_{nullptr};  // LibTorch modules have no const forward()
  at::Tensor condition_;
  at::Tensor unconditional_condition_;  // undefined: the unconditional pass takes condition_
};

}  // namespace medsynth
