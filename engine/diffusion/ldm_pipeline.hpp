// `train` of a task: ldm job — MAISI's pipeline in one job file, stage by
// stage in the run directory:
//   1 autoencoder/  a full autoencoder run, or a VQ-GAN run with ldm.first_stage
//                   vqgan (skipped with ldm.autoencoder_checkpoint)
//   2 embedding/    latents of the train and val images (encode_stage.hpp)
//   3 diffusion/    a full diffusion-UNet run on the latents (ldm_task.hpp)
//   4 output/       image_seed{S}_rank{R}.nii.gz (generate_stage.hpp)
// Each stage is skipped when its output is complete (a `stage-complete`
// marker, or the files themselves) and resumed from its last checkpoint when
// it was interrupted, so re-running the job (or `train --resume RUN_DIR`,
// or a launcher restart) continues where it stopped. The main events.jsonl
// gets run_started, one `stage` event per stage, an `artifact` per image and
// run_finished; each training stage keeps its own events in its folder.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "config/job_spec.hpp"
#include "train/trainer.hpp"

namespace medsynth {

class EventWriter;

// The "evaluate" stage (generate.evaluate): called on rank 0 after generate,
// before run_finished, with the generated files, the autoencoder checkpoint
// and the run's event stream. The CLI passes engine/eval's evaluation here,
// so that diffusion/ need not know it.
using EvaluateGenerated = std::function<void(const std::vector<std::string>& images, const std::string& autoencoder_checkpoint,
                                             EventWriter& events, std::int64_t step)>;

TrainResult run_ldm_pipeline(const JobSpec& job, const TrainerOptions& options, const EvaluateGenerated& evaluate = {});

// `train RUN_DIR` on an ldm run (import-maisi's, or a trained one): the
// overrides that start a new run from its networks, to come before the
// user's own (so that `ldm.diffusion_init=` still trains the UNet from
// scratch): its autoencoder as the frozen encoder and its diffusion UNet as
// the starting weights. The latent scale is recomputed from the new latents
// (1/std), as NV-Generate's diff_model_train.py does when it fine-tunes;
// ldm.scale_factor keeps another. UsageError when RUN_DIR holds no trained
// autoencoder.
std::vector<std::string> overrides_starting_from_run(const std::string& run_dir);

// `train` of a task: controlnet job (NV-Generate's train_controlnet): the
// images of data.path and their label maps (X_image.EXT beside X_label.EXT)
// encoded by the frozen autoencoder of ldm.autoencoder_checkpoint into
// embedding/ (latents and labels), then controlnet/, a run training the
// ControlNet (diffusion/controlnet_task.hpp) against the frozen UNet of
// ldm.diffusion_init, with the network config `generate --label` reads.
TrainResult run_controlnet_pipeline(const JobSpec& job, const TrainerOptions& options);

// The jobs the pipeline trains in stages 1 and 3 (exposed for tests and docs).
JobSpec autoencoder_stage_job(const JobSpec& job);
JobSpec diffusion_stage_job(const JobSpec& job, const std::string& embedding_dir);
JobSpec controlnet_stage_job(const JobSpec& job, const std::string& embedding_dir);

}  // namespace medsynth
