// validate_job(): every semantic rule of a typed job (ranges and choices from
// the field rows, then combinations, supported features, data paths), all
// collected so the researcher fixes a job file in one pass. Types and unknown keys are the reader's business; this file
// also serves jobs built in code (the console's editor, tests).
#include <cctype>
#include <cmath>

#include "config/job_data_paths.hpp"
#include "config/job_enums.hpp"
#include "config/job_field_checks.hpp"
#include "config/job_loader.hpp"
#include "config/maisi_models.hpp"
#include "config/task_catalog.hpp"
#include "config/validation_checks.hpp"

namespace medsynth {

namespace {

bool is_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
}

void check_top(const JobSpec& job, Checks& c) {
  // The run directory is NAME-<time stamp>, and sweep writes sweep-NAME-<stamp>.json:
  // both must stay within a file name's 255 bytes (issue 50 item 10: sweep
  // --dry-run accepted a name of 100 000 characters).
  constexpr std::size_t k_max_name = 128;
  if (job.name.empty()) {
    c.fail("name", "must not be empty (it names the run directory)");
  } else if (job.name.size() > k_max_name) {
    c.fail("name", "is " + std::to_string(job.name.size()) + " characters long; at most " + std::to_string(k_max_name) +
                       " (it names the run directory)");
  } else {
    bool ok = job.name != "." && job.name != "..";
    for (char ch : job.name) ok = ok && is_name_char(ch);
    if (!ok)
      c.fail("name", "may hold only letters, digits, '.', '_' and '-' (it names the run directory; got \"" + job.name + "\")");
  }
}

void check_data(const JobSpec& job, Checks& c, std::vector<FieldError>& errors) {
  const DataSpec& d = job.data;
  if (!(d.ct_window[0] < d.ct_window[1]) || !std::isfinite(d.ct_window[0]) || !std::isfinite(d.ct_window[1]))
    c.fail("data.ct_window", "low must be below high (got " + list_text(d.ct_window) + ")");
  const auto& p = d.mri_percentiles;
  if (!(0.0 <= p[0] && p[0] < p[1] && p[1] <= 100.0))
    c.fail("data.mri_percentiles", "must satisfy 0 <= low < high <= 100 (got " + list_text(p) + ")");

  // The encoder halves each axis once per level after the first, so a patch must
  // divide evenly all the way down (MONAI AutoencoderKL would fail at the decoder).
  const auto& a = job.model.autoencoder;
  bool patch_ok = true;  // else its row's range has reported it
  for (int s : d.patch_size) patch_ok = patch_ok && s >= 4;
  if (patch_ok && !a.num_channels.empty() && a.num_channels.size() <= 16) {
    const int downsamples = static_cast<int>(a.num_channels.size()) - 1;
    const int factor = 1 << downsamples;
    bool divisible = true;
    for (int s : d.patch_size) divisible = divisible && s % factor == 0;
    if (!divisible)
      c.fail("data.patch_size", "every entry must be divisible by " + std::to_string(factor) + " (the autoencoder downsamples " +
                                    std::to_string(downsamples) + " times; got " + list_text(d.patch_size) + ")");
  }
  if (d.source == DataSource::simulated && patch_ok) {
    bool fits = true;
    for (int i = 0; i < 3; ++i) fits = fits && d.phantom_size[i] >= d.patch_size[i];
    if (!fits)
      c.fail("data.phantom_size", "must be at least data.patch_size on every axis (got " + list_text(d.phantom_size) +
                                      ", patch " + list_text(d.patch_size) + ")");
  }
  check_data_path(d, errors);
}

// The autoencoder's rules are its options' own (config/autoencoder_kl_options.cpp),
// the ones the network checks when it is built.
void check_autoencoder(const JobSpec& job, std::vector<FieldError>& errors) {
  const auto problems = AutoencoderKLOptions::from_spec(job.model.autoencoder, job.loss).problems();
  errors.insert(errors.end(), problems.begin(), problems.end());
}

// So are the other networks' (config/patch_discriminator_options.cpp,
// vector_quantizer_options.cpp, resnet3d_options.cpp), checked for every task.
void check_other_networks(const JobSpec& job, std::vector<FieldError>& errors) {
  for (const auto& problems : {job.model.discriminator.problems(), job.model.vqgan.problems(), job.model.resnet.problems()})
    errors.insert(errors.end(), problems.begin(), problems.end());
}

void check_loss(const JobSpec& job, Checks& c) {
  const auto& l = job.loss;
  const TaskTraits* traits = find_task(job.task);
  if (l.perceptual_weight > 0.0 && traits && !traits->perceptual_loss)
    c.fail("loss.perceptual_weight", "is used by task " + task_names_with(&TaskTraits::perceptual_loss, " and ") +
                                         " only; must be 0 for task " + job.task + " (got " +
                                         value_text(l.perceptual_weight) + ")");
  else if (l.perceptual_weight > 0.0 && l.perceptual_network.empty())
    c.fail("loss.perceptual_weight",
           "needs loss.perceptual_network: the path of MedicalNet's resnet_10_23dataset.pth (3D) or RadImageNet's "
           "RadImageNet-ResNet50_notop.pth (2.5D); medsynth ships no perceptual network (docs/vqgan.md)");
}

void check_training(const JobSpec& job, Checks& c) {
  const auto& t = job.training;
  if (t.max_steps <= 0 && t.epochs < 1)
    c.fail("training.epochs", "must be >= 1 unless training.max_steps > 0 (got " + std::to_string(t.epochs) + ")");
}

void check_checkpoint_and_output(const JobSpec& job, Checks& c, std::vector<FieldError>& errors) {
  const auto& k = job.checkpoint;
  if (k.metric.empty()) c.fail("checkpoint.metric", "must not be empty (e.g. val/psnr)");
  check_resume_path(k, errors);
  if (job.output.runs_dir.empty()) c.fail("output.runs_dir", "must not be empty");
}

// The component options validate themselves (config/diffusion_spec.hpp); their
// errors join the list under their dotted paths.
template <class Options>
void collect(const Options& options, const std::string& prefix, std::vector<FieldError>& errors) {
  try {
    options.validate(prefix);
  } catch (const ConfigError& e) {
    errors.insert(errors.end(), e.errors().begin(), e.errors().end());
  }
}

// Checked for every task: a job file is valid or not whatever task it names.
void check_latent_diffusion(const JobSpec& job, Checks& c, std::vector<FieldError>& errors) {
  collect(job.model.diffusion_unet, "model.diffusion_unet", errors);
  collect(job.scheduler, "scheduler", errors);
  if (job.ldm.first_stage == "vqgan") {
    if (job.ldm.encode_sample)
      c.fail("ldm.encode_sample",
             "a VQ-GAN encodes to codes, not to a distribution to sample (ldm.first_stage is vqgan)");
    if (job.model.tensor_axes == "xyz")
      c.fail("ldm.first_stage", "vqgan: medsynth's VQ-GAN is a zyx network; xyz (MAISI) networks take the autoencoder");
  }
  if (job.ldm.encode_tile > 0 && job.ldm.encode_sample)
    c.fail("ldm.encode_tile", "tiles blend the latent mean; ldm.encode_sample needs the whole volume's variance (set one of them)");
  const auto& g = job.generate;
  const auto& u = job.model.diffusion_unet;
  if (u.num_class_embeds > 0) c.within("generate.modality", g.modality, 0, u.num_class_embeds - 1);
  // NV-Generate's files hold MONAI's [X, Y, Z, C] latents, which only xyz
  // networks make; and its training script looks the modality up by name.
  if (job.ldm.embedding_layout == "maisi") {
    if (job.model.tensor_axes != "xyz")
      c.fail("ldm.embedding_layout",
             "maisi writes NV-Generate's [X, Y, Z, C] latents of MONAI's axis order; it needs "
             "xyz (MAISI) networks (model.tensor_axes is " +
                 job.model.tensor_axes + ")");
    else if (u.num_class_embeds > 0 && maisi_modality_name(g.modality).empty())
      c.fail("generate.modality", std::to_string(g.modality) +
                                      " has no name in NV-Generate's modality_mapping.json, which "
                                      "ldm.embedding_layout: maisi writes (docs/maisi.md has the table)");
  }
  if (g.guidance_scale > 0 && u.num_class_embeds <= 0)
    c.fail("generate.guidance_scale",
           "guides toward the class label; this UNet has none (model.diffusion_unet.num_class_embeds is 0)");
  auto check_region = [&](const char* field, const std::vector<int>& region, bool needed) {
    if (needed && region.size() != 4)
      c.fail(field, "the UNet takes a body region: give 4 values, one-hot head, chest, abdomen, lower body (got " +
                        std::to_string(region.size()) + ")");
  };
  check_region("generate.top_region_index", g.top_region_index, u.include_top_region_index_input);
  check_region("generate.bottom_region_index", g.bottom_region_index, u.include_bottom_region_index_input);
  // Image -> latent shrinks by 2 per autoencoder level after the first; the
  // UNet halves the latent once per level after its first.
  const auto ae_levels = job.model.autoencoder.num_channels.size();
  const auto unet_levels = job.model.diffusion_unet.channels.size();
  if (ae_levels >= 1 && unet_levels >= 1) {
    const int factor = (1 << (ae_levels - 1)) * (1 << (unet_levels - 1));
    for (std::size_t i = 0; i < 3; ++i) {
      if (g.output_size[i] < factor || g.output_size[i] % factor != 0) {
        c.fail("generate.output_size", "every entry must be a positive multiple of " + std::to_string(factor) +
                                           " (the autoencoder and UNet downsampling; got " + list_text(g.output_size) + ")");
        break;
      }
    }
  }
}

// Checked for every task, like the ldm fields.
void check_patches_and_names(const JobSpec& job, Checks& c) {
  const auto& d = job.data;
  for (int i = 0; i < 3; ++i) {
    if (d.patch_stride[i] < 0 || d.patch_stride[i] > d.patch_size[i]) {
      c.fail("data.patch_stride", "every entry must be 0 (= the patch size) or between 1 and data.patch_size; a larger stride skips voxels (got " +
                                      list_text(d.patch_stride) + ", patch " + list_text(d.patch_size) + ")");
      break;
    }
  }
  const std::string& n = job.checkpoint.name_prefix;
  for (char ch : n)
    if (!is_name_char(ch)) {
      c.fail("checkpoint.name_prefix", "may hold only letters, digits, '.', '_' and '-' (it starts file names; got \"" + n + "\")");
      break;
    }
}

// Checked for every task, like the ldm fields.
void check_survival(const JobSpec& job, Checks& c) {
  if (job.data.smart_cache && !(job.data.cache_rate > 0))
    c.fail("data.cache_rate", "must be > 0 with data.smart_cache (the cache must hold at least one volume)");
  for (char ch : job.data.covariates)
    if (!(std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == ',' || ch == ' ' || ch == '-' || ch == '.')) {
      c.fail("data.covariates", "comma-separated CSV column names (got \"" + job.data.covariates + "\")");
      break;
    }
  const TaskTraits* task = find_task(job.task);
  if (task && task->reads_outcome_labels && job.data.source != DataSource::csv &&
      job.data.source != DataSource::simulated)
    c.fail("data.source", "task " + job.task +
                              " reads its labels from a CSV manifest (source csv) or simulates them (source "
                              "simulated), not from a " +
                              std::string(to_string(job.data.source)));
  if (task && task->reads_cases) {
    if (job.data.channels.empty())
      c.fail("data.channels", "task " + job.task + " needs the contrasts it translates from (BraTS: [t1n, t1c, t2w])");
    if (job.data.target.empty())
      c.fail("data.target", "task " + job.task + " needs the contrast it generates (BraTS: t2f)");
    if (job.data.source == DataSource::simulated || job.data.source == DataSource::csv)
      c.fail("data.source", "task " + job.task +
                                " reads cases of several contrasts: a folder of case folders or a "
                                "datalist (got " +
                                std::string(to_string(job.data.source)) + ")");
  } else if (job.data.channels.size() > 1) {
    c.fail("data.channels", "task " + job.task + " reads one image per case (task translation reads several)");
  }
}

}  // namespace

std::vector<FieldError> validate_job(const JobSpec& job) {
  std::vector<FieldError> errors;
  check_field_rows(job, errors);  // ranges and choices, from job_fields.cpp
  Checks checks(errors);
  check_top(job, checks);
  check_data(job, checks, errors);
  check_autoencoder(job, errors);
  check_other_networks(job, errors);
  check_loss(job, checks);
  check_training(job, checks);
  check_checkpoint_and_output(job, checks, errors);
  check_latent_diffusion(job, checks, errors);
  check_patches_and_names(job, checks);
  check_survival(job, checks);
  return errors;
}

}  // namespace medsynth
