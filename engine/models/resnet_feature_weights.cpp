#include "models/resnet_feature_weights.hpp"

#include <ATen/ATen.h>

#include <algorithm>
#include <vector>

#include "config/job_loader.hpp"
#include "config/network_size.hpp"
#include "core/error.hpp"
#include "weights/torch_archive.hpp"

namespace medsynth {

namespace {

// The widest layer built from a file: 4x MONAI's and RadImageNet's widest
// (512), the bound of model.resnet.block_inplanes (job_fields.cpp).
constexpr int k_max_width = 2048;

bool has(const std::map<std::string, at::Tensor>& w, const std::string& name) { return w.count(name) > 0; }

// The output channels of tensor `name`, refused over k_max_width naming it.
int width_of(const std::map<std::string, at::Tensor>& w, const std::string& name, const std::string& path) {
  const std::int64_t width = w.at(name).size(0);
  if (width < 1 || width > k_max_width)
    throw DataError(path, "'" + name + "' gives a layer " + std::to_string(width) +
                              " channels wide; medsynth builds feature networks of 1 to " +
                              std::to_string(k_max_width));
  return static_cast<int>(width);
}

// Every parameter of a network built here is copied from its file
// (load_by_name), so a network estimated (near-exactly, config/network_size)
// at over twice what the file stores was sized by shapes made for it: 1.7 KB
// files built 2-4 GB networks (issue 50 item 5). Refused before it is built,
// as is one over half this machine's memory.
void refuse_resnet_larger_than_its_file(const ResNetShape& shape, const std::map<std::string, at::Tensor>& w,
                                        const std::string& path) {
  const double parameters = estimated_parameters(shape);
  refuse_network_larger_than_its_file(parameters, stored_elements(w), 2.0, path, "its shapes ask");
  refuse_network_larger_than_memory(parameters, path, "its layer widths");
}

// Blocks per layer from the names (layerL.B.conv1.weight).
std::vector<int> blocks_per_layer(const std::map<std::string, at::Tensor>& w) {
  std::vector<int> blocks;
  for (int layer = 1; layer <= 4; ++layer) {
    int b = 0;
    while (has(w, "layer" + std::to_string(layer) + "." + std::to_string(b) + ".conv1.weight")) ++b;
    blocks.push_back(b);
  }
  return blocks;
}

ResNet3dOptions options_from(const std::map<std::string, at::Tensor>& w, const std::string& path) {
  if (!has(w, "conv1.weight") || w.at("conv1.weight").dim() != 5)
    throw DataError(path, "is not a 3D ResNet's weights (no 5-D conv1.weight)");
  const bool bottleneck = has(w, "layer1.0.conv3.weight");
  const auto blocks = blocks_per_layer(w);
  ResNet3dOptions o;
  if (blocks == std::vector<int>{1, 1, 1, 1} && !bottleneck) o.depth = 10;
  else if (blocks == std::vector<int>{3, 4, 6, 3} && bottleneck) o.depth = 50;
  else if (blocks == std::vector<int>{2, 2, 2, 2} || blocks == std::vector<int>{3, 4, 6, 3})
    throw DataError(path, "holds a ResNet-18/34: MedicalNet trains those with shortcut A (parameter-free), which medsynth does not build; use ResNet-10 or 50");
  else
    throw DataError(path, "holds a ResNet with " + std::to_string(blocks[0]) + "/" + std::to_string(blocks[1]) + "/" + std::to_string(blocks[2]) +
                              "/" + std::to_string(blocks[3]) + " blocks per layer; medsynth builds depths 10 and 50");
  const auto& conv1 = w.at("conv1.weight");
  o.n_input_channels = static_cast<int>(conv1.size(1));
  o.conv1_t_size = static_cast<int>(conv1.size(2));
  o.block_inplanes.clear();
  for (int layer = 1; layer <= 4; ++layer)
    o.block_inplanes.push_back(width_of(w, "layer" + std::to_string(layer) + ".0.conv1.weight", path));
  // The file's shapes, not a job: its problems name the file.
  if (const auto problems = o.problems(); !problems.empty())
    throw DataError(path, "its shapes give a ResNet medsynth does not build: " + format_errors(problems));
  refuse_resnet_larger_than_its_file({.input_channels = o.n_input_channels,
                                      .stem_width = o.block_inplanes[0],
                                      .stem_kernel = o.conv1_t_size,
                                      .spatial_dims = 3,
                                      .bottleneck = bottleneck,
                                      .widths = o.block_inplanes,
                                      .blocks = blocks},
                                     w, path);
  return o;
}


// Copies `weights` into `net` by name. `head` names a prefix of the file that
// is not a feature (a classifier, a segmentation head) and is dropped;
// `ours_only` a prefix of ours that the file need not have. Every other name
// must match in both directions with the same shape, or DataError naming the
// first problem.
void load_by_name(torch::nn::Module& net, const std::map<std::string, at::Tensor>& weights, const std::string& path,
                  const std::vector<std::string>& head, const std::vector<std::string>& ours_only, const std::string& what) {
  const auto starts_with_any = [](const std::string& name, const std::vector<std::string>& prefixes) {
    for (const auto& p : prefixes)
      if (name.rfind(p, 0) == 0) return true;
    return false;
  };
  std::map<std::string, at::Tensor> targets;
  for (const auto& p : net.named_parameters(true)) targets[p.key()] = p.value();
  for (const auto& b : net.named_buffers(true)) targets[b.key()] = b.value();
  std::vector<std::string> problems;
  for (const auto& [name, target] : targets) {
    if (starts_with_any(name, ours_only)) continue;
    const auto it = weights.find(name);
    const bool counter = name.size() > 20 && name.compare(name.size() - 20, 20, ".num_batches_tracked") == 0;
    if (it == weights.end()) {
      if (!counter) problems.push_back("missing " + name);  // files older than torch 0.4.1 have no counter
    } else if (it->second.sizes() != target.sizes()) {
      problems.push_back(name + " is " + c10::str(it->second.sizes()) + ", the network's " + c10::str(target.sizes()));
    }
  }
  for (const auto& [name, tensor] : weights)
    if (!starts_with_any(name, head) && !targets.count(name)) problems.push_back("unexpected " + name);
  if (!problems.empty())
    throw DataError(path, "does not load into " + what + ": " + problems.front() +
                              (problems.size() > 1 ? " (and " + std::to_string(problems.size() - 1) + " more)" : ""));
  at::NoGradGuard no_grad;
  for (auto& [name, target] : targets) {
    const auto it = weights.find(name);
    if (it != weights.end()) target.copy_(it->second);
  }
  net.eval();
}

RadImageNetResNetOptions radimagenet_options_from(const std::map<std::string, at::Tensor>& w, const std::string& path) {
  const auto blocks = blocks_per_layer(w);
  if (!has(w, "layer1.0.conv3.weight") || std::count(blocks.begin(), blocks.end(), 0) > 0)
    throw DataError(path, "is not a bottleneck ResNet's weights (layer1..layer4 with conv3): RadImageNet's ResNet-50 has them");
  if (!has(w, "conv1.bias") || !has(w, "layer1.0.conv1.bias"))
    throw DataError(path, "holds a 2D ResNet without convolution biases (torchvision's layout); medsynth builds RadImageNet's "
                          "(Keras) layout: save another network as TorchScript instead");
  RadImageNetResNetOptions o;
  o.input_channels = static_cast<int>(w.at("conv1.weight").size(1));
  o.stem_width = width_of(w, "conv1.weight", path);
  o.blocks = blocks;
  o.widths.clear();
  for (int layer = 1; layer <= 4; ++layer)
    o.widths.push_back(width_of(w, "layer" + std::to_string(layer) + ".0.conv1.weight", path));
  refuse_resnet_larger_than_its_file({.input_channels = o.input_channels,
                                      .stem_width = o.stem_width,
                                      .stem_kernel = 7,
                                      .spatial_dims = 2,
                                      .bottleneck = true,
                                      .widths = o.widths,
                                      .blocks = o.blocks},
                                     w, path);
  return o;
}

ResNet3d resnet_from_options(const ResNet3dOptions& options, const std::map<std::string, at::Tensor>& weights,
                             const std::string& path) {
  ResNet3d net(options);
  // fc / covariate_fc are our survival risk head, not a feature.
  load_by_name(*net, weights, path, {"fc.", "conv_seg."}, {"fc.", "covariate_fc."},
               "a MedicalNet-style ResNet-" + std::to_string(net->options().depth));
  return net;
}

}  // namespace

ResNet3d resnet_from_state_dict(const std::map<std::string, at::Tensor>& weights, const std::string& path) {
  return resnet_from_options(options_from(weights, path), weights, path);
}

ResNet3d medicalnet_resnet_from_state_dict(const std::map<std::string, at::Tensor>& weights, const std::string& path) {
  ResNet3dOptions o = options_from(weights, path);
  o.conv1_t_stride = 2;
  o.medicalnet_dilation = true;
  return resnet_from_options(o, weights, path);
}

RadImageNetResNet radimagenet_resnet_from_state_dict(const std::map<std::string, at::Tensor>& weights, const std::string& path) {
  if (!has(weights, "conv1.weight") || weights.at("conv1.weight").dim() != 4)
    throw DataError(path, "is not a 2D ResNet's weights (no 4-D conv1.weight)");
  RadImageNetResNet net(radimagenet_options_from(weights, path));
  load_by_name(*net, weights, path, {"fc."}, {}, "a RadImageNet-style (Keras layout) 2D ResNet");
  return net;
}

}  // namespace medsynth
