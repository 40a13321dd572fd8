// Latent files and the latent batch loader: round trip with metadata, clear
// errors for a missing .json, shards that cover an epoch exactly once across
// ranks, the same batches for the same seed and epoch, and resume mid-epoch.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "core/error.hpp"
#include "diffusion/latent_batch_loader.hpp"
#include "diffusion/latent_files.hpp"
#include "support/temp_dir.hpp"

namespace fs = std::filesystem;
using namespace medsynth;

namespace {

std::vector<LatentRecord> make_latents(int n) {
  std::vector<LatentRecord> out;
  for (int i = 0; i < n; ++i) {
    LatentRecord r;
    r.id = "train-" + std::to_string(i);
    r.split = "train";
    r.image_spacing = {1.0 + i, 2.0, 3.0};
    r.image_size = {16, 16, 16};
    r.latent = at::full({2, 4, 4, 4}, static_cast<float>(i));
    out.push_back(r);
  }
  return out;
}

}  // namespace

TEST(LatentFiles, RoundTripKeepsTensorAndMetadataAndFiltersBySplit) {
  test::TempDir dir("latents");
  auto latents = make_latents(3);
  latents[2].split = "val";
  for (const auto& r : latents) write_latent(dir.path().string(), r);
  const std::string scale_file = (dir / "scale_factor.json").string();
  write_scale_factor(scale_file, 0.25, 4.0);
  auto train = read_latents(dir.path().string(), "train");
  ASSERT_EQ(train.size(), 2u);
  EXPECT_EQ(train[1].id, "train-1");
  EXPECT_TRUE(at::equal(train[1].latent, latents[1].latent));
  EXPECT_EQ(train[1].image_spacing[0], 2.0);
  EXPECT_EQ(read_latents(dir.path().string(), "val").size(), 1u);
  EXPECT_DOUBLE_EQ(read_scale_factor(scale_file), 0.25);
  fs::remove(dir / "train-0_emb.json");
  try {
    read_latents(dir.path().string(), "");
    FAIL() << "no error for a latent without metadata";
  } catch (const DataError& e) {
    EXPECT_NE(std::string(e.what()).find("train-0_emb.json"), std::string::npos) << e.what();
  }
}

TEST(LatentBatchLoader, RanksSplitEachEpochAndAgreeOnTheOrder) {
  std::multiset<float> seen;
  std::vector<float> first_epoch_rank0;
  for (int rank = 0; rank < 2; ++rank) {
    LatentBatchLoader loader(make_latents(8), {.batch_size = 2, .drop_last = true, .base_seed = 7, .rank = rank, .world_size = 2, .scale_factor = 2.0});
    EXPECT_EQ(loader.batches_per_epoch(), 2);
    loader.start_epoch(0);
    while (auto b = loader.next()) {
      EXPECT_EQ(b->images.sizes(), (at::IntArrayRef{2, 2, 4, 4, 4}));
      for (int k = 0; k < 2; ++k) {
        const float v = b->images[k][0][0][0][0].item<float>() / 2.0f;  // scaled by the scale factor
        seen.insert(v);
        if (rank == 0) first_epoch_rank0.push_back(v);
      }
      EXPECT_EQ(loader.last_spacings().size(), 2u);
    }
  }
  EXPECT_EQ(seen, (std::multiset<float>{0, 1, 2, 3, 4, 5, 6, 7}));
  // Another epoch is another order; the same epoch again (or resumed) is the same.
  LatentBatchLoader loader(make_latents(8), {.batch_size = 2, .drop_last = true, .base_seed = 7, .rank = 0, .world_size = 2, .scale_factor = 2.0});
  loader.start_epoch(0, 1);
  auto resumed = loader.next();
  ASSERT_TRUE(resumed);
  EXPECT_EQ(resumed->images[0][0][0][0][0].item<float>() / 2.0f, first_epoch_rank0[2]);
  std::vector<float> epoch1;
  loader.start_epoch(1);
  while (auto b = loader.next())
    for (int k = 0; k < 2; ++k) epoch1.push_back(b->images[k][0][0][0][0].item<float>() / 2.0f);
  EXPECT_NE(epoch1, first_epoch_rank0);
}

TEST(LatentBatchLoader, DifferentShapesInOneBatchAreRefusedByName) {
  auto latents = make_latents(3);
  latents[1].latent = at::zeros({2, 4, 4, 8});
  EXPECT_THROW(LatentBatchLoader(latents, {.batch_size = 2}), DataError);
  EXPECT_NO_THROW(LatentBatchLoader(latents, {.batch_size = 1}));
}
