// Tiled decoding (generate.decode_tile): a tile covering the latent is the
// plain decode; smaller tiles cover every output voxel exactly once in weight
// and stay close to the whole decode, since each tile sees the same weights.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <vector>

#include "diffusion/latent_autoencoder.hpp"
#include "models/autoencoder_kl.hpp"

using namespace medsynth;

namespace {

AutoencoderKL small_autoencoder() {
  at::manual_seed(3);
  AutoencoderKLOptions o;
  o.latent_channels = 2;
  o.num_channels = {8, 8};
  o.num_res_blocks = {1, 1};
  o.norm_num_groups = 4;
  o.attention_levels = {false, false};
  AutoencoderKL ae(o);
  ae->eval();
  return ae;
}

}  // namespace

TEST(TiledDecode, ATileAsLargeAsTheLatentIsThePlainDecode) {
  auto ae = small_autoencoder();
  at::NoGradGuard no_grad;
  auto z = at::randn({1, 2, 6, 6, 6});
  EXPECT_TRUE(at::equal(decode_tiled(*ae, z, 0), ae->decode(z)));
  EXPECT_TRUE(at::equal(decode_tiled(*ae, z, 6), ae->decode(z)));
}

TEST(TiledDecode, TilesStayCloseToTheWholeDecodeAndCloserAsTheyGrow) {
  auto ae = small_autoencoder();
  at::NoGradGuard no_grad;
  auto z = at::randn({1, 2, 8, 6, 10});
  auto whole = ae->decode(z);
  const double spread = whole.std().item<double>();
  std::vector<double> errors;
  for (int tile : {4, 6}) {
    auto tiled = decode_tiled(*ae, z, tile);
    ASSERT_EQ(tiled.sizes(), whole.sizes());
    EXPECT_TRUE(at::isfinite(tiled).all().item<bool>());
    errors.push_back((tiled - whole).abs().mean().item<double>());
  }
  // Tiles differ from the whole decode only near their borders (zero padding,
  // GroupNorm statistics of the tile): less so the more context a tile has.
  EXPECT_LT(errors[1], errors[0]);
  EXPECT_LT(errors[1], 0.3 * spread) << "tile 6: " << errors[1] << " vs spread " << spread;
}

// NV-Generate's dynamic_infer decodes whole when the latent has no more
// voxels than one window (numel <= prod(roi)), even where an edge is longer:
// 8 x 6 x 10 = 480 <= 8^3. Tiling it anyway cost memory nowhere and moved the image.
TEST(TiledDecode, ALatentOfAtMostOneTilesVoxelsDecodesWhole) {
  auto ae = small_autoencoder();
  at::NoGradGuard no_grad;
  auto z = at::randn({1, 2, 8, 6, 10});
  EXPECT_TRUE(at::equal(decode_tiled(*ae, z, 8, TileBlending{0.6666, true}), ae->decode(z)));
  EXPECT_FALSE(at::equal(decode_tiled(*ae, z, 7, TileBlending{0.6666, true}), ae->decode(z))) << "343 < 480: tiles";
}

// Tiled encoding (bounds the encoder's memory on whole CTs): one tile as large
// as the image is the plain encode; smaller tiles blend into the latent's
// shape and stay close to the whole encode, closer as they grow.
TEST(TiledEncode, TilesStayCloseToTheWholeEncodeAndCloserAsTheyGrow) {
  auto ae = small_autoencoder();
  at::NoGradGuard no_grad;
  const auto x = at::rand({1, 1, 16, 12, 20});
  const auto whole = ae->encode(x).first;
  EXPECT_TRUE(at::equal(encode_mean_tiled(*ae, x, 0), whole));
  EXPECT_TRUE(at::equal(encode_mean_tiled(*ae, x, 10), whole));
  const double spread = whole.std().item<double>();
  std::vector<double> errors;
  for (int tile : {4, 6}) {
    const auto tiled = encode_mean_tiled(*ae, x, tile);
    ASSERT_EQ(tiled.sizes(), whole.sizes());
    EXPECT_TRUE(at::isfinite(tiled).all().item<bool>());
    errors.push_back((tiled - whole).abs().mean().item<double>());
  }
  EXPECT_LT(errors[1], errors[0]);
  EXPECT_LT(errors[1], 0.3 * spread) << "tile 6: " << errors[1] << " vs spread " << spread;
}

// NV-Generate's blending (MONAI's Gaussian weights at overlap 0.6666): also
// close to the whole decode, and not the linear ramp (the option is used).
TEST(TiledDecode, GaussianBlendingAtNvGeneratesOverlapStaysCloseAndDiffersFromTheRamp) {
  auto ae = small_autoencoder();
  at::NoGradGuard no_grad;
  auto z = at::randn({1, 2, 8, 6, 10});
  const auto whole = ae->decode(z);
  const TileBlending nv_generate{0.6666, true};
  EXPECT_TRUE(at::equal(decode_tiled(*ae, z, 10, nv_generate), whole));
  const auto gaussian = decode_tiled(*ae, z, 6, nv_generate);
  const auto linear = decode_tiled(*ae, z, 6, TileBlending{0.6666, false});
  ASSERT_EQ(gaussian.sizes(), whole.sizes());
  EXPECT_TRUE(at::isfinite(gaussian).all().item<bool>());
  EXPECT_LT((gaussian - whole).abs().mean().item<double>(), 0.3 * whole.std().item<double>());
  EXPECT_GT((gaussian - linear).abs().max().item<double>(), 1e-6) << "the Gaussian weights were not used";
}
