// Every task and pipeline medsynth-engine runs, assembled by explicit calls:
// the trainer's tasks (train/training_tasks.hpp) and the ldm pipeline, whose
// generate.evaluate stage is wired to engine/eval here (diffusion/ does not
// include eval/). The verbs ask it instead of comparing task names.
#pragma once

#include "train/task_registry.hpp"

namespace medsynth::cli {

// Built on first use; RuntimeError when a catalog name has no factory.
const TaskRegistry& engine_tasks();

}  // namespace medsynth::cli
