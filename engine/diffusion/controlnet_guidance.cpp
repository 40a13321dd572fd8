#include "diffusion/controlnet_guidance.hpp"

#include <ATen/ATen.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "config/maisi_network_config.hpp"
#include "core/error.hpp"
#include "data/tumour_free_label.hpp"
#include "models/diffusion_model_unet.hpp"
#include "weights/state_dict_loading.hpp"
#include "state/tensor_file.hpp"

namespace medsynth {

at::Tensor binary_label_channels(const Volume& label, int bits, bool xyz, const std::string& source) {
  const auto [nx, ny, nz] = label.size;
  // Voxels run x fastest: as a [Z, Y, X] tensor without copying.
  const auto values = at::from_blob(const_cast<float*>(label.voxels.data()),
                                    {static_cast<std::int64_t>(nz), static_cast<std::int64_t>(ny), static_cast<std::int64_t>(nx)}, at::kFloat);
  const double max_label = std::ldexp(1.0, bits) - 1;
  if (values.lt(0).any().item<bool>() || values.gt(max_label).any().item<bool>() || values.ne(values.round()).any().item<bool>())
    throw DataError(source, "is not a label map of whole values in [0, " + std::to_string(static_cast<long long>(max_label)) +
                                "] (the ControlNet reads " + std::to_string(bits) + " binary channels)");
  const auto whole = (xyz ? values.permute({2, 1, 0}) : values).to(at::kLong);
  std::vector<at::Tensor> channels;
  for (int b = 0; b < bits; ++b) channels.push_back(whole.bitwise_and(std::int64_t{1} << b).ne(0).to(at::kFloat));
  return at::stack(channels).unsqueeze(0);
}

ControlNetGuidance::ControlNetGuidance(const std::string& network_config, const std::string& checkpoint,
                                       const Volume& label, const std::string& label_source, bool xyz,
                                       const c10::Device& device, bool tumour_free_unconditional) {
  const auto config = read_maisi_network_config(network_config);
  if (!config.controlnet) throw DataError(network_config, "has no controlnet_def: this run cannot generate from a label map");
  net_ = ControlNetMaisi(*config.controlnet);
  // The run's checkpoint names are model.controlnet.<MONAI name>.
  const std::string prefix = "model.controlnet.";
  std::map<std::string, at::Tensor> weights;
  // A training checkpoint (task controlnet) also holds optimizer moments and
  // RNG state under other prefixes: only the model's tensors are weights.
  const auto file = read_tensor_file(checkpoint);
  const bool named = std::any_of(file.tensors.begin(), file.tensors.end(),
                                 [&](const auto& t) { return t.first.rfind(prefix, 0) == 0; });
  for (const auto& [name, tensor] : file.tensors)
    if (!named)
      weights[name] = tensor;
    else if (name.rfind(prefix, 0) == 0)
      weights[name.substr(prefix.size())] = tensor;
  load_state_dict_strict(*net_, weights, checkpoint);
  net_->to(device);
  net_->eval();
  const int bits = config.controlnet->conditioning_embedding_in_channels;
  condition_ = binary_label_channels(label, bits, xyz, label_source).to(device);
  if (tumour_free_unconditional) {
    Volume free = label;
    const auto [nx, ny, nz] = free.size;
    auto values = at::from_blob(
        free.voxels.data(),
        {static_cast<std::int64_t>(nz), static_cast<std::int64_t>(ny), static_cast<std::int64_t>(nx)}, at::kFloat);
    values.copy_(tumour_free_label(values));
    unconditional_condition_ = binary_label_channels(free, bits, xyz, label_source).to(device);
  }
}

void ControlNetGuidance::steer(const at::Tensor& x, const at::Tensor& timesteps, UnetConditioning& conditioning,
                               bool unconditional) const {
  UnetEmbeddingInputs classes;
  classes.class_labels = conditioning.embedding.class_labels;
  const auto& condition = unconditional && unconditional_condition_.defined() ? unconditional_condition_ : condition_;
  auto residuals = net_->forward(x, timesteps, condition, 1.0, {}, classes);
  conditioning.down_block_additional_residuals = std::move(residuals.down_block_residuals);
  conditioning.mid_block_additional_residual = residuals.mid_block_residual;
}

}  // namespace medsynth
