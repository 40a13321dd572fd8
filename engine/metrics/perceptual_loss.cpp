#include "metrics/perceptual_loss.hpp"

#include <ATen/ATen.h>

#include <algorithm>
#include <filesystem>

#include "core/error.hpp"
#include "models/resnet_feature_weights.hpp"
#include "weights/torch_archive.hpp"

namespace medsynth {

struct PerceptualLoss::Network {
  ResNet3d medicalnet{nullptr};
  RadImageNetResNet radimagenet{nullptr};
  std::string variant;
};

namespace {

// Every voxel's feature vector scaled to unit length over channels; eps
// inside the root keeps the gradient finite where features vanish (MONAI's
// normalize_tensor, 1e-10).
at::Tensor unit_over_channels(const at::Tensor& x) { return x / at::sqrt(x.pow(2).sum(1, true) + 1e-10); }

// Squared distance of unit feature vectors, summed over channels, averaged
// over the spatial axes: [N, 1] per sample.
at::Tensor feature_distance(const at::Tensor& a, const at::Tensor& b) {
  at::Tensor d = (unit_over_channels(a) - unit_over_channels(b)).pow(2).sum(1, true);
  return d.flatten(2).mean(2);
}

// MedicalNet's preprocessing (brains18.py): one mean and one (unbiased)
// standard deviation for the whole batch tensor, as MONAI applies it.
at::Tensor zscore(const at::Tensor& x) { return (x - x.mean()) / x.std(); }

void freeze(torch::nn::Module& net) {
  for (auto& p : net.parameters()) p.requires_grad_(false);
  net.eval();
}

}  // namespace

PerceptualLoss::PerceptualLoss(const std::string& path, double fake_3d_ratio)
    : net_(std::make_unique<Network>()), fake_3d_ratio_(fake_3d_ratio) {
  if (!std::filesystem::is_regular_file(path)) throw DataError(path, "perceptual network: no such file");
  const auto weights = state_dict_of(read_torch_file(path), path);
  const auto conv1 = weights.find("conv1.weight");
  if (conv1 != weights.end() && conv1->second.dim() == 4) {
    net_->radimagenet = radimagenet_resnet_from_state_dict(weights, path);
    net_->variant = "radimagenet";
    freeze(*net_->radimagenet);
  } else {
    net_->medicalnet = medicalnet_resnet_from_state_dict(weights, path);
    net_->variant = "medicalnet";
    freeze(*net_->medicalnet);
  }
}

PerceptualLoss::~PerceptualLoss() = default;
PerceptualLoss::PerceptualLoss(PerceptualLoss&&) noexcept = default;
PerceptualLoss& PerceptualLoss::operator=(PerceptualLoss&&) noexcept = default;

const std::string& PerceptualLoss::variant() const { return net_->variant; }

void PerceptualLoss::to(const c10::Device& device) {
  if (net_->medicalnet) net_->medicalnet->to(device);
  if (net_->radimagenet) net_->radimagenet->to(device);
}

at::Tensor PerceptualLoss::forward(const at::Tensor& input, const at::Tensor& target) {
  if (input.dim() != 5 || input.sizes() != target.sizes())
    throw UsageError("perceptual loss: input and target must be [B, C, D, H, W] of one shape (got " +
                     c10::str(input.sizes()) + " and " + c10::str(target.sizes()) + ")");
  const at::Tensor x = input.to(at::kFloat), y = target.to(at::kFloat);
  if (net_->medicalnet) {
    // The network takes one channel; a multi-channel volume is compared on
    // the features of all its channels together (concatenated, then unit length).
    const at::Tensor xs = zscore(x), ys = zscore(y);
    std::vector<at::Tensor> fx, fy;
    for (std::int64_t c = 0; c < x.size(1); ++c) {
      fx.push_back(net_->medicalnet->feature_map(xs.narrow(1, c, 1)));
      fy.push_back(net_->medicalnet->feature_map(ys.narrow(1, c, 1)));
    }
    return feature_distance(at::cat(fx, 1), at::cat(fy, 1)).mean();
  }
  if (x.size(1) != 1 && x.size(1) != 3)
    throw UsageError("perceptual loss: RadImageNet's network takes 1 (repeated) or 3 channels, not " +
                     std::to_string(x.size(1)));
  // RadImageNet was trained on BGR images with these channel means subtracted (Keras' "caffe" preprocessing).
  const at::Tensor bgr_mean = at::tensor({0.406f, 0.456f, 0.485f}, x.options()).view({1, 3, 1, 1});
  const auto as_images = [&](const at::Tensor& v, std::int64_t axis) {
    std::vector<std::int64_t> order{0, axis, 1};
    for (std::int64_t a = 2; a < 5; ++a)
      if (a != axis) order.push_back(a);
    at::Tensor s = v.permute(order).contiguous();
    s = s.view({-1, s.size(2), s.size(3), s.size(4)});
    if (s.size(1) == 1) s = s.repeat({1, 3, 1, 1});
    return s.flip(1) - bgr_mean;
  };
  at::Tensor loss = at::zeros({}, x.options());
  for (std::int64_t axis = 2; axis < 5; ++axis) {
    at::Tensor xi = as_images(x, axis), yi = as_images(y, axis);
    if (fake_3d_ratio_ < 1.0) {
      // At least one slice: MONAI's int(n * ratio) can be 0 on a thin axis,
      // and the mean of no slices is NaN.
      const std::int64_t n = xi.size(0),
                         kept = std::max<std::int64_t>(1, static_cast<std::int64_t>(n * fake_3d_ratio_));
      const at::Tensor keep = at::randperm(n, at::TensorOptions().dtype(at::kLong)).slice(0, 0, kept).to(x.device());
      xi = xi.index_select(0, keep);
      yi = yi.index_select(0, keep);
    }
    loss = loss + feature_distance(net_->radimagenet->forward(xi), net_->radimagenet->forward(yi)).mean();
  }
  return loss;
}

}  // namespace medsynth
