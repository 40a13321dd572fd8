// medsynth-engine on real MR data: a tiny autoencoder trains a few steps on a
// folder made from nibabel's public anatomical.nii (a real 33x41x25 T1 from
// another writer than ITK) beside NRRD and MetaImage copies of it written by
// ITK, with modality mri, and finishes with finite losses and a loadable,
// finite checkpoint. Evaluating that checkpoint on the folder reads all three
// formats to the same volume. The data comes from Debian's python3-nibabel
// (installer/packages/test.txt; MEDSYNTH_NIBABEL_DATA overrides the folder);
// without it the test skips, saying why.
// Also: a NRRD file with a bad header among good volumes stops the run before
// step 0 with exit 3, naming the file (no nibabel needed).
#include <gtest/gtest.h>

#include <ATen/ATen.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "data/ct_phantom.hpp"
#include "itk_fixtures.hpp"
#include "support/child_process.hpp"
#include "support/temp_dir.hpp"
#include "state/tensor_file.hpp"
#include "volume/volume_io.hpp"

namespace fs = std::filesystem;
using namespace medsynth;
using test::engine_binary;
using test::run_process;

namespace {

// Debian's python3-nibabel puts its sample files here; MEDSYNTH_NIBABEL_DATA overrides it.
fs::path nibabel_data() {
  const char* env = std::getenv("MEDSYNTH_NIBABEL_DATA");
  return env && *env ? fs::path(env) : fs::path("/usr/lib/python3/dist-packages/nibabel/tests/data");
}

// Four steps of a 4-8-8 channel autoencoder on 16^3 patches: about a second on one core.
const char* k_mri_job = R"(name: mri-smoke
task: autoencoder
data: {source: folder, path: data, modality: mri, val_fraction: 0.34, patch_size: [16, 16, 16], num_workers: 0}
model: {autoencoder: {num_channels: [4, 8, 8], num_res_blocks: [1, 1, 1], norm_num_groups: 4}}
training: {batch_size: 1, max_steps: 4, val_every_steps: 4, num_threads: 1}
output: {log_every_steps: 1, save_reconstructions: 1, tensorboard: false}
)";

std::string run_dir_of(const std::string& out) {
  const auto at = out.find("run directory: ");
  if (at == std::string::npos) return {};
  return out.substr(at + 15, out.find('\n', at) - at - 15);
}

std::vector<nlohmann::json> read_events(const fs::path& file) {
  std::vector<nlohmann::json> events;
  std::istringstream lines(test::read_bytes(file));
  for (std::string line; std::getline(lines, line);)
    if (!line.empty()) events.push_back(nlohmann::json::parse(line));
  return events;
}

