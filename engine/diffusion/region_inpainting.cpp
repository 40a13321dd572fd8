#include "diffusion/region_inpainting.hpp"

#include <ATen/ATen.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>

#include "core/error.hpp"
#include "data/intensity_transforms.hpp"
#include "data/spatial_transforms.hpp"
#include "data/volume_tensor.hpp"
#include "diffusion/latent_autoencoder.hpp"
#include "volume/volume_io.hpp"

namespace fs = std::filesystem;

namespace medsynth {

namespace {

// The volume's voxels as 0/1 floats (for reorienting a region with its image).
Volume as_volume(const Volume& geometry, const std::vector<std::uint8_t>& region) {
  Volume v = geometry;
  for (std::size_t i = 0; i < region.size(); ++i) v.voxels[i] = region[i] ? 1.0f : 0.0f;
  return v;
}

Volume reoriented(const Volume& v, const std::string& from, const std::string& to) {
  return from == to ? v : reorient(v, to);
}

const char* difference_name(GridDifference d) {
  switch (d) {
    case GridDifference::size:
      return "size";
    case GridDifference::spacing:
      return "spacing";
    case GridDifference::origin:
      return "origin";
    case GridDifference::direction:
      return "direction";
    default:
      return "nothing";
  }
}

}  // namespace

void InpaintOptions::validate() const {
  if (!enabled()) return;
  if (region.empty()) throw UsageError("--inpaint: give --region MASK, the region of " + image + " to regenerate");
  if (margin < 0 || margin > 64)
    throw UsageError("--inpaint-margin: must be in [0, 64] voxels (got " + std::to_string(margin) + ")");
}

std::string orientation_letters(const Volume& volume, const std::string& name) {
  // Where each LPS world axis points: toward L, P, S when positive, R, A, I when not.
  static const char* toward_positive = "LPS";
  static const char* toward_negative = "RAI";
  std::string code;
  std::array<bool, 3> taken{};
  for (int axis = 0; axis < 3; ++axis) {
    int world = 0;
    for (int w = 1; w < 3; ++w)
      if (std::fabs(volume.direction[w * 3 + axis]) > std::fabs(volume.direction[world * 3 + axis])) world = w;
    if (taken[world])
      throw DataError(name,
                      "its axes are too oblique to name (two point mostly along one direction); "
                      "resample it to an axis-aligned grid first");
    taken[world] = true;
    code += volume.direction[world * 3 + axis] > 0 ? toward_positive[world] : toward_negative[world];
  }
  return code;
}

InpaintSource::InpaintSource(const JobSpec& job, const InpaintOptions& o) {
  o.validate();
  if (job.data.modality != Modality::ct)
    throw UsageError(
        "--inpaint: CT only (data.modality is mri: an MR image's intensities are normalised per image, "
        "and the generated region could not be put back in the scanner's units)");
  source_ = read_volume(o.image);
  const Volume mask = read_volume(o.region);
  if (const GridDifference d = grid_difference(source_, mask); d != GridDifference::none)
    throw DataError(o.region, std::string("is not on the grid of ") + o.image + " (its " + difference_name(d) +
                                  " differs); the region must be a mask or label map of that image");
  blend_ = dilate_region(region_of(mask, o.region_classes, o.region), source_.size, o.margin);
  source_orientation_ = orientation_letters(source_, o.image);
  network_orientation_ = job.data.orientation.empty() ? source_orientation_ : job.data.orientation;
  network_image_ = reoriented(source_, source_orientation_, network_orientation_);
  // Turning back must land on the image's own grid, or the blend would misplace voxels.
  if (const GridDifference d =
          grid_difference(reoriented(network_image_, network_orientation_, source_orientation_), source_);
      d != GridDifference::none)
    throw DataError(o.image, "its axes (" + source_orientation_ + ") could not be turned to " + network_orientation_ +
                                 " and back onto its grid (the " + difference_name(d) + " differs)");
  const int factor = autoencoder_scale(job.model.autoencoder) * (1 << (job.model.diffusion_unet.channels.size() - 1));
  for (int i = 0; i < 3; ++i)
    if (network_image_.size[i] % factor != 0)
      throw DataError(o.image, "is " + std::to_string(source_.size[0]) + " x " + std::to_string(source_.size[1]) +
                                   " x " + std::to_string(source_.size[2]) +
                                   " voxels; its region is made on its own grid, so each size must be a multiple of " +
                                   std::to_string(factor) + " (the autoencoder and UNet downsampling)");
  apply_ct_window(network_image_, job.data.ct_window[0], job.data.ct_window[1]);
  network_blend_ = reoriented(as_volume(source_, blend_), source_orientation_, network_orientation_);
}

JobSpec InpaintSource::job_for_image(const JobSpec& job) const {
  JobSpec out = job;
  for (int i = 0; i < 3; ++i) {
    out.generate.output_size[i] = static_cast<int>(network_image_.size[i]);
    out.generate.spacing[i] = network_image_.spacing[i];
  }
  return out;
}

Volume InpaintSource::to_network_side(const Volume& on_image_grid) const {
  return reoriented(on_image_grid, source_orientation_, network_orientation_);
}

at::Tensor InpaintSource::network_image(bool xyz_axes) const {
  at::Tensor x = volume_to_tensor(network_image_);
  return xyz_axes ? x.permute({0, 1, 4, 3, 2}).contiguous() : x;
}

at::Tensor InpaintSource::latent_keep(int factor, bool xyz_axes) const {
  at::Tensor region = volume_to_tensor(network_blend_);
  if (xyz_axes) region = region.permute({0, 1, 4, 3, 2}).contiguous();
  // A latent cell is made again when any voxel of its block is in the region.
  const at::Tensor touched = at::max_pool3d(region, {factor, factor, factor}, {factor, factor, factor});
  return 1.0 - touched;
}

Volume InpaintSource::blend_back(const Volume& generated) const {
  if (generated.size != network_image_.size)
    throw RuntimeError("inpaint: the decoded volume's size differs from the image's on the networks' side");
  Volume on_network_side = network_image_;
  on_network_side.voxels = generated.voxels;
  const Volume on_image_grid = reoriented(on_network_side, network_orientation_, source_orientation_);
  return blend_region(source_, on_image_grid, blend_);
}

std::int64_t InpaintSource::regenerated_voxels() const {
  std::int64_t n = 0;
  for (std::uint8_t v : blend_) n += v;
  return n;
}

std::string inpaint_report_json(const InpaintOptions& o, const SeamMeasure& seam, const std::string& image_name) {
  nlohmann::json j;
  j["image"] = image_name;
  j["source"] = fs::absolute(o.image).string();
  j["region"] = fs::absolute(o.region).string();
  j["region_classes"] = o.region_classes;
  j["margin_voxels"] = o.margin;
  j["regenerated_voxels"] = seam.region_voxels;
  j["changed_voxels"] = seam.changed_voxels;
  j["border_pairs"] = seam.pairs;
  // Mean absolute step between neighbours across the region's border, in
  // HU: the result's, and the source's own there (the anatomy's steps).
  j["seam_step_hu"] = seam.result_step;
  j["source_step_hu"] = seam.source_step;
  return j.dump(2);
}

}  // namespace medsynth
