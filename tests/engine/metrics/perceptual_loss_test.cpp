// The perceptual loss against MONAI 1.6.1's PerceptualLoss: data/
// make_monai_perceptual_reference.py runs MONAI's own code with small random
// networks in the released weights' layouts (MedicalNet's dilated ResNet-10;
// RadImageNet's Keras ResNet-50, narrowed) and stores its values and input
// gradients. We load the same .pth files through the restricted reader.
#include <gtest/gtest.h>

#include <ATen/ATen.h>

#include <cmath>
#include <iomanip>
#include <iostream>
#include <string>

#include "core/error.hpp"
#include "metrics/perceptual_loss.hpp"
#include "state/tensor_file.hpp"

using namespace medsynth;

namespace {

const std::string k_data = MEDSYNTH_METRICS_TEST_DATA;
const std::string k_medicalnet = k_data + "/medicalnet_perceptual_resnet10.pth";
const std::string k_radimagenet = k_data + "/../../eval/data/radimagenet_resnet50_narrow.pth";

const at::Tensor& ref(const std::string& name) {
  static const TensorFile f = read_tensor_file(k_data + "/monai_perceptual.safetensors");
  return f.tensors.at(name);
}

}  // namespace

TEST(PerceptualLoss, MedicalNetVariantEqualsMonaiValueAndGradient) {
  PerceptualLoss loss(k_medicalnet);
  EXPECT_EQ(loss.variant(), "medicalnet");
  at::Tensor x = ref("medicalnet.x").clone().requires_grad_(true);
  at::Tensor value = loss.forward(x, ref("medicalnet.y"));
  value.backward();
  const double expected = ref("medicalnet.loss").item<double>();
  std::cout << std::setprecision(9) << "MedicalNet: medsynth " << value.item<double>() << ", MONAI " << expected
            << "\n";
  EXPECT_NEAR(value.item<double>(), expected, 1e-4 * std::abs(expected));
  const at::Tensor& g = ref("medicalnet.grad");
  const double grad_error = (x.grad() - g).abs().max().item<double>() / g.abs().max().item<double>();
  std::cout << "MedicalNet gradient: largest difference / largest value " << grad_error << "\n";
  EXPECT_LT(grad_error, 1e-4);
}

TEST(PerceptualLoss, RadImageNetTwoAndAHalfDVariantEqualsMonaiWithEverySlice) {
  PerceptualLoss loss(k_radimagenet, /*fake_3d_ratio=*/1.0);
  EXPECT_EQ(loss.variant(), "radimagenet");
  const double value = loss.forward(ref("radimagenet.x"), ref("radimagenet.y")).item<double>();
  const double expected = ref("radimagenet.loss").item<double>();
  std::cout << std::setprecision(9) << "RadImageNet 2.5D: medsynth " << value << ", MONAI " << expected << "\n";
  EXPECT_NEAR(value, expected, 1e-4 * std::abs(expected));
}

TEST(PerceptualLoss, ARandomShareOfSlicesGivesAFiniteEstimateOfTheSameOrder) {
  // MONAI's default 0.5: a random half of each axis' slices. Per-slice
  // distances of one pair of volumes vary, but not by orders of magnitude.
  PerceptualLoss loss(k_radimagenet, 0.5);
  const double value = loss.forward(ref("radimagenet.x"), ref("radimagenet.y")).item<double>();
  const double all = ref("radimagenet.loss").item<double>();
  EXPECT_TRUE(std::isfinite(value));
  EXPECT_GT(value, 0.25 * all);
  EXPECT_LT(value, 4.0 * all);
}

TEST(PerceptualLoss, IsZeroForIdenticalVolumesAndGrowsWithTheDifference) {
  PerceptualLoss loss(k_medicalnet);
  const at::Tensor x = ref("medicalnet.x");
  EXPECT_LT(loss.forward(x, x).item<double>(), 1e-6);
  const at::Tensor noise = at::randn(x.sizes(), at::TensorOptions().dtype(at::kFloat));
  const double small = loss.forward(x, x + 0.02 * noise).item<double>();
  const double large = loss.forward(x, x + 0.3 * noise).item<double>();
  EXPECT_GT(small, 0.0);
  EXPECT_GT(large, small);
}

TEST(PerceptualLoss, TheNetworkGetsNoGradients) {
  PerceptualLoss loss(k_medicalnet);
  at::Tensor x = ref("medicalnet.x").clone().requires_grad_(true);
  // Only the input is a leaf that wants gradients: a frozen network leaves
  // nothing else in the graph to update.
  loss.forward(x, ref("medicalnet.y")).backward();
  EXPECT_TRUE(x.grad().defined());
  EXPECT_GT(x.grad().abs().sum().item<double>(), 0.0);
}

TEST(PerceptualLoss, AMissingFileIsNamed) {
  try {
    PerceptualLoss loss(k_data + "/no-such-network.pth");
    FAIL() << "expected a DataError";
  } catch (const DataError& e) {
    EXPECT_NE(std::string(e.what()).find("no-such-network.pth"), std::string::npos);
  }
}

TEST(PerceptualLoss, ShapesMustAgree) {
  PerceptualLoss loss(k_medicalnet);
  const at::Tensor x = ref("medicalnet.x");
  EXPECT_THROW(loss.forward(x, x.narrow(2, 0, 8)), UsageError);
}
