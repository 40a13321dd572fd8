// FID feature networks from weights (eval/feature_network.hpp,
// eval/resnet_feature_weights.hpp): MedicalNet-style ResNet weights written
// by torch.save (legacy format, `module.` prefixes) load by name and give
// MONAI's features for the same input (data/make_medicalnet_fixture.py);
// what cannot work is refused by name.
#include <gtest/gtest.h>

#include <ATen/ATen.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "core/error.hpp"
#include "eval/feature_network.hpp"
#include "eval/resnet_feature_weights.hpp"
#include "support/temp_dir.hpp"
#include "state/tensor_file.hpp"

namespace fs = std::filesystem;

namespace medsynth {
namespace {

const fs::path k_data = MEDSYNTH_EVAL_TEST_DATA;

TEST(FeatureNetwork, MedicalNetStyleWeightsGiveMonaisFeatures) {
  const FeatureNetwork net((k_data / "medicalnet_resnet10.pth").string());
  const auto io = read_tensor_file((k_data / "medicalnet_resnet10_io.safetensors").string());
  const auto ours = net.features(io.tensors.at("io.x"));
  const auto monai = io.tensors.at("io.features").to(at::kDouble);
  ASSERT_EQ(ours.sizes(), monai.sizes());
  EXPECT_TRUE(at::allclose(ours, monai, 1e-4, 1e-5)) << "max difference " << (ours - monai).abs().max().item<double>();
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
    FeatureNetwork net((dir / "notes.pth").string());
    ADD_FAILURE() << "accepted";
  } catch (const DataError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("notes.pth"), std::string::npos) << what;
    EXPECT_NE(what.find("TorchScript"), std::string::npos) << what;
    EXPECT_NE(what.find("torch.save"), std::string::npos) << what;
  }
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

}  // namespace
}  // namespace medsynth
