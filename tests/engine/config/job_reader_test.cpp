// Reading job files: defaults, types, unknown keys, syntax errors, YAML vs JSON.
#include <gtest/gtest.h>

#include "config/job_enums.hpp"
#include "config/job_loader.hpp"
#include "config_test_util.hpp"
#include "support/temp_dir.hpp"

namespace medsynth {
namespace {

using test::errors_of_text;
using test::has_error;
using test::reason_for;

TEST(JobReader, NearlyEmptyFileGivesTheDefaults) {
  const JobSpec job = load_job_text("name: tiny\n");
  const JobSpec defaults;
  EXPECT_EQ(job.name, "tiny");
  EXPECT_EQ(job.task, "autoencoder");
  EXPECT_EQ(job.data.source, DataSource::simulated);
  EXPECT_EQ(job.data.patch_size, defaults.data.patch_size);
  EXPECT_FALSE(job.data.target_spacing.has_value());
  EXPECT_EQ(job.model.autoencoder.num_channels, (std::vector<int>{64, 128, 256}));
  EXPECT_EQ(job.training.lr, 1e-4);
  EXPECT_EQ(job.checkpoint.mode, "max");
  // An empty document and empty sections mean "all defaults" too.
  EXPECT_EQ(load_job_text("").name, "job");
  EXPECT_EQ(load_job_text("# only a comment\ntraining:\ndata:\n").training.batch_size, defaults.training.batch_size);
}

TEST(JobReader, ReadsEveryKindOfField) {
  const JobSpec job = load_job_text(R"(
name: run-7
data:
  modality: mri
  phantom_spacing: [2, 2.5, 3]
  target_spacing: [1.5, 1.5, 2.0]
  patch_size: [16, 32, 64]
  random_flip: false
model:
  autoencoder:
    num_channels: [32, 64]
    num_res_blocks: [1, 1]
    attention_levels: [false, true]
training:
  lr: 3e-4
  base_seed: 12345678901
  betas: [0.5, 0.9]
checkpoint:
  resume: ""
)");
  EXPECT_EQ(job.name, "run-7");
  EXPECT_EQ(job.data.modality, Modality::mri);
  EXPECT_EQ(job.data.phantom_spacing, (std::array<double, 3>{2.0, 2.5, 3.0}));
  ASSERT_TRUE(job.data.target_spacing.has_value());
  EXPECT_EQ(*job.data.target_spacing, (std::array<double, 3>{1.5, 1.5, 2.0}));
  EXPECT_EQ(job.data.patch_size, (std::array<int, 3>{16, 32, 64}));
  EXPECT_FALSE(job.data.random_flip);
  EXPECT_EQ(job.model.autoencoder.attention_levels, (std::vector<bool>{false, true}));
  EXPECT_DOUBLE_EQ(job.training.lr, 3e-4);
  EXPECT_EQ(job.training.base_seed, 12345678901LL);
  EXPECT_EQ(job.training.betas, (std::array<double, 2>{0.5, 0.9}));
}

TEST(JobReader, WrongTypesNameTheFieldAndWhatWasFound) {
  const auto errors = errors_of_text(R"(
training:
  lr: fast
  batch_size: 1.5
  amp: 1
  epochs: "3"
data:
  patch_size: [32, 32]
  phantom_size: 64
  phantom_spacing: [1, x, 1]
  source: [folder]
model:
  autoencoder:
    num_channels: {a: 1}
    attention_levels: [true, maybe, false]
loss:
  recon_loss: [l1]
)");
  EXPECT_EQ(reason_for(errors, "training.lr"), "expected a number (got \"fast\")");
  EXPECT_EQ(reason_for(errors, "training.batch_size"), "expected an integer (got 1.5)");
  EXPECT_EQ(reason_for(errors, "training.amp"), "expected true or false (got 1)");
  EXPECT_EQ(reason_for(errors, "training.epochs"), "expected an integer (got \"3\")");  // quoted: text
  EXPECT_EQ(reason_for(errors, "data.patch_size"), "expected 3 values (got 2)");
  EXPECT_EQ(reason_for(errors, "data.phantom_size"), "expected a sequence of 3 integers (got 64)");
  EXPECT_EQ(reason_for(errors, "data.phantom_spacing[1]"), "expected a number (got \"x\")");
  EXPECT_TRUE(has_error(errors, "data.source", "expected one of simulated, folder, csv"));
  EXPECT_TRUE(has_error(errors, "model.autoencoder.num_channels", "got a mapping"));
  EXPECT_TRUE(has_error(errors, "model.autoencoder.attention_levels[1]", "expected true or false"));
  EXPECT_TRUE(has_error(errors, "loss.recon_loss", "expected a string (got a sequence of 1 value)"));
}

TEST(JobReader, IntegerOutOfRangeAndNonFiniteNumbersAreReported) {
  const auto errors = errors_of_text("training:\n  batch_size: 99999999999\n  lr: 1e999\n");
  EXPECT_TRUE(has_error(errors, "training.batch_size", "out of range"));
  EXPECT_TRUE(has_error(errors, "training.lr", "out of range"));
}

TEST(JobReader, UnknownKeysAndSectionsGetSuggestions) {
  const auto errors = errors_of_text(R"(
traning:
  epochs: 3
training:
  batch_szie: 2
  patch_size: [32, 32, 32]
data:
  sorce: folder
model:
  autoencodr: {}
  autoencoder:
    latent_chanels: 8
completely_unrelated: 1
)");
  EXPECT_EQ(reason_for(errors, "traning"), "unknown section; did you mean 'training'?");
  EXPECT_EQ(reason_for(errors, "training.batch_szie"), "unknown key; did you mean 'batch_size'?");
  EXPECT_EQ(reason_for(errors, "training.patch_size"), "unknown key; did you mean 'data.patch_size'?");
  EXPECT_EQ(reason_for(errors, "data.sorce"), "unknown key; did you mean 'source'?");
  EXPECT_EQ(reason_for(errors, "model.autoencodr"), "unknown key; did you mean 'autoencoder'?");
  EXPECT_EQ(reason_for(errors, "model.autoencoder.latent_chanels"), "unknown key; did you mean 'latent_channels'?");
  EXPECT_EQ(reason_for(errors, "completely_unrelated"), "unknown key");
}

TEST(JobReader, EnumTyposGetSuggestions) {
  const auto errors = errors_of_text("data:\n  source: simulted\n  modality: CT\n");
  EXPECT_EQ(reason_for(errors, "data.source"),
            "expected one of simulated, folder, csv, datalist (got \"simulted\"); did you mean 'simulated'?");
  EXPECT_TRUE(has_error(errors, "data.modality", "did you mean 'ct'?"));
}

// The scheduler's modes are enums since issue 33: a misspelling stops at the
// reader, naming the field, with MONAI's spellings offered.
TEST(JobReader, SchedulerModesAreReadAsTheirEnumsWithSuggestions) {
  const auto errors =
      errors_of_text("scheduler:\n  kind: fast-ddpm\n  beta_schedule: cosine\n  sample_method: logit_normal\n");
  EXPECT_EQ(reason_for(errors, "scheduler.kind"),
            "expected one of rflow, ddpm, ddim, fast_ddpm (got \"fast-ddpm\"); did you mean 'fast_ddpm'?");
  EXPECT_TRUE(has_error(errors, "scheduler.beta_schedule", "expected one of linear_beta, scaled_linear_beta"));
  EXPECT_TRUE(has_error(errors, "scheduler.sample_method", "did you mean 'logit-normal'?"));
  const JobSpec job = load_job_text(
      "task: ldm\nscheduler:\n  kind: fast_ddpm\n  prediction_type: v_prediction\n  fast_ddpm_schedule: uniform\n");
  EXPECT_EQ(job.scheduler.kind, SchedulerKind::fast_ddpm);
  EXPECT_EQ(job.scheduler.prediction_type, PredictionType::v_prediction);
  EXPECT_EQ(job.scheduler.fast_ddpm_schedule, FastDdpmSchedule::uniform);
  // Written back as they were spelled, quoted as the strings they were, so
  // the job's config hash is the one runs made before recorded.
  const std::string yaml = job_to_yaml(job);
  EXPECT_NE(yaml.find("kind: \"fast_ddpm\""), std::string::npos) << yaml;
  EXPECT_NE(yaml.find("sample_method: \"logit-normal\""), std::string::npos) << yaml;
}

TEST(JobReader, EveryProblemInOneFileIsReportedAtOnce) {
  const std::string yaml = R"(
name: several
task: autoencoder
training:
  batch_size: 0
  lr: fast
  batch_szie: 2
data:
  patch_size: [32, 32]
  cache_rate: 1.5
loss:
  perceptual_weight: 0.1
)";
  try {
    load_job_text(yaml, "several.yaml");
    FAIL() << "expected a ConfigError";
  } catch (const ConfigError& e) {
    const auto& errors = e.errors();
    EXPECT_EQ(errors.size(), 6u) << format_errors(errors);
    EXPECT_EQ(reason_for(errors, "training.batch_size"), "must be >= 1 (got 0)");
    EXPECT_TRUE(has_error(errors, "training.lr", "expected a number"));
    EXPECT_TRUE(has_error(errors, "training.batch_szie", "did you mean 'batch_size'"));
    EXPECT_TRUE(has_error(errors, "data.patch_size", "expected 3 values (got 2)"));
    EXPECT_TRUE(has_error(errors, "data.cache_rate", "must be in [0, 1]"));
    EXPECT_TRUE(has_error(errors, "loss.perceptual_weight", "used by task vqgan only"));
    // The message lists them all, under the source name.
    const std::string what = e.what();
    EXPECT_EQ(what.rfind("several.yaml: 6 errors", 0), 0u) << what;
    EXPECT_NE(what.find("training.batch_size: must be >= 1 (got 0)"), std::string::npos) << what;
    EXPECT_EQ(e.kind(), ErrorKind::usage);
  }
}

TEST(JobReader, DuplicateKeysAreErrors) {
  const auto errors = errors_of_text("training:\n  lr: 0.1\n  lr: 0.2\n");
  EXPECT_EQ(reason_for(errors, "training.lr"), "duplicate key");
  const auto json_errors = errors_of_text(R"({"training": {"lr": 0.1, "lr": 0.2}})", "job.json");
  EXPECT_EQ(reason_for(json_errors, "training.lr"), "duplicate key");
}

// Issue 19.5: a JSON job nested 100 000 deep took 10 s and 3.4 GB before it
// failed with std::bad_alloc (exit 1). It is refused while it is read.
TEST(JobReader, JsonNestedFarDeeperThanAJobIsRefusedAsItIsRead) {
  const int n = 100000;
  for (const auto& [open, close] : {std::pair{"{\"a\": ", "}"}, std::pair{"[", "]"}}) {
    std::string text = "{\"name\": \"x\", \"model\": ";
    for (int i = 0; i < n; ++i) text += open;
    text += "1";
    for (int i = 0; i < n; ++i) text += close;
    text += "}";
    try {
      load_job_text(text, "deep.json");
      FAIL() << "expected a ConfigError";
    } catch (const ConfigError& e) {
      EXPECT_EQ(e.source(), "deep.json");
      EXPECT_NE(std::string(e.what()).find("nested deeper than 64 levels"), std::string::npos) << e.what();
      EXPECT_EQ(e.kind(), ErrorKind::usage);
    }
  }
}

TEST(JobReader, SectionsMustBeMappings) {
  const auto errors = errors_of_text("training: 5\nmodel:\n  autoencoder: [1, 2]\n");
  EXPECT_EQ(reason_for(errors, "training"), "expected a mapping (got 5)");
  EXPECT_EQ(reason_for(errors, "model.autoencoder"), "expected a mapping (got a sequence of 2 values)");
  const auto top = errors_of_text("- a\n- b\n");
  EXPECT_TRUE(has_error(top, "", "expected a mapping of sections at the top level"));
}

TEST(JobReader, YamlSyntaxErrorNamesFileLineAndColumn) {
  try {
    load_job_text("training:\n  lr: [1, 2\n  epochs: 3\n", "broken.yaml");
    FAIL() << "expected a ConfigError";
  } catch (const ConfigError& e) {
    ASSERT_EQ(e.errors().size(), 1u);
    EXPECT_EQ(e.source(), "broken.yaml");
    EXPECT_NE(e.errors()[0].reason.find("invalid YAML at line "), std::string::npos) << e.what();
    EXPECT_NE(e.errors()[0].reason.find(", column "), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).rfind("broken.yaml: 1 error", 0), 0u) << e.what();
  }
}

