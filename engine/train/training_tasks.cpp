#include "train/training_tasks.hpp"

#include "train/autoencoder_task.hpp"
#include "train/survival_task.hpp"
#include "train/vqgan_task.hpp"

namespace medsynth {

void add_training_tasks(TaskRegistry& registry) {
  registry.add_task("autoencoder", [](const JobSpec& job) { return std::make_unique<AutoencoderTask>(job); });
  registry.add_task("vqgan", [](const JobSpec& job) { return std::make_unique<VqganTask>(job); });
  registry.add_task("survival", [](const JobSpec& job) { return std::make_unique<SurvivalTask>(job); });
}

const TaskRegistry& training_tasks() {
  // Built on first use, by a call: nothing here depends on static initialisation order.
  static const TaskRegistry registry = [] {
    TaskRegistry r;
    add_training_tasks(r);
    return r;
  }();
  return registry;
}

}  // namespace medsynth
