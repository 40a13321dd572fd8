#include "diffusion/generate_stage.hpp"

#include <ATen/ATen.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <optional>

#include "config/job_enums.hpp"
#include "data/volume_tensor.hpp"
#include "config/job_loader.hpp"
#include "config/maisi_models.hpp"
#include "diffusion/controlnet_guidance.hpp"
#include "diffusion/reverse_process.hpp"
#include "schedulers/diffusion_scheduler.hpp"
#include "contract/generation_provenance.hpp"
#include "diffusion/latent_autoencoder.hpp"
#include "diffusion/latent_files.hpp"
#include "dist/process_group.hpp"
#include "eval/organ_quality_check.hpp"
#include "events/run_logger.hpp"
#include "state/device_choice.hpp"
#include "diffusion/ldm_task.hpp"
#include "state/tensor_file.hpp"
#include "state/training_state.hpp"
#include "volume/atomic_file.hpp"
#include "volume/nifti_extension.hpp"
#include "volume/volume_io.hpp"

namespace fs = std::filesystem;

namespace medsynth {

std::vector<GeneratedImage> planned_images(const JobSpec& job, const std::string& output_dir, int world, bool paired) {
  const int count = job.generate.num_images > 0 ? job.generate.num_images : world;
  std::vector<GeneratedImage> out;
  for (int k = 0; k < count; ++k)
    out.push_back({output_dir + "/" + generated_image_name(job.generate.base_seed, k, world, paired), job.generate.base_seed + k, k % world, 0});
  return out;
}

JobSpec job_for_label(const JobSpec& job, const std::string& label_path) {
  const Volume label = read_volume(label_path);
  JobSpec out = job;
  const int factor = autoencoder_scale(job.model.autoencoder) * (1 << (job.model.diffusion_unet.channels.size() - 1));
  for (int i = 0; i < 3; ++i) {
    if (label.size[i] % factor != 0)
      throw DataError(label_path, "is " + std::to_string(label.size[0]) + " x " + std::to_string(label.size[1]) + " x " +
                                      std::to_string(label.size[2]) + " voxels; the image is made on its grid, so each size must be a multiple of " +
                                      std::to_string(factor) + " (the autoencoder and UNet downsampling)");
    out.generate.output_size[i] = static_cast<int>(label.size[i]);
    out.generate.spacing[i] = label.spacing[i];
  }
  return out;
}

// [1, 1, D, H, W] = z, y, x whatever the networks' axis order.
Volume to_output_volume(const at::Tensor& network_image, const JobSpec& job) {
  const auto& g = job.generate;
  const auto image = job.model.tensor_axes == "xyz" ? network_image.permute({0, 1, 4, 3, 2}) : network_image;
  Volume geometry = make_volume({static_cast<std::size_t>(image.size(4)), static_cast<std::size_t>(image.size(3)),
                                 static_cast<std::size_t>(image.size(2))},
                                g.spacing);
  // RAS: x toward the patient's right-to-left flipped, as RAS-oriented NIfTI
  // viewers expect; ITK stores LPS, so RAS axes are (-1, -1, +1) in LPS.
  if (g.orientation == "RAS") geometry.direction = {-1, 0, 0, 0, -1, 0, 0, 0, 1};
  // NV-Generate's MR range for MAISI networks: [0, 1] -> [0, 1000], clipped
  // below only (scripts/diff_model_infer.py); other MRI models keep [0, 1].
  if (job.data.modality == Modality::mri && job.model.autoencoder.maisi && is_maisi_mr_modality(g.modality))
    return tensor_to_volume((image.clamp_min(0.0) * 1000.0).to(at::kCPU, at::kFloat), geometry);
  auto v = image.clamp(0.0, 1.0);
  if (job.data.modality == Modality::ct) v = v * (job.data.ct_window[1] - job.data.ct_window[0]) + job.data.ct_window[0];
  return tensor_to_volume(v.to(at::kCPU, at::kFloat), geometry);
}

void crop_to_label_body(Volume& image, const Volume& label, const JobSpec& job) {
  if (image.voxels.size() != label.voxels.size())
    throw RuntimeError("generate.body_crop: the image has " + std::to_string(image.voxels.size()) +
                       " voxels, its label " + std::to_string(label.voxels.size()));
  // NV-Generate's floor: -1000 HU for CT (its a_min), 0 for MR.
  const float floor = job.data.modality == Modality::ct ? static_cast<float>(job.data.ct_window[0]) : 0.0f;
  for (std::size_t i = 0; i < image.voxels.size(); ++i)
    if (label.voxels[i] == 0.0f) image.voxels[i] = floor;
}

UnetEmbeddingInputs generation_inputs(const JobSpec& job, const c10::Device& device) {
  const auto& u = job.model.diffusion_unet;
  const auto& g = job.generate;
  const auto row = [&](const auto& values) {
    std::vector<float> v(values.begin(), values.end());
    return at::tensor(v, at::kFloat).view({1, static_cast<std::int64_t>(v.size())}).to(device);
  };
  UnetEmbeddingInputs inputs;
  // MAISI feeds the spacing in mm x 100, x, y, z (as the ldm task trains on it too).
  if (u.include_spacing_input) inputs.spacing = row(g.spacing) * 100.0;
  if (u.num_class_embeds > 0) inputs.class_labels = at::full({1}, g.modality, at::TensorOptions().dtype(at::kLong).device(device));
  // One-hot body regions x 100, as NV-Generate feeds them (scripts/sample.py,
  // diff_model_infer.py) and as the ldm task trains on them.
  if (u.include_top_region_index_input) inputs.top_region_index = row(g.top_region_index) * 100.0;
  if (u.include_bottom_region_index_input) inputs.bottom_region_index = row(g.bottom_region_index) * 100.0;
  return inputs;
}

at::Tensor sample_latent(DiffusionModelUNetImpl& unet, const DiffusionScheduler& scheduler, at::IntArrayRef shape,
                         std::int64_t seed, const UnetEmbeddingInputs& inputs, const c10::Device& device,
                         const ControlNetGuidance* guidance, double guidance_scale,
                         const std::function<void(std::int64_t, std::int64_t)>& on_step) {
  SamplingConditioning conditioning;
  conditioning.embedding = inputs;
  conditioning.controlnet = guidance;
  conditioning.guidance_scale = guidance_scale;
  return reverse_process(unet, scheduler, shape,
                         at::make_generator<at::CPUGeneratorImpl>(static_cast<std::uint64_t>(seed)), device,
                         conditioning, on_step);
}

namespace {

// Loads the networks once and makes images of any seed, each written with
// its provenance (a NIfTI comment extension) before it takes its final name.
class ImageMaker {
 public:
  ImageMaker(const JobSpec& job, const GenerateOptions& o, const c10::Device& device, int world,
             const InpaintSource* inpaint = nullptr)
      : job_(job),
        device_(device),
        task_(job, /*scale_factor=*/1.0),  // its UNet alone samples here; scale_ below is the run's
        first_stage_(load_first_stage(job, o.autoencoder_checkpoint, device)),
        on_progress_(o.on_progress),
        quality_(o.quality_statistics),
        quality_max_tries_(o.quality_max_tries),
        seed_stride_(std::max<std::int64_t>(1, static_cast<std::int64_t>(planned_images(job, "", world, true).size()))),
        on_note_(o.on_note),
        inpaint_(inpaint) {
    if (quality_ && o.label.empty())
      throw UsageError("--quality-check: the organs to judge are a label map's; give --label");
    if (quality_max_tries_ < 1) throw UsageError("--quality-tries: must be at least 1");
    TensorFile file = read_tensor_file(o.unet_checkpoint);
    restore_weights(task_.modules(), file, o.unet_checkpoint, /*prefer_ema=*/true);
    task_.to(device);
    task_.train_mode(false);
    scale_ = std::isnan(o.scale_factor) ? read_scale_factor(o.scale_factor_file) : o.scale_factor;
    const int factor = autoencoder_scale(job.model.autoencoder);
    const auto& size = job.generate.output_size;
    shape_ = {1, ldm_latent_channels(job), size[2] / factor, size[1] / factor, size[0] / factor};
    if (job.model.tensor_axes == "xyz") std::swap(shape_[2], shape_[4]);
    inputs_ = generation_inputs(job, device);
    if (!o.label.empty()) {
      label_ = read_volume(o.label);
      if (inpaint_ && grid_difference(inpaint_->image(), label_) != GridDifference::none)
        throw DataError(o.label, "is not on the grid of " + o.inpaint.image + ", whose region it steers");
      guidance_.emplace(o.controlnet_network_config, o.controlnet_checkpoint,
                        inpaint_ ? inpaint_->to_network_side(label_) : label_, o.label, job.model.tensor_axes == "xyz",
                        device, job.generate.guide_against_tumour_free_label && job.generate.guidance_scale > 0);
      provenance_.label = fs::absolute(o.label).string();
      provenance_.label_hash = file_sha256(o.label);
      provenance_.controlnet_checkpoint = fs::absolute(o.controlnet_checkpoint).string();
      provenance_.controlnet_checkpoint_hash = file_sha256(o.controlnet_checkpoint);
      provenance_.controlnet_network_config = fs::absolute(o.controlnet_network_config).string();
      provenance_.controlnet_network_config_hash = file_sha256(o.controlnet_network_config);
    }
    provenance_.engine_version = MEDSYNTH_VERSION;
    provenance_.unet_checkpoint = fs::absolute(o.unet_checkpoint).string();
    provenance_.unet_checkpoint_hash = file_sha256(o.unet_checkpoint);
    provenance_.autoencoder_checkpoint = fs::absolute(o.autoencoder_checkpoint).string();
    provenance_.autoencoder_checkpoint_hash = file_sha256(o.autoencoder_checkpoint);
    provenance_.scale_factor = scale_;
    provenance_.scheduler = std::string(to_string(job.scheduler.kind));
    provenance_.num_inference_steps = job.scheduler.num_inference_steps;
    provenance_.world_size = world;
    provenance_.device = device.str();
    provenance_.modality = std::string(to_string(job.data.modality));
    provenance_.job_config_hash = job_config_hash(job);
    provenance_.job_yaml = job_to_yaml(job);
    if (inpaint_) encode_inpaint_source(o.inpaint);
  }

