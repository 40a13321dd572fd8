// Issue 50 item 1 through the real binary: every verb that writes a file,
// run past `ulimit -f` and on a full tmpfs, exits 4 (storage), names the
// file it could not write, and leaves neither a cut file under the final
// name nor a temporary (".tmp-", ".partial"). Before, prepare-label and a
// translation generate exited 0 with a cut gzip stream under the final
// name, dataset-card with a JSON cut at the limit, the MAISI generate
// exited 3 ("corrupt gzip stream") leaving its .partial file, and evaluate
// exited 1 leaving its temporary.
// The inputs are built in the test: a TotalSegmentator-like map of noise
// (which does not compress, so its output passes any small limit) and the
// miniature NV-Generate folder of tests/engine/diffusion/data, imported.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>
#include <nlohmann/json.hpp>
#include <set>

#include "diffusion/maisi_import.hpp"
#include "state/tensor_file.hpp"
#include "support/child_process.hpp"
#include "support/temp_dir.hpp"
#include "volume/volume_io.hpp"

namespace medsynth {
namespace {

namespace fs = std::filesystem;
using test::engine_binary;
using test::run_process;

const fs::path k_data = MEDSYNTH_DIFFUSION_TEST_DATA;

// dash counts `ulimit -f` in 512-byte blocks: 4 is 2048 bytes, less than any
// volume below, 1 is 512 bytes, less than a dataset card (each output is
// checked to be larger when written without the limit).
constexpr int k_blocks = 4;
constexpr std::uintmax_t k_block_bytes = 512;

// Names that mark a temporary or unfinished file of the engine's writers.
bool is_temporary(const fs::path& p) {
  const std::string name = p.filename().string();
  return name.find(".tmp-") != std::string::npos || name.find(".partial") != std::string::npos;
}

std::set<std::string> tree(const fs::path& dir) {
  std::set<std::string> names;
  if (!fs::exists(dir)) return names;
  for (const auto& e : fs::recursive_directory_iterator(dir)) names.insert(e.path().lexically_relative(dir).string());
  return names;
}

class WriteFailure : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(dir_ / "in");
    // Random TotalSegmentator classes (liver 5, spleen 1, kidney 2, ...) on 40^3 voxels.
    Volume seg = make_volume({40, 40, 40}, {1.5, 1.5, 1.5});
    std::mt19937 rng(11);
    const float classes[] = {0.0f, 1.0f, 2.0f, 5.0f, 21.0f};
    for (float& x : seg.voxels) x = classes[rng() % 5];
    write_volume(seg, segmentation());

