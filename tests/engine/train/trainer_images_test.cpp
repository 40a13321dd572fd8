// Issue 36.3, images in TensorBoard: a tiny autoencoder run writes, at each
// validation, the middle slices of held-out item 0 beside its reconstruction
// as TensorBoard images and PNG files; the input half is that volume's
// slices pixel for pixel, the output half the saved reconstruction's; and
// output.tensorboard_images: false writes none.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>

#include "data/volume_dataset.hpp"
#include "support/png_reader.hpp"
#include "support/temp_dir.hpp"
#include "support/tensorboard_reader.hpp"
#include "train/event_log.hpp"
#include "train/tiny_job.hpp"
#include "train/trainer_runs.hpp"
#include "train/validation_images.hpp"
#include "volume/volume_io.hpp"

namespace fs = std::filesystem;
using namespace medsynth;

namespace {

fs::path only_tb_file(const TrainerOptions& options) {
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(options.run.tensorboard_dir())) files.push_back(e.path());
  EXPECT_EQ(files.size(), 1u);
  return files.empty() ? fs::path() : files.front();
}

// Columns [first, first + width) of an image.
GrayImage columns(const GrayImage& image, int first, int width) {
  GrayImage out{.width = width, .height = image.height, .pixels = {}};
  for (int row = 0; row < image.height; ++row)
    for (int column = first; column < first + width; ++column) out.pixels.push_back(image.at(column, row));
  return out;
}

int max_difference(const GrayImage& a, const GrayImage& b) {
  int worst = 0;
  for (std::size_t i = 0; i < std::min(a.pixels.size(), b.pixels.size()); ++i)
    worst = std::max(worst, std::abs(int(a.pixels[i]) - int(b.pixels[i])));
  return worst;
}

}  // namespace

TEST(TrainerImages, EachValidationWritesTheMiddleSlicesOfAnInputBesideItsOutput) {
  test::TempDir dir("trainer-images");
  JobSpec job = test::tiny_autoencoder_job(dir.path().string());  // validates at steps 4 and 8
  auto options = test::options_for(job);
  run_training(job, options);

  VolumeDataset val(job.data, "val", job.training.base_seed);
  const Volume& input = val.get(0);
  // The reconstruction saved at the end, back in the model's [0, 1] (CT is written in HU).
  Volume output = read_volume(options.run.output_dir() + "/reconstruction-" + val.id(0) + ".nii.gz");
  const auto [lo, hi] = job.data.ct_window;
  for (float& x : output.voxels) x = static_cast<float>((x - lo) / (hi - lo));

  const auto images = read_tensorboard_images(only_tb_file(options));
  ASSERT_EQ(images.size(), 6u);
  std::map<std::string, int> per_tag;
  for (const auto& image : images) {
    ++per_tag[image.tag];
    EXPECT_TRUE(image.step == 4 || image.step == 8) << image.step;
  }
  EXPECT_EQ(per_tag, (std::map<std::string, int>{
                         {"val/images/axial", 2}, {"val/images/coronal", 2}, {"val/images/sagittal", 2}}));

  for (const auto& image : images) {
    if (image.step != 8) continue;
    const std::string plane = image.tag.substr(std::string("val/images/").size());
    SCOPED_TRACE(plane);
    const SlicePlane which = plane == "axial"     ? SlicePlane::axial
                             : plane == "coronal" ? SlicePlane::coronal
                                                  : SlicePlane::sagittal;
    const GrayImage expected_input = middle_slice(input, which);
    const GrayImage decoded = test::decode_gray_png(image.image.encoded);
    EXPECT_EQ(image.image.colorspace, 1);
    EXPECT_EQ(image.image.width, decoded.width);
    EXPECT_EQ(image.image.height, decoded.height);
    ASSERT_EQ(decoded.width, 2 * expected_input.width + k_side_by_side_gap);
    ASSERT_EQ(decoded.height, expected_input.height);
    EXPECT_EQ(columns(decoded, 0, expected_input.width).pixels, expected_input.pixels);
    // The reconstruction went through HU and a float NIfTI: a gray level of rounding.
    const GrayImage right = columns(decoded, expected_input.width + k_side_by_side_gap, expected_input.width);
    EXPECT_LE(max_difference(right, middle_slice(output, which)), 1);
    EXPECT_NE(right.pixels, expected_input.pixels) << "a reconstruction after 8 steps is not its input";
    // The console's PNG file is the same picture.
    EXPECT_EQ(test::read_bytes(options.run.output_dir() + "/val-images/step000008-" + plane + ".png"),
              image.image.encoded);
  }

  int artifacts = 0;
  for (const auto& e : test::read_events(options.run.events_file()))
    if (e.value("type", "") == "artifact" && e.value("kind", "") == "validation_image") {
      ++artifacts;
      EXPECT_TRUE(fs::exists(e["path"].get<std::string>()));
      EXPECT_EQ(e["extra"]["item"], val.id(0));
    }
  EXPECT_EQ(artifacts, 6);
}

TEST(TrainerImages, TheJobFieldTurnsThemOff) {
  test::TempDir dir("trainer-no-images");
  JobSpec job = test::tiny_autoencoder_job(dir.path().string());
  job.training.max_steps = 4;
  job.output.tensorboard_images = false;
  auto options = test::options_for(job);
  run_training(job, options);
  EXPECT_TRUE(read_tensorboard_images(only_tb_file(options)).empty());
  EXPECT_FALSE(read_tensorboard_scalars(only_tb_file(options)).empty());
  EXPECT_FALSE(fs::exists(options.run.output_dir() + "/val-images"));
}
