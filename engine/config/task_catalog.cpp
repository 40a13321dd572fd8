#include "config/task_catalog.hpp"

namespace medsynth {

const std::vector<TaskTraits>& task_catalog() {
  static const std::vector<TaskTraits> catalog{
      {.name = "autoencoder",
       .kind = TaskKind::trainer,
       .reconstructs_volumes = true,
       .sections = "model.autoencoder model.discriminator loss",
       .first_stage = FirstStageRole::trained,
       .first_stage_network = "autoencoder"},
      // Its autoencoder stage is an autoencoder or vqgan task (ldm.first_stage).
      {.name = "ldm",
       .kind = TaskKind::pipeline,
       .stages = "autoencoder, encode, diffusion, generate",
       .generates_volumes = true,
       .sections = "model.autoencoder model.discriminator model.vqgan loss model.diffusion_unet scheduler ldm generate",
       .first_stage = FirstStageRole::pipeline_stage,
       .diffusion = DiffusionRole::latent_unet},
      {.name = "controlnet",
       .kind = TaskKind::pipeline,
       .stages = "encode, controlnet",
       .generates_volumes = true,
       .sections = "model.autoencoder model.diffusion_unet scheduler ldm generate",
       .first_stage = FirstStageRole::encoder,
       .first_stage_network = "autoencoder",
       .diffusion = DiffusionRole::latent_controlnet},
      {.name = "vqgan",
       .kind = TaskKind::trainer,
       .reconstructs_volumes = true,
       .sections = "model.autoencoder model.discriminator model.vqgan loss",
       .first_stage = FirstStageRole::trained,
       .first_stage_network = "vqgan",
       .perceptual_loss = true},
      {.name = "survival",
       .kind = TaskKind::trainer,
       .reads_outcome_labels = true,
       .sections = "model.resnet",
       .builds_resnet = true},
      {.name = "translation",
       .kind = TaskKind::trainer,
       .stages = "",
       .generates_volumes = true,
       .reads_cases = true,
       .sections = "model.diffusion_unet scheduler generate",
       .diffusion = DiffusionRole::image_unet},
  };
  return catalog;
}

const TaskTraits* find_task(std::string_view name) {
  for (const auto& traits : task_catalog())
    if (traits.name == name) return &traits;
  return nullptr;
}

namespace {

// Does the space-separated `list` hold `word`?
bool lists(std::string_view list, std::string_view word) {
  while (!list.empty()) {
    const auto end = list.find(' ');
    if (list.substr(0, end) == word) return true;
    if (end == std::string_view::npos) break;
    list.remove_prefix(end + 1);
  }
  return false;
}

// The task-specific section `path` lies in ("model.vqgan"), or "".
std::string_view specific_section(std::string_view path) {
  for (std::string_view list = k_task_specific_sections; !list.empty();) {
    const auto end = list.find(' ');
    const std::string_view section = list.substr(0, end);
    if (path == section ||
        (path.size() > section.size() && path.substr(0, section.size()) == section && path[section.size()] == '.'))
      return section;
    if (end == std::string_view::npos) break;
    list.remove_prefix(end + 1);
  }
  return {};
}

}  // namespace

bool task_reads_field(std::string_view task, std::string_view path, std::string_view first_stage) {
  const TaskTraits* traits = find_task(task);
  const std::string_view section = specific_section(path);
  if (!traits || section.empty()) return true;
  if (section == "model.vqgan" && traits->first_stage_network.empty()) return first_stage == "vqgan";
  return lists(traits->sections, section);
}

std::string field_stage(std::string_view task, std::string_view path) {
  const TaskTraits* traits = find_task(task);
  if (!traits || traits->kind != TaskKind::pipeline) return {};
  const bool ldm = traits->first_stage == FirstStageRole::pipeline_stage;  // trains its autoencoder too
  const std::string_view section = specific_section(path);
  const std::string main_stage(latent_stage_name(*traits));
  if (path == "training.max_steps") return main_stage;
  if (path == "ldm.autoencoder_steps") return "autoencoder stage";
  if (path.substr(0, 9) == "training." || path.substr(0, 11) == "checkpoint.")
    return ldm ? "every training stage" : main_stage;
  if (section == "model.autoencoder") return ldm ? "autoencoder stage and encode" : "encode";
  if (section == "model.discriminator" || section == "model.vqgan" || section == "loss") return "autoencoder stage";
  if (section == "model.diffusion_unet" || section == "scheduler")
    return ldm ? "diffusion stage and generate" : main_stage;
  if (section == "generate") return "generate";
  return {};
}

bool trains_first_stage(const TaskTraits& traits, std::string_view autoencoder_checkpoint) {
  return traits.first_stage == FirstStageRole::trained ||
         (traits.first_stage == FirstStageRole::pipeline_stage && autoencoder_checkpoint.empty());
}

bool first_stage_is_vqgan(const TaskTraits& traits, std::string_view ldm_first_stage) {
  return (traits.first_stage_network.empty() ? ldm_first_stage : traits.first_stage_network) == "vqgan";
}

std::string_view latent_stage_name(const TaskTraits& traits) {
  switch (traits.diffusion) {
    case DiffusionRole::latent_unet:
      return "diffusion stage";
    case DiffusionRole::latent_controlnet:
      return "controlnet stage";
    default:
      return {};
  }
}

std::vector<std::string> task_names() {
  std::vector<std::string> names;
  for (const auto& traits : task_catalog()) names.emplace_back(traits.name);
  return names;
}

std::string task_names_with(bool TaskTraits::*trait, std::string_view conjunction) {
  std::string text;
  for (const auto& traits : task_catalog())
    if (traits.*trait) text += (text.empty() ? std::string() : std::string(conjunction)) + std::string(traits.name);
  return text;
}

}  // namespace medsynth
