#include "diffusion/maisi_import.hpp"

#include <ATen/ATen.h>
#include <nlohmann/json.hpp>
#include <torch/nn/module.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>

#include "config/job_loader.hpp"
#include "config/maisi_models.hpp"
#include "config/maisi_network_config.hpp"
#include "core/error.hpp"
#include "models/controlnet_maisi.hpp"
#include "models/diffusion_model_unet.hpp"
#include "diffusion/latent_files.hpp"
#include "models/autoencoder_kl.hpp"
#include "contract/run_directory.hpp"
#include "weights/state_dict_loading.hpp"
#include "state/tensor_file.hpp"
#include "weights/torch_archive.hpp"
#include "config/network_size.hpp"
#include "config/number_text.hpp"
#include "core/bounded_json.hpp"
#include "core/remove_tree.hpp"
#include "events/event_writer.hpp"
#include "volume/atomic_file.hpp"

namespace fs = std::filesystem;

namespace medsynth {

namespace {

// config/network_size estimates the MAISI networks within a factor of 2, so
// weights storing a quarter of the estimate cannot be the config's network.
constexpr double k_estimate_accuracy = 4.0;

// The module's tensors under RUN's checkpoint names ("model.<task module>.<name>").
TensorFile checkpoint_of(torch::nn::Module& module, const std::string& task_module, const std::string& source) {
  TensorFile file;
  for (const auto& p : module.named_parameters(true)) file.tensors["model." + task_module + "." + p.key()] = p.value().detach().contiguous();
  for (const auto& b : module.named_buffers(true)) file.tensors["model." + task_module + "." + b.key()] = b.value().detach().contiguous();
  file.metadata["source"] = "medsynth-engine import-maisi";
  file.metadata["imported_from"] = fs::absolute(source).string();
  return file;
}

nlohmann::json read_json_object(const std::string& path) {
  auto j = read_bounded_json_file(path, k_document_json_cap, "cannot be opened");
  if (!j.is_object()) throw DataError(path, "is not a JSON object");
  return j;
}

// The weights' paths: given, else environment_<model>.json's, else NV-Generate's file names.
struct WeightFiles {
  std::string autoencoder, diffusion, controlnet;
};

WeightFiles weight_files(const MaisiImportOptions& o) {
  const fs::path root(o.folder);
  nlohmann::json env;
  const auto env_path = root / "configs" / ("environment_" + o.model + ".json");
  // rflow-mr-brain has only its training recipe's environment, whose
  // existing_ckpt_filepath names the released UNet.
  const auto recipe_path = root / "configs" / ("environment_maisi_diff_model_" + o.model + ".json");
  if (fs::is_regular_file(env_path)) {
    env = read_json_object(env_path.string());
  } else if (fs::is_regular_file(recipe_path)) {
    env = read_json_object(recipe_path.string());
    if (!env.contains("trained_diffusion_path") && env.contains("existing_ckpt_filepath"))
      env["trained_diffusion_path"] = env["existing_ckpt_filepath"];
  }
  auto pick = [&](const std::string& given, const char* key, const std::string& fallback) {
    if (!given.empty()) return given;
    if (env.contains(key) && env[key].is_string()) return (root / env[key].get<std::string>()).lexically_normal().string();
    return (root / fallback).string();
  };
  WeightFiles w;
  w.autoencoder = pick(o.autoencoder, "trained_autoencoder_path", "models/autoencoder_v1.pt");
  w.diffusion = pick(o.diffusion, "trained_diffusion_path", "models/diff_unet_3d_" + o.model + ".pt");
  w.controlnet = pick(o.controlnet, "trained_controlnet_path", "models/controlnet_3d_" + o.model + ".pt");
  for (const auto* p : {&w.autoencoder, &w.diffusion})
    if (!fs::is_regular_file(*p)) throw DataError(*p, "not found (download NV-Generate's models, or name the file)");
  if (!o.controlnet.empty() && !fs::is_regular_file(w.controlnet)) throw DataError(w.controlnet, "not found");
  if (!fs::is_regular_file(w.controlnet)) w.controlnet.clear();
  return w;
}

// NV-Generate's inference settings (config_infer.json) as the job's generate defaults.
void apply_infer_config(const std::string& path, JobSpec& job) {
  const auto j = read_json_object(path);
  try {
    if (j.contains("output_size")) job.generate.output_size = j["output_size"].get<std::array<int, 3>>();
    if (j.contains("spacing")) job.generate.spacing = j["spacing"].get<std::array<double, 3>>();
    if (j.contains("modality") && j["modality"].is_number_integer()) job.generate.modality = j["modality"].get<int>();
    // NV-Generate decodes in latent windows of this size (ours are cubes),
    // blended with MONAI's Gaussian at this overlap.
    if (j.contains("autoencoder_sliding_window_infer_size")) {
      const auto window = j["autoencoder_sliding_window_infer_size"].get<std::vector<int>>();
      if (!window.empty()) job.generate.decode_tile = *std::min_element(window.begin(), window.end());
    }
    if (j.contains("autoencoder_sliding_window_infer_overlap"))
      job.generate.decode_overlap = j["autoencoder_sliding_window_infer_overlap"].get<double>();
    if (j.contains("num_inference_steps") && job.scheduler.kind == SchedulerKind::rflow)
      job.scheduler.num_inference_steps = j["num_inference_steps"].get<int>();
    if (j.contains("cfg_guidance_scale")) job.generate.guidance_scale = j["cfg_guidance_scale"].get<double>();
  } catch (const nlohmann::json::exception& e) {
    throw DataError(path, std::string("has a field of the wrong type: ") + e.what());
  }
}

// The model's own inference recipe (config_maisi_diff_model_<model>.json's
// diffusion_unet_inference, what NV-Generate's diff_model_infer.py samples
// with): its class label, guidance scale and steps win over config_infer.json,
// and for an MR model its field of view too (dim and spacing: rflow-mr
// 128 x 256 x 256 at 1.25 x 1 x 1 mm, where config_infer.json gives CT's).
void apply_model_inference_config(const std::string& path, JobSpec& job, bool mr) {
  const auto file = read_json_object(path);
  if (!file.contains("diffusion_unet_inference")) return;
  const auto& j = file["diffusion_unet_inference"];
  try {
    if (j.contains("modality") && j["modality"].is_number_integer()) job.generate.modality = j["modality"].get<int>();
    if (j.contains("cfg_guidance_scale")) job.generate.guidance_scale = j["cfg_guidance_scale"].get<double>();
    if (j.contains("num_inference_steps") && job.scheduler.kind == SchedulerKind::rflow)
      job.scheduler.num_inference_steps = j["num_inference_steps"].get<int>();
    if (mr && j.contains("dim")) job.generate.output_size = j["dim"].get<std::array<int, 3>>();
    if (mr && j.contains("spacing")) job.generate.spacing = j["spacing"].get<std::array<double, 3>>();
  } catch (const nlohmann::json::exception& e) {
    throw DataError(path, std::string("has a field of the wrong type in diffusion_unet_inference: ") + e.what());
  }
}

// NV-Generate's training recipe for the released UNet: what
// diff_model_train.py hard-codes (Adam without weight decay, PolynomialLR of
// power 2 over the whole run, L1 on the scheduler's target, no clipping)
// and what the model's config_maisi_diff_model_<model>.json gives under
// diffusion_unet_train (lr, batch_size, n_epochs). An imported run fine-tunes
// with it unless a field is overridden (docs/maisi.md, "The recipe").
void apply_training_recipe(const std::string& path, JobSpec& job) {
  job.training.optimizer = "adam";
  job.training.weight_decay = 0.0;
  job.training.lr_schedule = "polynomial";
  job.training.lr_power = 2.0;
  job.training.warmup_steps = 0;
  job.training.grad_clip_norm = 0.0;
  job.ldm.diffusion_loss = "l1";
  job.training.lr = 1e-4;  // the released configs' value, when the file is absent
  if (path.empty()) return;
  const auto file = read_json_object(path);
  if (!file.contains("diffusion_unet_train")) return;
  const auto& j = file["diffusion_unet_train"];
  try {
    if (j.contains("lr")) job.training.lr = j["lr"].get<double>();
    if (j.contains("batch_size")) job.training.batch_size = j["batch_size"].get<int>();
    if (j.contains("n_epochs")) job.training.epochs = j["n_epochs"].get<int>();
  } catch (const nlohmann::json::exception& e) {
    throw DataError(path, std::string("has a field of the wrong type in diffusion_unet_train: ") + e.what());
  }
  if (!(job.training.lr > 0) || !std::isfinite(job.training.lr))
    throw DataError(path, "diffusion_unet_train.lr must be a number > 0");
  if (job.training.batch_size < 1) throw DataError(path, "diffusion_unet_train.batch_size must be at least 1");
  if (job.training.epochs < 1) throw DataError(path, "diffusion_unet_train.n_epochs must be at least 1");
}

// NV-Generate's ControlNet recipe (config_maisi_controlnet_train_<model>.json's
// controlnet_train): the weighted region of the loss, which only task
// controlnet reads. Its learning rate differs from the UNet's and is named
// in a note, since both tasks train from the one job of the run.
void apply_controlnet_recipe(const std::string& path, JobSpec& job, std::vector<std::string>& notes) {
  const auto file = read_json_object(path);
  if (!file.contains("controlnet_train")) return;
  const auto& j = file["controlnet_train"];
  try {
    if (j.contains("weighted_loss")) job.ldm.controlnet_weighted_loss = j["weighted_loss"].get<double>();
    if (j.contains("weighted_loss_label"))
      job.ldm.controlnet_weighted_labels = j["weighted_loss_label"].get<std::vector<int>>();
    // NV-Generate requires the delta and weight whenever the switch is there.
    if (j.contains("use_region_contrasive_loss")) {
      if (!j.contains("region_contrasive_loss_delta") || !j.contains("region_contrasive_loss_weight"))
        throw DataError(path,
                        "controlnet_train has use_region_contrasive_loss but not both region_contrasive_loss_delta "
                        "and region_contrasive_loss_weight (NV-Generate refuses such a config too)");
      job.ldm.controlnet_region_contrastive = j["use_region_contrasive_loss"].get<bool>();
      job.ldm.controlnet_region_contrastive_delta = j["region_contrasive_loss_delta"].get<double>();
      job.ldm.controlnet_region_contrastive_weight = j["region_contrasive_loss_weight"].get<double>();
    }
    if (j.contains("lr"))
      notes.push_back("NV-Generate trains the ControlNet at lr " + short_number(j["lr"].get<double>()) + " (" + path +
                      "): train RUN task=controlnet training.lr=" + short_number(j["lr"].get<double>()));
  } catch (const nlohmann::json::exception& e) {
    throw DataError(path, std::string("has a field of the wrong type in controlnet_train: ") + e.what());
  }
}

// A weight that is NaN or infinite makes every image NaN (the audit's all-NaN
// weights imported with exit 0 and generated an all-NaN volume): refused
// here, naming the tensor.
void refuse_non_finite(torch::nn::Module& network, const std::string& file) {
  for (const auto& p : network.named_parameters(/*recurse=*/true))
    if (!p.value().isfinite().all().item<bool>())
      throw DataError(file, "weight '" + p.key() + "' holds NaN or infinite values; no network can use it");
  for (const auto& b : network.named_buffers(/*recurse=*/true))
    if (b.value().is_floating_point() && !b.value().isfinite().all().item<bool>())
      throw DataError(file, "buffer '" + b.key() + "' holds NaN or infinite values; no network can use it");
}

// Writes the run into `tmp`, which is then renamed to `final_dir`.
void write_imported_run(const fs::path& tmp, const fs::path& final_dir, const JobSpec& job,
                        const MaisiNetworkConfig& config, const WeightFiles& files, const std::string& network,
                        AutoencoderKLImpl& autoencoder, DiffusionModelUNetImpl& unet, MaisiImportResult& result,
                        const std::function<void()>& reading_controlnet);
void write_import_events(const RunDirectory& tmp_run, const JobSpec& job, const fs::path& final_dir);

JobSpec imported_job(const MaisiImportOptions& o, const MaisiNetworkConfig& config, std::vector<std::string>& notes) {
  JobSpec job;
  job.name = "maisi-" + o.model;
  job.task = "ldm";
  job.data.modality = is_maisi_mr_model(o.model) ? Modality::mri : Modality::ct;
  job.generate.modality = default_maisi_modality(o.model);
  job.data.ct_window = {-1000.0, 1000.0};  // MAISI's intensity range for CT
  // NV-Generate's preparation of training data (diff_model_create_training_data.py),
  // used when the run is trained on: RAS arrays, each axis resized to a multiple of 128.
  job.data.orientation = "RAS";
  job.data.size_multiple = 128;
  job.model.tensor_axes = "xyz";
  job.model.autoencoder = config.autoencoder;
  job.model.diffusion_unet = config.diffusion_unet;
  job.scheduler = config.scheduler;
  // Sampled as NV-Generate's loop samples with MONAI's RFlowScheduler.
  job.scheduler.monai_timestep_arithmetic = job.scheduler.kind == SchedulerKind::rflow;
  job.generate.output_size = {256, 256, 256};
  job.generate.spacing = {1.5, 1.5, 2.0};
  job.generate.decode_overlap = 0.6666;  // NV-Generate's, unless config_infer.json says otherwise
  job.generate.decode_blend = "gaussian";
  job.generate.body_crop = true;                        // NV-Generate's crop_img_body_mask for an image from a label
  job.generate.label_image_int16 = true;                // and its int16 output
  job.generate.guide_against_tumour_free_label = true;  // and its unconditional label (remove_tumors)
  if (config.include_body_region) job.generate.top_region_index = job.generate.bottom_region_index = {0, 1, 0, 0};  // chest
  const std::string infer = o.infer_config.empty() ? (fs::path(o.folder) / "configs" / "config_infer.json").string() : o.infer_config;
  if (!o.infer_config.empty() || fs::is_regular_file(infer)) apply_infer_config(infer, job);
  const auto recipe = fs::path(o.folder) / "configs" / ("config_maisi_diff_model_" + o.model + ".json");
  if (fs::is_regular_file(recipe)) apply_model_inference_config(recipe.string(), job, is_maisi_mr_model(o.model));
  apply_training_recipe(fs::is_regular_file(recipe) ? recipe.string() : std::string(), job);
  const auto controlnet_recipe =
      fs::path(o.folder) / "configs" / ("config_maisi_controlnet_train_" + o.model + ".json");
  if (fs::is_regular_file(controlnet_recipe)) apply_controlnet_recipe(controlnet_recipe.string(), job, notes);
  // NV-Generate's MR preparation: percentiles 0 to 99.5, not clipped.
  if (is_maisi_mr_model(o.model)) {
    job.data.mri_percentiles = {0.0, 99.5};
    job.data.mri_clip = false;
  }
  // NV-Generate's config_infer.json says modality 1 (CT) for every model; an
  // MR model given a CT class label made CT-like images in [0, 1] (issue 34:
  // `--model rflow-mr` silently took CT). The MR default is NV-Generate's own
  // for the model, and the user is told.
  if (is_maisi_mr_model(o.model) && !is_maisi_mr_modality(job.generate.modality)) {
    notes.push_back(
        infer + " says modality " + std::to_string(job.generate.modality) + " (CT); " + o.model +
        " generates MR: using " + std::to_string(default_maisi_modality(o.model)) +
        " (mri_t1, NV-Generate's default for it); another MR contrast: generate.modality=N (docs/maisi.md)");
    job.generate.modality = default_maisi_modality(o.model);
  }
  // An MR model sampled without guidance looks like CT (MONAI#8559):
  // NV-Generate's own scale unless a config names one.
  if (is_maisi_mr_model(o.model) && job.generate.guidance_scale == 0.0) {
    job.generate.guidance_scale = default_maisi_guidance_scale(o.model);
    notes.push_back("classifier-free guidance scale " + std::to_string(static_cast<int>(job.generate.guidance_scale)) +
                    " (NV-Generate's for " + o.model + "); generate.guidance_scale=0 turns it off");
  }
  return job;
}

}  // namespace

void MaisiImportOptions::validate() const {
  if (folder.empty()) throw UsageError("FOLDER: name the NV-Generate folder holding configs/ and models/");
  if (const auto problem = maisi_model_problem(model); !problem.empty()) throw UsageError("--model: " + problem);
  if (out.empty()) throw UsageError("--out: name the run directory to create");
  if (fs::exists(out)) throw UsageError("--out: " + out + " exists; import-maisi writes a new run directory");
}

MaisiImportResult import_maisi(const MaisiImportOptions& o) {
  o.validate();
  const std::string network = !o.network_config.empty() ? o.network_config
                              : (fs::path(o.folder) / "configs" /
                                 (o.model == "ddpm-ct" ? "config_network_ddpm.json" : "config_network_rflow.json")).string();
  const MaisiNetworkConfig config = read_maisi_network_config(network);
  const WeightFiles files = weight_files(o);
  std::vector<std::string> notes;
  JobSpec job = imported_job(o, config, notes);
  if (auto errors = validate_job(job); !errors.empty()) throw ConfigError(std::move(errors), network);

  // Sized from the config before anything is allocated (a stranger's config
  // asked for 464 GB).
  refuse_network_larger_than_memory(estimated_parameters(job.model.autoencoder), network, "autoencoder_def");
  refuse_network_larger_than_memory(estimated_parameters(job.model.diffusion_unet), network, "diffusion_unet_def");
  const bool with_controlnet = !files.controlnet.empty() && config.controlnet;
  const int steps = with_controlnet ? 4 : 3;
  int step = 0;
  const auto report = [&](const std::string& what) {
    if (o.on_step) o.on_step(what, ++step, steps);
  };
  // Each file is read before its network is built, and a network far larger
  // than what the file stores is never built: a config of other sizes beside
  // small weights allocated 1.2 and 2.1 GB before the strict load found the
  // mismatch (issue 50).
  const std::string config_name = fs::path(network).filename().string();
  report("reading the autoencoder's weights (" + files.autoencoder + ")");
  const auto autoencoder_weights = state_dict_of(read_torch_file(files.autoencoder), files.autoencoder);
  refuse_network_larger_than_its_file(estimated_parameters(job.model.autoencoder), stored_elements(autoencoder_weights),
                                      k_estimate_accuracy, files.autoencoder, config_name + "'s autoencoder_def asks");
  AutoencoderKL autoencoder(job.model.autoencoder);
  load_state_dict_strict(*autoencoder, autoencoder_weights, files.autoencoder);
  refuse_non_finite(*autoencoder, files.autoencoder);
  auto unet_options = job.model.diffusion_unet;
  report("reading the diffusion UNet's weights (" + files.diffusion + ")");
  const PickleValue diffusion_file = read_torch_file(files.diffusion);
  const auto unet_weights = state_dict_of(diffusion_file, files.diffusion);
  refuse_network_larger_than_its_file(estimated_parameters(unet_options), stored_elements(unet_weights),
                                      k_estimate_accuracy, files.diffusion, config_name + "'s diffusion_unet_def asks");
  DiffusionModelUNet unet(unet_options);
  load_state_dict_strict(*unet, unet_weights, files.diffusion);
  refuse_non_finite(*unet, files.diffusion);
  const auto extras = scalar_extras_of(diffusion_file);
  const auto scale = extras.find("scale_factor");
  if (scale == extras.end() || !(scale->second > 0) || !std::isfinite(scale->second))
    throw DataError(files.diffusion, "has no positive scale_factor beside unet_state_dict (NV-Generate stores the latent scale there)");

  MaisiImportResult result;
  result.scale_factor = scale->second;
  result.sources = {files.autoencoder, files.diffusion};
  result.notes = notes;
  // Written under a temporary name and renamed: a failed import leaves no half run.
  const fs::path final_dir = fs::absolute(o.out);
  const fs::path tmp = final_dir.parent_path() / ("." + final_dir.filename().string() + ".importing");
  remove_tree(tmp);
  try {
    report("writing the run's checkpoints (" + final_dir.string() + ")");
    write_imported_run(tmp, final_dir, job, config, files, network, *autoencoder, *unet, result,
                       [&] { report("reading the ControlNet's weights (" + files.controlnet + ")"); });
    fs::rename(tmp, final_dir);
  } catch (...) {
    // Real MAISI weights are gigabytes: a failed import takes its folder with it.
    std::error_code ignored;
    remove_tree(tmp, ignored);
    throw;
  }
  result.run_dir = final_dir.string();
  return result;
}

namespace {

void write_imported_run(const fs::path& tmp, const fs::path& final_dir, const JobSpec& job,
                        const MaisiNetworkConfig& config, const WeightFiles& files, const std::string& network,
                        AutoencoderKLImpl& autoencoder, DiffusionModelUNetImpl& unet, MaisiImportResult& result,
                        const std::function<void()>& reading_controlnet) {
  const RunDirectory run{tmp.string()};
  const RunDirectory autoencoder_stage = run.stage(k_autoencoder_stage), diffusion_stage = run.stage(k_diffusion_stage);
  fs::create_directories(autoencoder_stage.checkpoints_dir());
  fs::create_directories(diffusion_stage.checkpoints_dir());
  write_tensor_file(autoencoder_stage.last_checkpoint(), checkpoint_of(autoencoder, "autoencoder", files.autoencoder));
  write_tensor_file(diffusion_stage.last_checkpoint(), checkpoint_of(unet, "unet", files.diffusion));
  // The ControlNet's network config whenever the folder's has a
  // controlnet_def, released weights or not: `train RUN task=controlnet`
  // then trains one from the UNet's encoder for a model NVIDIA released
  // none for (rflow-mr, rflow-mr-brain: issue 54 item 7), and generate
  // --label rebuilds the ControlNet from the config it was imported with.
  const RunDirectory controlnet_stage = run.stage(k_controlnet_stage);
  if (config.controlnet) {
    fs::create_directories(controlnet_stage.root);
    fs::copy_file(network, controlnet_stage.network_config_file());
  }
  if (!files.controlnet.empty() && config.controlnet) {
    reading_controlnet();
    ControlNetMaisi controlnet(*config.controlnet);
    load_state_dict_strict(*controlnet, state_dict_of(read_torch_file(files.controlnet), files.controlnet), files.controlnet);
    refuse_non_finite(*controlnet, files.controlnet);
    fs::create_directories(controlnet_stage.checkpoints_dir());
    write_tensor_file(controlnet_stage.last_checkpoint(), checkpoint_of(*controlnet, "controlnet", files.controlnet));
    result.controlnet = true;
    result.sources.push_back(files.controlnet);
  }
  fs::create_directories(run.embedding_dir());
  write_scale_factor(run.scale_factor_file(), result.scale_factor, 1.0 / result.scale_factor);
  write_string_atomically(run.job_file(), job_to_yaml(job));
  write_import_events(run, job, final_dir);
}

// A complete stream of zero steps (run_started, run_finished "completed",
// extra.verb "import-maisi"): the console lists an imported run as finished,
// not as one that started and never ended (issue 53 item 5).
void write_import_events(const RunDirectory& tmp_run, const JobSpec& job, const fs::path& final_dir) {
  EventWriter events({.path = tmp_run.events_file(), .rank = 0});
  const EventFields verb{{"verb", "import-maisi"}};
  events.run_started({.run_dir = final_dir.string(),
                      .job_name = job.name,
                      .task = job.task,
                      .config_hash = job_config_hash(job),
                      .world_size = 1,
                      .effective_batch = 1,
                      .total_steps = 0,
                      .device = "cpu",
                      .extra = verb});
  events.run_finished("completed", {}, 0.0, verb);
}

}  // namespace

}  // namespace medsynth
