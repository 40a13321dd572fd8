#include "train/task_registry.hpp"

#include "core/error.hpp"
#include "train/task.hpp"

namespace medsynth {
namespace {

const char* kind_name(TaskKind kind) { return kind == TaskKind::pipeline ? "pipeline" : "trainer task"; }

void check_addable(std::string_view name, TaskKind kind, bool added_before) {
  const TaskTraits* traits = find_task(name);
  if (!traits || traits->kind != kind)
    throw RuntimeError("task registry: '" + std::string(name) + "' is not a " + kind_name(kind) +
                       " of config/task_catalog.cpp");
  if (added_before) throw RuntimeError("task registry: '" + std::string(name) + "' added twice");
}

std::string not_supported(const std::string& name) {
  return "task: '" + name + "' is not supported by this engine yet";
}

}  // namespace

void TaskRegistry::add_task(std::string_view name, TaskFactory make) {
  check_addable(name, TaskKind::trainer, tasks_.count(name) > 0);
  tasks_.emplace(std::string(name), std::move(make));
}

void TaskRegistry::add_pipeline(std::string_view name, RunPipeline run) {
  check_addable(name, TaskKind::pipeline, pipelines_.count(name) > 0);
  pipelines_.emplace(std::string(name), std::move(run));
}

const TaskTraits& TaskRegistry::traits(const std::string& name) const {
  const TaskTraits* traits = find_task(name);
  if (!traits) throw UsageError(not_supported(name));
  return *traits;
}

std::vector<std::string> TaskRegistry::missing() const {
  std::vector<std::string> names;
  for (const auto& traits : task_catalog())
    if (!tasks_.count(traits.name) && !pipelines_.count(traits.name)) names.emplace_back(traits.name);
  return names;
}

std::unique_ptr<Task> TaskRegistry::make_task(const JobSpec& job) const {
  const TaskTraits& t = traits(job.task);
  // A pipeline hands its trained stages their tasks itself (the ldm
  // pipeline's diffusion UNet: TrainerOptions::make_task).
  if (t.kind == TaskKind::pipeline)
    throw UsageError("task: '" + job.task + "' is trained by the " + job.task + " pipeline (stages " +
                     std::string(t.stages) + "), not alone");
  const auto it = tasks_.find(job.task);
  if (it == tasks_.end()) throw UsageError(not_supported(job.task));
  return it->second(job);
}

TrainResult TaskRegistry::train(const JobSpec& job, const TrainerOptions& options) const {
  TrainerOptions o = options;
  o.tasks = this;
  if (!is_pipeline(job.task)) return run_training(job, o);
  const auto it = pipelines_.find(job.task);
  if (it == pipelines_.end()) throw UsageError(not_supported(job.task));
  return it->second(job, o);
}

}  // namespace medsynth