TEST(RealMriData, TrainsOnAnatomicalNiiAndItsNrrdAndMhaCopiesWithFiniteLossesAndACheckpoint) {
  const fs::path anatomical = nibabel_data() / "anatomical.nii";
  if (!fs::exists(anatomical)) {
    std::cout << "skipped: " << anatomical.string() << " is absent (install python3-nibabel)\n";
    GTEST_SKIP() << anatomical.string() << " is absent (install python3-nibabel)";
  }
  test::TempDir dir("real-mri");
  fs::create_directories(dir / "data");
  // Sorted: mr_a.nii, mr_b_image.nrrd (train), mr_c.mha (val); mr_b_label.nrrd
  // is mr_b's label map and must not be trained on.
  fs::copy_file(anatomical, dir / "data" / "mr_a.nii");
  const Volume mr = read_volume(anatomical.string());
  test::write_float_with_itk(mr, dir / "data" / "mr_b_image.nrrd", test::TextHeaderFormat::nrrd);
  test::write_float_with_itk(mr, dir / "data" / "mr_c.mha", test::TextHeaderFormat::meta);
  Volume label = mr;
  for (float& v : label.voxels) v = v > 5000.0f ? 1.0f : 0.0f;
  test::write_float_with_itk(label, dir / "data" / "mr_b_label.nrrd", test::TextHeaderFormat::nrrd);
  test::write_bytes(dir / "job.yaml", k_mri_job);

  const auto r = run_process({engine_binary(), "train", (dir / "job.yaml").string(), "--no-progress"}, dir.path().string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string run_dir = run_dir_of(r.out);
  ASSERT_FALSE(run_dir.empty()) << r.out;

  const auto events = read_events(fs::path(run_dir) / "events.jsonl");
  ASSERT_FALSE(events.empty());
  const auto& started = events.front();
  ASSERT_EQ(started["type"], "run_started");
  EXPECT_EQ(started["extra"]["train_volumes"], 2) << started.dump();  // the label map is not one
  EXPECT_EQ(started["extra"]["val_volumes"], 1) << started.dump();
  int losses = 0;
  bool finished = false;
  for (const auto& e : events) {
    if (e["type"] == "metric" && e["name"] == "train/loss") {
      ++losses;
      EXPECT_TRUE(std::isfinite(e["value"].get<double>())) << e.dump();
    }
    if (e["type"] == "run_finished") {
      finished = true;
      EXPECT_EQ(e["status"], "completed") << e.dump();
      for (const auto& [name, value] : e["metrics"].items()) EXPECT_TRUE(std::isfinite(value.get<double>())) << name;
    }
  }
  EXPECT_EQ(losses, 4);
  EXPECT_TRUE(finished);

  const std::string last = run_dir + "/checkpoints/last.safetensors";
  const TensorFile checkpoint = read_tensor_file(last);
  EXPECT_EQ(nlohmann::json::parse(checkpoint.metadata.at("progress"))["step"], 4);
  ASSERT_FALSE(checkpoint.tensors.empty());
  for (const auto& [name, tensor] : checkpoint.tensors)
    if (tensor.is_floating_point()) EXPECT_TRUE(at::isfinite(tensor).all().item<bool>()) << name;
  // The held-out MetaImage copy was read, validated and reconstructed.
  EXPECT_TRUE(fs::exists(run_dir + "/output/reconstruction-mr_c.nii.gz"));

  // The three files hold one scan: read through three readers, they must
  // give the same volume, so the checkpoint scores them the same.
  const auto e = run_process({engine_binary(), "eval", last, "--data", (dir / "data").string(), "--json", "--per-volume"},
                             dir.path().string());
  ASSERT_EQ(e.exit_code, 0) << e.err;
  const auto result = nlohmann::json::parse(e.out);
  ASSERT_EQ(result["per_volume"].size(), 3u) << e.out;
  const auto& first = result["per_volume"][0];
  EXPECT_EQ(first["volume"], "mr_a");
  EXPECT_EQ(result["per_volume"][1]["volume"], "mr_b_image");
  EXPECT_EQ(result["per_volume"][2]["volume"], "mr_c");
  for (const auto& row : result["per_volume"]) {
    EXPECT_TRUE(std::isfinite(row["psnr"].get<double>())) << row.dump();
    EXPECT_NEAR(row["psnr"].get<double>(), first["psnr"].get<double>(), 1e-4) << row.dump();
    EXPECT_NEAR(row["ssim"].get<double>(), first["ssim"].get<double>(), 1e-6) << row.dump();
  }
}

TEST(RealMriData, ABadNrrdHeaderAmongGoodVolumesExits3NamingItBeforeTraining) {
  test::TempDir dir("real-mri-bad");
  fs::create_directories(dir / "data");
  PhantomOptions o;
  o.size = {24, 24, 24};
  o.spacing = {10, 10, 10};
  test::write_float_with_itk(make_ct_phantom(1, o), dir / "data" / "ct_a.nrrd", test::TextHeaderFormat::nrrd);
  test::write_float_with_itk(make_ct_phantom(2, o), dir / "data" / "ct_b.mha", test::TextHeaderFormat::meta);
  // A header whose direction matrix is singular (two identical axes).
  test::write_bytes(dir / "data" / "ct_c.nrrd", "NRRD0004\ntype: float\ndimension: 3\nspace: left-posterior-superior\n"
                                                "sizes: 2 2 2\nspace directions: (1,0,0) (1,0,0) (0,0,1)\n"
                                                "endian: little\nencoding: raw\n\n" + std::string(32, '\0'));
  std::string job = k_mri_job;
  job.replace(job.find("modality: mri"), 13, "modality: ct");
  test::write_bytes(dir / "job.yaml", job);
  const auto r = run_process({engine_binary(), "train", (dir / "job.yaml").string(), "--no-progress"}, dir.path().string());
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("ct_c.nrrd"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("direction matrix is not a rotation"), std::string::npos) << r.err;
  // Refused before step 0: no training step was logged anywhere.
  if (fs::exists(dir / "runs"))
    for (const auto& f : fs::recursive_directory_iterator(dir / "runs"))
      if (f.path().filename() == "events.jsonl")
        EXPECT_EQ(test::read_bytes(f.path()).find("\"train/loss\""), std::string::npos) << "it trained before refusing the file";
}

}  // namespace
