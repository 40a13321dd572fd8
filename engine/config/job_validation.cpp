// validate_job(): every semantic rule of a typed job (ranges, combinations,
// supported features, data paths), all collected so the researcher fixes a job
// file in one pass. Types and unknown keys are the reader's business; this file
// also serves jobs built in code (the console's editor, tests).
#include <cctype>
#include <cmath>

#include "config/job_data_paths.hpp"
#include "config/job_loader.hpp"
#include "config/task_catalog.hpp"
#include "config/validation_checks.hpp"

namespace medsynth {

namespace {

bool is_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
}

void check_top(const JobSpec& job, Checks& c) {
  if (job.name.empty()) {
    c.fail("name", "must not be empty (it names the run directory)");
  } else {
    bool ok = job.name != "." && job.name != "..";
    for (char ch : job.name) ok = ok && is_name_char(ch);
    if (!ok)
      c.fail("name", "may hold only letters, digits, '.', '_' and '-' (it names the run directory; got \"" + job.name + "\")");
  }
  c.one_of("task", job.task, task_names());
}

template <class T, std::size_t N>
bool all_finite_positive(const std::array<T, N>& v) {
  for (const auto& x : v)
    if (!(x > 0) || !std::isfinite(static_cast<double>(x))) return false;
  return true;
}

void check_data(const JobSpec& job, Checks& c, std::vector<FieldError>& errors) {
  const DataSpec& d = job.data;
  c.at_least("data.num_train", d.num_train, 1);
  c.at_least("data.num_val", d.num_val, 1);
  if (!all_finite_positive(d.phantom_size)) c.fail("data.phantom_size", "every entry must be >= 1 (got " + list_text(d.phantom_size) + ")");
  if (!all_finite_positive(d.phantom_spacing))
    c.fail("data.phantom_spacing", "every entry must be > 0 mm (got " + list_text(d.phantom_spacing) + ")");
  c.at_least("data.noise_hu", d.noise_hu, 0.0);
  c.strictly_within("data.val_fraction", d.val_fraction, 0.0, 1.0);
  if (!(d.ct_window[0] < d.ct_window[1]) || !std::isfinite(d.ct_window[0]) || !std::isfinite(d.ct_window[1]))
    c.fail("data.ct_window", "low must be below high (got " + list_text(d.ct_window) + ")");
  const auto& p = d.mri_percentiles;
  if (!(0.0 <= p[0] && p[0] < p[1] && p[1] <= 100.0))
    c.fail("data.mri_percentiles", "must satisfy 0 <= low < high <= 100 (got " + list_text(p) + ")");
  if (d.target_spacing && !all_finite_positive(*d.target_spacing))
    c.fail("data.target_spacing", "every entry must be > 0 mm (got " + list_text(*d.target_spacing) + ")");

  // The encoder halves each axis once per level after the first, so a patch must
  // divide evenly all the way down (MONAI AutoencoderKL would fail at the decoder).
  const auto& a = job.model.autoencoder;
  bool patch_ok = true;
  for (int s : d.patch_size) patch_ok = patch_ok && s >= 4;
  if (!patch_ok) c.fail("data.patch_size", "every entry must be >= 4 (got " + list_text(d.patch_size) + ")");
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
  c.within("data.cache_rate", d.cache_rate, 0.0, 1.0);
  c.at_least("data.num_workers", d.num_workers, 0);
  c.at_least("data.prefetch", d.prefetch, 0);
  check_data_path(d, errors);
}

void check_model(const JobSpec& job, Checks& c) {
  const auto& a = job.model.autoencoder;
  const std::string ae = "model.autoencoder.";
  if (a.spatial_dims != 3) c.fail(ae + "spatial_dims", "only 3 is supported (got " + std::to_string(a.spatial_dims) + ")");
  c.at_least(ae + "in_channels", a.in_channels, 1);
  c.at_least(ae + "out_channels", a.out_channels, 1);
  c.at_least(ae + "latent_channels", a.latent_channels, 1);
  c.at_least(ae + "norm_num_groups", a.norm_num_groups, 1);
  c.above(ae + "norm_eps", a.norm_eps, 0.0);
  c.one_of("model.tensor_axes", job.model.tensor_axes, {"zyx", "xyz"});
  c.at_least(ae + "num_splits", a.num_splits, 1);
  c.within(ae + "dim_split", a.dim_split, 0, 2);
  // The plain network has neither: accepting them there would do nothing.
  if (!a.maisi && a.num_splits > 1) c.fail(ae + "num_splits", "needs model.autoencoder.maisi: true");
  if (!a.maisi && a.norm_float16) c.fail(ae + "norm_float16", "needs model.autoencoder.maisi: true");
  if (a.num_channels.empty()) {
    c.fail(ae + "num_channels", "must hold at least one level");
  } else {
    bool positive = true;
    for (int ch : a.num_channels) positive = positive && ch >= 1;
    if (!positive) {
      c.fail(ae + "num_channels", "every entry must be >= 1 (got " + list_text(a.num_channels) + ")");
    } else if (a.norm_num_groups >= 1) {
      // GroupNorm splits each level's channels into norm_num_groups groups.
      bool divisible = true;
      for (int ch : a.num_channels) divisible = divisible && ch % a.norm_num_groups == 0;
      if (!divisible)
        c.fail(ae + "num_channels", "every entry must be divisible by norm_num_groups (" + std::to_string(a.norm_num_groups) +
                                        ") (got " + list_text(a.num_channels) + ")");
    }
    const std::string levels = std::to_string(a.num_channels.size());
    if (a.num_res_blocks.size() != a.num_channels.size())
      c.fail(ae + "num_res_blocks", "expected " + levels + " values, one per num_channels entry (got " +
                                        std::to_string(a.num_res_blocks.size()) + ")");
    if (a.attention_levels.size() != a.num_channels.size())
      c.fail(ae + "attention_levels", "expected " + levels + " values, one per num_channels entry (got " +
                                          std::to_string(a.attention_levels.size()) + ")");
  }
  bool blocks_ok = true;
  for (int b : a.num_res_blocks) blocks_ok = blocks_ok && b >= 1;
  if (!blocks_ok) c.fail(ae + "num_res_blocks", "every entry must be >= 1 (got " + list_text(a.num_res_blocks) + ")");

  const auto& d = job.model.discriminator;
  c.at_least("model.discriminator.num_layers_d", d.num_layers_d, 1);
  c.at_least("model.discriminator.channels", d.channels, 1);
  c.at_least("model.discriminator.start_step", d.start_step, 0);
}

void check_loss(const JobSpec& job, Checks& c) {
  const auto& l = job.loss;
  c.one_of("loss.recon_loss", l.recon_loss, {"l1", "l2", "l1_window"});
  c.at_least("loss.kl_weight", l.kl_weight, 0.0);
  if (!(l.logvar_clamp[0] < l.logvar_clamp[1]) || !std::isfinite(l.logvar_clamp[0]) || !std::isfinite(l.logvar_clamp[1]))
    c.fail("loss.logvar_clamp", "the first value must be below the second (got " + list_text(l.logvar_clamp) + ")");
  c.at_least("loss.adv_weight", l.adv_weight, 0.0);
  if (l.perceptual_weight != 0.0)
    c.fail("loss.perceptual_weight", "must be 0: no perceptual network ships with medsynth (got " + value_text(l.perceptual_weight) + ")");
}

void check_training(const JobSpec& job, Checks& c) {
  const auto& t = job.training;
  const std::string tr = "training.";
  c.at_least(tr + "max_steps", t.max_steps, 0);
  if (t.max_steps <= 0 && t.epochs < 1)
    c.fail(tr + "epochs", "must be >= 1 unless training.max_steps > 0 (got " + std::to_string(t.epochs) + ")");
  c.at_least(tr + "batch_size", t.batch_size, 1);
  c.at_least(tr + "gradient_accumulation_steps", t.gradient_accumulation_steps, 1);
  c.above(tr + "lr", t.lr, 0.0);
  c.at_least(tr + "weight_decay", t.weight_decay, 0.0);
  if (!(t.betas[0] >= 0.0 && t.betas[0] < 1.0 && t.betas[1] >= 0.0 && t.betas[1] < 1.0))
    c.fail(tr + "betas", "both must be in [0, 1) (got " + list_text(t.betas) + ")");
  c.at_least(tr + "warmup_steps", t.warmup_steps, 0);
  c.one_of(tr + "lr_schedule", t.lr_schedule, {"cosine", "constant"});
  c.within(tr + "min_lr_ratio", t.min_lr_ratio, 0.0, 1.0);
  c.at_least(tr + "grad_clip_norm", t.grad_clip_norm, 0.0);
  c.at_least(tr + "base_seed", t.base_seed, std::int64_t{0});
  c.at_least(tr + "val_every_steps", t.val_every_steps, 1);
  c.at_least(tr + "val_max_volumes", t.val_max_volumes, 0);
  if (!(t.ema_decay >= 0.0 && t.ema_decay < 1.0))
    c.fail(tr + "ema_decay", "must be in [0, 1) (got " + value_text(t.ema_decay) + ")");
  if (!(t.val_overlap >= 0.0 && t.val_overlap < 1.0))
    c.fail(tr + "val_overlap", "must be in [0, 1) (got " + value_text(t.val_overlap) + ")");
  c.at_least(tr + "nan_max_bad_steps", t.nan_max_bad_steps, 1);
  c.strictly_within(tr + "nan_lr_factor", t.nan_lr_factor, 0.0, 1.0);
  c.at_least(tr + "num_threads", t.num_threads, 0);
  c.one_of(tr + "device", t.device, {"auto", "cpu", "cuda"});
  c.one_of(tr + "memory_format", t.memory_format, {"auto", "contiguous", "channels_last_3d"});
}

void check_checkpoint_and_output(const JobSpec& job, Checks& c, std::vector<FieldError>& errors) {
  const auto& k = job.checkpoint;
  c.at_least("checkpoint.every_steps", k.every_steps, 0);
  c.at_least("checkpoint.keep_best", k.keep_best, 1);
  if (k.metric.empty()) c.fail("checkpoint.metric", "must not be empty (e.g. val/psnr)");
  c.one_of("checkpoint.mode", k.mode, {"max", "min"});
  check_resume_path(k, errors);

  const auto& d = job.distributed;
  c.one_of("distributed.backend", d.backend, {"auto", "gloo", "nccl"});
  if (!(d.bucket_cap_mb > 0.0 && d.bucket_cap_mb <= 4096.0))
    c.fail("distributed.bucket_cap_mb", "must be in (0, 4096] MB (got " + value_text(d.bucket_cap_mb) + ")");
  c.above("distributed.timeout_s", d.timeout_s, 0.0);
  c.above("distributed.join_timeout_s", d.join_timeout_s, 0.0);
  c.at_least("distributed.check_parameters_every", d.check_parameters_every, 0);

  const auto& o = job.output;
  if (o.runs_dir.empty()) c.fail("output.runs_dir", "must not be empty");
  c.at_least("output.save_reconstructions", o.save_reconstructions, 0);
  c.at_least("output.log_every_steps", o.log_every_steps, 1);
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
  const auto& l = job.ldm;
  c.at_least("ldm.autoencoder_steps", l.autoencoder_steps, 1);
  c.at_least("ldm.scale_factor", l.scale_factor, 0.0);
  c.at_least("ldm.encode_tile", l.encode_tile, 0);
  if (l.encode_tile > 0 && l.encode_sample)
    c.fail("ldm.encode_tile", "tiles blend the latent mean; ldm.encode_sample needs the whole volume's variance (set one of them)");
  const auto& g = job.generate;
  c.at_least("generate.num_images", g.num_images, 0);
  c.at_least("generate.base_seed", g.base_seed, std::int64_t{0});
  if (!all_finite_positive(g.spacing)) c.fail("generate.spacing", "every entry must be > 0 mm (got " + list_text(g.spacing) + ")");
  c.one_of("generate.orientation", g.orientation, {"RAS", "LPS"});
  c.at_least("generate.decode_tile", g.decode_tile, 0);
  if (!(g.decode_overlap >= 0.0 && g.decode_overlap < 1.0)) c.fail("generate.decode_overlap", "must be in [0, 1) (got " + std::to_string(g.decode_overlap) + ")");
  c.one_of("generate.decode_blend", g.decode_blend, {"linear", "gaussian"});
  const auto& u = job.model.diffusion_unet;
  if (u.num_class_embeds > 0) c.within("generate.modality", g.modality, 0, u.num_class_embeds - 1);
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
void check_vqgan(const JobSpec& job, Checks& c) {
  const auto& d = job.data;
  for (int i = 0; i < 3; ++i) {
    if (d.patch_stride[i] < 0 || d.patch_stride[i] > d.patch_size[i]) {
      c.fail("data.patch_stride", "every entry must be 0 (= the patch size) or between 1 and data.patch_size; a larger stride skips voxels (got " +
                                      list_text(d.patch_stride) + ", patch " + list_text(d.patch_size) + ")");
      break;
    }
  }
  c.within("data.patch_min_foreground", d.patch_min_foreground, 0.0, 1.0);
  c.within("data.foreground_threshold", d.foreground_threshold, 0.0, 1.0);
  const auto& q = job.model.vqgan;
  const std::string p = "model.vqgan.";
  c.at_least(p + "num_embeddings", q.num_embeddings, 2);
  c.at_least(p + "embedding_dim", q.embedding_dim, 1);
  c.at_least(p + "commitment_cost", q.commitment_cost, 0.0);
  c.one_of(p + "codebook_update", q.codebook_update, {"ema", "straight_through"});
  c.strictly_within(p + "ema_decay", q.ema_decay, 0.0, 1.0);
  if (!(q.dead_code_threshold >= 0 && q.dead_code_threshold < 1))
    c.fail(p + "dead_code_threshold", "must be in [0, 1) (got " + value_text(q.dead_code_threshold) + ")");
  c.at_least(p + "discriminator_iter_start", q.discriminator_iter_start, 0);
  c.at_least(p + "image_gan_weight", q.image_gan_weight, 0.0);
  const std::string& n = job.checkpoint.name_prefix;
  for (char ch : n)
    if (!is_name_char(ch)) {
      c.fail("checkpoint.name_prefix", "may hold only letters, digits, '.', '_' and '-' (it starts file names; got \"" + n + "\")");
      break;
    }
}

// Checked for every task, like the ldm fields.
void check_survival(const JobSpec& job, Checks& c) {
  const auto& r = job.model.resnet;
  const std::string p = "model.resnet.";
  if (r.depth != 10 && r.depth != 18 && r.depth != 34 && r.depth != 50)
    c.fail(p + "depth", "must be 10, 18, 34 or 50 (got " + std::to_string(r.depth) + ")");
  if (r.block_inplanes.size() != 4) {
    c.fail(p + "block_inplanes", "expected 4 values, one per layer (got " + std::to_string(r.block_inplanes.size()) + ")");
  } else {
    for (int v : r.block_inplanes)
      if (v < 1) {
        c.fail(p + "block_inplanes", "every entry must be >= 1 (got " + list_text(r.block_inplanes) + ")");
        break;
      }
  }
  if (r.conv1_t_size < 1 || r.conv1_t_size % 2 == 0) c.fail(p + "conv1_t_size", "must be odd and >= 1 (got " + std::to_string(r.conv1_t_size) + ")");
  c.at_least(p + "conv1_t_stride", r.conv1_t_stride, 1);
  c.one_of(p + "norm", r.norm, {"batch", "group"});
  c.within("data.replace_rate", job.data.replace_rate, 0.0, 1.0);
  if (job.data.smart_cache && !(job.data.cache_rate > 0))
    c.fail("data.cache_rate", "must be > 0 with data.smart_cache (the cache must hold at least one volume)");
  for (char ch : job.data.covariates)
    if (!(std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == ',' || ch == ' ' || ch == '-' || ch == '.')) {
      c.fail("data.covariates", "comma-separated CSV column names (got \"" + job.data.covariates + "\")");
      break;
    }
  const TaskTraits* task = find_task(job.task);
  if (task && task->reads_outcome_labels && job.data.source == DataSource::folder)
    c.fail("data.source", "task " + job.task +
                              " reads its labels from a CSV manifest (source csv) or simulates them (source "
                              "simulated), not from a folder");
}

}  // namespace

std::vector<FieldError> validate_job(const JobSpec& job) {
  std::vector<FieldError> errors;
  Checks checks(errors);
  check_top(job, checks);
  check_data(job, checks, errors);
  check_model(job, checks);
  check_loss(job, checks);
  check_training(job, checks);
  check_checkpoint_and_output(job, checks, errors);
  check_latent_diffusion(job, checks, errors);
  check_vqgan(job, checks);
  check_survival(job, checks);
  return errors;
}

}  // namespace medsynth
