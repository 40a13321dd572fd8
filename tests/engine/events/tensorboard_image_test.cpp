// Images in TensorBoard files: a gray PNG (libpng) decodes to its pixels, and
// an image summary carries height, width, colorspace 1 and the PNG bytes as
// tensorflow.Summary.Image lays them out, read back beside the scalars.
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "events/gray_png.hpp"
#include "events/tensorboard_writer.hpp"
#include "support/png_reader.hpp"
#include "support/temp_dir.hpp"
#include "support/tensorboard_reader.hpp"

namespace medsynth {
namespace {

// Not square and not symmetric: swapped sides or a flipped row order show.
GrayImage gradient(int width, int height) {
  GrayImage image{.width = width, .height = height, .pixels = {}};
  for (int row = 0; row < height; ++row)
    for (int column = 0; column < width; ++column)
      image.pixels.push_back(static_cast<std::uint8_t>(row * 40 + column * 3));
  return image;
}

TEST(GrayPng, DecodesToTheSamePixels) {
  const GrayImage image = gradient(7, 5);
  const std::string png = encode_gray_png(image);
  ASSERT_GT(png.size(), 8u);
  EXPECT_EQ(png.substr(1, 3), "PNG");
  const GrayImage back = test::decode_gray_png(png);
  EXPECT_EQ(back.width, 7);
  EXPECT_EQ(back.height, 5);
  EXPECT_EQ(back.pixels, image.pixels);
}

TEST(GrayPng, RefusesPixelsThatDoNotMatchTheSize) {
  GrayImage image = gradient(4, 3);
  image.pixels.pop_back();
  EXPECT_THROW(encode_gray_png(image), UsageError);
  EXPECT_THROW(encode_gray_png(GrayImage{}), UsageError);
}

TEST(TensorBoardWriter, GrayPngImagesRoundTripBesideScalars) {
  test::TempDir dir("tb-images");
  const GrayImage image = gradient(9, 4);
  const std::string png = encode_gray_png(image);
  std::filesystem::path path;
  {
    TensorBoardWriter tb({.dir = dir.path()});
    tb.add_scalar("val/psnr", 30.5, 100);
    tb.add_gray_png("val/images/axial", image.width, image.height, png, 100);
    tb.add_gray_png("val/images/axial", image.width, image.height, png, 200);
    path = tb.path();
  }
  const auto scalars = read_tensorboard_scalars(path);
  ASSERT_EQ(scalars.size(), 1u);
  EXPECT_EQ(scalars[0].tag, "val/psnr");
  const auto images = read_tensorboard_images(path);
  ASSERT_EQ(images.size(), 2u);
  EXPECT_EQ(images[0].step, 100);
  EXPECT_EQ(images[1].step, 200);
  EXPECT_EQ(images[0].tag, "val/images/axial");
  EXPECT_EQ(images[0].image.height, 4);
  EXPECT_EQ(images[0].image.width, 9);
  EXPECT_EQ(images[0].image.colorspace, 1);
  EXPECT_EQ(images[0].image.encoded, png);
  EXPECT_EQ(test::decode_gray_png(images[1].image.encoded).pixels, image.pixels);
}

}  // namespace
}  // namespace medsynth
