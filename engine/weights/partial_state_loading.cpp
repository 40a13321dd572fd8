#include "weights/partial_state_loading.hpp"

#include <ATen/ATen.h>

#include "core/error.hpp"
#include "weights/name_prefixes.hpp"
#include "weights/pretrained_layouts.hpp"

namespace medsynth {
namespace {

std::vector<std::string> keys_of(const std::map<std::string, at::Tensor>& m) {
  std::vector<std::string> keys;
  for (const auto& [name, t] : m) keys.push_back(name);
  return keys;
}

void add_to_group(std::vector<TensorGroup>& groups, const std::string& why, const std::string& name) {
  for (auto& g : groups)
    if (g.why == why) {
      g.names.push_back(name);
      return;
    }
  groups.push_back({why, {name}, {}});
}

void summarise(TensorGroup& group, const std::vector<std::string>& all) {
  group.prefixes = covering_prefixes(group.names, all);
}

std::string first_few(const std::vector<std::string>& items) {
  std::string s;
  for (std::size_t i = 0; i < items.size() && i < 3; ++i) s += (i ? "; " : "") + items[i];
  if (items.size() > 3) s += "; and " + std::to_string(items.size() - 3) + " more";
  return s;
}

// Why a shared name cannot be copied, or "".
std::string mismatch(const std::string& name, const at::Tensor& file, const at::Tensor& target) {
  if (file.sizes() != target.sizes())
    return name + " is " + c10::str(file.sizes()) + " in the file, " + c10::str(target.sizes()) + " in the network";
  const bool both_float = at::isFloatingType(file.scalar_type()) && at::isFloatingType(target.scalar_type());
  if (!both_float && file.scalar_type() != target.scalar_type())
    return name + " is " + std::string(c10::toString(file.scalar_type())) + " in the file, " +
           c10::toString(target.scalar_type()) + " in the network";
  return "";
}

}  // namespace

PartialLoadReport load_state_dict_partial(const std::map<std::string, at::Tensor>& targets,
                                          const std::map<std::string, at::Tensor>& weights, const std::string& path) {
  const std::vector<std::string> network_names = keys_of(targets), file_names = keys_of(weights);
  const PretrainedLayout* layout = recognise_layout(file_names);
  static const std::vector<NameRule> no_rules;
  const auto& network_only = layout ? layout->network_only : no_rules;
  const auto& file_only = layout ? layout->file_only : no_rules;

  PartialLoadReport report;
  report.layout = layout ? layout->name : "";
  std::vector<std::string> problems;
  for (const auto& [name, target] : targets) {
    const auto it = weights.find(name);
    if (it == weights.end()) {
      add_to_group(report.left_initial, reason_for(network_only, name, "absent from the file"), name);
      continue;
    }
    const std::string problem = mismatch(name, it->second, target);
    if (!problem.empty()) problems.push_back(problem);
    report.loaded.names.push_back(name);
  }
  for (const auto& [name, t] : weights)
    if (!targets.count(name)) add_to_group(report.ignored, reason_for(file_only, name, "not in the network"), name);
  if (!problems.empty())
    throw DataError(path, "does not fit the network: " + first_few(problems) + "; nothing was loaded");
  if (report.loaded.names.empty())
    throw DataError(path, "shares no tensor name with the network (the file has " + first_few(file_names) +
                              "; the network " + first_few(network_names) + "); nothing was loaded");

  at::NoGradGuard no_grad;
  for (const auto& name : report.loaded.names) targets.at(name).copy_(weights.at(name));
  summarise(report.loaded, network_names);
  for (auto& g : report.left_initial) summarise(g, network_names);
  for (auto& g : report.ignored) summarise(g, file_names);
  return report;
}

}  // namespace medsynth
