#include "train/init_weights.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>

#include "state/tensor_file.hpp"
#include "state/training_state.hpp"
#include "weights/name_prefixes.hpp"
#include "weights/torch_archive.hpp"

namespace medsynth {
namespace {

// By the name, not the bytes: a safetensors header length can begin with a
// zip's or a pickle's magic bytes.
bool is_torch_save_file(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  return ext == ".pt" || ext == ".pth";
}

std::map<std::string, at::Tensor> targets_of(const std::vector<NamedModule>& modules) {
  std::map<std::string, at::Tensor> targets;
  const bool one = modules.size() == 1;
  for (const auto& m : modules) {
    const std::string prefix = one ? "" : m.name + ".";
    for (const auto& p : m.module->named_parameters(true)) targets[prefix + p.key()] = p.value();
    for (const auto& b : m.module->named_buffers(true)) targets[prefix + b.key()] = b.value();
  }
  return targets;
}

std::string listed(const std::vector<std::string>& prefixes) {
  std::string s;
  for (std::size_t i = 0; i < prefixes.size() && i < 8; ++i) s += (i ? ", " : "") + prefixes[i];
  if (prefixes.size() > 8) s += ", and " + std::to_string(prefixes.size() - 8) + " more";
  return s;
}

std::string groups_text(const std::vector<TensorGroup>& groups) {
  std::string s;
  for (const auto& line : group_lines(groups)) s += (s.empty() ? "" : "; ") + line;
  return s;
}

}  // namespace

InitWeightsReport load_init_weights(const std::vector<NamedModule>& modules, const std::string& path) {
  InitWeightsReport report;
  report.path = path;
  for (const auto& m : modules) report.modules.push_back(m.name);
  const auto targets = targets_of(modules);
  if (is_torch_save_file(path)) {
    report.format = "torch.save";
    report.load = load_state_dict_partial(targets, state_dict_of(read_torch_file(path), path), path);
    return report;
  }
  // Our own files name every tensor of every module: all or nothing, as before.
  report.format = "safetensors";
  const TensorFile file = read_tensor_file(path);
  refuse_non_finite_tensors(file.tensors, path);
  restore_weights(modules, file, path);
  std::vector<std::string> names;
  for (const auto& [name, t] : targets) names.push_back(name);
  report.load.loaded = {"", names, covering_prefixes(names, names)};
  return report;
}

std::vector<std::string> group_lines(const std::vector<TensorGroup>& groups) {
  std::vector<std::string> lines;
  for (const auto& g : groups)
    lines.push_back(listed(g.prefixes) + " (" + std::to_string(g.names.size()) + "): " + g.why);
  return lines;
}

std::string describe(const InitWeightsReport& r) {
  std::string into;
  for (const auto& m : r.modules) into += (into.empty() ? "" : ", ") + m;
  std::string s = "starting from the weights of " + r.path + " (" + r.format +
                  (r.load.layout.empty() ? "" : ", " + r.load.layout) + "): loaded " +
                  std::to_string(r.load.loaded.names.size()) + " tensors into " + into + " (" +
                  listed(r.load.loaded.prefixes) + ")";
  if (!r.load.left_initial.empty()) s += "; left at their initial values: " + groups_text(r.load.left_initial);
  if (!r.load.ignored.empty()) s += "; ignored in the file: " + groups_text(r.load.ignored);
  return s;
}

}  // namespace medsynth