    MaisiImportOptions o;
    o.folder = (k_data / "maisi_folder").string();
    o.out = run().string();
    import_maisi(o);
    // The fixture's label map (liver 1, spleen 3, kidney 5, stomach 12), stored [x, y, z].
    const auto xyz =
        read_tensor_file((k_data / "maisi_folder_expected.safetensors").string()).tensors.at("io.label_xyz");
    const auto zyx = xyz.permute({2, 1, 0}).contiguous();
    Volume label = make_volume({16, 24, 32}, {1.5, 1.2, 2.0});
    std::copy(zyx.data_ptr<float>(), zyx.data_ptr<float>() + zyx.numel(), label.voxels.begin());
    write_volume(label, maisi_label());
    // Organ statistics that every image passes, so that generate writes a _quality.json too.
    std::ofstream(statistics()) << R"({"liver": {"sigma_6_low": -1e9, "sigma_6_high": 1e9,
                                       "percentile_0_5": -1e9, "percentile_99_5": 1e9}})";
  }

  std::string segmentation() const { return (dir_ / "in" / "seg.nii.gz").string(); }
  fs::path run() const { return dir_ / "in" / "run"; }
  std::string maisi_label() const { return (dir_ / "in" / "label.nii.gz").string(); }
  std::string statistics() const { return (dir_ / "in" / "statistics.json").string(); }

  std::vector<std::string> prepare_label(const fs::path& out) const {
    return {engine_binary(), "prepare-label", segmentation(), "--from", "totalsegmentator", "--out", out.string()};
  }
  std::vector<std::string> generate(const fs::path& out_dir, bool quality_check) const {
    std::vector<std::string> argv{engine_binary(), "generate",    run().string(), test::k_on_cpu,
                                  "--label",       maisi_label(), "--base-seed",  "7",
                                  "--num-images",  "1",           "--output-dir", out_dir.string()};
    if (quality_check) argv.insert(argv.end(), {"--quality-check", statistics()});
    return argv;
  }
  std::vector<std::string> dataset_card(const fs::path& folder) const {
    return {engine_binary(), "dataset-card", folder.string()};
  }
  // The generated pair against two copies of its image: metrics without a feature network.
  std::vector<std::string> evaluate(const fs::path& out) {
    const fs::path reference = dir_ / "in" / "reference";
    if (!fs::exists(reference)) {
      fs::create_directories(reference);
      for (const char* name : {"a.nii.gz", "b.nii.gz"})
        fs::copy_file(pairs() / "sample_seed7_rank0_image.nii.gz", reference / name);
    }
    return {engine_binary(), "evaluate", pairs().string(), "--reference", reference.string(), "--out", out.string()};
  }

  // argv under `ulimit -f blocks` (the engine ignores SIGXFSZ itself).
  test::ProcessResult limited(std::vector<std::string> argv, int blocks = k_blocks) const {
    std::vector<std::string> shell{"/bin/sh", "-c", "ulimit -f " + std::to_string(blocks) + " && exec \"$@\"", "sh"};
    shell.insert(shell.end(), argv.begin(), argv.end());
    return run_process(shell, dir_.path().string());
  }
  test::ProcessResult unlimited(const std::vector<std::string>& argv) const {
    return run_process(argv, dir_.path().string());
  }

  // Exit 4 naming a file in `out` with `cause`; none of `absent` exists; no
  // temporary anywhere in `out`, and every volume or JSON file there (one
  // written before the failing one) is whole.
  static void expect_storage_failure(const test::ProcessResult& r, const fs::path& out,
                                     const std::vector<std::string>& absent, const std::string& cause) {
    EXPECT_EQ(r.exit_code, 4) << r.err;
    EXPECT_NE(r.err.find(out.string() + "/"), std::string::npos) << "the error names the file: " << r.err;
    EXPECT_NE(r.err.find(": cannot write: " + cause), std::string::npos) << r.err;
    for (const auto& name : absent) EXPECT_FALSE(fs::exists(out / name)) << name << " exists after a failed write";
    for (const auto& name : tree(out)) {
      EXPECT_FALSE(is_temporary(name)) << "left behind: " << name;
      const fs::path file = out / name;
      if (file.extension() == ".json") {
        std::ifstream in(file);
        EXPECT_TRUE(nlohmann::json::accept(in)) << "a cut file under its final name: " << name;
      } else if (name.ends_with(".nii.gz")) {
        EXPECT_NO_THROW(read_volume(file.string())) << "a cut file under its final name: " << name;
      }
    }
  }

  // A folder of one generated pair with its quality report, for dataset-card.
  fs::path pairs() {
    const fs::path folder = dir_ / "in" / "pairs";
    if (!fs::exists(folder)) {
      const auto r = unlimited(generate(folder, true));
      EXPECT_EQ(r.exit_code, 0) << r.err;
    }
    return folder;
  }

  test::TempDir dir_{"cli-write-failure"};
};

// The image is written last (its name marks a pair done) and is far larger
// than the limit; its label and quality report, written before it, may be there whole.
const std::vector<std::string> k_generated = {"sample_seed7_rank0_image.nii.gz"};

TEST_F(WriteFailure, PrepareLabelPastTheFileSizeLimitExits4AndLeavesNoFile) {
  const fs::path out = dir_ / "out";
  fs::create_directories(out);
  expect_storage_failure(limited(prepare_label(out / "label.nii.gz")), out, {"label.nii.gz"}, "File too large");
  ASSERT_EQ(unlimited(prepare_label(out / "label.nii.gz")).exit_code, 0);
  EXPECT_GT(fs::file_size(out / "label.nii.gz"), k_blocks * k_block_bytes) << "the limit must cut the output";
}

