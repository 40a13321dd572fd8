// Writing the resolved job (YAML/JSON round trips) and the config hashes.
#include <cmath>

#include <gtest/gtest.h>

#include "config/job_loader.hpp"
#include "support/temp_dir.hpp"

namespace medsynth {
namespace {

// A job where every field differs from its default (and strings are awkward to quote).
JobSpec unusual_job() {
  JobSpec j;
  j.name = "round.trip_2";
  j.data.source = DataSource::simulated;
  j.data.path = "dir with spaces/\"quoted\": #not-a-comment \xC3\xA9";
  j.data.modality = Modality::mri;
  j.data.num_train = 7;
  j.data.num_val = 3;
  j.data.phantom_size = {48, 40, 36};
  j.data.phantom_spacing = {0.1, 1.0 / 3.0, 2.5};
  j.data.noise_hu = 0.0;
  j.data.val_fraction = 0.15;
  j.data.ct_window = {-1024.5, 3071.0};
  j.data.mri_percentiles = {1.0, 99.0};
  j.data.target_spacing = std::array<double, 3>{1.25, 1.25, 2.0};
  j.data.patch_size = {16, 24, 32};
  j.data.random_flip = false;
  j.data.cache_rate = 0.5;
  j.data.num_workers = 0;
  j.data.prefetch = 1;
  auto& a = j.model.autoencoder;
  a.in_channels = 2;
  a.out_channels = 2;
  a.latent_channels = 8;
  a.num_channels = {16, 32};
  a.num_res_blocks = {1, 3};
  a.norm_num_groups = 8;
  a.norm_eps = 1e-5;
  a.attention_levels = {false, true};
  a.with_encoder_nonlocal_attn = true;
  a.with_decoder_nonlocal_attn = true;
  a.use_checkpointing = true;
  a.use_convtranspose = true;
  j.model.discriminator.num_layers_d = 4;
  j.model.discriminator.channels = 16;
  j.model.discriminator.start_step = 100;
  j.loss.recon_loss = "l2";
  j.loss.kl_weight = 1.2345678901234567e-9;
  j.loss.logvar_clamp = {-10.0, 10.0};
  j.loss.adv_weight = 0.1;
  auto& t = j.training;
  t.epochs = 0;
  t.max_steps = 1000;
  t.batch_size = 3;
  t.gradient_accumulation_steps = 2;
  t.lr = 3e-4;
  t.weight_decay = 0.0;
  t.betas = {0.5, 0.99};
  t.warmup_steps = 10;
  t.lr_schedule = "constant";
  t.min_lr_ratio = 0.1;
  t.amp = true;
  t.grad_clip_norm = 0.0;
  t.base_seed = 9007199254740993LL;  // not representable as a double: must stay an integer
  t.deterministic = false;
  t.val_every_steps = 25;
  t.val_max_volumes = 2;
  t.nan_max_bad_steps = 5;
  t.nan_lr_factor = 0.25;
  t.num_threads = 2;
  t.device = "cpu";
  t.memory_format = "channels_last_3d";
  j.checkpoint = {100, 5, "val/loss", "min", "auto"};
  j.output = {"true", false, 0, 1};  // a runs_dir that looks like a boolean
  return j;
}

TEST(JobWriter, YamlRoundTripGivesAnIdenticalSpec) {
  const JobSpec job = unusual_job();
  ASSERT_TRUE(validate_job(job).empty()) << format_errors(validate_job(job));
  const std::string yaml = job_to_yaml(job);
  const JobSpec back = load_job_text(yaml, "resolved.yaml");
  EXPECT_TRUE(back == job) << yaml;
  EXPECT_FALSE(back == JobSpec{});
  EXPECT_EQ(job_to_yaml(back), yaml);
}

TEST(JobWriter, JsonRoundTripGivesAnIdenticalSpec) {
  const JobSpec job = unusual_job();
  const std::string json = job_to_json(job);
  const JobSpec back = load_job_text(json, "resolved.json");
  EXPECT_TRUE(back == job) << json;
  // JSON is YAML too: the YAML reader takes it as well.
  EXPECT_TRUE(load_job_text(json, "resolved.yaml") == job);
}

TEST(JobWriter, DefaultsAreWrittenInFull) {
  const std::string yaml = job_to_yaml(JobSpec{});
  for (const char* line : {"name: \"job\"", "  source: simulated", "  target_spacing: null", "  patch_size: [32, 32, 32]",
                           "    num_channels: [64, 128, 256]", "  kl_weight: 1.0e-07", "  lr: 0.0001", "  resume: \"\"",
                           "    attention_levels: [false, false, false]"})
    EXPECT_NE(yaml.find(line), std::string::npos) << "missing '" << line << "' in\n" << yaml;
  EXPECT_TRUE(load_job_text(yaml) == JobSpec{});
}

TEST(JobWriter, FileRoundTripThroughDisk) {
  test::TempDir dir("config");
  const JobSpec job = unusual_job();
  test::write_bytes(dir / "job.yaml", job_to_yaml(job));
  test::write_bytes(dir / "job.json", job_to_json(job));
  EXPECT_TRUE(load_job_file((dir / "job.yaml").string()) == job);
  EXPECT_TRUE(load_job_file((dir / "job.json").string()) == job);
}

TEST(JobHash, IndependentOfKeyOrderSpacingAndSpelling) {
  const std::string a = R"(
name: h
training:
  lr: 0.0001
  epochs: 3
model:
  autoencoder:
    latent_channels: 8
    num_channels: [32, 64, 64]
)";
  const std::string b = R"(
model: {autoencoder: {num_channels: [32,64,64],   latent_channels: 8}}
# comments do not count
training: {epochs: 3, lr: 1e-4}
name: h
)";
  const JobSpec ja = load_job_text(a);
  const JobSpec jb = load_job_text(b);
  EXPECT_EQ(model_config_hash(ja), model_config_hash(jb));
  EXPECT_EQ(job_config_hash(ja), job_config_hash(jb));
  // Written defaults and omitted defaults are the same job.
  EXPECT_EQ(job_config_hash(load_job_text(job_to_yaml(ja))), job_config_hash(ja));
}

TEST(JobHash, ModelHashFollowsOnlyTaskAndModel) {
  const JobSpec base;
  const std::string model = model_config_hash(base);
  const std::string whole = job_config_hash(base);
  EXPECT_EQ(model.size(), 16u);
  EXPECT_EQ(model.find_first_not_of("0123456789abcdef"), std::string::npos) << model;
  EXPECT_EQ(model_config_hash(base), model);  // deterministic

  JobSpec lr = base;
  lr.training.lr = 2e-4;
  EXPECT_EQ(model_config_hash(lr), model);
  EXPECT_NE(job_config_hash(lr), whole);

  JobSpec latent = base;
  latent.model.autoencoder.latent_channels = 8;
  EXPECT_NE(model_config_hash(latent), model);
  EXPECT_NE(job_config_hash(latent), whole);

  JobSpec attention = base;
  attention.model.autoencoder.attention_levels[2] = true;
  EXPECT_NE(model_config_hash(attention), model);

  JobSpec discriminator = base;
  discriminator.model.discriminator.channels = 64;
  EXPECT_NE(model_config_hash(discriminator), model);

  JobSpec task = base;
  task.task = "vqgan";
  EXPECT_NE(model_config_hash(task), model);
}

}  // namespace
}  // namespace medsynth
