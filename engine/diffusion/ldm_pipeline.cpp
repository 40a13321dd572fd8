#include "diffusion/ldm_pipeline.hpp"

#include <chrono>
#include <filesystem>
#include <set>

#include "config/job_enums.hpp"
#include "config/job_loader.hpp"
#include "core/error.hpp"
#include "diffusion/controlnet_task.hpp"
#include "diffusion/encode_stage.hpp"
#include "diffusion/generate_stage.hpp"
#include "diffusion/ldm_task.hpp"
#include "dist/process_group.hpp"
#include "events/event_writer.hpp"
#include "events/pipeline_eta.hpp"
#include "events/run_logger.hpp"
#include "state/device_choice.hpp"
#include "state/memory_high_water.hpp"
#include "volume/atomic_file.hpp"

namespace fs = std::filesystem;

namespace medsynth {

std::vector<std::string> overrides_starting_from_run(const std::string& run_dir) {
  const RunDirectory run{fs::absolute(run_dir).lexically_normal().string()};
  const std::string autoencoder = run.stage(k_autoencoder_stage).last_checkpoint();
  const std::string unet = run.stage(k_diffusion_stage).last_checkpoint();
  if (!fs::is_regular_file(autoencoder))
    throw UsageError(run_dir + ": not an ldm run with a trained autoencoder (no " + autoencoder +
                     "); train JOB.yaml starts a new one, import-maisi brings NVIDIA's");
  std::vector<std::string> overrides{"ldm.autoencoder_checkpoint=" + autoencoder};
  if (fs::is_regular_file(unet)) overrides.push_back("ldm.diffusion_init=" + unet);
  // Its ControlNet (import-maisi's, when the folder had one): task controlnet
  // fine-tunes it; ldm.controlnet_init= starts from the UNet's encoder instead.
  const RunDirectory controlnet = run.stage(k_controlnet_stage);
  if (fs::is_regular_file(controlnet.network_config_file()))
    overrides.push_back("ldm.controlnet_config=" + controlnet.network_config_file());
  if (fs::is_regular_file(controlnet.last_checkpoint()))
    overrides.push_back("ldm.controlnet_init=" + controlnet.last_checkpoint());
  return overrides;
}

JobSpec autoencoder_stage_job(const JobSpec& job) {
  JobSpec j = job;
  j.task = job.ldm.first_stage;  // autoencoder or vqgan: each a task of its own
  j.name = job.name + "-autoencoder";
  j.training.max_steps = job.ldm.autoencoder_steps;
  j.checkpoint.metric = "val/psnr";
  j.checkpoint.mode = "max";
  j.checkpoint.resume.clear();
  return j;
}

JobSpec controlnet_stage_job(const JobSpec& job, const std::string& embedding_dir) {
  JobSpec j = job;
  j.name = job.name + "-controlnet";
  j.ldm.embedding_dir = embedding_dir;
  j.checkpoint.metric = "val/controlnet_loss";
  j.checkpoint.mode = "min";
  j.checkpoint.resume.clear();
  j.output.save_reconstructions = 0;
  return j;
}

JobSpec diffusion_stage_job(const JobSpec& job, const std::string& embedding_dir) {
  JobSpec j = job;
  j.name = job.name + "-diffusion";
  j.ldm.embedding_dir = embedding_dir;
  j.checkpoint.metric = "val/diffusion_loss";
  j.checkpoint.mode = "min";
  j.checkpoint.resume.clear();
  j.output.save_reconstructions = 0;
  return j;
}

namespace {

using Clock = std::chrono::steady_clock;

struct Pipeline {
  const JobSpec& job;
  const TrainerOptions& options;
  int rank = 0;
  std::unique_ptr<RunLogger> logger;
  std::unique_ptr<EventWriter> events;
  // The console's ETA over all the training stages, not only the running one.
  std::shared_ptr<PipelineEta> eta = std::make_shared<PipelineEta>();

  int world = 1;

  // Where the stages ran (their peak memory is reported at the end).
  c10::Device device() const { return options.dist ? options.dist->device() : training_device(job.training.device, 0); }

