// validate_job(): semantic rules on typed jobs, and the data-path checks.
#include <cmath>
#include <filesystem>
#include <functional>

#include <gtest/gtest.h>

#include "config/job_loader.hpp"
#include "config_test_util.hpp"
#include "support/temp_dir.hpp"

namespace medsynth {
namespace {

using test::has_error;
using test::reason_for;

TEST(JobValidation, DefaultJobIsValid) {
  const auto errors = validate_job(JobSpec{});
  EXPECT_TRUE(errors.empty()) << format_errors(errors);
}

struct Rule {
  const char* name;
  std::function<void(JobSpec&)> change;
  const char* path;
  const char* reason_part;
};

// Each rule breaks one thing in an otherwise valid job and expects exactly that path.
class JobValidationRule : public ::testing::TestWithParam<Rule> {};

TEST_P(JobValidationRule, ReportsThePathAndReason) {
  const Rule& rule = GetParam();
  JobSpec job;
  rule.change(job);
  const auto errors = validate_job(job);
  EXPECT_TRUE(has_error(errors, rule.path, rule.reason_part)) << "got:\n" << format_errors(errors);
}

const Rule k_rules[] = {
    {"batch_size", [](JobSpec& j) { j.training.batch_size = 0; }, "training.batch_size", "must be >= 1 (got 0)"},
    {"accumulation", [](JobSpec& j) { j.training.gradient_accumulation_steps = 0; },
     "training.gradient_accumulation_steps", ">= 1"},
    {"lr_zero", [](JobSpec& j) { j.training.lr = 0; }, "training.lr", "must be > 0 (got 0)"},
    {"lr_nan", [](JobSpec& j) { j.training.lr = std::nan(""); }, "training.lr", "got nan"},
    {"lr_inf", [](JobSpec& j) { j.training.lr = HUGE_VAL; }, "training.lr", "got inf"},
    {"epochs", [](JobSpec& j) { j.training.epochs = 0; }, "training.epochs", "unless training.max_steps > 0"},
    {"cache_rate", [](JobSpec& j) { j.data.cache_rate = -0.1; }, "data.cache_rate", "must be in [0, 1]"},
    {"val_fraction_0", [](JobSpec& j) { j.data.val_fraction = 0; }, "data.val_fraction", "must be in (0, 1)"},
    {"val_fraction_1", [](JobSpec& j) { j.data.val_fraction = 1; }, "data.val_fraction", "must be in (0, 1)"},
    {"patch_small",
     [](JobSpec& j) {
       j.data.patch_size = {2, 32, 32};
     },
     "data.patch_size", "must be >= 4"},
    {"patch_divisible",
     [](JobSpec& j) {
       j.data.patch_size = {30, 32, 32};
     },
     "data.patch_size", "divisible by 4"},
    {"patch_divisible_deeper",
     [](JobSpec& j) {
       j.model.autoencoder.num_channels = {32, 32, 32, 32};
       j.model.autoencoder.num_res_blocks = {1, 1, 1, 1};
       j.model.autoencoder.attention_levels = {false, false, false, false};
       j.data.patch_size = {36, 32, 32};  // 36 % 8 != 0
     },
     "data.patch_size", "divisible by 8"},
    {"res_blocks_len",
     [](JobSpec& j) {
       j.model.autoencoder.num_res_blocks = {2, 2};
     },
     "model.autoencoder.num_res_blocks", "expected 3 values"},
    {"attention_len", [](JobSpec& j) { j.model.autoencoder.attention_levels = {false}; },
     "model.autoencoder.attention_levels", "expected 3 values"},
    {"groups",
     [](JobSpec& j) {
       j.model.autoencoder.num_channels = {64, 100, 256};
     },
     "model.autoencoder.num_channels", "divisible by norm_num_groups (32)"},
    {"channels_empty", [](JobSpec& j) { j.model.autoencoder.num_channels.clear(); }, "model.autoencoder.num_channels",
     "at least one level"},
    {"latent", [](JobSpec& j) { j.model.autoencoder.latent_channels = 0; }, "model.autoencoder.latent_channels",
     ">= 1"},
    {"spatial_dims", [](JobSpec& j) { j.model.autoencoder.spatial_dims = 2; }, "model.autoencoder.spatial_dims",
     "only 3"},
    {"kl_weight", [](JobSpec& j) { j.loss.kl_weight = -1; }, "loss.kl_weight", ">= 0"},
    {"logvar_clamp",
     [](JobSpec& j) {
       j.loss.logvar_clamp = {5, -5};
     },
     "loss.logvar_clamp", "below the second"},
    {"perceptual", [](JobSpec& j) { j.loss.perceptual_weight = 0.5; }, "loss.perceptual_weight",
     "used by task vqgan only"},
    {"perceptual_network",
     [](JobSpec& j) {
       j.task = "vqgan";
       j.loss.perceptual_weight = 0.1;
     },
     "loss.perceptual_weight", "needs loss.perceptual_network"},
    {"perceptual_ratio", [](JobSpec& j) { j.loss.perceptual_fake_3d_ratio = 0; }, "loss.perceptual_fake_3d_ratio",
     "(0, 1]"},
    {"recon_loss", [](JobSpec& j) { j.loss.recon_loss = "l3"; }, "loss.recon_loss",
     "must be one of l1, l2, l1_window (got \"l3\")"},
    {"lr_schedule", [](JobSpec& j) { j.training.lr_schedule = "cosin"; }, "training.lr_schedule",
     "did you mean 'cosine'"},
    {"device", [](JobSpec& j) { j.training.device = "gpu"; }, "training.device", "must be one of auto, cpu, cuda"},
    {"memory_format", [](JobSpec& j) { j.training.memory_format = "nhwc"; }, "training.memory_format",
     "channels_last_3d"},
    {"checkpoint_mode", [](JobSpec& j) { j.checkpoint.mode = "maximum"; }, "checkpoint.mode",
     "must be one of max, min"},
    {"keep_best", [](JobSpec& j) { j.checkpoint.keep_best = 0; }, "checkpoint.keep_best", ">= 1"},
    {"resnet_depth", [](JobSpec& j) { j.model.resnet.depth = 20; }, "model.resnet.depth", "must be 10, 18, 34 or 50"},
    {"resnet_planes",
     [](JobSpec& j) {
       j.model.resnet.block_inplanes = {64, 128};
     },
     "model.resnet.block_inplanes", "expected 4 values"},
    {"resnet_norm", [](JobSpec& j) { j.model.resnet.norm = "layer"; }, "model.resnet.norm",
     "must be one of batch, group"},
    {"replace_rate", [](JobSpec& j) { j.data.replace_rate = 1.5; }, "data.replace_rate", "[0, 1]"},
    {"smart_cache_empty",
     [](JobSpec& j) {
       j.data.smart_cache = true;
       j.data.cache_rate = 0;
     },
     "data.cache_rate", "must be > 0 with data.smart_cache"},
    {"survival_folder",
     [](JobSpec& j) {
       j.task = "survival";
       j.data.source = DataSource::folder;
       j.data.path = "/tmp";
     },
     "data.source", "labels from a CSV manifest"},
    {"patch_stride",
     [](JobSpec& j) {
       j.data.patch_stride = {16, 64, 16};
     },
     "data.patch_stride", "between 1 and data.patch_size"},
    {"patch_foreground", [](JobSpec& j) { j.data.patch_min_foreground = 1.5; }, "data.patch_min_foreground", "[0, 1]"},
    {"vq_codes", [](JobSpec& j) { j.model.vqgan.num_embeddings = 1; }, "model.vqgan.num_embeddings", ">= 2"},
    {"vq_update", [](JobSpec& j) { j.model.vqgan.codebook_update = "kmeans"; }, "model.vqgan.codebook_update",
     "must be one of ema, straight_through"},
    {"vq_decay", [](JobSpec& j) { j.model.vqgan.ema_decay = 1.0; }, "model.vqgan.ema_decay", "(0, 1)"},
    {"vq_dead", [](JobSpec& j) { j.model.vqgan.dead_code_threshold = 1.0; }, "model.vqgan.dead_code_threshold",
     "[0, 1)"},
    {"vq_disc_start", [](JobSpec& j) { j.model.vqgan.discriminator_iter_start = -1; },
     "model.vqgan.discriminator_iter_start", ">= 0"},
    {"vq_gan_weight", [](JobSpec& j) { j.model.vqgan.image_gan_weight = -1; }, "model.vqgan.image_gan_weight", ">= 0"},
    {"vq_video_weight", [](JobSpec& j) { j.model.vqgan.video_gan_weight = -1; }, "model.vqgan.video_gan_weight",
     ">= 0"},
    {"name_prefix", [](JobSpec& j) { j.checkpoint.name_prefix = "vqgan/patches"; }, "checkpoint.name_prefix",
     "letters, digits"},
    {"inference_steps", [](JobSpec& j) { j.scheduler.num_inference_steps = 1001; }, "scheduler.num_inference_steps",
     "must be between 1 and num_train_timesteps (1000)"},
    {"unet_heads",
     [](JobSpec& j) {
       j.model.diffusion_unet.num_head_channels = {0, 0, 30, 32};
     },
     "model.diffusion_unet.num_head_channels", "level 2: channels 256 not divisible by 30"},
    {"generate_size",
     [](JobSpec& j) {
       j.generate.output_size = {64, 64, 48};
     },
     "generate.output_size",
     "every entry must be a positive multiple of 32 (the autoencoder and UNet downsampling; got [64, 64, 48])"},
    // Issue 37: 10^63 voxels passed validate and failed later with a backtrace.
    {"generate_size_huge",
     [](JobSpec& j) {
       j.generate.output_size = {64, 64, 1 << 30};
     },
     "generate.output_size", "2048"},
    {"generate_orientation", [](JobSpec& j) { j.generate.orientation = "RAI"; }, "generate.orientation",
     "must be one of RAS, LPS"},
    {"task_unknown", [](JobSpec& j) { j.task = "autoencodr"; }, "task", "did you mean 'autoencoder'"},
    {"phantom_vs_patch",
     [](JobSpec& j) {
       j.data.phantom_size = {16, 64, 64};
     },
     "data.phantom_size", "at least data.patch_size"},
    {"num_train", [](JobSpec& j) { j.data.num_train = 0; }, "data.num_train", ">= 1"},
    {"num_val", [](JobSpec& j) { j.data.num_val = 0; }, "data.num_val", ">= 1"},
    {"ct_window",
     [](JobSpec& j) {
       j.data.ct_window = {100, -100};
     },
     "data.ct_window", "low must be below high"},
    {"percentiles",
     [](JobSpec& j) {
       j.data.mri_percentiles = {50, 101};
     },
     "data.mri_percentiles", "0 <= low < high <= 100"},
    {"noise", [](JobSpec& j) { j.data.noise_hu = -1; }, "data.noise_hu", ">= 0"},
    {"target_spacing",
     [](JobSpec& j) {
       j.data.target_spacing = std::array<double, 3>{1, 0, 1};
     },
     "data.target_spacing", "> 0"},
    {"nan_steps", [](JobSpec& j) { j.training.nan_max_bad_steps = 0; }, "training.nan_max_bad_steps", ">= 1"},
    {"nan_factor", [](JobSpec& j) { j.training.nan_lr_factor = 1.0; }, "training.nan_lr_factor", "must be in (0, 1)"},
    {"betas",
     [](JobSpec& j) {
       j.training.betas = {0.9, 1.0};
     },
     "training.betas", "[0, 1)"},
    {"name_slash", [](JobSpec& j) { j.name = "a/b"; }, "name", "run directory"},
    {"name_empty", [](JobSpec& j) { j.name = ""; }, "name", "must not be empty"},
    {"name_long", [](JobSpec& j) { j.name = std::string(100000, 'a'); }, "name",
     "is 100000 characters long; at most 128"},
    {"resnet_wide",
     [](JobSpec& j) {
       j.model.resnet.block_inplanes = {64, 128, 256, 4096};
     },
     "model.resnet.block_inplanes", "4096"},
    {"log_every", [](JobSpec& j) { j.output.log_every_steps = 0; }, "output.log_every_steps", ">= 1"},
};

INSTANTIATE_TEST_SUITE_P(Rules, JobValidationRule, ::testing::ValuesIn(k_rules),
                         [](const ::testing::TestParamInfo<Rule>& info) { return std::string(info.param.name); });

TEST(JobValidation, MaxStepsReplacesEpochs) {
  JobSpec job;
  job.training.epochs = 0;
  job.training.max_steps = 100;
  EXPECT_TRUE(validate_job(job).empty()) << format_errors(validate_job(job));
}

TEST(JobValidation, PhantomSizeOnlyMattersForSimulatedData) {
  test::TempDir dir("config");
  test::write_bytes(dir / "a.nii.gz", "not checked here");
  JobSpec job;
  job.data.phantom_size = {8, 8, 8};
  job.data.source = DataSource::folder;
  job.data.path = dir.path().string();
  EXPECT_TRUE(validate_job(job).empty()) << format_errors(validate_job(job));
}

TEST(JobValidation, FolderSourceNeedsAPathWithVolumes) {
  test::TempDir dir("config");
  JobSpec job;
  job.data.source = DataSource::folder;
  EXPECT_EQ(reason_for(validate_job(job), "data.path"), "required when data.source is folder");

  job.data.path = (dir / "missing").string();
  EXPECT_TRUE(has_error(validate_job(job), "data.path", "no such directory"));

  // A folder with unrelated files only.
  test::write_bytes(dir / "notes.txt", "x");
  job.data.path = dir.path().string();
  EXPECT_EQ(reason_for(validate_job(job), "data.path"),
            "no volume files (.nii, .nii.gz, .nrrd, .nhdr, .mha, .mhd) in " + dir.path().string() +
                " (nor DICOM subfolders, nor case folders of volume files)");

  test::write_bytes(dir / "notes.txt.nii.bak", "x");
  EXPECT_TRUE(has_error(validate_job(job), "data.path", "no volume files"));

  // A detached MetaImage's data file alone is not a volume; its header is.
  test::write_bytes(dir / "MR_001.raw", "x");
  EXPECT_TRUE(has_error(validate_job(job), "data.path", "no volume files"));
  test::write_bytes(dir / "MR_001.MHD", "x");
  EXPECT_FALSE(has_error(validate_job(job), "data.path")) << format_errors(validate_job(job));
  std::filesystem::remove(dir / "MR_001.MHD");
  test::write_bytes(dir / "MR_002.nrrd", "x");
  EXPECT_FALSE(has_error(validate_job(job), "data.path")) << format_errors(validate_job(job));
  std::filesystem::remove(dir / "MR_002.nrrd");

  test::write_bytes(dir / "CT_001.NII.GZ", "x");
  EXPECT_FALSE(has_error(validate_job(job), "data.path")) << format_errors(validate_job(job));
}

TEST(JobValidation, FolderWithADicomSubfolderIsAccepted) {
  test::TempDir dir("config");
  std::filesystem::create_directory(dir / "series1");
  JobSpec job;
  job.data.source = DataSource::folder;
  job.data.path = dir.path().string();
  test::write_bytes(dir / "series1" / "IM0001", std::string(200, '\0'));  // no DICM marker
  EXPECT_TRUE(has_error(validate_job(job), "data.path", "no volume files"));
  test::write_bytes(dir / "series1" / "IM0002", std::string(128, '\0') + "DICM" + std::string(64, '\0'));
  EXPECT_FALSE(has_error(validate_job(job), "data.path")) << format_errors(validate_job(job));
}

TEST(JobValidation, CsvSourceNeedsAManifestWithAnImageColumn) {
  test::TempDir dir("config");
  JobSpec job;
  job.data.source = DataSource::csv;
  EXPECT_EQ(reason_for(validate_job(job), "data.path"), "required when data.source is csv");
  job.data.path = (dir / "list.csv").string();
  EXPECT_TRUE(has_error(validate_job(job), "data.path", "no such file"));
  job.data.path = dir.path().string();
  EXPECT_TRUE(has_error(validate_job(job), "data.path", "not a file"));
  test::write_bytes(dir / "list.csv", "label,path\n1,a.nii.gz\n");
  job.data.path = (dir / "list.csv").string();
  EXPECT_TRUE(has_error(validate_job(job), "data.path", "no \"image\" column"));
  test::write_bytes(dir / "list.csv", "\xEF\xBB\xBF\"subject\", \"image\"\r\ns1,a.nii.gz\n");
  EXPECT_FALSE(has_error(validate_job(job), "data.path")) << format_errors(validate_job(job));
}

TEST(JobValidation, SimulatedSourceIgnoresThePath) {
  JobSpec job;
  job.data.path = "/definitely/not/there";
  EXPECT_TRUE(validate_job(job).empty()) << format_errors(validate_job(job));
}

TEST(JobValidation, ResumeMustBeAutoOrAnExistingFile) {
  test::TempDir dir("config");
  JobSpec job;
  job.checkpoint.resume = "auto";
  EXPECT_TRUE(validate_job(job).empty());
  job.checkpoint.resume = (dir / "last.pt").string();
  EXPECT_TRUE(has_error(validate_job(job), "checkpoint.resume", "no such checkpoint file"));
  test::write_bytes(dir / "last.pt", "x");
  EXPECT_TRUE(validate_job(job).empty()) << format_errors(validate_job(job));
}

TEST(JobValidation, LoaderReportsFolderWithoutVolumes) {
  test::TempDir dir("config");
  const auto errors = test::errors_of_text("data:\n  source: folder\n  path: " + dir.path().string() + "\n");
  EXPECT_EQ(reason_for(errors, "data.path"), "no volume files (.nii, .nii.gz, .nrrd, .nhdr, .mha, .mhd) in " +
                                                 dir.path().string() +
                                                 " (nor DICOM subfolders, nor case folders of volume files)");
  const auto no_path = test::errors_of_text("data:\n  source: folder\n");
  EXPECT_EQ(reason_for(no_path, "data.path"), "required when data.source is folder");
}

}  // namespace
}  // namespace medsynth
