// The Fast-DDPM BraTS user's task (issue 35): image-to-image diffusion that
// generates FLAIR from T1/T1c/T2, trained with the shipped template
// (resources/jobs/fast-ddpm-brats.yaml, shrunk to a miniature UNet) on two
// ranks through launch, on BraTS-2023- and BraTS-2021-shaped folders of 4
// cases written here and on a datalist JSON of the same cases. Validation
// reports the translated FLAIR's PSNR/SSIM against the real one; generate
// writes each case's FLAIR under the name its inputs give it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "contract/run_directory.hpp"
#include "support/brats_cases.hpp"
#include "support/child_process.hpp"
#include "support/png_reader.hpp"
#include "support/run_events.hpp"
#include "support/tensorboard_reader.hpp"
#include "support/temp_dir.hpp"
#include "train/validation_images.hpp"
#include "volume/volume_io.hpp"

namespace fs = std::filesystem;

namespace medsynth {
namespace {

using test::events_of;
using test::mean;
using test::metric;
using test::only_run_in;

std::string template_file() { return std::string(MEDSYNTH_SOURCE_DIR) + "/resources/jobs/fast-ddpm-brats.yaml"; }

// The template at miniature size: 30 steps of 16^3 patches, 2 ranks.
// `more`: overrides after the template's (the later wins).
test::ProcessResult train_on(const std::string& data, const fs::path& runs, const fs::path& cwd,
                             const std::vector<std::string>& more = {}) {
  std::vector<std::string> args{test::engine_binary(),
                                "launch",
                                "--nproc-per-node",
                                "2",
                                "train",
                                template_file(),
                                test::k_on_cpu,
                                "--data",
                                data,
                                "model.diffusion_unet.channels=[8,16]",
                                "model.diffusion_unet.num_res_blocks=[1,1]",
                                "model.diffusion_unet.attention_levels=[false,false]",
                                "model.diffusion_unet.num_head_channels=[0,0]",
                                "model.diffusion_unet.norm_num_groups=4",
                                "data.patch_size=[16,16,16]",
                                "data.val_fraction=0.25",
                                "data.num_workers=0",
                                "training.max_steps=30",
                                "training.gradient_accumulation_steps=1",
                                "training.lr=2e-3",
                                "training.val_every_steps=10",
                                "training.val_max_volumes=1",
                                "output.log_every_steps=1",
                                "--runs-dir",
                                runs.string(),
                                "--quiet"};
  args.insert(args.end(), more.begin(), more.end());
  return test::run_process(args, cwd.string());
}

// The run learnt and reported the translated FLAIR's quality.
void expect_trained_and_validated(const RunDirectory& run, const std::string& val_case_file) {
  const auto events = events_of(run.events_file());
  const auto loss = metric(events, "train/diffusion_loss");
  ASSERT_EQ(loss.size(), 30u);
  EXPECT_LT(mean(loss, 25, 5), 0.8 * mean(loss, 0, 5)) << "the denoising loss did not fall";
  const auto psnr = metric(events, "val/psnr"), ssim = metric(events, "val/ssim");
  ASSERT_GE(psnr.size(), 3u) << "PSNR of the translated FLAIR at each validation";
  for (double p : psnr) EXPECT_TRUE(std::isfinite(p) && p > 0) << p;
  for (double s : ssim) EXPECT_TRUE(std::isfinite(s) && s <= 1.0) << s;
  std::cerr << "translated FLAIR PSNR: " << psnr.front() << " -> " << psnr.back() << " dB, SSIM " << ssim.back()
            << "\n";
  // The held-out case's translation is written under the name its FLAIR has.
  const fs::path out = fs::path(run.output_dir()) / val_case_file;
  ASSERT_TRUE(fs::exists(out)) << out;
  EXPECT_EQ(read_volume(out.string()).size, (std::array<std::size_t, 3>{20, 20, 16}));
  // Issue 36.3: at each validation the real FLAIR's middle slices beside the
  // translation's, as TensorBoard images (x 20, y 20, z 16 voxels).
  ASSERT_EQ(std::distance(fs::directory_iterator(run.tensorboard_dir()), fs::directory_iterator()), 1);
  const auto images = read_tensorboard_images(fs::directory_iterator(run.tensorboard_dir())->path());
  ASSERT_EQ(images.size(), 9u) << "3 planes at steps 10, 20 and 30";
  for (const auto& image : images) {
    const GrayImage decoded = test::decode_gray_png(image.image.encoded);
    EXPECT_EQ(decoded.width, 2 * 20 + k_side_by_side_gap) << image.tag;
    EXPECT_EQ(decoded.height, image.tag == "val/images/axial" ? 20 : 16) << image.tag;
  }
  for (const char* plane : {"axial", "coronal", "sagittal"})
    EXPECT_TRUE(fs::exists(fs::path(run.output_dir()) / "val-images" / ("step000030-" + std::string(plane) + ".png")));
}

TEST(Translation, Brats2023CasesTrainOnTwoRanksAndGenerateEachCasesFlair) {
  test::TempDir dir("translation-2023");
  test::write_brats_folder(dir / "BraTS2023", test::BratsNaming::brats2023, 4);
  const auto r = train_on((dir / "BraTS2023").string(), dir / "runs", dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const RunDirectory run{only_run_in(dir / "runs").string()};
  expect_trained_and_validated(run, "BraTS-GLI-00003-000-t2f.nii.gz");

  // generate translates every case: RUN/output/<case>/<case>-t2f.nii.gz on the inputs' grid.
  const auto g = test::run_process({test::engine_binary(), "generate", run.root}, dir.path().string());
  ASSERT_EQ(g.exit_code, 0) << g.err;
  for (int n = 0; n < 4; ++n) {
    const std::string id = test::brats_case_id(test::BratsNaming::brats2023, n);
    const fs::path path = fs::path(run.output_dir()) / id / (id + "-t2f.nii.gz");
    ASSERT_TRUE(fs::exists(path)) << path << "\n" << g.out;
    const Volume flair = read_volume(path.string());
    EXPECT_EQ(flair.size, (std::array<std::size_t, 3>{20, 20, 16}));
    const auto [lo, hi] = std::minmax_element(flair.voxels.begin(), flair.voxels.end());
    EXPECT_GE(*lo, 0.0f);
    EXPECT_LE(*hi, 1.0f);
    EXPECT_GT(*hi - *lo, 0.1f) << "a flat translation";
  }
}

// Issue 50 item 9: with --output-dir the data folder, generate replaced each
// case's real FLAIR with its translation (exit 0). An input is never
// replaced; an earlier translation only with --overwrite.
TEST(Translation, GenerateNeverReplacesAnInputAndItsOwnOutputsOnlyWithOverwrite) {
  test::TempDir dir("translation-overwrite");
  test::write_brats_folder(dir / "BraTS2023", test::BratsNaming::brats2023, 4);
  const auto r = train_on((dir / "BraTS2023").string(), dir / "runs", dir.path(),
                          {"training.max_steps=2", "training.val_every_steps=2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const RunDirectory run{only_run_in(dir / "runs").string()};
  const std::string id = test::brats_case_id(test::BratsNaming::brats2023, 0);
  const fs::path real = dir / "BraTS2023" / id / (id + "-t2f.nii.gz");
  const std::string bytes = test::read_bytes(real);
  for (const bool overwrite : {false, true}) {
    std::vector<std::string> args{test::engine_binary(), "generate", run.root, "--output-dir",
                                  (dir / "BraTS2023").string()};
    if (overwrite) args.push_back("--overwrite");
    const auto g = test::run_process(args, dir.path().string());
    EXPECT_EQ(g.exit_code, 2) << g.err;
    EXPECT_NE(g.err.find(real.string() + " is an input (case " + id + "'s t2f)"), std::string::npos) << g.err;
    EXPECT_TRUE(test::read_bytes(real) == bytes) << "the real FLAIR was replaced";
  }
  const auto first = test::run_process({test::engine_binary(), "generate", run.root}, dir.path().string());
  ASSERT_EQ(first.exit_code, 0) << first.err;
  const fs::path translated = fs::path(run.output_dir()) / id / (id + "-t2f.nii.gz");
  const auto again = test::run_process({test::engine_binary(), "generate", run.root}, dir.path().string());
  EXPECT_EQ(again.exit_code, 2) << again.err;
  EXPECT_NE(again.err.find(translated.string() + " exists; --overwrite replaces it"), std::string::npos) << again.err;
  const auto replaced =
      test::run_process({test::engine_binary(), "generate", run.root, "--overwrite"}, dir.path().string());
  EXPECT_EQ(replaced.exit_code, 0) << replaced.err;
  EXPECT_TRUE(fs::exists(translated));
}

TEST(Translation, Brats2021NamesTrainTheSameJobAndNameTheirOutputsTheirWay) {
  test::TempDir dir("translation-2021");
  test::write_brats_folder(dir / "BraTS2021", test::BratsNaming::brats2021, 4);
  const auto r = train_on((dir / "BraTS2021").string(), dir / "runs", dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  expect_trained_and_validated(RunDirectory{only_run_in(dir / "runs").string()}, "BraTS2021_00003_flair.nii.gz");
}

TEST(Translation, ADatalistOfTheSameCasesTrainsTheSameJob) {
  test::TempDir dir("translation-datalist");
  test::write_brats_folder(dir / "BraTS2023", test::BratsNaming::brats2023, 4);
  nlohmann::json list = nlohmann::json::array();
  for (int n = 0; n < 4; ++n) {
    const std::string id = test::brats_case_id(test::BratsNaming::brats2023, n);
    nlohmann::json images = nlohmann::json::array();
    for (const char* c : {"t1n", "t1c", "t2w", "t2f"})
      images.push_back("BraTS2023/" + id + "/" + id + "-" + c + ".nii.gz");
    list.push_back({{"image", images}, {"label", "BraTS2023/" + id + "/" + id + "-seg.nii.gz"}});
  }
  std::ofstream(dir / "datalist.json") << nlohmann::json{{"training", list}}.dump(1);
  const auto r = train_on((dir / "datalist.json").string(), dir / "runs", dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  expect_trained_and_validated(RunDirectory{only_run_in(dir / "runs").string()}, "BraTS-GLI-00003-000-t2f.nii.gz");
}

TEST(Translation, AMissingContrastFailsNamingTheCaseAndTheContrast) {
  test::TempDir dir("translation-missing");
  test::write_brats_folder(dir / "BraTS2023", test::BratsNaming::brats2023, 4);
  fs::remove(dir / "BraTS2023" / "BraTS-GLI-00002-000" / "BraTS-GLI-00002-000-t1c.nii.gz");
  const auto r = train_on((dir / "BraTS2023").string(), dir / "runs", dir.path());
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("case BraTS-GLI-00002-000 has no t1c contrast"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("terminate called"), std::string::npos) << r.err;
}

// Issue 54 item 5: `validate JOB --data DIR` said "valid" for a folder whose
// case lacks a contrast that train then refused by name. validate runs the
// data checks training runs before step 0 (the task's own make_data).
TEST(Translation, ValidateWithDataRefusesAMissingContrastAsTrainDoes) {
  test::TempDir dir("translation-validate");
  test::write_brats_folder(dir / "BraTS2023", test::BratsNaming::brats2023, 4);
  const auto validate = [&] {
    return test::run_process(
        {test::engine_binary(), "validate", template_file(), "--data", (dir / "BraTS2023").string(),
         "model.diffusion_unet.channels=[8,16]", "model.diffusion_unet.num_res_blocks=[1,1]",
         "model.diffusion_unet.attention_levels=[false,false]", "model.diffusion_unet.num_head_channels=[0,0]",
         "model.diffusion_unet.norm_num_groups=4", "data.patch_size=[16,16,16]", "data.val_fraction=0.25"},
        dir.path().string());
  };
  const auto ok = validate();
  ASSERT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_NE(ok.out.find("data: 3 train / 1 val cases of 4 contrasts, 3 batches, 1 optimizer step per epoch"),
            std::string::npos)
      << ok.out;
  fs::remove(dir / "BraTS2023" / "BraTS-GLI-00002-000" / "BraTS-GLI-00002-000-t1c.nii.gz");
  const auto r = validate();
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("case BraTS-GLI-00002-000 has no t1c contrast"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find(": valid"), std::string::npos) << r.err;
}

// Contrasts of one case on different grids are refused, not resampled
// (aligning them would be registration): the error names the case.
TEST(Translation, ContrastsOnDifferentGridsAreRefusedNamingTheCase) {
  test::TempDir dir("translation-grids");
  test::write_brats_folder(dir / "BraTS2023", test::BratsNaming::brats2023, 4);
  const std::string id = test::brats_case_id(test::BratsNaming::brats2023, 1);
  const auto t1c = dir / "BraTS2023" / id / (id + "-t1c.nii.gz");
  Volume taller = make_volume({20, 20, 18});  // two more slices than the case's other contrasts
  for (std::size_t i = 0; i < taller.voxels.size(); ++i) taller.voxels[i] = static_cast<float>(i % 7) * 100.0f;
  write_volume(taller, t1c.string());
  const auto r = train_on((dir / "BraTS2023").string(), dir / "runs", dir.path());
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("case " + id + ": this contrast's grid differs"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace medsynth