  // The rank's log, rank 0's event stream and its run_started.
  void start(const std::vector<std::string>& stages, std::int64_t total_steps) {
    rank = options.dist ? options.dist->rank() : options.rank;
    world = options.dist ? options.dist->world_size() : options.world_size;
    logger =
        std::make_unique<RunLogger>(RunLoggerOptions{.path = options.run.rank_log(rank),
                                                     .rank = rank,
                                                     .stderr_level = options.quiet ? LogLevel::warn : LogLevel::info});
    if (rank != 0) return;
    events = std::make_unique<EventWriter>(
        EventWriterOptions{.path = options.run.events_file(), .rank = 0, .echo_stdout = options.json_stdout});
    logger->attach_events(events.get());
    RunStartedEvent e;
    e.run_dir = options.run.root;
    e.job_name = job.name;
    e.task = job.task;
    e.world_size = world;
    e.effective_batch =
        static_cast<std::int64_t>(job.training.batch_size) * world * job.training.gradient_accumulation_steps;
    e.total_steps = total_steps;
    e.extra = {{"stages", stages}, {"scheduler", std::string(to_string(job.scheduler.kind))}};
    events->run_started(e);
  }

  // Runs the stages; run_finished or run_failed on the stream either way.
  template <class Stages>
  TrainResult run(Stages stages) {
    const auto started = Clock::now();
    const auto seconds = [&] { return std::chrono::duration<double>(Clock::now() - started).count(); };
    try {
      TrainResult result = stages();
      const MemoryHighWater memory = memory_high_water(device());
      logger->info(describe(memory));
      if (events) events->run_finished("completed", {}, seconds(), event_fields(memory));
      return result;
    } catch (const Interrupted&) {
      if (events) events->run_finished("stopped", {}, seconds());
      throw;
    } catch (const Error& e) {
      if (events)
        events->run_failed(e.kind(), e.what(), e.kind() == ErrorKind::data ? 3 : e.kind() == ErrorKind::usage ? 2 : 1);
      throw;
    }
  }

  // `more`: what the console needs for the stage's own progress (a training
  // stage's steps and first step among the pipeline's; generate's images).
  void stage(const std::string& name, const std::string& status, const std::string& dir, const EventFields& more = {}) {
    logger->info("stage " + name + ": " + status + (dir.empty() ? std::string() : " (" + dir + ")"));
    if (!events) return;
    EventFields fields{
        {event_schema::key::stage, name}, {event_schema::key::status, status}, {event_schema::key::dir, dir}};
    fields.insert(fields.end(), more.begin(), more.end());
    events->emit(event_schema::stage, fields);
  }

  // A generated image as soon as it is written (the console's Samples tab
  // fills while the stage runs); once per path.
  void image_written(const std::string& path, std::int64_t seed, int by_rank, std::int64_t step) {
    if (!events || !announced_images.insert(path).second) return;
    events->artifact(path, "volume", step, {{"seed", seed}, {"generated_by_rank", by_rank}});
  }
  std::set<std::string> announced_images;

  // A sub-run for a training stage; every rank uses the same folder.
  RunDirectory sub_run(const std::string& name, const JobSpec& stage_job) const {
    RunDirectory r = options.run.stage(name);
    if (rank == 0) {
      fs::create_directories(r.root);
      if (!fs::exists(r.job_file())) write_string_atomically(r.job_file(), job_to_yaml(stage_job));
    }
    if (options.dist) options.dist->barrier("stage folder");
    return r;
  }

