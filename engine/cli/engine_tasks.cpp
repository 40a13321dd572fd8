#include "cli/engine_tasks.hpp"

#include <iostream>

#include "contract/run_directory.hpp"
#include "core/error.hpp"
#include "diffusion/latent_autoencoder.hpp"
#include "diffusion/ldm_pipeline.hpp"
#include "diffusion/translation_task.hpp"
#include "eval/evaluation.hpp"
#include "eval/evaluation_output.hpp"
#include "events/event_writer.hpp"
#include "train/training_tasks.hpp"

namespace medsynth::cli {
namespace {

// generate.evaluate: judge the images against the training volumes
// (engine/eval), with the run's autoencoder for the memorization audit's
// latent distances; the table goes to stderr and RUN/evaluation/, the
// numbers also to RUN/tb as eval/* scalars (issue 53: a pipeline's stages
// write their curves under their own folders, and the run's own tb/ stayed
// empty while eval/* reached no TensorBoard).
EvaluateGenerated evaluate_stage(const JobSpec& job, const std::string& run_root, bool quiet) {
  return [&job, run_root, quiet](const std::vector<std::string>& images, const std::string& autoencoder_checkpoint,
                                 EventWriter& events, std::int64_t step) {
    const std::string out = run_root + "/evaluation";
    EvaluationOptions o;
    o.generated = images;
    o.reference = training_volume_paths(job, out + "/training-phantoms");
    o.training = o.reference;
    o.encoder = latent_mean_encoder(job, autoencoder_checkpoint, c10::Device(c10::kCPU));
    const EvaluationReport report = evaluate_volumes(o);
    const std::string text = write_evaluation_files(report, o, out);
    emit_evaluation_events(report, o, events, step);
    write_evaluation_scalars(report, RunDirectory{run_root}.tensorboard_dir(), step);
    events.artifact(out + "/evaluation.json", "evaluation", step);
    if (!quiet) std::cerr << text;
  };
}

TaskRegistry assemble() {
  TaskRegistry registry;
  add_training_tasks(registry);
  // Diffusion tasks live above engine/train, which cannot name them.
  registry.add_task("translation", [](const JobSpec& job) { return std::make_unique<TranslationTask>(job); });
  registry.add_pipeline("ldm", [](const JobSpec& job, const TrainerOptions& options) {
    return run_ldm_pipeline(job, options, evaluate_stage(job, options.run.root, options.quiet));
  });
  registry.add_pipeline("controlnet", [](const JobSpec& job, const TrainerOptions& options) {
    return run_controlnet_pipeline(job, options);
  });
  if (const auto missing = registry.missing(); !missing.empty())
    throw RuntimeError("task '" + missing.front() +
                       "' of config/task_catalog.cpp has no factory in cli/engine_tasks.cpp");
  return registry;
}

}  // namespace

const TaskRegistry& engine_tasks() {
  static const TaskRegistry registry = assemble();
  return registry;
}

}  // namespace medsynth::cli
