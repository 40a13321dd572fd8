// FID feature networks from weights (eval/feature_network.hpp,
// models/resnet_feature_weights.hpp): MedicalNet-style ResNet weights written
// by torch.save (legacy format, `module.` prefixes) load by name and give
// MONAI's features for the same input (data/make_medicalnet_fixture.py);
// RadImageNet's 2D ResNet-50 (Keras layout, zip format) gives the reference
// network's features (data/make_radimagenet_fixture.py); what cannot work is
// refused by name.
#include <gtest/gtest.h>

#include <ATen/ATen.h>
#include <torch/script.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <fstream>
#include <map>
#include <string>

#include "core/error.hpp"
#include "eval/feature_network.hpp"
#include "models/resnet_feature_weights.hpp"
#include "support/temp_dir.hpp"
#include "state/tensor_file.hpp"

namespace fs = std::filesystem;

namespace medsynth {
namespace {

const fs::path k_data = MEDSYNTH_EVAL_TEST_DATA;

// The network loaded from `weights` gives the fixture's features for its input.
void expect_reference_features(const std::string& weights, const std::string& io_file) {
  const FeatureNetwork net((k_data / weights).string());
  const auto io = read_tensor_file((k_data / io_file).string());
  const auto ours = net.features(io.tensors.at("io.x"));
  const auto reference = io.tensors.at("io.features").to(at::kDouble);
  ASSERT_EQ(ours.sizes(), reference.sizes());
  EXPECT_TRUE(at::allclose(ours, reference, 1e-4, 1e-5)) << "max difference " << (ours - reference).abs().max().item<double>();
}

TEST(FeatureNetwork, MedicalNetStyleWeightsGiveMonaisFeatures) {
  expect_reference_features("medicalnet_resnet10.pth", "medicalnet_resnet10_io.safetensors");
}

TEST(FeatureNetwork, RadImageNetStyleWeightsGiveTheReferenceFeatures) {
  expect_reference_features("radimagenet_resnet50_narrow.pth", "radimagenet_resnet50_narrow_io.safetensors");
}

TEST(FeatureNetwork, A2dResNetRefusesVolumesAndSaysWhatToUse) {
  const FeatureNetwork net((k_data / "radimagenet_resnet50_narrow.pth").string());
  try {
    net.features(at::zeros({1, 1, 16, 16, 16}));
    ADD_FAILURE() << "a volume accepted";
  } catch (const RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find("--feature-mode 2.5d"), std::string::npos) << e.what();
  }
}

// torchvision's ResNet-50 has the same names but no convolution biases and
// strides in the 3x3 convolution: loading it into the Keras layout would give
// other features without an error, so it is refused.
TEST(FeatureNetwork, A2dResNetWithoutBiasesIsRefusedAsAnotherLayout) {
  std::map<std::string, at::Tensor> w{{"conv1.weight", at::zeros({8, 3, 7, 7})}};
  for (int layer = 1; layer <= 4; ++layer)
    for (const char* conv : {"conv1", "conv2", "conv3"})
      w["layer" + std::to_string(layer) + ".0." + conv + ".weight"] = at::zeros({8, 8, 1, 1});
  try {
    radimagenet_resnet_from_state_dict(w, "resnet50-torchvision.pth");
    ADD_FAILURE() << "accepted";
  } catch (const DataError& e) {
    EXPECT_NE(std::string(e.what()).find("resnet50-torchvision.pth"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("torchvision"), std::string::npos) << e.what();
  }
}

TEST(FeatureNetwork, A3dResNetRefusesSlicesAndSaysWhatToUse) {
  const FeatureNetwork net((k_data / "medicalnet_resnet10.pth").string());
  try {
    net.features(at::zeros({4, 1, 16, 16}));
    ADD_FAILURE() << "2-D slices accepted";
  } catch (const RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find("--feature-mode 3d"), std::string::npos) << e.what();
  }
}

TEST(FeatureNetwork, AFileThatIsNeitherTorchScriptNorWeightsNamesBoth) {
  test::TempDir dir("feature-network");
  std::ofstream(dir / "notes.pth") << "not a network";
  try {
    FeatureNetwork net((dir / "notes.pth").string(), /*trust_torchscript=*/true);
    ADD_FAILURE() << "accepted";
  } catch (const DataError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("notes.pth"), std::string::npos) << what;
    EXPECT_NE(what.find("TorchScript"), std::string::npos) << what;
    EXPECT_NE(what.find("torch.save"), std::string::npos) << what;
  }
}

// A TorchScript file runs its author's code when loaded: without the user's
// word it is refused before torch::jit::load sees it; with it, it loads and
// says so. Today's code loaded every file as TorchScript first.
TEST(FeatureNetwork, TorchScriptLoadsOnlyWhenTrusted) {
  test::TempDir dir("feature-network-script");
  torch::jit::Module m("FeatureNet");
  m.define(R"(
def forward(self, x):
    return x.flatten(2).mean(2)
)");
  const std::string path = (dir / "script.pt").string();
  m.save(path);
  try {
    FeatureNetwork refused(path);
    ADD_FAILURE() << "TorchScript loaded without --trust-torchscript";
  } catch (const DataError& e) {
    EXPECT_NE(std::string(e.what()).find("--trust-torchscript"), std::string::npos) << e.what();
  }
  const FeatureNetwork trusted(path, /*trust_torchscript=*/true);
  EXPECT_TRUE(trusted.is_torchscript());
  EXPECT_EQ(trusted.features(at::ones({2, 3, 4, 4})).sizes(), (std::vector<std::int64_t>{2, 3}));
  // The documented weights need no trust.
  EXPECT_FALSE(FeatureNetwork((k_data / "medicalnet_resnet10.pth").string()).is_torchscript());
}

