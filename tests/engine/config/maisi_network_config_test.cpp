// NV-Generate network configs from strangers (issue 37): a value nested a
// million levels deep is refused naming the file (it overflowed the stack of
// import-maisi), and a cycle of references is reported as a cycle, not as a
// missing key. The config is otherwise NV-Generate's shape, cut to what the
// reader needs before the hostile key.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "config/maisi_network_config.hpp"
#include "core/bounded_json.hpp"
#include "core/error.hpp"
#include "support/oversized_json.hpp"
#include "support/temp_dir.hpp"

namespace medsynth {
namespace {

// A config whose autoencoder_def.num_channels is `num_channels` (JSON text).
std::string config_with(const std::string& num_channels, const std::string& extra_top_level = "") {
  return R"({)" + extra_top_level + R"(
  "autoencoder_def": {"_target_": "monai.apps.generation.maisi.networks.autoencoderkl_maisi.AutoencoderKlMaisi",
                      "num_channels": )" + num_channels + R"(},
  "diffusion_unet_def": {"_target_": "monai.apps.generation.maisi.networks.diffusion_model_unet_maisi.DiffusionModelUNetMaisi"},
  "noise_scheduler": {"_target_": "monai.networks.schedulers.rectified_flow.RFlowScheduler"}
})";
}

std::string error_reading(const std::string& text, const test::TempDir& dir) {
  const std::string path = (dir / "config_network_rflow.json").string();
  std::ofstream(path) << text;
  try {
    read_maisi_network_config(path);
  } catch (const DataError& e) {
    return e.what();
  }
  return "(accepted)";
}

TEST(MaisiNetworkConfig, AValueNestedAMillionLevelsDeepIsRefusedNamingTheFile) {
  test::TempDir dir("maisi-config-deep");
  const std::size_t depth = 1'000'000;
  const std::string nested = std::string(depth, '[') + "64" + std::string(depth, ']');
  const std::string what = error_reading(config_with(nested), dir);
  EXPECT_NE(what.find("config_network_rflow.json: nests values more than 64 levels deep"), std::string::npos) << what.substr(0, 300);
}

// Issue 50 item 8: an NV-Generate config over the cap of one document
// (4 MiB; the real ones are a few KB) is refused by its size before parsing.
TEST(MaisiNetworkConfig, AConfigOverTheByteCapIsRefusedBeforeParsing) {
  test::TempDir dir("maisi-config-cap");
  const auto path = dir / "config_network_rflow.json";
  test::expect_refused_one_byte_over_the_cap(path, config_with("[64, 128]"), k_document_json_cap.bytes,
                                             [&] { read_maisi_network_config(path.string()); });
}

TEST(MaisiNetworkConfig, ACycleOfReferencesIsNamedAsACycle) {
  test::TempDir dir("maisi-config-cycle");
  const std::string what = error_reading(config_with(R"("@a")", R"("a": "@b", "b": "@a",)"), dir);
  EXPECT_NE(what.find("autoencoder_def.num_channels refers to a cycle of references (@a -> @b -> @a)"), std::string::npos) << what;
  const std::string missing = error_reading(config_with(R"("@nowhere")"), dir);
  EXPECT_NE(missing.find("refers to '@nowhere', which the file does not define"), std::string::npos) << missing;
}

// Found by tests/fuzz/config_json_fuzzer: an int option given as a float or
// a number past int's range was converted with a plain cast (undefined
// behaviour; 4294968296 read as 1000). Refused naming the key.
TEST(MaisiNetworkConfig, AnIntegerOptionOutOfIntsRangeOrFractionalIsRefusedNamingTheKey) {
  test::TempDir dir("maisi-config-int");
  for (const std::string& channels : {std::string("[4294967304, 128, 256]"), std::string("[64, 3.9, 256]"), std::string("[1.84467e+23]")}) {
    const std::string what = error_reading(config_with(channels), dir);
    EXPECT_NE(what.find("autoencoder_def.num_channels is "), std::string::npos) << channels << ": " << what;
    EXPECT_NE(what.find("expected an integer in"), std::string::npos) << channels << ": " << what;
  }
}

TEST(MaisiNetworkConfig, AReferenceResolvesAsBefore) {
  test::TempDir dir("maisi-config-ref");
  const std::string path = (dir / "config_network_rflow.json").string();
  std::ofstream(path) << config_with(R"("@widths")", R"("widths": [64, 128, 256],)");
  const auto config = read_maisi_network_config(path);
  EXPECT_EQ(config.autoencoder.num_channels, (std::vector<int>{64, 128, 256}));
}

}  // namespace
}  // namespace medsynth
