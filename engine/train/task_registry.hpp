// Maps a job's task name to what trains it: a Task on the shared trainer, or
// a pipeline of stages (the ldm pipeline), and answers what the verbs ask of
// a task (is it a pipeline? can eval score it?). The names and their traits
// are the config layer's catalog (config/task_catalog.hpp), so validation
// and the registry cannot disagree; the factories are added by explicit
// calls from the code that owns them (training_tasks.hpp for the trainer's
// tasks, the CLI's engine_tasks for pipelines), never by static initialisers,
// which a static library link would drop. Asked by the trainer
// (TrainerOptions::tasks), the ldm pipeline and the CLI verbs.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "config/job_spec.hpp"
#include "config/task_catalog.hpp"
#include "train/trainer.hpp"

namespace medsynth {

class Task;

class TaskRegistry {
 public:
  using RunPipeline = std::function<TrainResult(const JobSpec&, const TrainerOptions&)>;

  // A programmer's error (RuntimeError) when `name` is not in the catalog as
  // that kind, or is added twice.
  void add_task(std::string_view name, TaskFactory make);
  void add_pipeline(std::string_view name, RunPipeline run);

  // The catalog's entry for `name`; UsageError for a name it lacks.
  const TaskTraits& traits(const std::string& name) const;
  bool is_pipeline(const std::string& name) const { return traits(name).kind == TaskKind::pipeline; }
  // Catalog names without a factory here (an engine's registry has none).
  std::vector<std::string> missing() const;

  // The Task of job.task; UsageError for a pipeline (it trains stage by
  // stage, not alone) or a task this registry has no factory for.
  std::unique_ptr<Task> make_task(const JobSpec& job) const;
  // Trains job.task: its pipeline, or run_training; either asks this registry for tasks.
  TrainResult train(const JobSpec& job, const TrainerOptions& options) const;

 private:
  std::map<std::string, TaskFactory, std::less<>> tasks_;
  std::map<std::string, RunPipeline, std::less<>> pipelines_;
};

}  // namespace medsynth