TEST(JobReader, JsonSyntaxErrorNamesLineAndColumn) {
  try {
    load_job_text("{\n  \"training\": {\n    \"lr\": 0.1,\n  }\n}\n", "broken.json");
    FAIL() << "expected a ConfigError";
  } catch (const ConfigError& e) {
    ASSERT_EQ(e.errors().size(), 1u);
    EXPECT_NE(e.errors()[0].reason.find("invalid JSON"), std::string::npos) << e.what();
    EXPECT_NE(e.errors()[0].reason.find("line 4"), std::string::npos) << e.what();
  }
}

TEST(JobReader, MissingOrUnreadableFileIsAUsageError) {
  test::TempDir dir("config");
  const std::string missing = (dir / "nope.yaml").string();
  try {
    load_job_file(missing);
    FAIL() << "expected a UsageError";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find(missing), std::string::npos);
    EXPECT_EQ(e.kind(), ErrorKind::usage);
  }
  EXPECT_THROW(load_job_file(dir.path().string()), UsageError);
}

TEST(JobReader, YamlAndJsonFilesGiveIdenticalSpecs) {
  test::TempDir dir("config");
  test::write_bytes(dir / "job.yaml", R"(
name: same
data:
  modality: mri
  patch_size: [16, 16, 16]
  target_spacing: [1.0, 1.0, 1.5]
model:
  autoencoder:
    num_channels: [32, 64, 64]
    attention_levels: [false, false, true]
training:
  lr: 0.0003
  amp: true
  device: cpu
checkpoint:
  resume: auto
)");
  test::write_bytes(dir / "job.json", R"({
  "training": {"device": "cpu", "amp": true, "lr": 3e-4},
  "checkpoint": {"resume": "auto"},
  "model": {"autoencoder": {"attention_levels": [false, false, true], "num_channels": [32, 64, 64]}},
  "data": {"target_spacing": [1, 1, 1.5], "patch_size": [16, 16, 16], "modality": "mri"},
  "name": "same"
})");
  const JobSpec from_yaml = load_job_file((dir / "job.yaml").string());
  const JobSpec from_json = load_job_file((dir / "job.json").string());
  EXPECT_EQ(job_to_json(from_yaml), job_to_json(from_json));
  EXPECT_EQ(job_config_hash(from_yaml), job_config_hash(from_json));
  EXPECT_EQ(from_json.data.modality, Modality::mri);
  EXPECT_DOUBLE_EQ(from_json.training.lr, 3e-4);
}

TEST(JobReader, JsonStringsAreNotNumbers) {
  const auto errors = errors_of_text(R"({"training": {"lr": "0.1", "amp": "true"}})", "job.json");
  EXPECT_EQ(reason_for(errors, "training.lr"), "expected a number (got \"0.1\")");
  EXPECT_EQ(reason_for(errors, "training.amp"), "expected true or false (got \"true\")");
}

}  // namespace
}  // namespace medsynth