  void make(GeneratedImage& p) {
    at::NoGradGuard no_grad;
    const auto started = std::chrono::steady_clock::now();
    std::int64_t seed = p.seed;
    Volume volume = sample(p, seed);
    if (quality_) {
      std::vector<OrganQualityTry> tries;
      for (int attempt = 1;; ++attempt) {
        tries.push_back({seed, check_organ_intensities(volume, label_, *quality_, provenance_.label)});
        if (tries.back().report.passed() || attempt >= quality_max_tries_) break;
        const std::int64_t next = seed + seed_stride_;
        note("image seed " + std::to_string(p.seed) + ": quality check failed with seed " + std::to_string(seed) +
             ": " + tries.back().report.failures() + "; sampling again with seed " + std::to_string(next) + " (try " +
             std::to_string(attempt + 1) + " of " + std::to_string(quality_max_tries_) + ")");
        seed = next;
        volume = sample(p, seed);
      }
      const bool passed = tries.back().report.passed();
      note("image seed " + std::to_string(p.seed) + ": quality check " +
           (passed ? "passed with seed " + std::to_string(seed) + " (try " + std::to_string(tries.size()) + ")"
                   : "failed on all " + std::to_string(tries.size()) + " tries: " + tries.back().report.failures() +
                         "; the last image is kept, its report says so"));
      const std::string report = organ_quality_json(tries, fs::path(p.path).filename().string(), quality_->source);
      write_string_atomically(quality_report_path(p.path), report + "\n");
    }
    GenerationProvenance provenance = provenance_;
    provenance.seed = seed;  // the seed that made this image: regenerate makes it again from it
    provenance.rank = p.rank;
    provenance.threads = at::get_num_threads();
    // Complete (voxels and provenance) before it has its name: generate skips existing files.
    const std::string partial = p.path.substr(0, p.path.size() - std::string(".nii.gz").size()) + ".partial.nii.gz";
    if (inpaint_) report_seam(p, volume);
    if (guidance_ && !inpaint_) {
      // On the label's grid, so that the pair overlays in any viewer; the
      // label is written first: the image's name is what marks a pair done.
      volume.origin = label_.origin;
      volume.direction = label_.direction;
    }
    if (guidance_) write_volume(label_, paired_label_path(p.path), StoredPixel::label);
    write_volume(volume, partial,
                 guidance_ && job_.generate.label_image_int16 ? StoredPixel::int16 : StoredPixel::float32);
    try {
      add_nifti_comment_extension(partial, provenance_json(provenance));
      fs::rename(partial, p.path);
    } catch (...) {
      // An image without its provenance is no output (issue 50 item 1: the
      // .partial file was left behind by a full disk).
      std::error_code ignored;
      fs::remove(partial, ignored);
      throw;
    }
    p.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  }

