// Hydra-style overrides applied before typing.
#include <gtest/gtest.h>

#include "config/job_loader.hpp"
#include "config_test_util.hpp"
#include "support/temp_dir.hpp"

namespace medsynth {
namespace {

using test::has_error;
using test::reason_for;

TEST(JobOverrides, ValidOverridesReplaceFileValues) {
  test::TempDir dir("config");
  test::write_bytes(dir / "vol.nii.gz", "x");
  test::write_bytes(dir / "job.yaml", "training:\n  lr: 0.1\n  epochs: 5\n");
  const JobSpec job = load_job_file_with_overrides(
      (dir / "job.yaml").string(),
      {"training.lr=3e-4", "data.patch_size=[16,16,16]", "data.source=folder", "data.path=" + dir.path().string(),
       "+training.amp=true", "model.autoencoder.attention_levels=[false, false, true]", "name=from-cli",
       "data.target_spacing=[1, 1, 2]"});
  EXPECT_DOUBLE_EQ(job.training.lr, 3e-4);
  EXPECT_EQ(job.training.epochs, 5);  // untouched file value
  EXPECT_EQ(job.data.patch_size, (std::array<int, 3>{16, 16, 16}));
  EXPECT_EQ(job.data.source, DataSource::folder);
  EXPECT_EQ(job.data.path, dir.path().string());
  EXPECT_TRUE(job.training.amp);
  EXPECT_EQ(job.model.autoencoder.attention_levels, (std::vector<bool>{false, false, true}));
  EXPECT_EQ(job.name, "from-cli");
  ASSERT_TRUE(job.data.target_spacing.has_value());
  EXPECT_EQ((*job.data.target_spacing)[2], 2.0);
}

TEST(JobOverrides, LaterOverrideWinsAndNullResetsOptional) {
  const JobSpec job = load_job_text_with_overrides("data:\n  target_spacing: [1, 1, 1]\n",
                                                   {"training.batch_size=2", "training.batch_size=4", "data.target_spacing=null"});
  EXPECT_EQ(job.training.batch_size, 4);
  EXPECT_FALSE(job.data.target_spacing.has_value());
}

TEST(JobOverrides, WorkOnAnEmptyDocumentAndOnJson) {
  EXPECT_EQ(load_job_text_with_overrides("", {"training.epochs=7"}).training.epochs, 7);
  EXPECT_EQ(load_job_text_with_overrides("training:\n", {"training.epochs=7"}).training.epochs, 7);
  const JobSpec json = load_job_text_with_overrides(R"({"training": {"epochs": 3}})", {"training.epochs=9"}, "job.json");
  EXPECT_EQ(json.training.epochs, 9);
}

TEST(JobOverrides, UnknownKeyGetsADidYouMean) {
  const auto errors = test::config_errors([] { load_job_text_with_overrides("", {"training.lrr=1"}); });
  ASSERT_EQ(errors.size(), 1u) << format_errors(errors);
  EXPECT_EQ(errors[0].to_string(), "override training.lrr=1: unknown key; did you mean 'lr'?");
  const auto section = test::config_errors([] { load_job_text_with_overrides("", {"trainig.lr=1", "batch_size=2"}); });
  EXPECT_EQ(reason_for(section, "override trainig.lr=1"), "unknown key; did you mean 'training'?");
  EXPECT_EQ(reason_for(section, "override batch_size=2"), "unknown key; did you mean 'training.batch_size'?");
  const auto too_deep = test::config_errors([] { load_job_text_with_overrides("", {"training.lr.x=1"}); });
  EXPECT_TRUE(has_error(too_deep, "override training.lr.x=1", "is a field, not a section"));
}

TEST(JobOverrides, MalformedOverridesAreErrors) {
  const auto errors = test::config_errors(
      [] { load_job_text_with_overrides("", {"training.lr", "=3", "training..lr=1", "data.patch_size=[1,2"}); });
  EXPECT_TRUE(has_error(errors, "override training.lr", "expected key=value"));
  EXPECT_TRUE(has_error(errors, "override =3", "expected key=value"));
  EXPECT_TRUE(has_error(errors, "override training..lr=1", "expected key=value"));
  EXPECT_TRUE(has_error(errors, "override data.patch_size=[1,2", "invalid value"));
  EXPECT_EQ(errors.size(), 4u) << format_errors(errors);
}

TEST(JobOverrides, OverriddenValuesAreTypedAndValidatedLikeFileValues) {
  const auto errors = test::config_errors(
      [] { load_job_text_with_overrides("", {"training.lr=fast", "training.batch_size=0", "data.patch_size=[32,32]"}); });
  EXPECT_EQ(reason_for(errors, "training.lr"), "expected a number (got \"fast\")");
  EXPECT_EQ(reason_for(errors, "training.batch_size"), "must be >= 1 (got 0)");
  EXPECT_EQ(reason_for(errors, "data.patch_size"), "expected 3 values (got 2)");
}

TEST(JobOverrides, ErrorsInFileAndOverridesAreReportedTogether) {
  const auto errors = test::config_errors([] {
    load_job_text_with_overrides("training:\n  batch_szie: 2\n", {"training.lrr=1"});
  });
  EXPECT_TRUE(has_error(errors, "training.batch_szie", "did you mean 'batch_size'"));
  EXPECT_TRUE(has_error(errors, "override training.lrr=1", "did you mean 'lr'"));
}

TEST(JobOverrides, CannotDescendIntoANonMappingInTheFile) {
  const auto errors = test::config_errors([] { load_job_text_with_overrides("training: 5\n", {"training.lr=1"}); });
  EXPECT_TRUE(has_error(errors, "override training.lr=1", "not a mapping"));
  EXPECT_TRUE(has_error(errors, "training", "expected a mapping"));
}

}  // namespace
}  // namespace medsynth
