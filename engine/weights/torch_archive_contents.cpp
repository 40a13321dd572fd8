// Finding things in what a torch.save file holds: dict look-ups, the weights
// (state_dict_of) and the numbers saved beside them (scalar_extras_of).
// Declared in torch_archive.hpp.
#include <ATen/ATen.h>

#include <algorithm>
#include <iterator>
#include <set>
#include <vector>

#include "core/error.hpp"
#include "weights/torch_archive.hpp"

namespace medsynth {
namespace {

// Where checkpoints put the weights: MAISI/NV-Generate, then the usual names.
constexpr const char* k_weight_keys[] = {"unet_state_dict", "controlnet_state_dict", "state_dict", "model"};
const std::string k_data_parallel_prefix = "module.";

// The dict of weights under one of k_weight_keys, or nullptr.
const PickleValue::Dict* nested_state_dict(const PickleValue& root) {
  for (const char* key : k_weight_keys)
    if (const PickleValue* v = root.find(key))
      if (const auto* d = v->get_if<PickleValue::Dict>()) return d;
  return nullptr;
}

std::map<std::string, at::Tensor> drop_common_prefix(std::map<std::string, at::Tensor> tensors) {
  for (const auto& [name, t] : tensors)
    if (name.rfind(k_data_parallel_prefix, 0) != 0) return tensors;
  std::map<std::string, at::Tensor> out;
  for (auto& [name, t] : tensors) out.emplace(name.substr(k_data_parallel_prefix.size()), std::move(t));
  return out;
}

}  // namespace

const PickleValue* PickleValue::find(std::string_view key) const {
  const auto* d = get_if<Dict>();
  if (!d) return nullptr;
  for (auto it = d->items.rbegin(); it != d->items.rend(); ++it)
    if (const auto* s = it->first.get_if<std::string>(); s && *s == key) return &it->second;
  return nullptr;
}

const char* PickleValue::kind_name() const {
  static constexpr const char* k_names[] = {"None", "bool", "int", "float", "str", "bytes", "list", "tuple", "dict", "tensor"};
  static_assert(std::size(k_names) == std::variant_size_v<Variant>);
  return k_names[value.index()];
}

std::map<std::string, at::Tensor> state_dict_of(const PickleValue& root, const std::string& path) {
  const auto* top = root.get_if<PickleValue::Dict>();
  if (!top) throw DataError(path, std::string("holds a ") + root.kind_name() + ", not a dict of tensors");
  const PickleValue::Dict* weights = nested_state_dict(root);
  std::map<std::string, at::Tensor> tensors;
  for (const auto& [key, value] : (weights ? weights : top)->items) {
    const auto* name = key.get_if<std::string>();
    const auto* t = value.get_if<at::Tensor>();
    if (name && t) tensors[*name] = *t;
  }
  if (tensors.empty())
    throw DataError(path, "no tensors at the top level nor under unet_state_dict, controlnet_state_dict, state_dict or model");
  // Every foreign state dict (import-maisi, --init-weights, perceptual and
  // feature networks) is read here: an expanded view or a NaN weight is
  // refused as it is read, the view first (its NaN check would expand it).
  refuse_overlapping_tensors(tensors, path);
  refuse_non_finite_tensors(tensors, path);
  return drop_common_prefix(std::move(tensors));
}

void refuse_non_finite_tensors(const std::map<std::string, at::Tensor>& tensors, const std::string& path) {
  for (const auto& [name, t] : tensors)
    if (t.is_floating_point() && t.numel() > 0 && !t.isfinite().all().item<bool>())
      throw DataError(path, "weight '" + name + "' holds NaN or infinite values; no network can use it");
}

void refuse_overlapping_tensors(const std::map<std::string, at::Tensor>& tensors, const std::string& path) {
  for (const auto& [name, t] : tensors) {
    // Axes by stride, smallest first: the tensor repeats no element when each
    // axis steps past everything the axes inside it span.
    std::vector<std::pair<std::int64_t, std::int64_t>> axes;  // (stride, size)
    for (std::int64_t d = 0; d < t.dim(); ++d)
      if (t.size(d) > 1) axes.emplace_back(t.stride(d), t.size(d));
    std::sort(axes.begin(), axes.end());
    std::int64_t span = 1;  // elements the inner axes reach, as a distance
    for (const auto& [stride, size] : axes) {
      if (stride < span)
        throw DataError(
            path, "weight '" + name + "' of size " + c10::str(t.sizes()) + " has stride " + c10::str(t.strides()) +
                      ": a view whose elements overlap (stride 0 is torch's expand()), which no saved network's "
                      "weight is; refusing it before a network is sized by it");
      span = stride * (size - 1) + span;
    }
  }
}

double stored_elements(const std::map<std::string, at::Tensor>& tensors) {
  std::set<const void*> seen;
  double elements = 0;
  for (const auto& [name, t] : tensors)
    if (seen.insert(t.storage().unsafeGetStorageImpl()).second)
      elements += static_cast<double>(t.storage().nbytes()) / static_cast<double>(t.element_size());
  return elements;
}

std::map<std::string, double> scalar_extras_of(const PickleValue& root) {
  std::map<std::string, double> out;
  const auto* top = root.get_if<PickleValue::Dict>();
  if (!top) return out;
  const bool nested = nested_state_dict(root) != nullptr;
  for (const auto& [key, value] : top->items) {
    const auto* name = key.get_if<std::string>();
    if (!name) continue;
    if (const auto* b = value.get_if<bool>()) out[*name] = *b ? 1.0 : 0.0;
    if (const auto* i = value.get_if<std::int64_t>()) out[*name] = static_cast<double>(*i);
    if (const auto* d = value.get_if<double>()) out[*name] = *d;
    const auto* t = value.get_if<at::Tensor>();
    if (nested && t && t->dim() == 0) out[*name] = t->item<double>();
  }
  return out;
}

}  // namespace medsynth