 private:
  // Samples and decodes the image of `seed` (the slot p.seed names the file and the progress).
  Volume sample(const GeneratedImage& p, std::int64_t seed) {
    const std::string image_name = "image seed " + std::to_string(p.seed);
    const auto report = [this](const std::string& phase) {
      return [this, phase](std::int64_t done, std::int64_t total) {
        if (on_progress_) on_progress_(phase, done, total);
        return true;
      };
    };
    auto z = inpaint_ ? sample_region(seed, report(image_name + ": sampling"))
                      : sample_latent(*task_.unet(), task_.scheduler(), shape_, seed, inputs_, device_,
                                      guidance_ ? &*guidance_ : nullptr, job_.generate.guidance_scale,
                                      report(image_name + ": sampling"));
    const TileBlending blending{job_.generate.decode_overlap, job_.generate.decode_blend == "gaussian"};
    const auto decoding = report(image_name + ": decoding");
    auto image = first_stage_.decode_tiled(z / scale_, job_.generate.decode_tile, blending,
                                           [&decoding](int done, int total) { return decoding(done, total); });
    // A NaN or infinite voxel is no image (our own reader refuses such a
    // file): say so instead of writing it (issue 37: NaN weights imported,
    // then an all-NaN volume written with exit 0).
    if (const auto bad = (~image.isfinite()).sum().item<std::int64_t>(); bad > 0)
      throw RuntimeError(
          p.path + ": not written: " + std::to_string(bad) + " of " + std::to_string(image.numel()) +
          " voxels came out NaN or infinite (non-finite weights or latents; check the checkpoints that made it)");
    Volume volume = to_output_volume(image, job_);
    // Inpainting keeps every voxel outside the region, the body's outside too.
    if (inpaint_) return inpaint_->blend_back(volume);
    if (guidance_ && job_.generate.body_crop) crop_to_label_body(volume, label_, job_);
    return volume;
  }

