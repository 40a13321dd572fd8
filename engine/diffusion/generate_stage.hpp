// Stage 4 of the LDM pipeline and `medsynth-engine generate`: every rank
// samples its own latents (seed = generate.base_seed + image index, and image
// k goes to rank k mod world, so with one image per rank seed = base_seed +
// rank, as MAISI's parallel script does), runs the scheduler's reverse
// process with the UNet, decodes with the autoencoder (tiled when
// generate.decode_tile is set), maps the intensities back to HU (CT) and
// writes output/image_seed{S}_rank{R}.nii.gz with the requested spacing and
// orientation. Existing files are kept (an interrupted generate resumes).
#pragma once

#include <cmath>
#include <functional>
#include <memory>
#include <string_view>
#include <string>
#include <vector>

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>

#include "config/job_spec.hpp"
#include "contract/generated_file_names.hpp"
#include "diffusion/region_inpainting.hpp"
#include "volume/volume.hpp"
#include "models/unet_conditioning.hpp"

namespace medsynth {

class ControlNetGuidance;
class DiffusionModelUNetImpl;
class DiffusionScheduler;
class DistContext;
class RunLogger;
struct OrganStatistics;

struct GeneratedImage {
  std::string path;
  std::int64_t seed = 0;
  int rank = 0;
  double seconds = 0;  // sampling + decoding time of this image
};

struct GenerateOptions {
  std::string unet_checkpoint;         // a checkpoint of the diffusion stage (EMA weights preferred)
  std::string autoencoder_checkpoint;
  std::string scale_factor_file;  // the run's latent scale (latent_files.hpp)
  std::string output_dir;
  DistContext* dist = nullptr;
  RunLogger* logger = nullptr;
  double scale_factor = std::nan("");  // set: use this instead of scale_factor_file's (regenerate)
  // MAISI's image-from-mask generation: a label map steers the UNet through
  // the run's ControlNet; the image takes the label's grid and each image is
  // written with a copy of the label (sample_seed{S}_rank{R}_image/_label).
  std::string label;
  std::string controlnet_checkpoint;      // default: the last checkpoint of RUN's controlnet stage
  std::string controlnet_network_config;  // default: RUN/controlnet/config_network.json
  // Called on this rank after each image it wrote (not for those it found):
  // the ldm pipeline reports each one at once instead of after the last.
  std::function<void(const GeneratedImage&)> on_image_written;
  // Within each image: the sampling steps, then the decoder's tiles ("image
  // seed 7: sampling" 12/30; "image seed 7: decoding" 40/343). At MAISI size
  // one image is minutes on a GPU and hours on a CPU (issue 38).
  std::function<void(std::string_view phase, std::int64_t done, std::int64_t total)> on_progress;
  // generate --label --quality-check (issue 39): each image's organ medians
  // are judged as NV-Generate's quality check does (eval/organ_quality_check);
  // a failing image is sampled again with the next seed of its own sequence,
  // S + k x (images of the run) for try k + 1, so no two images share a seed,
  // until it passes or quality_max_tries tries are spent (the last is kept).
  // The tries are written beside the image (..._quality.json) and the seed
  // that made it is its provenance's.
  std::shared_ptr<const OrganStatistics> quality_statistics;
  int quality_max_tries = 2;                             // NV-Generate's max_try_time
  std::function<void(const std::string& line)> on_note;  // a failed check and what is done about it
  // generate --inpaint (issue 55): each image is options.inpaint.image with
  // only its region made again (diffusion/region_inpainting.hpp), on that
  // image's grid, with a report of the region and its seam beside it
  // (..._inpaint.json). With `label`, the ControlNet steers by a label map of
  // that image (an edited one: the region then follows the edit).
  InpaintOptions inpaint;
};

// The images of every rank (deterministic), in image order.
// The decoder's [B, 1, ...] image as the file's volume: its grid
// (generate.spacing, orientation, tensor_axes) and its units: CT in HU
// through data.ct_window; a MAISI MR class label in NV-Generate's MR range
// ([0, 1] -> [0, 1000], clipped below only); other MRI in [0, 1].
Volume to_output_volume(const at::Tensor& network_image, const JobSpec& job);
// generate.body_crop: every voxel whose label is 0 set to the modality's floor
// (CT: data.ct_window's low end; MR: 0), as NV-Generate's crop_img_body_mask.
// The image is on the label's grid (the same voxel order).
void crop_to_label_body(Volume& image, const Volume& label, const JobSpec& job);

std::vector<GeneratedImage> planned_images(const JobSpec& job, const std::string& output_dir, int world, bool paired = false);

// The reverse process from pure noise for one latent of `shape`; all its
// randomness (initial noise, ancestral step noise) comes from `seed`. Also
// timed by tests/bench/ldm_sampling_bench.cpp.
// With `guidance`, a ControlNet adds its residuals at every step. With
// guidance_scale > 0 (classifier-free guidance, NV-Generate's
// cfg_guidance_scale), each step's prediction is uncond + scale x (cond -
// uncond), uncond made with class label 0 (inputs.class_labels must be set).
at::Tensor sample_latent(DiffusionModelUNetImpl& unet, const DiffusionScheduler& scheduler, at::IntArrayRef shape,
                         std::int64_t seed, const UnetEmbeddingInputs& inputs, const c10::Device& device,
                         const ControlNetGuidance* guidance = nullptr, double guidance_scale = 0.0,
                         const std::function<void(std::int64_t done, std::int64_t total)>& on_step = {});
// The UNet's inputs beside x and t for job.generate: spacing, modality class
// and body regions, each where model.diffusion_unet takes it.
UnetEmbeddingInputs generation_inputs(const JobSpec& job, const c10::Device& device);

// Generates this rank's images; returns them (skipped ones too). Each file
// carries its provenance (diffusion/generation_provenance.hpp).
std::vector<GeneratedImage> generate_images(const JobSpec& job, const GenerateOptions& options);
// One image (its seed, rank and path set) as generate_images makes it, on
// this process's device choice; `world_size` only goes into its provenance.
void generate_image(const JobSpec& job, const GenerateOptions& options, GeneratedImage& image, int world_size);
// The job as generate runs it with options.label: output size and spacing
// are the label's (DataError naming the label when its size does not fit the
// networks' downsampling).
JobSpec job_for_label(const JobSpec& job, const std::string& label_path);

}  // namespace medsynth
