// The one list of every job field, in file order. The reader, both writers, the
// hashes and the override checker all walk it, so adding a field to job_spec.hpp
// means adding one line here and nowhere else. Internal to medsynth_config.
//
// A visitor provides:
//   void field(const char* key, T& value);          // T may be const
//   template <class F> void section(const char* key, F&& body);  // body() visits the children
#pragma once

#include <string>
#include <type_traits>
#include <vector>

#include "config/job_spec.hpp"

namespace medsynth {

// model.autoencoder's fields: AutoencoderKLOptions, which the network is built
// from too, so its checks (AutoencoderKLOptions::problems()) walk it alone.
// The job fields of the other networks' options structs (their problems()
// walk these alone, like the autoencoder's): the PatchGAN's, the VQ-GAN's
// quantiser and the survival ResNet.
template <class Discriminator, class Visitor>
void visit_discriminator_network(Discriminator& d, Visitor& v) {
  v.field("num_layers_d", d.num_layers_d);
  v.field("channels", d.channels);
}

template <class Quantizer, class Visitor>
void visit_vector_quantizer(Quantizer& q, Visitor& v) {
  v.field("num_embeddings", q.num_embeddings);
  v.field("embedding_dim", q.embedding_dim);
  v.field("commitment_cost", q.commitment_cost);
  v.field("codebook_update", q.codebook_update);
  v.field("ema_decay", q.ema_decay);
  v.field("dead_code_threshold", q.dead_code_threshold);
}

template <class ResNet, class Visitor>
void visit_resnet(ResNet& r, Visitor& v) {
  v.field("depth", r.depth);
  v.field("block_inplanes", r.block_inplanes);
  v.field("conv1_t_size", r.conv1_t_size);
  v.field("conv1_t_stride", r.conv1_t_stride);
  v.field("no_max_pool", r.no_max_pool);
  v.field("norm", r.norm);
}

template <class Autoencoder, class Visitor>
void visit_autoencoder(Autoencoder& a, Visitor& v) {
  v.field("spatial_dims", a.spatial_dims);
  v.field("in_channels", a.in_channels);
  v.field("out_channels", a.out_channels);
  v.field("latent_channels", a.latent_channels);
  v.field("num_channels", a.num_channels);
  v.field("num_res_blocks", a.num_res_blocks);
  v.field("norm_num_groups", a.norm_num_groups);
  v.field("norm_eps", a.norm_eps);
  v.field("attention_levels", a.attention_levels);
  v.field("with_encoder_nonlocal_attn", a.with_encoder_nonlocal_attn);
  v.field("with_decoder_nonlocal_attn", a.with_decoder_nonlocal_attn);
  v.field("use_checkpointing", a.use_checkpointing);
  v.field("use_convtranspose", a.use_convtranspose);
  v.field("maisi", a.maisi);
  v.field("num_splits", a.num_splits);
  v.field("dim_split", a.dim_split);
  v.field("norm_float16", a.norm_float16);
  v.field("include_fc", a.include_fc);
  v.field("use_combined_linear", a.use_combined_linear);
}

template <class Job, class Visitor>
void visit_job(Job& job, Visitor& v) {
  v.field("name", job.name);
  v.field("task", job.task);
  v.section("data", [&] {
    auto& d = job.data;
    v.field("source", d.source);
    v.field("path", d.path);
    v.field("channels", d.channels);
    v.field("target", d.target);
    v.field("label", d.label);
    v.field("datalist_key", d.datalist_key);
    v.field("root", d.root);
    v.field("modality", d.modality);
    v.field("num_train", d.num_train);
    v.field("num_val", d.num_val);
    v.field("phantom_size", d.phantom_size);
    v.field("phantom_spacing", d.phantom_spacing);
    v.field("noise_hu", d.noise_hu);
    v.field("val_fraction", d.val_fraction);
    v.field("max_volumes", d.max_volumes);
    v.field("ct_window", d.ct_window);
    v.field("mri_percentiles", d.mri_percentiles);
    v.field("mri_clip", d.mri_clip);
    v.field("target_spacing", d.target_spacing);
    v.field("orientation", d.orientation);
    v.field("size_multiple", d.size_multiple);
    v.field("patch_size", d.patch_size);
    v.field("patch_stride", d.patch_stride);
    v.field("patch_min_foreground", d.patch_min_foreground);
    v.field("foreground_threshold", d.foreground_threshold);
    v.field("covariates", d.covariates);
    v.field("smart_cache", d.smart_cache);
    v.field("replace_rate", d.replace_rate);
    v.field("random_flip", d.random_flip);
    v.field("cache_rate", d.cache_rate);
    v.field("num_workers", d.num_workers);
    v.field("prefetch", d.prefetch);
  });
  v.section("model", [&] {
    v.field("tensor_axes", job.model.tensor_axes);
    v.section("autoencoder", [&] { visit_autoencoder(job.model.autoencoder, v); });
    v.section("discriminator", [&] {
      auto& d = job.model.discriminator;
      visit_discriminator_network(d, v);
      v.field("start_step", d.start_step);
    });
    v.section("diffusion_unet", [&] {
      auto& u = job.model.diffusion_unet;
      v.field("channels", u.channels);
      v.field("num_res_blocks", u.num_res_blocks);
      v.field("attention_levels", u.attention_levels);
      v.field("num_head_channels", u.num_head_channels);
      v.field("norm_num_groups", u.norm_num_groups);
      v.field("norm_eps", u.norm_eps);
      v.field("include_spacing_input", u.include_spacing_input);
      v.field("num_class_embeds", u.num_class_embeds);
      v.field("include_top_region_index_input", u.include_top_region_index_input);
      v.field("include_bottom_region_index_input", u.include_bottom_region_index_input);
      v.field("resblock_updown", u.resblock_updown);
      v.field("include_fc", u.include_fc);
      v.field("use_combined_linear", u.use_combined_linear);
      v.field("use_flash_attention", u.use_flash_attention);
    });
    v.section("vqgan", [&] {
      auto& q = job.model.vqgan;
      visit_vector_quantizer(q, v);
      v.field("discriminator_iter_start", q.discriminator_iter_start);
      v.field("image_gan_weight", q.image_gan_weight);
      v.field("video_gan_weight", q.video_gan_weight);
      v.field("gan_feat_weight", q.gan_feat_weight);
    });
    v.section("resnet", [&] { visit_resnet(job.model.resnet, v); });
  });
  v.section("loss", [&] {
    auto& l = job.loss;
    v.field("recon_loss", l.recon_loss);
    v.field("kl_weight", l.kl_weight);
    v.field("logvar_clamp", l.logvar_clamp);
    v.field("adv_weight", l.adv_weight);
    v.field("perceptual_weight", l.perceptual_weight);
    v.field("perceptual_network", l.perceptual_network);
    v.field("perceptual_fake_3d_ratio", l.perceptual_fake_3d_ratio);
  });
  v.section("training", [&] {
    auto& t = job.training;
    v.field("epochs", t.epochs);
    v.field("max_steps", t.max_steps);
    v.field("batch_size", t.batch_size);
    v.field("gradient_accumulation_steps", t.gradient_accumulation_steps);
    v.field("lr", t.lr);
    v.field("optimizer", t.optimizer);
    v.field("weight_decay", t.weight_decay);
    v.field("betas", t.betas);
    v.field("fused_optimizer", t.fused_optimizer);
    v.field("warmup_steps", t.warmup_steps);
    v.field("lr_schedule", t.lr_schedule);
    v.field("min_lr_ratio", t.min_lr_ratio);
    v.field("lr_power", t.lr_power);
    v.field("amp", t.amp);
    v.field("grad_clip_norm", t.grad_clip_norm);
    v.field("base_seed", t.base_seed);
    v.field("deterministic", t.deterministic);
    v.field("val_every_steps", t.val_every_steps);
    v.field("val_max_volumes", t.val_max_volumes);
    v.field("val_sliding_window", t.val_sliding_window);
    v.field("val_overlap", t.val_overlap);
    v.field("ema_decay", t.ema_decay);
    v.field("nan_max_bad_steps", t.nan_max_bad_steps);
    v.field("nan_lr_factor", t.nan_lr_factor);
    v.field("num_threads", t.num_threads);
    v.field("per_sample_noise", t.per_sample_noise);
    v.field("device", t.device);
    v.field("memory_format", t.memory_format);
  });
  v.section("checkpoint", [&] {
    auto& c = job.checkpoint;
    v.field("every_steps", c.every_steps);
    v.field("keep_best", c.keep_best);
    v.field("metric", c.metric);
    v.field("mode", c.mode);
    v.field("resume", c.resume);
    v.field("name_prefix", c.name_prefix);
  });
  v.section("distributed", [&] {
    auto& d = job.distributed;
    v.field("backend", d.backend);
    v.field("bucket_cap_mb", d.bucket_cap_mb);
    v.field("overlap", d.overlap);
    v.field("drop_last", d.drop_last);
    v.field("timeout_s", d.timeout_s);
    v.field("join_timeout_s", d.join_timeout_s);
    v.field("check_parameters_every", d.check_parameters_every);
  });
  v.section("output", [&] {
    auto& o = job.output;
    v.field("runs_dir", o.runs_dir);
    v.field("tensorboard", o.tensorboard);
    v.field("tensorboard_images", o.tensorboard_images);
    v.field("save_reconstructions", o.save_reconstructions);
    v.field("log_every_steps", o.log_every_steps);
  });
  v.section("scheduler", [&] {
    auto& s = job.scheduler;
    v.field("kind", s.kind);
    v.field("num_train_timesteps", s.noise.num_train_timesteps);
    v.field("beta_schedule", s.noise.beta_schedule);
    v.field("beta_start", s.noise.beta_start);
    v.field("beta_end", s.noise.beta_end);
    v.field("prediction_type", s.prediction_type);
    v.field("num_inference_steps", s.num_inference_steps);
    v.field("ddim_eta", s.ddim_eta);
    v.field("clip_sample", s.clip_sample);
    v.field("clip_sample_value", s.clip_sample_value);
    v.field("sample_method", s.sample_method);
    v.field("use_timestep_transform", s.use_timestep_transform);
    v.field("base_img_size_numel", s.base_img_size_numel);
    v.field("monai_timestep_arithmetic", s.monai_timestep_arithmetic);
    v.field("fast_ddpm_schedule", s.fast_ddpm_schedule);
    v.field("fast_ddpm_steps", s.fast_ddpm_steps);
  });
  v.section("ldm", [&] {
    auto& l = job.ldm;
    v.field("first_stage", l.first_stage);
    v.field("autoencoder_checkpoint", l.autoencoder_checkpoint);
    v.field("diffusion_init", l.diffusion_init);
    v.field("controlnet_config", l.controlnet_config);
    v.field("controlnet_init", l.controlnet_init);
    v.field("diffusion_loss", l.diffusion_loss);
    v.field("controlnet_weighted_loss", l.controlnet_weighted_loss);
    v.field("controlnet_weighted_labels", l.controlnet_weighted_labels);
    v.field("controlnet_region_contrastive", l.controlnet_region_contrastive);
    v.field("controlnet_region_contrastive_delta", l.controlnet_region_contrastive_delta);
    v.field("controlnet_region_contrastive_weight", l.controlnet_region_contrastive_weight);
    v.field("autoencoder_steps", l.autoencoder_steps);
    v.field("embedding_dir", l.embedding_dir);
    v.field("scale_factor", l.scale_factor);
    v.field("encode_sample", l.encode_sample);
    v.field("encode_tile", l.encode_tile);
    v.field("embedding_layout", l.embedding_layout);
  });
  v.section("generate", [&] {
    auto& g = job.generate;
    v.field("num_images", g.num_images);
    v.field("base_seed", g.base_seed);
    v.field("output_size", g.output_size);
    v.field("spacing", g.spacing);
    v.field("orientation", g.orientation);
    v.field("decode_tile", g.decode_tile);
    v.field("decode_overlap", g.decode_overlap);
    v.field("decode_blend", g.decode_blend);
    v.field("body_crop", g.body_crop);
    v.field("label_image_int16", g.label_image_int16);
    v.field("guide_against_tumour_free_label", g.guide_against_tumour_free_label);
    v.field("evaluate", g.evaluate);
    v.field("modality", g.modality);
    v.field("guidance_scale", g.guidance_scale);
    v.field("top_region_index", g.top_region_index);
    v.field("bottom_region_index", g.bottom_region_index);
  });
}

// Calls fn(dotted_path, value) for every field of `job` in file order
// ("training.lr", job.training.lr): for code that treats fields alike.
template <class Fn>
class JobFieldWalker {
 public:
  // `prefix`: where the visited part sits in a job ("model.autoencoder.").
  explicit JobFieldWalker(Fn& fn, std::string prefix = {}) : fn_(fn), prefix_(std::move(prefix)) {}
  template <class F>
  void section(const char* key, F&& body) {
    const auto length = prefix_.size();
    prefix_ += std::string(key) + ".";
    body();
    prefix_.resize(length);
  }
  template <class T>
  void field(const char* key, T& value) {
    fn_(prefix_ + key, value);
  }

 private:
  Fn& fn_;
  std::string prefix_;
};

template <class Job, class Fn>
void for_each_job_field(Job& job, Fn&& fn) {
  JobFieldWalker<std::remove_reference_t<Fn>> walker(fn);
  visit_job(job, walker);
}

// The shape of the schema without values: for checking override keys and for
// suggesting a key that lives in another section.
struct SchemaNode {
  std::string name;
  bool is_section = false;
  std::vector<SchemaNode> children;

  const SchemaNode* child(const std::string& key) const;
  std::vector<std::string> child_names() const;
};

// The root (an unnamed section holding name, task, data, ...).
const SchemaNode& job_schema();

// Dotted paths of every leaf field named `key` ("patch_size" -> {"data.patch_size"}).
std::vector<std::string> schema_paths_named(const std::string& key);

// "; did you mean 'data.patch_size'?" when `key` is a field of another section,
// else "; did you mean 'x'?" for a near miss among the `known` keys of its
// level, else "".
std::string unknown_key_hint(const std::string& key, const std::vector<std::string>& known);

}  // namespace medsynth