  // The source image's latent (scaled as the UNet samples it) and the cells
  // its region leaves alone, once for every image.
  void encode_inpaint_source(const InpaintOptions& o) {
    at::NoGradGuard no_grad;
    const bool xyz = job_.model.tensor_axes == "xyz";
    known_ = first_stage_.encode_tiled(inpaint_->network_image(xyz).to(device_), job_.ldm.encode_tile) * scale_;
    if (known_.sizes() != at::IntArrayRef(shape_))
      throw DataError(o.image, "encodes to a latent of another shape than the UNet samples (" +
                                   std::to_string(known_.size(1)) + " channels; check the run's networks)");
    keep_ = inpaint_->latent_keep(autoencoder_scale(job_.model.autoencoder), xyz);
    provenance_.inpaint_source = fs::absolute(o.image).string();
    provenance_.inpaint_source_hash = file_sha256(o.image);
    provenance_.inpaint_region = fs::absolute(o.region).string();
    provenance_.inpaint_region_hash = file_sha256(o.region);
    provenance_.inpaint_region_classes = o.region_classes;
    provenance_.inpaint_margin = o.margin;
    provenance_.inpaint_voxels = inpaint_->regenerated_voxels();
    inpaint_options_ = o;
  }

  // The reverse process with the source's latent kept outside the region.
  at::Tensor sample_region(std::int64_t seed, const std::function<void(std::int64_t, std::int64_t)>& on_step) {
    SamplingConditioning conditioning;
    conditioning.embedding = inputs_;
    conditioning.controlnet = guidance_ ? &*guidance_ : nullptr;
    conditioning.guidance_scale = job_.generate.guidance_scale;
    conditioning.known = known_;
    conditioning.keep = keep_;
    return reverse_process(*task_.unet(), task_.scheduler(), shape_,
                           at::make_generator<at::CPUGeneratorImpl>(static_cast<std::uint64_t>(seed)), device_,
                           conditioning, on_step);
  }

