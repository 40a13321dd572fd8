// generate --inpaint (issue 55 item 2) on the miniature NV-Generate folder
// imported as a run (data/make_maisi_folder.py): a CT's region made again,
// every voxel outside the region and its margin the CT's bit for bit, the
// region different, the seam and the provenance written; the reverse
// process keeping the known latent exactly; the image turned to the
// networks' axes and back; wrong inputs refused by name.
#include <gtest/gtest.h>

#include <ATen/ATen.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/job_loader.hpp"
#include "contract/generation_provenance.hpp"
#include "core/error.hpp"
#include "data/intensity_transforms.hpp"
#include "data/region_blend.hpp"
#include "diffusion/generate_stage.hpp"
#include "diffusion/ldm_task.hpp"
#include "diffusion/maisi_import.hpp"
#include "diffusion/region_inpainting.hpp"
#include "diffusion/reverse_process.hpp"
#include "schedulers/diffusion_scheduler.hpp"
#include "models/diffusion_model_unet.hpp"
#include "state/tensor_file.hpp"
#include "support/child_process.hpp"
#include "support/temp_dir.hpp"
#include "volume/nifti_extension.hpp"
#include "volume/volume_io.hpp"

namespace fs = std::filesystem;

namespace medsynth {
namespace {

const fs::path k_data = MEDSYNTH_DIFFUSION_TEST_DATA;

// The miniature's generated CT [x, y, z] = 16 x 24 x 32 as a "real" CT,
// stored as ITK stores scanner CT (identity direction: LPS), where the
// imported run's networks work in RAS.
Volume miniature_ct() {
  const auto xyz = read_tensor_file((k_data / "maisi_folder_expected.safetensors").string()).tensors.at("io.image_xyz");
  const auto zyx = xyz.permute({2, 1, 0}).contiguous();
  Volume v = make_volume({16, 24, 32}, {1.5, 1.2, 2.0});
  std::memcpy(v.voxels.data(), zyx.data_ptr<float>(), v.voxels.size() * sizeof(float));
  v.origin = {-20.0, 14.5, 3.0};
  return v;
}

struct Inputs {
  fs::path run, ct, mask;
  Volume ct_volume, mask_volume;
};

// The run, the CT and a mask with a box of class 1 (the region) and a box of class 2 elsewhere.
Inputs make_inputs(const test::TempDir& dir) {
  MaisiImportOptions o;
  o.folder = (k_data / "maisi_folder").string();
  o.out = (dir / "run").string();
  import_maisi(o);
  Inputs in{dir / "run", dir / "ct.nii.gz", dir / "mask.nii.gz", miniature_ct(), {}};
  in.mask_volume = in.ct_volume;
  std::fill(in.mask_volume.voxels.begin(), in.mask_volume.voxels.end(), 0.0f);
  for (std::size_t z = 12; z < 20; ++z)
    for (std::size_t y = 8; y < 14; ++y)
      for (std::size_t x = 4; x < 10; ++x) in.mask_volume.at(x, y, z) = 1.0f;
  for (std::size_t z = 0; z < 2; ++z)
    for (std::size_t y = 0; y < 3; ++y)
      for (std::size_t x = 12; x < 15; ++x) in.mask_volume.at(x, y, z) = 2.0f;
  write_volume(in.ct_volume, in.ct.string());
  write_volume(in.mask_volume, in.mask.string(), StoredPixel::label);
  return in;
}

test::ProcessResult inpaint(const Inputs& in, const fs::path& out, const std::vector<std::string>& extra = {}) {
  std::vector<std::string> argv{test::engine_binary(), "generate", in.run.string(),  test::k_on_cpu, "--inpaint",
                                in.ct.string(),        "--region", in.mask.string(), "--num-images", "1",
                                "--base-seed",         "3",        "--output-dir",   out.string()};
  argv.insert(argv.end(), extra.begin(), extra.end());
  return test::run_process(argv, out.parent_path().string());
}

TEST(RegionInpainting, OnlyTheRegionIsMadeAgainAndEveryOtherVoxelIsTheCtsBitForBit) {
  test::TempDir dir("inpaint");
  const Inputs in = make_inputs(dir);
  const auto r = inpaint(in, dir / "out", {"--region-classes", "1", "--inpaint-margin", "2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const fs::path image_path = dir / "out" / "image_seed3_rank0.nii.gz";
  const Volume result = read_volume(image_path.string());
  ASSERT_EQ(grid_difference(in.ct_volume, result), GridDifference::none) << "not on the CT's grid";

  // The region (class 1) grown by 2 voxels, counted here on its own.
  std::vector<std::uint8_t> grown(in.ct_volume.voxels.size(), 0);
  std::int64_t grown_voxels = 0;
  for (std::size_t z = 0; z < 32; ++z)
    for (std::size_t y = 0; y < 24; ++y)
      for (std::size_t x = 0; x < 16; ++x) {
        const bool inside = x >= 2 && x < 12 && y >= 6 && y < 16 && z >= 10 && z < 22;
        grown[in.ct_volume.index(x, y, z)] = inside ? 1 : 0;
        grown_voxels += inside ? 1 : 0;
      }
  std::int64_t outside_different = 0, inside_different = 0;
  double inside_sum = 0;
  for (std::size_t i = 0; i < grown.size(); ++i) {
    const bool same = std::memcmp(&result.voxels[i], &in.ct_volume.voxels[i], sizeof(float)) == 0;
    if (!grown[i]) outside_different += same ? 0 : 1;
    if (grown[i]) {
      inside_different += same ? 0 : 1;
      inside_sum += std::fabs(result.voxels[i] - in.ct_volume.voxels[i]);
    }
  }
  EXPECT_EQ(outside_different, 0) << "voxels outside the region and its margin changed";
  EXPECT_GT(inside_different, grown_voxels / 2) << "the region was not made again";
  EXPECT_GT(inside_sum / static_cast<double>(grown_voxels), 1.0) << "mean |change| inside the region, HU";

  // The report: the region's voxels and its seam.
  std::ifstream report_file(dir / "out" / "image_seed3_rank0_inpaint.json");
  ASSERT_TRUE(report_file) << "no inpaint report";
  const auto report = nlohmann::json::parse(report_file);
  EXPECT_EQ(report.at("regenerated_voxels").get<std::int64_t>(), grown_voxels);
  EXPECT_EQ(report.at("changed_voxels").get<std::int64_t>(), inside_different);
  EXPECT_GT(report.at("border_pairs").get<std::int64_t>(), 0);
  const double seam = report.at("seam_step_hu").get<double>();
  EXPECT_TRUE(std::isfinite(seam) && seam >= 0) << seam;
  EXPECT_NE(r.err.find("seam step"), std::string::npos) << r.err;

  // The provenance names the CT and the region by their bytes.
  std::optional<GenerationProvenance> provenance;
  for (const auto& text : read_nifti_comment_extensions(image_path.string()))
    if (!provenance) provenance = parse_provenance(text, image_path.string());
  ASSERT_TRUE(provenance);
  EXPECT_EQ(provenance->inpaint_source_hash, file_sha256(in.ct.string()));
  EXPECT_EQ(provenance->inpaint_region_hash, file_sha256(in.mask.string()));
  EXPECT_EQ(provenance->inpaint_margin, 2);
  EXPECT_EQ(provenance->inpaint_voxels, grown_voxels);
  EXPECT_EQ(provenance->seed, 3);

  EXPECT_EQ(provenance->inpaint_region_classes, std::vector<int>{1});

  // regenerate reads all of it back and makes the same voxels.
  const auto again = test::run_process(
      {test::engine_binary(), "regenerate", image_path.string(), "--out", (dir / "again.nii.gz").string()},
      dir.path().string());
  EXPECT_EQ(again.exit_code, 0) << again.err << again.out;
  EXPECT_NE(again.out.find("bit for bit"), std::string::npos) << again.out;
  EXPECT_FALSE(fs::exists(dir / "again_inpaint.json"));
}

TEST(RegionInpainting, EveryNonzeroVoxelIsTheRegionWithoutClasses) {
  test::TempDir dir("inpaint-all");
  const Inputs in = make_inputs(dir);
  const auto r = inpaint(in, dir / "out", {"--inpaint-margin", "0"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Volume result = read_volume((dir / "out" / "image_seed3_rank0.nii.gz").string());
  std::int64_t outside_different = 0, in_class_2_different = 0;
  for (std::size_t i = 0; i < result.voxels.size(); ++i) {
    const bool same = std::memcmp(&result.voxels[i], &in.ct_volume.voxels[i], sizeof(float)) == 0;
    if (in.mask_volume.voxels[i] == 0.0f) outside_different += same ? 0 : 1;
    if (in.mask_volume.voxels[i] == 2.0f) in_class_2_different += same ? 0 : 1;
  }
  EXPECT_EQ(outside_different, 0);
  EXPECT_GT(in_class_2_different, 0) << "class 2 is part of the region without --region-classes";
}

TEST(RegionInpainting, TheReverseProcessKeepsTheKnownLatentExactlyAndSamplesOnlyTheRest) {
  test::TempDir dir("inpaint-loop");
  MaisiImportOptions o;
  o.folder = (k_data / "maisi_folder").string();
  o.out = (dir / "run").string();
  import_maisi(o);
  const JobSpec job = load_job_file((dir / "run" / "job.yaml").string());
  LdmTask task(job, 1.0);
  task.train_mode(false);
  at::NoGradGuard no_grad;
  const std::vector<std::int64_t> shape{1, job.model.diffusion_unet.in_channels, 8, 6, 4};
  const UnetEmbeddingInputs inputs = generation_inputs(job, c10::Device(c10::kCPU));
  const auto run = [&](const at::Tensor& known, const at::Tensor& keep) {
    SamplingConditioning c;
    c.embedding = inputs;
    c.known = known;
    c.keep = keep;
    return reverse_process(*task.unet(), task.scheduler(), shape, at::make_generator<at::CPUGeneratorImpl>(11),
                           c10::Device(c10::kCPU), c);
  };
  const at::Tensor known = at::randn(shape, at::make_generator<at::CPUGeneratorImpl>(5));
  // Everything kept: the known latent, bit for bit.
  EXPECT_TRUE(at::equal(run(known, at::ones({1, 1, 8, 6, 4})), known));
  // Nothing kept: the plain sampler's latent for the seed (rflow draws no step noise).
  ASSERT_FALSE(task.scheduler().stochastic());
  const at::Tensor plain = sample_latent(*task.unet(), task.scheduler(), shape, 11, inputs, c10::Device(c10::kCPU));
  EXPECT_TRUE(at::equal(run(known, at::zeros({1, 1, 8, 6, 4})), plain));
  // Half kept: that half is the known latent, the other half is sampled.
  at::Tensor keep = at::zeros({1, 1, 8, 6, 4});
  keep.slice(2, 0, 4).fill_(1.0);
  const at::Tensor mixed = run(known, keep);
  EXPECT_TRUE(at::equal(mixed.slice(2, 0, 4), known.slice(2, 0, 4)));
  EXPECT_GT((mixed.slice(2, 4, 8) - known.slice(2, 4, 8)).abs().mean().item<double>(), 0.1);
}

TEST(RegionInpainting, TheNetworksSeeTheCtTurnedToTheJobsAxesAndTheResultTurnsBack) {
  test::TempDir dir("inpaint-axes");
  const Inputs in = make_inputs(dir);
  const JobSpec job = load_job_file((in.run / "job.yaml").string());
  ASSERT_EQ(job.data.orientation, "RAS");
  InpaintOptions o;
  o.image = in.ct.string();
  o.region = in.mask.string();
  o.margin = 1;
  const InpaintSource source(job, o);
  EXPECT_EQ(orientation_letters(in.ct_volume, "ct"), "LPS");
  Volume turned = in.ct_volume;
  turned.direction = {-1, 0, 0, 0, -1, 0, 0, 0, 1};
  EXPECT_EQ(orientation_letters(turned, "ct"), "RAS");
  turned.direction = {0, 0, -1, 1, 0, 0, 0, -1, 0};  // axis 0 toward P, axis 1 toward I, axis 2 toward R
  EXPECT_EQ(orientation_letters(turned, "ct"), "PIR");
  // RAS from LPS: x and y run the other way; the networks' [x, y, z] tensor
  // holds the windowed CT with voxel (0, 0, 0) at the stored (15, 23, 0).
  const at::Tensor x = source.network_image(/*xyz_axes=*/true);
  ASSERT_EQ(x.sizes(), at::IntArrayRef({1, 1, 16, 24, 32}));
  const double lo = job.data.ct_window[0], hi = job.data.ct_window[1];
  const auto windowed = [&](float hu) { return std::clamp((hu - lo) / (hi - lo), 0.0, 1.0); };
  EXPECT_NEAR(x[0][0][0][0][0].item<double>(), windowed(in.ct_volume.at(15, 23, 0)), 1e-6);
  EXPECT_NEAR(x[0][0][5][2][7].item<double>(), windowed(in.ct_volume.at(10, 21, 7)), 1e-6);
  // A "generated" volume that is the networks' view of the CT comes back as the CT.
  const JobSpec image_job = source.job_for_image(job);
  const Volume back = source.blend_back(to_output_volume(x.to(at::kFloat), image_job));
  double worst = 0;
  for (std::size_t i = 0; i < back.voxels.size(); ++i)
    if (in.ct_volume.voxels[i] > lo && in.ct_volume.voxels[i] < hi)
      worst = std::max(worst, static_cast<double>(std::fabs(back.voxels[i] - in.ct_volume.voxels[i])));
  EXPECT_LT(worst, 0.01) << "HU: the region came back elsewhere";
  // The latent cells (4 voxels a side) that the region and its margin touch
  // are the ones sampled: class 1's box grown by 1 spans RAS x 5-12, y 9-16,
  // z 11-20 (3 x 3 x 4 cells), class 2's x 0-4, y 20-23, z 0-2 (2 x 1 x 1).
  const at::Tensor keep = source.latent_keep(4, /*xyz_axes=*/true);
  ASSERT_EQ(keep.sizes(), at::IntArrayRef({1, 1, 4, 6, 8}));
  EXPECT_EQ((keep == 0).sum().item<std::int64_t>(), 3 * 3 * 4 + 2 * 1 * 1);
  EXPECT_EQ(keep[0][0][2][3][3].item<float>(), 0.0f);
  EXPECT_EQ(keep[0][0][1][5][0].item<float>(), 0.0f);
  EXPECT_EQ(keep[0][0][2][5][0].item<float>(), 1.0f);
}

TEST(RegionInpainting, InputsThatCannotBeInpaintedAreRefusedByName) {
  test::TempDir dir("inpaint-bad");
  const Inputs in = make_inputs(dir);
  Volume other = in.mask_volume;
  other.spacing[0] = 3.0;
  write_volume(other, (dir / "other.nii.gz").string(), StoredPixel::label);
  std::vector<std::string> argv{
      test::engine_binary(), "generate",           in.run.string(), test::k_on_cpu,
      "--inpaint",           in.ct.string(),       "--region",      (dir / "other.nii.gz").string(),
      "--output-dir",        (dir / "o1").string()};
  auto r = test::run_process(argv, dir.path().string());
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("other.nii.gz"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("spacing"), std::string::npos) << r.err;

  r = inpaint(in, dir / "o2", {"--region-classes", "9"});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("class 9"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir / "o2" / "image_seed3_rank0.nii.gz"));

  r = test::run_process({test::engine_binary(), "generate", in.run.string(), test::k_on_cpu, "--region",
                         in.mask.string(), "--output-dir", (dir / "o3").string()},
                        dir.path().string());
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--inpaint"), std::string::npos) << r.err;

  Volume odd = in.ct_volume;
  odd.size = {14, 24, 32};
  odd.voxels.resize(14 * 24 * 32);
  write_volume(odd, (dir / "odd.nii.gz").string());
  Volume odd_mask = odd;
  std::fill(odd_mask.voxels.begin(), odd_mask.voxels.end(), 1.0f);
  write_volume(odd_mask, (dir / "odd_mask.nii.gz").string(), StoredPixel::label);
  r = test::run_process(
      {test::engine_binary(), "generate", in.run.string(), test::k_on_cpu, "--inpaint", (dir / "odd.nii.gz").string(),
       "--region", (dir / "odd_mask.nii.gz").string(), "--output-dir", (dir / "o4").string()},
      dir.path().string());
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("odd.nii.gz"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("multiple of"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace medsynth
