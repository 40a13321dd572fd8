// NV-Generate's remove_tumors (data/tumour_free_label.hpp): tumours given to
// their organ, a lung tumour to the lobe most frequent in its ring, with the
// volume's border counted into the ring as NV-Generate's padding with 1 does.
#include <gtest/gtest.h>

#include <ATen/ATen.h>

#include "data/tumour_free_label.hpp"

namespace medsynth {
namespace {

at::Tensor cube(at::Tensor volume, std::int64_t from, std::int64_t size, float value) {
  volume.narrow(0, from, size).narrow(1, from, size).narrow(2, from, size).fill_(value);
  return volume;
}

TEST(TumourFreeLabel, TumoursBecomeTheirOrgansAndEverythingElseStays) {
  auto label = at::zeros({4, 4, 4});
  const float values[] = {26, 24, 27, 401, 402, 403, 176, 128, 1, 5, 200};
  for (int i = 0; i < 11; ++i) label.view({-1})[i] = values[i];
  const auto out = tumour_free_label(label).view({-1});
  const float expected[] = {1, 4, 62, 22, 22, 22, 22, 128, 1, 5, 200};
  for (int i = 0; i < 11; ++i) EXPECT_EQ(out[i].item<float>(), expected[i]) << "value " << values[i];
  EXPECT_EQ(out.slice(0, 11).abs().sum().item<float>(), 0.0f) << "background stays 0";
  EXPECT_EQ(tumour_free_label(label.to(at::kLong)).scalar_type(), at::kLong) << "the dtype is kept";
}

TEST(TumourFreeLabel, ALungTumourTakesTheLobeMostFrequentInItsRing) {
  // 12^3: lobe 28 on x < 6, lobe 29 on x >= 6; the volume's border is 0, so
  // the border voxels NV-Generate's padding adds to the ring carry no lobe.
  auto label = at::zeros({12, 12, 12});
  label.narrow(0, 1, 5).narrow(1, 1, 10).narrow(2, 1, 10).fill_(28);
  label.narrow(0, 6, 5).narrow(1, 1, 10).narrow(2, 1, 10).fill_(29);
  // A 3^3 tumour at x 6-8: its ring (x 5-9) holds 25 voxels of 28, 73 of 29.
  label.narrow(0, 6, 3).narrow(1, 4, 3).narrow(2, 4, 3).fill_(23);
  const auto out = tumour_free_label(label);
  EXPECT_EQ(out.eq(23).sum().item<std::int64_t>(), 0);
  EXPECT_EQ(out.narrow(0, 6, 3).narrow(1, 4, 3).narrow(2, 4, 3).eq(29).all().item<bool>(), true);
  EXPECT_EQ(out.eq(28).sum().item<std::int64_t>(), label.eq(28).sum().item<std::int64_t>()) << "lobes untouched";
}

TEST(TumourFreeLabel, TheVolumesBorderVotesAsNvGeneratesPaddingMakesIt) {
  // The border of an 8^3 map is lobe 31 (296 voxels), the tumour's own ring
  // lobe 29 (56): padding with 1 puts every border voxel into the ring, so
  // NV-Generate fills the tumour with 31, and so must we.
  auto label = at::full({8, 8, 8}, 31.0);
  cube(label, 1, 6, 0);
  cube(label, 2, 4, 29);
  cube(label, 3, 2, 23);
  EXPECT_TRUE(tumour_free_label(label).narrow(0, 3, 2).narrow(1, 3, 2).narrow(2, 3, 2).eq(31).all().item<bool>());
}

TEST(TumourFreeLabel, ARingWithoutALobeTakesTheMostFrequentLobeOfTheMapElseTheFirst) {
  // Lobes inside the map but neither on its border nor next to the tumour:
  // 30 on 200 voxels, 32 on 100. The ring holds none, so the map's count decides.
  auto label = at::zeros({12, 12, 12});
  label.narrow(0, 1, 2).narrow(1, 1, 10).narrow(2, 1, 10).fill_(30);
  label.narrow(0, 9, 1).narrow(1, 1, 10).narrow(2, 1, 10).fill_(32);
  cube(label, 5, 2, 23);
  EXPECT_TRUE(tumour_free_label(label).narrow(0, 5, 2).narrow(1, 5, 2).narrow(2, 5, 2).eq(30).all().item<bool>());
  auto no_lobe = at::zeros({6, 6, 6});
  cube(no_lobe, 2, 2, 23);
  EXPECT_TRUE(tumour_free_label(no_lobe).narrow(0, 2, 2).narrow(1, 2, 2).narrow(2, 2, 2).eq(28).all().item<bool>())
      << "NV-Generate's argmax over counts that are all 0 is the first lobe";
}

}  // namespace
}  // namespace medsynth
