// The trainer's own tasks (autoencoder, vqgan, survival) as registry entries.
// add_training_tasks is called by whoever assembles a registry (the CLI's
// engine_tasks); training_tasks() is the registry of these alone, which the
// trainer asks when its options name no registry (tests, tools).
#pragma once

#include "train/task_registry.hpp"

namespace medsynth {

void add_training_tasks(TaskRegistry& registry);

const TaskRegistry& training_tasks();

}  // namespace medsynth
