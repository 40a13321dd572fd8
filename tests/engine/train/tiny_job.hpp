// A job small enough to train in seconds on one CPU thread, for trainer tests.
#pragma once

#include <string>

#include "config/job_spec.hpp"

namespace medsynth::test {

inline JobSpec tiny_autoencoder_job(const std::string& runs_dir) {
  JobSpec job;
  job.name = "tiny";
  job.data.source = DataSource::simulated;
  job.data.num_train = 4;
  job.data.num_val = 2;
  job.data.phantom_size = {24, 24, 24};
  job.data.phantom_spacing = {10.0, 10.0, 10.0};
  job.data.patch_size = {16, 16, 16};
  job.data.num_workers = 0;
  job.model.autoencoder.num_channels = {4, 8, 8};
  job.model.autoencoder.num_res_blocks = {1, 1, 1};
  job.model.autoencoder.norm_num_groups = 4;
  job.model.autoencoder.attention_levels = {false, false, false};
  job.training.batch_size = 2;
  job.training.max_steps = 8;
  job.training.lr = 2e-3;
  job.training.val_every_steps = 4;
  job.training.num_threads = 1;
  job.output.runs_dir = runs_dir;
  job.output.log_every_steps = 1;
  job.output.tensorboard = true;
  job.output.save_reconstructions = 1;
  return job;
}

}  // namespace medsynth::test