std::map<std::string, at::Tensor> resnet_names(int blocks) {
  std::map<std::string, at::Tensor> w{{"conv1.weight", at::zeros({8, 1, 7, 7, 7})}};
  for (int layer = 1; layer <= 4; ++layer)
    for (int b = 0; b < blocks; ++b) w["layer" + std::to_string(layer) + "." + std::to_string(b) + ".conv1.weight"] = at::zeros({8, 8, 3, 3, 3});
  return w;
}

TEST(FeatureNetwork, ResNet18WeightsAreRefusedForTheirParameterFreeShortcut) {
  EXPECT_THROW(
      {
        try {
          resnet_from_state_dict(resnet_names(2), "resnet_18.pth");
        } catch (const DataError& e) {
          EXPECT_NE(std::string(e.what()).find("shortcut A"), std::string::npos) << e.what();
          throw;
        }
      },
      DataError);
}

TEST(FeatureNetwork, AMissingWeightIsNamed) {
  auto w = resnet_names(1);
  try {
    resnet_from_state_dict(w, "partial.pth");
    ADD_FAILURE() << "accepted";
  } catch (const DataError& e) {
    EXPECT_NE(std::string(e.what()).find("partial.pth"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("missing"), std::string::npos) << e.what();
  }
}

// Issue 50 item 5: the widths of a feature or perceptual network come from
// its file's shapes, and the network was built before any shape was checked:
// 1.7 KB files built 2-4 GB networks. A width over 2048 is refused naming the
// tensor; a network larger than what its file stores (every parameter is
// loaded from it) is refused before it is built, in 3D and 2D.
TEST(FeatureNetwork, AFileWhoseShapesAskForANetworkLargerThanItselfIsRefusedBeforeBuilding) {
  const auto reason = [](auto build, const std::map<std::string, at::Tensor>& w, const std::string& path) {
    try {
      build(w, path);
    } catch (const DataError& e) {
      EXPECT_EQ(e.path(), path);
      return e.reason();
    }
    return std::string("accepted");
  };
  const auto resnet3d = [](const auto& w, const auto& p) { resnet_from_state_dict(w, p); };
  const auto medicalnet = [](const auto& w, const auto& p) { medicalnet_resnet_from_state_dict(w, p); };
  const auto radimagenet = [](const auto& w, const auto& p) { radimagenet_resnet_from_state_dict(w, p); };
  // ResNet-10 names, each layer 2000 channels wide on a one-number tensor.
  std::map<std::string, at::Tensor> narrow_file{{"conv1.weight", at::zeros({8, 1, 7, 7, 7})}};
  for (int layer = 1; layer <= 4; ++layer)
    narrow_file["layer" + std::to_string(layer) + ".0.conv1.weight"] = at::zeros({2000, 1, 1, 1, 1});
  using Build = std::function<void(const std::map<std::string, at::Tensor>&, const std::string&)>;
  for (const Build& build : {Build(resnet3d), Build(medicalnet)}) {
    const auto start = std::chrono::steady_clock::now();
    const std::string why = reason(build, narrow_file, "wide.pth");
    EXPECT_NE(why.find("its shapes ask for a network of about"), std::string::npos) << why;
    EXPECT_NE(why.find("but the file stores only"), std::string::npos) << why;
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(1)) << "the network was built";
  }
  auto too_wide = narrow_file;
  too_wide["layer3.0.conv1.weight"] = at::zeros({4096, 1, 1, 1, 1});
  const std::string why = reason(resnet3d, too_wide, "wider.pth");
  EXPECT_NE(why.find("'layer3.0.conv1.weight' gives a layer 4096 channels wide"), std::string::npos) << why;
  // RadImageNet's 2D layout, 2000 wide on tiny tensors with the biases it needs.
  std::map<std::string, at::Tensor> flat{{"conv1.weight", at::zeros({8, 3, 7, 7})}, {"conv1.bias", at::zeros({8})}};
  for (int layer = 1; layer <= 4; ++layer)
    for (const char* conv : {"conv1", "conv2", "conv3"}) {
      flat["layer" + std::to_string(layer) + ".0." + conv + ".weight"] = at::zeros({2000, 1, 1, 1});
      flat["layer" + std::to_string(layer) + ".0." + conv + ".bias"] = at::zeros({1});
    }
  const std::string why2d = reason(radimagenet, flat, "wide2d.pth");
  EXPECT_NE(why2d.find("but the file stores only"), std::string::npos) << why2d;
  flat["layer1.0.conv1.weight"] = at::zeros({4096, 1, 1, 1});
  EXPECT_NE(reason(radimagenet, flat, "wider2d.pth").find("'layer1.0.conv1.weight' gives a layer 4096 channels wide"),
            std::string::npos);
}

}  // namespace
}  // namespace medsynth
