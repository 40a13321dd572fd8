// generate --inpaint (issue 55 item 2): a real image's region made again by
// the latent diffusion model, everything else kept. The image is encoded,
// only the region's latent cells are sampled (RePaint's replacement of the
// known part at every step, diffusion/reverse_process), the latent decoded,
// and the decoded voxels copied into the image only inside the region grown
// by a margin (data/region_blend), so every voxel outside it equals the
// input. Used by generate_stage's ImageMaker.
//
// The networks see the image as they were trained on it: its axes turned to
// data.orientation (MONAI's Orientationd) and the CT window mapped to [0, 1],
// but not resampled or resized: the result must lie on the input's own grid.
// So each size must be a multiple of the networks' downsampling, as with
// generate --label. CT only: an MR image's intensities are normalised per
// image and would need that mapping undone.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <string>
#include <vector>

#include "config/job_spec.hpp"
#include "data/region_blend.hpp"
#include "volume/volume.hpp"

namespace medsynth {

struct InpaintOptions {
  std::string image;                // the real CT whose region is made again; empty: no inpainting
  std::string region;               // a mask or label map on its grid
  std::vector<int> region_classes;  // the region: these labels of `region`; empty: every nonzero voxel
  int margin = 2;                   // voxels the region grows by before the blend (--inpaint-margin)
  bool enabled() const { return !image.empty(); }
  // UsageError naming the option that is wrong.
  void validate() const;
};

class InpaintSource {
 public:
  // Reads and checks the image and the region (DataError naming the file:
  // not on one grid, an empty region, a size the networks cannot take).
  InpaintSource(const JobSpec& job, const InpaintOptions& options);

  // The job with the image's grid as the output's (generate.output_size and
  // spacing, on the networks' side).
  JobSpec job_for_image(const JobSpec& job) const;
  // A volume on the image's grid (a label map for the ControlNet) on the networks' side.
  Volume to_network_side(const Volume& on_image_grid) const;
  // The image as the encoder takes it: [1, 1, ...] in the networks' axis order, in [0, 1].
  at::Tensor network_image(bool xyz_axes) const;
  // 1 on the latent cells that are kept, 0 on those the region touches:
  // [1, 1, ...] of the latent grid (`factor`: the autoencoder's downsampling).
  at::Tensor latent_keep(int factor, bool xyz_axes) const;
  // The decoded volume (networks' side, its intensities in the image's units)
  // put back on the image's grid and copied into the image inside the region.
  Volume blend_back(const Volume& generated) const;
  SeamMeasure seam(const Volume& result) const { return measure_seam(source_, result, blend_); }

  const Volume& image() const { return source_; }
  std::int64_t regenerated_voxels() const;

 private:
  Volume source_;                    // as read
  std::vector<std::uint8_t> blend_;  // the region grown by the margin, on the image's grid
  std::string source_orientation_;   // the image's own axis letters ("LPS", …)
  std::string network_orientation_;  // data.orientation, or the image's own
  Volume network_image_;             // reoriented, CT window applied
  Volume network_blend_;             // the blend region reoriented, 0 or 1
};

// Three letters for where the volume's axes point (ITK's LPS world): "LPS"
// for an identity direction. DataError naming `name` for axes too oblique to
// name (two axes closest to one world direction).
std::string orientation_letters(const Volume& volume, const std::string& name);

// "inpaint_margin": the JSON written beside an inpainted image.
std::string inpaint_report_json(const InpaintOptions& options, const SeamMeasure& seam, const std::string& image_name);

}  // namespace medsynth
