// A few-step LDM pipeline through the real binary: every stage runs, a second
// `train --resume RUN_DIR` skips the completed stages, and a deleted image is
// regenerated bit for bit. Seconds, not minutes (the full ldm-tiny is the slow test).
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "support/child_process.hpp"
#include "support/tensorboard_reader.hpp"
#include "support/temp_dir.hpp"
#include "volume/nifti_extension.hpp"
#include "volume/volume_io.hpp"

namespace fs = std::filesystem;
using namespace medsynth;

namespace {

const std::vector<std::string> few_steps{"ldm.autoencoder_steps=4", "training.max_steps=6", "training.val_every_steps=3",
                                         "data.num_train=4", "data.num_val=1", "generate.num_images=3", "data.num_workers=0"};

std::vector<nlohmann::json> stage_events(const fs::path& run) {
  std::vector<nlohmann::json> out;
  std::istringstream in(test::read_bytes(run / "events.jsonl"));
  for (std::string line; std::getline(in, line);) {
    auto e = nlohmann::json::parse(line);
    if (e["type"] == "stage") out.push_back(e);
  }
  return out;
}

}  // namespace

TEST(LdmPipelineResume, CompletedStagesAreSkippedAndMissingImagesRegenerated) {
  test::TempDir dir("ldm-resume");
  std::vector<std::string> argv{test::engine_binary(), "train", std::string(MEDSYNTH_SOURCE_DIR) + "/resources/jobs/ldm-tiny.yaml"};
  argv.insert(argv.end(), few_steps.begin(), few_steps.end());
  argv.insert(argv.end(), {"--runs-dir", (dir / "runs").string(), "--no-progress", "--quiet"});
  auto r = test::run_process(argv, dir.path().string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  fs::path run;
  for (const auto& entry : fs::directory_iterator(dir / "runs")) run = entry.path();
  for (const char* name : {"image_seed42_rank0.nii.gz", "image_seed43_rank0.nii.gz", "image_seed44_rank0.nii.gz"})
    ASSERT_TRUE(fs::exists(run / "output" / name)) << name;
  EXPECT_TRUE(fs::exists(run / "autoencoder" / "stage-complete"));
  EXPECT_TRUE(fs::exists(run / "diffusion" / "stage-complete"));
  EXPECT_TRUE(fs::exists(run / "embedding" / "scale_factor.json"));
  EXPECT_TRUE(fs::exists(run / "embedding" / "train-phantom-0_emb.json") || !fs::is_empty(run / "embedding"));
  // ldm-tiny sets generate.evaluate: the last stage judged the 3 images against the 4 training phantoms.
  EXPECT_TRUE(fs::exists(run / "evaluation" / "evaluation.json"));
  EXPECT_NE(test::read_bytes(run / "evaluation" / "evaluation.txt").find("3 generated vs 4 reference volumes"), std::string::npos);
  EXPECT_NE(test::read_bytes(run / "events.jsonl").find("\"name\":\"eval/ms_ssim_fidelity\""), std::string::npos);
  EXPECT_EQ(stage_events(run).back()["stage"], "evaluate");
  // Issue 53 item 10: the run's own tb/ holds the evaluation's numbers (it
  // was created empty; the stages' curves are in their folders' tb/).
  std::map<std::string, double> scalars;
  for (const auto& entry : fs::directory_iterator(run / "tb"))
    for (const auto& s : read_tensorboard_scalars(entry.path())) scalars[s.tag] = s.value;
  EXPECT_TRUE(scalars.count("eval/ms_ssim_fidelity")) << "eval/ms_ssim_fidelity is not in " << run / "tb";
  // The diffusion stage's run_started names its training and held-out latents
  // (data.num_train 4, data.num_val 1), as the other tasks' runs do.
  std::istringstream diffusion_events(test::read_bytes(run / "diffusion" / "events.jsonl"));
  std::string first_line;
  std::getline(diffusion_events, first_line);
  const auto started = nlohmann::json::parse(first_line);
  ASSERT_EQ(started["type"], "run_started") << first_line;
  EXPECT_EQ(started["extra"]["train_volumes"], 4) << first_line;
  EXPECT_EQ(started["extra"]["val_volumes"], 1) << first_line;

  const Volume before = read_volume((run / "output" / "image_seed43_rank0.nii.gz").string());
  fs::remove(run / "output" / "image_seed43_rank0.nii.gz");
  const auto first_stages = stage_events(run).size();

  std::vector<std::string> resume{test::engine_binary(), "train", std::string(MEDSYNTH_SOURCE_DIR) + "/resources/jobs/ldm-tiny.yaml"};
  resume.insert(resume.end(), few_steps.begin(), few_steps.end());
  resume.insert(resume.end(), {"--resume", run.string(), "--no-progress", "--quiet"});
  auto again = test::run_process(resume, dir.path().string());
  ASSERT_EQ(again.exit_code, 0) << again.err;
  const auto stages = stage_events(run);
  ASSERT_GT(stages.size(), first_stages);
  int skipped = 0;
  for (std::size_t i = first_stages; i < stages.size(); ++i)
    if (stages[i]["status"].get<std::string>().rfind("skipped", 0) == 0) ++skipped;
  EXPECT_EQ(skipped, 2) << "autoencoder and diffusion should be skipped";
  const Volume after = read_volume((run / "output" / "image_seed43_rank0.nii.gz").string());
  EXPECT_EQ(before.voxels, after.voxels);
}

TEST(LdmPipelineResume, BadLdmFieldsAreReportedWithTheirPaths) {
  test::TempDir dir("ldm-bad");
  auto r = test::run_process({test::engine_binary(), "validate", std::string(MEDSYNTH_SOURCE_DIR) + "/resources/jobs/ldm-tiny.yaml",
                              "scheduler.kind=euler", "generate.output_size=[30,32,32]", "model.diffusion_unet.num_head_channels=[0]"},
                             dir.path().string());
  EXPECT_EQ(r.exit_code, 2);
  const std::string all = r.out + r.err;
  EXPECT_NE(all.find("scheduler.kind"), std::string::npos) << all;
  EXPECT_NE(all.find("generate.output_size"), std::string::npos) << all;
  EXPECT_NE(all.find("model.diffusion_unet.num_head_channels"), std::string::npos) << all;
}

// Issue 20.3: every generated file records what made it (a NIfTI comment
// extension), and `regenerate FILE` makes it again bit for bit with the
// recorded thread count; with another thread count, or after its checkpoint
// changed, it says what differs and exits 1.
TEST(LdmPipelineResume, AGeneratedFileCarriesItsProvenanceAndIsRegeneratedBitForBit) {
  test::TempDir dir("ldm-regenerate");
  std::vector<std::string> argv{test::engine_binary(), "train", std::string(MEDSYNTH_SOURCE_DIR) + "/resources/jobs/ldm-tiny.yaml"};
  argv.insert(argv.end(), few_steps.begin(), few_steps.end());
  argv.insert(argv.end(), {"training.num_threads=2", "--runs-dir", (dir / "runs").string(), "--no-progress", "--quiet"});
  auto r = test::run_process(argv, dir.path().string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  fs::path run;
  for (const auto& entry : fs::directory_iterator(dir / "runs")) run = entry.path();
  const std::string image = (run / "output" / "image_seed43_rank0.nii.gz").string();

  const auto texts = read_nifti_comment_extensions(image);
  ASSERT_EQ(texts.size(), 1u);
  const auto provenance = nlohmann::json::parse(texts[0]).at("medsynth_provenance");
  EXPECT_EQ(provenance.at("seed"), 43);
  EXPECT_EQ(provenance.at("rank"), 0);
  EXPECT_EQ(provenance.at("threads"), 2);
  EXPECT_EQ(provenance.at("scheduler"), "rflow");
  EXPECT_EQ(provenance.at("unet_checkpoint"), (run / "diffusion" / "checkpoints" / "last.safetensors").string());
  // Issue 37: SHA-256 of the checkpoint's bytes, as coreutils computes it.
  const auto digest = test::run_process({"/usr/bin/sha256sum", provenance.at("unet_checkpoint").get<std::string>()},
                                        dir.path().string());
  ASSERT_EQ(digest.exit_code, 0) << digest.err;
  EXPECT_EQ(provenance.at("unet_checkpoint_sha256").get<std::string>(), digest.out.substr(0, 64));
  EXPECT_FALSE(provenance.contains("unet_checkpoint_fnv1a64"));
  EXPECT_FALSE(provenance.at("engine_version").get<std::string>().empty());

  const std::string again = (dir / "again.nii.gz").string();
  auto same = test::run_process({test::engine_binary(), "regenerate", image, "--out", again}, dir.path().string());
  EXPECT_EQ(same.exit_code, 0) << same.err;
  EXPECT_NE(same.out.find("made again bit for bit"), std::string::npos) << same.out;
  EXPECT_EQ(read_volume(image).voxels, read_volume(again).voxels);

  // Issue 37: regenerate never loses a file. Over the volume being checked it
  // is refused (a tampered file would be replaced, then "made again bit for
  // bit"); an existing --out survives a regeneration that fails (the copy is
  // made aside and renamed at the end), and nothing half-made stays.
  const std::string image_bytes = test::read_bytes(image);
  auto self = test::run_process({test::engine_binary(), "regenerate", image, "--out", image}, dir.path().string());
  EXPECT_EQ(self.exit_code, 2) << self.err;
  EXPECT_NE(self.err.find("is the volume being checked"), std::string::npos) << self.err;
  EXPECT_EQ(test::read_bytes(image), image_bytes) << "the checked volume was rewritten";
  auto tampered_provenance = nlohmann::json::parse(texts[0]);
  tampered_provenance["medsynth_provenance"]["scale_factor"] = 0.0;  // decodes to NaN
  const std::string tampered = (dir / "tampered.nii.gz").string();
  write_volume(read_volume(image), tampered);
  add_nifti_comment_extension(tampered, tampered_provenance.dump());
  const std::string keep = (dir / "keep.nii.gz").string();
  test::write_bytes(keep, "a file the user wants");
  auto failed = test::run_process({test::engine_binary(), "regenerate", tampered, "--out", keep}, dir.path().string());
  EXPECT_NE(failed.exit_code, 0) << failed.out;
  EXPECT_EQ(test::read_bytes(keep), "a file the user wants") << "a failed regeneration cost the user their --out file";
  for (const auto& entry : fs::directory_iterator(dir.path()))
    EXPECT_EQ(entry.path().filename().string().find(".regenerating-"), std::string::npos) << entry.path();

  // A file made before issue 37 names its checkpoints by FNV-1a, which
  // anyone can collide: shown, never trusted.
  auto legacy_provenance = nlohmann::json::parse(texts[0]);
  auto& fields = legacy_provenance["medsynth_provenance"];
  for (const char* key : {"unet_checkpoint", "autoencoder_checkpoint"}) {
    fields[std::string(key) + "_fnv1a64"] = "0123456789abcdef";
    fields.erase(std::string(key) + "_sha256");
  }
  const std::string legacy = (dir / "legacy.nii.gz").string();
  write_volume(read_volume(image), legacy);
  add_nifti_comment_extension(legacy, legacy_provenance.dump());
  auto untrusted = test::run_process({test::engine_binary(), "regenerate", legacy}, dir.path().string());
  EXPECT_EQ(untrusted.exit_code, 2) << untrusted.err;
  EXPECT_NE(untrusted.err.find("regenerate trusts SHA-256 only"), std::string::npos) << untrusted.err;

  // The diffusion checkpoint replaced: refused, naming it, nothing generated.
  fs::copy_file(run / "autoencoder" / "checkpoints" / "last.safetensors", run / "diffusion" / "checkpoints" / "last.safetensors",
                fs::copy_options::overwrite_existing);
  auto changed = test::run_process({test::engine_binary(), "regenerate", image}, dir.path().string());
  EXPECT_EQ(changed.exit_code, 1) << changed.err;
  EXPECT_NE(changed.err.find("diffusion/checkpoints/last.safetensors: changed since"), std::string::npos) << changed.err;
}