  // The region's report beside the image, and a note of its seam.
  void report_seam(const GeneratedImage& p, const Volume& volume) {
    const SeamMeasure seam = inpaint_->seam(volume);
    write_string_atomically(inpaint_report_path(p.path),
                            inpaint_report_json(inpaint_options_, seam, fs::path(p.path).filename().string()) + "\n");
    note("image seed " + std::to_string(p.seed) + ": regenerated " + std::to_string(seam.region_voxels) +
         " voxels of " + inpaint_options_.image + " (" + std::to_string(seam.changed_voxels) + " changed); seam step " +
         std::to_string(seam.result_step) + " HU across the region's border (the source's own " +
         std::to_string(seam.source_step) + " HU)");
  }

  void note(const std::string& line) const {
    if (on_note_) on_note_(line);
  }

  const JobSpec& job_;
  c10::Device device_;
  LdmTask task_;
  FirstStage first_stage_;
  std::function<void(std::string_view, std::int64_t, std::int64_t)> on_progress_;
  double scale_ = 1.0;
  std::vector<std::int64_t> shape_;
  UnetEmbeddingInputs inputs_;
  Volume label_;
  std::optional<ControlNetGuidance> guidance_;
  GenerationProvenance provenance_;
  std::shared_ptr<const OrganStatistics> quality_;
  int quality_max_tries_ = 2;
  std::int64_t seed_stride_ = 1;
  std::function<void(const std::string&)> on_note_;
  const InpaintSource* inpaint_ = nullptr;  // generate --inpaint
  InpaintOptions inpaint_options_;
  at::Tensor known_, keep_;
};

}  // namespace

std::vector<GeneratedImage> generate_images(const JobSpec& given_job, const GenerateOptions& o) {
  std::optional<InpaintSource> inpaint;
  if (o.inpaint.enabled()) inpaint.emplace(given_job, o.inpaint);
  const JobSpec job = inpaint           ? inpaint->job_for_image(given_job)
                      : o.label.empty() ? given_job
                                        : job_for_label(given_job, o.label);
  const int rank = o.dist ? o.dist->rank() : 0;
  const int world = o.dist ? o.dist->world_size() : 1;
  const c10::Device device = o.dist ? o.dist->device() : training_device(job.training.device, 0);
  fs::create_directories(o.output_dir);
  std::vector<GeneratedImage> mine;
  for (auto& plan : planned_images(job, o.output_dir, world, !o.label.empty()))
    if (plan.rank == rank) mine.push_back(plan);
  bool any_missing = false;
  for (const auto& p : mine) any_missing = any_missing || !fs::exists(p.path);
  if (any_missing) {
    ImageMaker maker(job, o, device, world, inpaint ? &*inpaint : nullptr);
    for (auto& p : mine) {
      if (fs::exists(p.path)) continue;
      maker.make(p);
      if (o.logger) o.logger->info("generated " + p.path + " (seed " + std::to_string(p.seed) + ", " + std::to_string(p.seconds) + " s)");
      if (o.on_image_written) o.on_image_written(p);
    }
  }
  if (o.dist) o.dist->barrier("generate");
  return mine;
}

void generate_image(const JobSpec& job, const GenerateOptions& o, GeneratedImage& image, int world_size) {
  std::optional<InpaintSource> inpaint;
  if (o.inpaint.enabled()) inpaint.emplace(job, o.inpaint);
  const JobSpec image_job = inpaint ? inpaint->job_for_image(job) : job;
  ImageMaker maker(image_job, o, training_device(job.training.device, 0), world_size, inpaint ? &*inpaint : nullptr);
  maker.make(image);
}

}  // namespace medsynth
