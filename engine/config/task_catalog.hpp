// The tasks a job may name (`task:`), what kind each is and what the verbs
// may do with its runs: the one list that job validation (job_validation.cpp),
// the engine's task registry (train/task_registry.hpp, which adds the
// factories above this layer) and the CLI verbs agree on. No LibTorch: the
// console links this layer.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace medsynth {

enum class TaskKind {
  trainer,   // one Task on the shared trainer (train/task.hpp)
  pipeline,  // stages in one run directory, some of them trainer runs (diffusion/ldm_pipeline.hpp)
};

// The autoencoder a task builds, and what it does with it. The planner
// (config/job_plan.cpp), the memory refusals (config/network_size.cpp) and
// `validate` ask this instead of comparing task names (issue 52).
enum class FirstStageRole {
  none,            // builds no autoencoder
  trained,         // the run trains it: the task is an autoencoder's training
  pipeline_stage,  // the pipeline's first stage trains it, unless ldm.autoencoder_checkpoint names one
  encoder,         // loaded from ldm.autoencoder_checkpoint to encode the training volumes
};

// The diffusion network a task trains, and on what.
enum class DiffusionRole {
  none,
  image_unet,         // model.diffusion_unet on data.patch_size patches of the images
  latent_unet,        // model.diffusion_unet on the latents of whole volumes
  latent_controlnet,  // a ControlNet beside the frozen model.diffusion_unet, on latents
};

struct TaskTraits {
  std::string_view name;
  TaskKind kind = TaskKind::trainer;
  std::string_view stages;            // a pipeline's stages, for messages: "autoencoder, encode, ..."
  bool reconstructs_volumes = false;  // `eval` scores its checkpoints by whole-volume reconstruction
  bool generates_volumes = false;     // `generate` samples new volumes from its runs
  bool reads_outcome_labels = false;  // trains on per-volume outcomes (time, event), which a folder of images lacks
  bool reads_cases = false;  // reads several contrasts per case (data.channels, data.target); generate translates cases
  // The task-specific sections of the job it reads, space-separated, among
  // k_task_specific_sections (data, training, checkpoint, ... are every
  // task's). The console's job editor shows only these (issue 38).
  std::string_view sections;
  // What the task builds (see the enums above). Every task builds at least
  // one network: task_registry_test fails for one that says none.
  FirstStageRole first_stage = FirstStageRole::none;
  std::string_view first_stage_network;  // "autoencoder" or "vqgan"; "" where the job's ldm.first_stage chooses
  DiffusionRole diffusion = DiffusionRole::none;
  bool builds_resnet = false;    // model.resnet
  bool perceptual_loss = false;  // reads loss.perceptual_weight / perceptual_network
};

// The job sections only some tasks read ("model.vqgan", "scheduler", ...).
inline constexpr std::string_view k_task_specific_sections =
    "model.autoencoder model.discriminator model.vqgan model.resnet model.diffusion_unet loss scheduler ldm generate";

// Every task, in the order messages and docs list them.
const std::vector<TaskTraits>& task_catalog();

// The entry named `name`; null when there is none.
const TaskTraits* find_task(std::string_view name);

// Whether a job of `task` reads the field at `path` ("model.vqgan.embedding_dim"):
// true for the sections every task reads, and for the task's own; an ldm job
// reads model.vqgan only with ldm.first_stage vqgan. True for an unknown task
// (nothing is hidden from a job the catalog cannot judge).
bool task_reads_field(std::string_view task, std::string_view path, std::string_view first_stage = "autoencoder");

// Which stage of a pipeline task a field applies to, for the job editor's
// labels ("diffusion stage", "autoencoder stage", "every training stage");
// "" for a trainer task or a field that is not a stage's.
std::string field_stage(std::string_view task, std::string_view path);

// Whether a job of this task trains its autoencoder in this run, given the
// job's ldm.autoencoder_checkpoint.
bool trains_first_stage(const TaskTraits& traits, std::string_view autoencoder_checkpoint);

// Whether the autoencoder it builds is the VQ-GAN, given the job's
// ldm.first_stage (read only where the task leaves the choice to the job).
bool first_stage_is_vqgan(const TaskTraits& traits, std::string_view ldm_first_stage);

// A pipeline's latent training stage, for messages and the planner:
// "diffusion stage", "controlnet stage"; "" for a task without one.
std::string_view latent_stage_name(const TaskTraits& traits);

// The names of every task, in catalog order (validation's one_of).
std::vector<std::string> task_names();

// The names of the tasks with `trait` set, joined by `conjunction`
// ("autoencoder and vqgan"), for the verbs' messages.
std::string task_names_with(bool TaskTraits::*trait, std::string_view conjunction);

}  // namespace medsynth
