// Hydra-style sweeps (`medsynth-engine sweep JOB training.lr=1e-3,1e-4
// model.autoencoder.latent_channels=4,8`, issue 38): an override whose value
// lists alternatives (commas outside brackets and quotes: `[32,32,32]` is one
// value) is an axis of the sweep; the runs are the product of the axes, the
// last varying fastest, as Hydra's basic sweeper orders them. Pure: the verb
// (verb_sweep.cpp) runs the plan.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace medsynth::cli {

struct SweepPlan {
  std::vector<std::string> axes;                 // the swept keys, in the order given
  std::vector<std::vector<std::string>> runs;    // each run's overrides (the fixed ones too), in the order given
  std::vector<std::vector<std::string>> values;  // each run's value of every axis
};

// UsageError naming the override: not key=value, an empty alternative
// ("a=1,,2"), a key given twice, or more than `max_runs` runs.
SweepPlan plan_sweep(const std::vector<std::string>& overrides, std::size_t max_runs = 64);

// "1,2,[3,4]" -> {"1", "2", "[3,4]"}: commas inside [], {}, () or quotes do not split.
std::vector<std::string> split_alternatives(const std::string& value);

}  // namespace medsynth::cli
