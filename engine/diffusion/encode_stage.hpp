// Stage 2 of the LDM pipeline and `medsynth-engine encode`: runs a trained
// autoencoder over the job's train and val images and stores each latent in
// the embedding folder (latent_files.hpp), split across ranks round robin.
// Images whose latent already exists are skipped, so an interrupted encode
// resumes where it stopped. Rank 0 then computes the scale factor (1 / std of
// all latents, as MAISI does from its first batch) unless the job sets one.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "config/job_spec.hpp"

namespace medsynth {

class DistContext;
class RunLogger;

struct EncodeOptions {
  std::string autoencoder_checkpoint;
  std::string embedding_dir;
  DistContext* dist = nullptr;  // null: one process
  RunLogger* logger = nullptr;  // progress lines (may be null)
  // After each image of this rank (encoded or already present): done of total.
  std::function<void(std::int64_t done, std::int64_t total)> on_progress{};
  // Task controlnet: each image's label map (X_label.EXT beside X_image.EXT)
  // through the image's geometry, written beside its latent (latent_files.hpp).
  bool with_labels = false;
  // Where the latent scale is kept (computed once, then reused): the run's,
  // never embedding_dir when that is an input (RunDirectory::scale_factor_file).
  std::string scale_factor_file;
};

struct EncodeSummary {
  int written = 0;              // by this rank
  int skipped = 0;              // already present
  double scale_factor = 1.0;    // scale_factor_file's (every rank returns it)
};

EncodeSummary encode_dataset(const JobSpec& job, const EncodeOptions& options);

}  // namespace medsynth
