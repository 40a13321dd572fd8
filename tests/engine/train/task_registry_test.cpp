// The task registry against the config layer's catalog: the trainer's tasks
// are all registered, pipelines and unknown names are refused with the
// messages the CLI shows, a factory cannot be added under a name the catalog
// gives another kind, and a task scores volumes exactly when the catalog says so.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "config/task_catalog.hpp"
#include "core/error.hpp"
#include "train/task.hpp"
#include "train/task_registry.hpp"
#include "train/training_tasks.hpp"
#include "train/volume_scoring.hpp"
#include "train/tiny_job.hpp"

using namespace medsynth;

namespace {

std::string usage_error_of(const TaskRegistry& registry, const std::string& task) {
  JobSpec job = test::tiny_autoencoder_job("runs");
  job.task = task;
  try {
    registry.make_task(job);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(TaskRegistry, TheTrainersRegistryHoldsEveryTrainerTaskOfTheCatalog) {
  const TaskRegistry& tasks = training_tasks();
  for (const TaskTraits& traits : task_catalog()) {
    const std::string name(traits.name);
    if (traits.kind == TaskKind::pipeline) {
      EXPECT_TRUE(tasks.is_pipeline(name));
      continue;
    }
    if (name == "translation") continue;  // a diffusion task: engine/diffusion sits above engine/train
    JobSpec job = test::tiny_autoencoder_job("runs");
    job.task = name;
    job.model.resnet.depth = 10;
    job.model.resnet.block_inplanes = {4, 8, 8, 8};
    std::unique_ptr<Task> task = tasks.make_task(job);
    EXPECT_EQ(task->name(), name);
    EXPECT_EQ(dynamic_cast<VolumeScoring*>(task.get()) != nullptr, traits.reconstructs_volumes) << name;
  }
  EXPECT_EQ(tasks.missing(), (std::vector<std::string>{"ldm", "controlnet", "translation"}))
      << "train/ adds no pipeline and no diffusion task; cli/engine_tasks adds them";
}

TEST(TaskRegistry, PipelinesAndUnknownNamesAreRefusedWithTheirReason) {
  EXPECT_EQ(usage_error_of(training_tasks(), "ldm"),
            "task: 'ldm' is trained by the ldm pipeline (stages autoencoder, encode, diffusion, generate), not alone");
  EXPECT_EQ(usage_error_of(training_tasks(), "gan"), "task: 'gan' is not supported by this engine yet");
  EXPECT_EQ(usage_error_of(TaskRegistry{}, "vqgan"), "task: 'vqgan' is not supported by this engine yet");
}

TEST(TaskRegistry, FactoriesOnlyUnderCatalogNamesOfTheirKindAndOnce) {
  TaskRegistry registry;
  const TaskFactory none = [](const JobSpec&) { return std::unique_ptr<Task>(); };
  EXPECT_THROW(registry.add_task("ldm", none), RuntimeError);
  EXPECT_THROW(registry.add_task("segmentation", none), RuntimeError);
  EXPECT_THROW(
      registry.add_pipeline("autoencoder", [](const JobSpec&, const TrainerOptions&) { return TrainResult{}; }),
      RuntimeError);
  registry.add_task("vqgan", none);
  EXPECT_THROW(registry.add_task("vqgan", none), RuntimeError);
}

TEST(TaskCatalog, TraitsTheVerbsAskAbout) {
  EXPECT_EQ(task_names(),
            (std::vector<std::string>{"autoencoder", "ldm", "controlnet", "vqgan", "survival", "translation"}));
  EXPECT_EQ(task_names_with(&TaskTraits::reconstructs_volumes, " and "), "autoencoder and vqgan");
  EXPECT_EQ(task_names_with(&TaskTraits::generates_volumes, " or "), "ldm or controlnet or translation");
  EXPECT_EQ(task_names_with(&TaskTraits::reads_cases, " or "), "translation");
  ASSERT_NE(find_task("survival"), nullptr);
  EXPECT_TRUE(find_task("survival")->reads_outcome_labels);
  EXPECT_EQ(find_task("gan"), nullptr);
}
