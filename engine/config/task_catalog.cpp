#include "config/task_catalog.hpp"

namespace medsynth {

const std::vector<TaskTraits>& task_catalog() {
  static const std::vector<TaskTraits> catalog{
      {.name = "autoencoder", .kind = TaskKind::trainer, .reconstructs_volumes = true},
      {.name = "ldm",
       .kind = TaskKind::pipeline,
       .stages = "autoencoder, encode, diffusion, generate",
       .generates_volumes = true},
      {.name = "controlnet", .kind = TaskKind::pipeline, .stages = "encode, controlnet", .generates_volumes = true},
      {.name = "vqgan", .kind = TaskKind::trainer, .reconstructs_volumes = true},
      {.name = "survival", .kind = TaskKind::trainer, .reads_outcome_labels = true},
      {.name = "translation", .kind = TaskKind::trainer, .stages = "", .generates_volumes = true, .reads_cases = true},
  };
  return catalog;
}

const TaskTraits* find_task(std::string_view name) {
  for (const auto& traits : task_catalog())
    if (traits.name == name) return &traits;
  return nullptr;
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
