// dataset-card over a folder built by hand (diffusion/dataset_card.hpp): what
// a stranger's quality report or evaluation.json holds is checked and escaped,
// and the label's hash is the file's own (issue 50 item 10).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "core/error.hpp"
#include "core/file_digest.hpp"
#include "diffusion/dataset_card.hpp"
#include "support/temp_dir.hpp"
#include "volume/volume.hpp"
#include "volume/volume_io.hpp"

namespace fs = std::filesystem;

namespace medsynth {
namespace {

// One image/label pair, as generate --label names them, with its quality report.
void write_pair(const fs::path& folder, const std::string& quality_json) {
  fs::create_directories(folder);
  Volume v = make_volume({4, 4, 4});
  write_volume(v, (folder / "x_image.nii.gz").string());
  v.at(1, 1, 1) = 1;
  write_volume(v, (folder / "x_label.nii.gz").string());
  std::ofstream(folder / "x_quality.json") << quality_json;
}

std::string card_refusal(const fs::path& folder, const std::string& evaluation = {}) {
  try {
    read_dataset_card(folder.string(), evaluation);
  } catch (const DataError& e) {
    return e.path() + ": " + e.reason();
  }
  return "accepted";
}

// Organs or memorization cases that are not objects gave nlohmann's
// type_error.306, naming no file.
TEST(DatasetCard, AReportWhoseEntriesAreNotObjectsIsRefusedNamingTheFile) {
  test::TempDir dir("dataset-card");
  const fs::path folder = dir / "pairs";
  write_pair(folder, R"({"passed": false, "tries": [{"organs": [1, "liver"]}]})");
  EXPECT_EQ(
      card_refusal(folder).rfind((folder / "x_quality.json").string() + ": its last try's organs are not a list", 0),
      0u)
      << card_refusal(folder);
  std::ofstream(folder / "x_quality.json") << R"({"passed": true, "tries": [{"organs": []}]})";
  const fs::path evaluation = dir / "evaluation.json";
  std::ofstream(evaluation) << R"({"memorization": {"cases": [3, [1]]}})";
  EXPECT_EQ(
      card_refusal(folder, evaluation.string()).rfind(evaluation.string() + ": memorization.cases is not a list", 0),
      0u)
      << card_refusal(folder, evaluation.string());
  std::ofstream(evaluation) << R"({"memorization": {"cases": [{"generated": "x_image.nii.gz", "flagged": true}]}})";
  EXPECT_EQ(card_refusal(folder, evaluation.string()), "accepted");
}

// A forged organ name added a heading and an <img> to the card; the label's
// hash was the one the image's provenance claims, not the file's.
TEST(DatasetCard, TextFromAReportIsEscapedAndTheLabelFilesOwnHashIsPrinted) {
  test::TempDir dir("dataset-card");
  const fs::path folder = dir / "pairs";
  write_pair(folder, R"({"passed": false, "tries": [{"organs": [
      {"organ": "liver\n\n# Pwned <img src=x onerror=alert(1)> [a](http://x) *b* | c", "outlier": true}]}]})");
  const std::string md = write_dataset_card(read_dataset_card(folder.string()));
  EXPECT_EQ(md.find("\n# Pwned"), std::string::npos) << md;
  EXPECT_EQ(md.find("<img"), std::string::npos) << md;
  EXPECT_NE(md.find("failed: liver  # Pwned &lt;img src=x onerror=alert(1)&gt; \\[a\\](http://x) \\*b\\* \\| c |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| x\\_image.nii.gz | x\\_label.nii.gz | " +
                    file_sha256((folder / "x_label.nii.gz").string()).substr(0, 12) + " |"),
            std::string::npos)
      << md;
}

}  // namespace
}  // namespace medsynth
