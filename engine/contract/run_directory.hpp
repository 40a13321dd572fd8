// The run directory of ARCHITECTURE.md: runs/<name>-<YYYYmmdd-HHMMSS>/ with
// job.yaml, events.jsonl, logs/, checkpoints/, embedding/, output/, tb/.
// Created by the CLI's train verb before the trainer starts; reopened for --resume.
// Part of the engine/console contract (medsynth_contract): no LibTorch, no Qt.
#pragma once

#include <string>

namespace medsynth {

// The job a run was started with, and its event stream (docs/events.md):
// the files by which the console knows a folder for a run.
inline constexpr const char* k_job_file = "job.yaml";
inline constexpr const char* k_events_file = "events.jsonl";

// The file name of a run's last checkpoint: what --resume, a restarted
// worker and generate read; written here once.
inline constexpr const char* k_last_checkpoint_file = "last.safetensors";
// The latent scale of an embedding folder's latents (diffusion/latent_files.hpp).
inline constexpr const char* k_scale_factor_file = "scale_factor.json";

// The stages of a pipeline run (ldm; a run made by import-maisi) are run
// directories of their own, one folder each under the pipeline's.
inline constexpr const char* k_autoencoder_stage = "autoencoder";
inline constexpr const char* k_diffusion_stage = "diffusion";
inline constexpr const char* k_controlnet_stage = "controlnet";

struct RunDirectory {
  std::string root;
  std::string job_file() const { return root + "/" + k_job_file; }
  std::string events_file() const { return root + "/" + k_events_file; }
  std::string logs_dir() const { return root + "/logs"; }
  std::string rank_log(int rank) const { return logs_dir() + "/rank" + std::to_string(rank) + ".log"; }
  std::string checkpoints_dir() const { return root + "/checkpoints"; }
  std::string embedding_dir() const { return root + "/embedding"; }
  // The run's latent scale: here also when ldm.embedding_dir names another
  // folder, which is an input (NVIDIA's embeddings, a read-only share) that
  // nothing derived is written into (issue 50 item 7).
  std::string scale_factor_file() const { return embedding_dir() + "/" + k_scale_factor_file; }
  std::string output_dir() const { return root + "/output"; }
  std::string tensorboard_dir() const { return root + "/tb"; }
  std::string last_checkpoint() const { return checkpoints_dir() + "/" + k_last_checkpoint_file; }
  RunDirectory stage(const std::string& name) const { return {root + "/" + name}; }
  // An imported stage's network config (the ControlNet's: generate --label rebuilds it from this).
  std::string network_config_file() const { return root + "/config_network.json"; }
};

// Creates a new, unique run directory under runs_dir (a suffix -2, -3 ... when
// two runs start in the same second). Throws RuntimeError naming the path.
RunDirectory create_run_directory(const std::string& runs_dir, const std::string& job_name);

// Opens an existing run directory (for --resume); throws UsageError when it is
// not one (no job.yaml).
RunDirectory open_run_directory(const std::string& root);

}  // namespace medsynth
