// A generated volume's provenance is read back as a stranger's text (issue
// 37): every field comes back from what provenance_json wrote, and a number
// out of its range is refused naming the field (threads -1 and 1e300 gave a
// backtrace in regenerate, 512 spawned 512 threads); JSON nested beyond the
// depth limit is not a provenance.
#include <gtest/gtest.h>

#include <fstream>

#include <nlohmann/json.hpp>
#include <string>

#include "core/error.hpp"
#include "contract/generation_provenance.hpp"
#include "support/temp_dir.hpp"

namespace medsynth {
namespace {

GenerationProvenance sample() {
  GenerationProvenance p;
  p.engine_version = "0.1.0";
  p.unet_checkpoint = "/runs/a/diffusion/checkpoints/last.safetensors";
  p.unet_checkpoint_hash = "0123456789abcdef";
  p.autoencoder_checkpoint = "/runs/a/autoencoder/checkpoints/last.safetensors";
  p.autoencoder_checkpoint_hash = "fedcba9876543210";
  p.scale_factor = 0.87;
  p.scheduler = "rflow";
  p.num_inference_steps = 30;
  p.seed = 43;
  p.rank = 1;
  p.world_size = 2;
  p.threads = 2;
  p.device = "cpu";
  p.job_config_hash = "abc";
  p.job_yaml = "name: x\n";
  p.modality = "ct";
  return p;
}

std::string with(const std::string& key, const nlohmann::json& value) {
  auto j = nlohmann::json::parse(provenance_json(sample()));
  j["medsynth_provenance"][key] = value;
  return j.dump();
}

TEST(GenerationProvenance, WhatIsWrittenIsReadBack) {
  const auto back = parse_provenance(provenance_json(sample()), "v.nii.gz");
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->threads, 2);
  EXPECT_EQ(back->seed, 43);
  EXPECT_EQ(back->world_size, 2);
  EXPECT_DOUBLE_EQ(back->scale_factor, 0.87);
  EXPECT_EQ(back->unet_checkpoint, sample().unet_checkpoint);
  EXPECT_EQ(back->modality, "ct");
}

// Issue 38: the viewer takes the recorded modality instead of guessing from
// the intensities; files made before it was recorded have none, and any
// other value is refused as a stranger's would be.
TEST(GenerationProvenance, TheModalityIsRecordedOptionalAndOnlyCtOrMri) {
  auto older = nlohmann::json::parse(provenance_json(sample()));
  older["medsynth_provenance"].erase("modality");
  const auto back = parse_provenance(older.dump(), "v.nii.gz");
  ASSERT_TRUE(back.has_value());
  EXPECT_TRUE(back->modality.empty());
  EXPECT_EQ(parse_provenance(with("modality", "mri"), "v.nii.gz")->modality, "mri");
  for (const nlohmann::json& bad : {nlohmann::json("pet"), nlohmann::json(1)})
    EXPECT_THROW(parse_provenance(with("modality", bad), "v.nii.gz"), DataError) << bad.dump();
}

TEST(GenerationProvenance, ANumberOutOfItsRangeIsRefusedNamingTheField) {
  for (const auto& [key, value] : std::vector<std::pair<std::string, nlohmann::json>>{
           {"threads", -1}, {"threads", 1e300}, {"threads", 5000}, {"threads", "2"}, {"world_size", 0},
           {"num_inference_steps", 0}, {"rank", -3}, {"scale_factor", 0.0}, {"scale_factor", -1.0},
           {"seed", 18446744073709551615ull}}) {  // past int64: wrapped to -1 before (found by tests/fuzz)
    try {
      parse_provenance(with(key, value), "v.nii.gz");
      ADD_FAILURE() << key << " = " << value.dump() << " was accepted";
    } catch (const DataError& e) {
      EXPECT_NE(std::string(e.what()).find("v.nii.gz: medsynth provenance: " + key + " is"), std::string::npos) << e.what();
    }
  }
}

// Issue 50: a provenance's 512 threads (accepted: a 512-core node exists) are
// not 512 threads on this machine unless --threads asks for them.
TEST(GenerationProvenance, AReplayNeverRunsMoreThreadsThanCoresUnlessAsked) {
  GenerationProvenance p;
  p.threads = 512;
  EXPECT_EQ(replay_thread_count(p, 0, 2), 2);
  EXPECT_EQ(replay_thread_count(p, 0, 0), 1) << "hardware_concurrency may say 0";
  EXPECT_EQ(replay_thread_count(p, 512, 2), 512) << "--threads insists";
  p.threads = 2;
  EXPECT_EQ(replay_thread_count(p, 0, 16), 2) << "the recorded count where the machine has it";
  EXPECT_EQ(replay_thread_count(p, 3, 16), 3);
}

// Issue 37: SHA-256 (FIPS 180-2's test vector), every file that shapes the
// output hashed (the ControlNet's network config too), and a legacy FNV-1a
// provenance read as such so that regenerate can refuse to trust it.
TEST(GenerationProvenance, FilesAreNamedBySha256AndLegacyFnvIsReadAsSuch) {
  test::TempDir dir("provenance-sha");
  const std::string abc = (dir / "abc.bin").string();
  std::ofstream(abc, std::ios::binary) << "abc";
  EXPECT_EQ(file_sha256(abc), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  const std::string empty = (dir / "empty.bin").string();
  std::ofstream(empty, std::ios::binary).flush();
  EXPECT_EQ(file_sha256(empty), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_THROW(file_sha256((dir / "missing").string()), DataError);

  GenerationProvenance labelled = sample();
  labelled.label = "/data/mask.nii.gz";
  labelled.label_hash = "11";
  labelled.controlnet_checkpoint = "/runs/a/controlnet/last.safetensors";
  labelled.controlnet_checkpoint_hash = "22";
  labelled.controlnet_network_config = "/runs/a/config_network.json";
  labelled.controlnet_network_config_hash = "33";
  const auto json = nlohmann::json::parse(provenance_json(labelled)).at("medsynth_provenance");
  for (const char* key : {"unet_checkpoint_sha256", "autoencoder_checkpoint_sha256", "label_sha256",
                          "controlnet_checkpoint_sha256", "controlnet_network_config_sha256"})
    EXPECT_TRUE(json.contains(key)) << key;
  const auto back = parse_provenance(provenance_json(labelled), "v.nii.gz");
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->hash_algorithm, "sha256");
  EXPECT_EQ(back->controlnet_network_config_hash, "33");

  auto legacy = nlohmann::json::parse(provenance_json(sample()));
  auto& fields = legacy["medsynth_provenance"];
  fields["unet_checkpoint_fnv1a64"] = fields["unet_checkpoint_sha256"];
  fields["autoencoder_checkpoint_fnv1a64"] = fields["autoencoder_checkpoint_sha256"];
  fields.erase("unet_checkpoint_sha256");
  fields.erase("autoencoder_checkpoint_sha256");
  const auto old = parse_provenance(legacy.dump(), "old.nii.gz");
  ASSERT_TRUE(old.has_value());
  EXPECT_EQ(old->hash_algorithm, "fnv1a64");
  EXPECT_EQ(old->unet_checkpoint_hash, "0123456789abcdef");
}

TEST(GenerationProvenance, JsonNestedBeyondTheLimitIsNotAProvenance) {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  EXPECT_FALSE(parse_provenance(deep, "v.nii.gz").has_value());
}

}  // namespace
}  // namespace medsynth