  // Trains one stage unless complete; returns its last checkpoint. Its events
  // reach the console through this pipeline's stream (metrics as
  // "<stage>/name", progress as steps step_offset.. of total_steps); its own
  // run_started/run_finished stay in its folder, off stdout. `make_task`: a
  // task of the pipeline's own (empty: the registry's task of stage_job.task).
  // `init_weights`: the weights a fresh (not resumed) stage starts from.
  std::string train_stage(const std::string& name, const JobSpec& stage_job, std::int64_t step_offset,
                          std::int64_t total_steps, TaskFactory make_task = {}, const std::string& init_weights = {}) {
    RunDirectory r = sub_run(name, stage_job);
    const std::string marker = r.root + "/stage-complete";
    const std::string last = r.last_checkpoint();
    const EventFields steps{{event_schema::key::steps, stage_job.training.max_steps},
                            {event_schema::key::first_step, step_offset}};
    if (fs::exists(marker)) {
      stage(name, "skipped (complete)", r.root, steps);
      return last;
    }
    TrainerOptions o = options;
    o.run = r;
    o.json_stdout = false;
    o.forward_events = {events.get(), name + "/", step_offset, total_steps, eta};
    o.resume_from = fs::exists(last) ? last : std::string();
    o.init_weights = o.resume_from.empty() ? init_weights : std::string();
    stage(name, o.resume_from.empty() ? "started" : "resumed", r.root, steps);
    if (options.dist) options.dist->set_key_scope(name + "/");
    o.make_task = std::move(make_task);
    run_training(stage_job, o);
    if (options.dist) options.dist->set_key_scope("");
    if (rank == 0) write_string_atomically(marker, "complete\n");
    stage(name, "complete", r.root, steps);
    return last;
  }
};

}  // namespace

TrainResult run_ldm_pipeline(const JobSpec& job, const TrainerOptions& options, const EvaluateGenerated& evaluate) {
  // xyz networks (MAISI's) get their axes turned where the data enters (the
  // encode stage); the autoencoder stage's loaders give zyx patches, so an
  // xyz pipeline starts from a given autoencoder (import-maisi's).
  if (job.model.tensor_axes == "xyz" && job.ldm.autoencoder_checkpoint.empty())
    throw UsageError(
        "ldm.autoencoder_checkpoint: xyz (MAISI) networks train their diffusion UNet on a given autoencoder; "
        "name one (train IMPORTED_RUN sets import-maisi's), medsynth does not train an xyz autoencoder");
  if (!job.ldm.diffusion_init.empty() && !fs::is_regular_file(job.ldm.diffusion_init))
    throw UsageError("ldm.diffusion_init: no such checkpoint: " + job.ldm.diffusion_init);
  if (!options.init_weights.empty())
    throw UsageError("--init-weights: an ldm pipeline trains two networks (autoencoder, then diffusion UNet) and a file holds one; "
                     "it is for the autoencoder, vqgan and survival tasks");
  Pipeline p{job, options};
  // Overall progress counts every training stage's steps.
  const std::int64_t autoencoder_steps = job.ldm.autoencoder_checkpoint.empty() ? autoencoder_stage_job(job).training.max_steps : 0;
  const std::int64_t total_steps = autoencoder_steps + job.training.max_steps;
  std::vector<std::string> stages{"autoencoder", "encode", "diffusion", "generate"};
  if (job.generate.evaluate) stages.push_back("evaluate");
  p.start(stages, total_steps);
  const int world = p.world;
  return p.run([&] {
    std::string ae_checkpoint = job.ldm.autoencoder_checkpoint;
    if (ae_checkpoint.empty())
      ae_checkpoint = p.train_stage("autoencoder", autoencoder_stage_job(job), 0, total_steps);
    else
      p.stage("autoencoder", "given", ae_checkpoint);

    const std::string embedding = job.ldm.embedding_dir.empty() ? options.run.embedding_dir() : job.ldm.embedding_dir;
    p.stage("encode", "started", embedding);
    EncodeOptions eo{ae_checkpoint, embedding, options.dist, p.logger.get()};
    eo.scale_factor_file = options.run.scale_factor_file();
    const auto encoded = encode_dataset(job, eo);
    p.stage("encode",
            "complete (" + std::to_string(encoded.written) + " written, " + std::to_string(encoded.skipped) +
                " present on rank " + std::to_string(p.rank) + ")",
            embedding);

    const std::string unet_checkpoint = p.train_stage(
        "diffusion", diffusion_stage_job(job, embedding), autoencoder_steps, total_steps,
        [scale = encoded.scale_factor](const JobSpec& j) { return std::make_unique<LdmTask>(j, scale); },
        job.ldm.diffusion_init);

    const auto images = static_cast<std::int64_t>(planned_images(job, options.run.output_dir(), world).size());
    p.stage("generate", "started", options.run.output_dir(), {{event_schema::key::images, images}});
    GenerateOptions go{unet_checkpoint,          ae_checkpoint, options.run.scale_factor_file(),
                       options.run.output_dir(), options.dist,  p.logger.get()};
    go.on_image_written = [&](const GeneratedImage& image) {
      p.image_written(image.path, image.seed, image.rank, job.training.max_steps);
    };
    generate_images(job, go);
    // The other ranks' images, and those an earlier attempt wrote.
    for (const auto& image : planned_images(job, options.run.output_dir(), world))
      p.image_written(image.path, image.seed, image.rank, job.training.max_steps);
    p.stage("generate", "complete", options.run.output_dir(), {{event_schema::key::images, images}});
    if (job.generate.evaluate && evaluate) {
      if (p.events) {
        const std::string dir = options.run.root + "/evaluation";
        p.stage("evaluate", "started", dir);
        std::vector<std::string> images;
        for (const auto& image : planned_images(job, options.run.output_dir(), world)) images.push_back(image.path);
        evaluate(images, ae_checkpoint, *p.events, job.training.max_steps);
        p.stage("evaluate", "complete", dir);
      }
      if (options.dist) options.dist->barrier("evaluate");
    }
    TrainResult result;
    result.last_checkpoint = unet_checkpoint;
    result.steps = job.training.max_steps;
    return result;
  });
}

TrainResult run_controlnet_pipeline(const JobSpec& job, const TrainerOptions& options) {
  const std::pair<const char*, const std::string*> needed[] = {
      {"ldm.autoencoder_checkpoint", &job.ldm.autoencoder_checkpoint},
      {"ldm.diffusion_init", &job.ldm.diffusion_init},
      {"ldm.controlnet_config", &job.ldm.controlnet_config}};
  for (const auto& [field, value] : needed)
    if (value->empty() || !fs::is_regular_file(*value))
      throw UsageError(std::string(field) + ": task controlnet needs it (" +
                       (value->empty() ? "empty" : "no such file: " + *value) +
                       "); `train RUN task=controlnet` on an import-maisi run sets all three");
  if (!options.init_weights.empty())
    throw UsageError(
        "--init-weights: task controlnet starts its ControlNet from ldm.controlnet_init (or the UNet's encoder)");
  Pipeline p{job, options};
  p.start({"encode", "controlnet"}, job.training.max_steps);
  return p.run([&] {
    const std::string embedding = job.ldm.embedding_dir.empty() ? options.run.embedding_dir() : job.ldm.embedding_dir;
    p.stage("encode", "started", embedding);
    EncodeOptions eo{job.ldm.autoencoder_checkpoint, embedding, options.dist, p.logger.get()};
    eo.with_labels = true;
    eo.scale_factor_file = options.run.scale_factor_file();
    const auto encoded = encode_dataset(job, eo);
    p.stage("encode",
            "complete (" + std::to_string(encoded.written) + " written, " + std::to_string(encoded.skipped) +
                " present on rank " + std::to_string(p.rank) + ")",
            embedding);
    // generate --label rebuilds the ControlNet from this config, as for an imported run.
    const RunDirectory controlnet = options.run.stage(k_controlnet_stage);
    if (p.rank == 0) {
      fs::create_directories(controlnet.root);
      fs::copy_file(job.ldm.controlnet_config, controlnet.network_config_file(), fs::copy_options::overwrite_existing);
    }
    const std::string last = p.train_stage(
        k_controlnet_stage, controlnet_stage_job(job, embedding), 0, job.training.max_steps,
        [scale = encoded.scale_factor](const JobSpec& j) { return std::make_unique<ControlNetTask>(j, scale); },
        job.ldm.controlnet_init);
    TrainResult result;
    result.last_checkpoint = last;
    result.steps = job.training.max_steps;
    return result;
  });
}

}  // namespace medsynth