TEST_F(WriteFailure, GeneratePastTheFileSizeLimitExits4AndLeavesNoImageAndNoPartial) {
  for (const bool quality_check : {false, true}) {
    const fs::path out = dir_ / (quality_check ? "checked" : "plain");
    fs::create_directories(out);
    expect_storage_failure(limited(generate(out, quality_check)), out, k_generated, "File too large");
  }
  const fs::path folder = pairs();
  EXPECT_GT(fs::file_size(folder / "sample_seed7_rank0_image.nii.gz"), k_blocks * k_block_bytes);
}

TEST_F(WriteFailure, DatasetCardPastTheFileSizeLimitExits4AndLeavesNoCard) {
  const fs::path folder = pairs();
  const auto before = tree(folder);
  expect_storage_failure(limited(dataset_card(folder), 1), folder, {"dataset-card.json", "dataset-card.md"},
                         "File too large");
  EXPECT_EQ(tree(folder), before);
  ASSERT_EQ(unlimited(dataset_card(folder)).exit_code, 0);
  EXPECT_GT(fs::file_size(folder / "dataset-card.json"), k_block_bytes) << "the limit must cut the card";
}

// Before, evaluate exited 1 leaving "evaluation.json.tmp-PID" (run/write_text_file_atomic).
TEST_F(WriteFailure, EvaluatePastTheFileSizeLimitExits4AndLeavesNoReportNoTemporary) {
  const fs::path out = dir_ / "evaluation";
  expect_storage_failure(limited(evaluate(out)), out, {"evaluation.json"}, "File too large");
  ASSERT_EQ(unlimited(evaluate(out)).exit_code, 0);
  EXPECT_GT(fs::file_size(out / "evaluation.json"), k_blocks * k_block_bytes) << "the limit must cut the report";
}

// The same on a real full disk (root only): a tmpfs holding the pair for
// dataset-card, then filled to its last block.
TEST_F(WriteFailure, EveryVerbOnAFullDiskExits4AndLeavesNoFile) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to mount a small tmpfs (CI runs as root)";
  const fs::path source_pairs = pairs();
  const auto evaluate_argv = evaluate(dir_ / "disk" / "evaluation");
  const fs::path disk = dir_ / "disk";
  fs::create_directories(disk);
  const auto mounted =
      run_process({"/bin/sh", "-c", "mount -t tmpfs -o size=2m medsynth-full \"$0\" 2>&1", disk.string()}, "/");
  if (mounted.exit_code != 0)
    GTEST_SKIP() << "cannot mount a tmpfs here (exit " << mounted.exit_code << "): " << mounted.out;
  struct Unmount {
    std::string path;
    ~Unmount() { run_process({"/bin/sh", "-c", "umount -l \"$0\"", path}, "/"); }
  } unmount{disk.string()};
  fs::copy(source_pairs, disk / "pairs", fs::copy_options::recursive);
  fs::create_directories(disk / "out");
  fs::create_directories(disk / "gen");
  fs::create_directories(disk / "evaluation");
  fs::create_directories(disk / "dicom");
  {
    std::ofstream filler(disk / "filler", std::ios::binary);
    const std::string block(4096, 'f');
    while (filler.write(block.data(), static_cast<std::streamsize>(block.size())) && filler.flush()) {
    }
  }
  const std::string cause = "No space left on device";
  expect_storage_failure(unlimited(prepare_label(disk / "out" / "label.nii.gz")), disk / "out", {"label.nii.gz"},
                         cause);
  expect_storage_failure(unlimited(generate(disk / "gen", true)), disk / "gen", k_generated, cause);
  expect_storage_failure(unlimited(evaluate_argv), disk / "evaluation", {"evaluation.json", "evaluation.txt"}, cause);
  // GDCM loses the errno: "DICOM does not support this component type" before.
  expect_storage_failure(unlimited({engine_binary(), "export-dicom", (source_pairs / k_generated[0]).string(),
                                    (disk / "dicom" / "series").string()}),
                         disk / "dicom", {"series"}, cause);
  const auto before = tree(disk / "pairs");
  expect_storage_failure(unlimited(dataset_card(disk / "pairs")), disk / "pairs",
                         {"dataset-card.json", "dataset-card.md"}, cause);
  EXPECT_EQ(tree(disk / "pairs"), before);
}

}  // namespace
}  // namespace medsynth
