// The weights a fresh run starts from (`train JOB --init-weights FILE`,
// TrainerOptions::init_weights), and what became of them. Called by
// training_setup before the parameter broadcast; the report goes to the log
// and to run_started's extra.init_weights_report (training_report.cpp).
//
// FILE.pt / FILE.pth: a torch.save state dict (a published backbone such as
// MedicalNet's 3D ResNets), read by the restricted unpickler
// (weights/torch_archive.hpp: no code runs) and loaded by name into what the
// network has (weights/partial_state_loading.hpp): `module.` prefixes and a
// {"state_dict": ...} wrapper are undone, tensors on one side only are
// reported, not refused. Any other file: a safetensors file of ours (weights
// only, or another run's checkpoint), which must hold every tensor.
#pragma once

#include <string>
#include <vector>

#include "state/trained_modules.hpp"
#include "weights/partial_state_loading.hpp"

namespace medsynth {

struct InitWeightsReport {
  std::string path;
  std::string format;  // "torch.save" or "safetensors"
  // The task's modules the names are in ("resnet"). A one-module task's
  // names are that module's own ("conv1.weight"), as a foreign state dict
  // names them; with several modules each name starts with its module's.
  std::vector<std::string> modules;
  PartialLoadReport load;
};

// Throws DataError naming `path` (unreadable, refused or mis-shaped tensors;
// partial_state_loading.hpp) or UsageError (a safetensors file of another model).
InitWeightsReport load_init_weights(const std::vector<NamedModule>& modules, const std::string& path);

// One log line: the file, what was loaded, what kept its initial value and
// what of the file was ignored, each with its reason.
std::string describe(const InitWeightsReport& report);
// Each group as "fc.* (2): why".
std::vector<std::string> group_lines(const std::vector<TensorGroup>& groups);

}  // namespace medsynth
