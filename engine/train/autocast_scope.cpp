#include "train/autocast_scope.hpp"

#include <ATen/autocast_mode.h>
#include <ATen/cpu/Utils.h>

#include <cstdlib>
#include <string>

namespace medsynth {
namespace {

bool capability(const std::unordered_map<std::string, c10::IValue>& caps, const std::string& name) {
  const auto it = caps.find(name);
  return it != caps.end() && it->second.isBool() && it->second.toBool();
}

bool cpu_has_native_bf16() {
  static const bool native = [] {
    const auto caps = at::cpu::get_cpu_capabilities();
    if (capability(caps, "amx_bf16") || capability(caps, "avx512_bf16")) return true;
    if (capability(caps, "avx512_bw") && capability(caps, "avx512_vl") && capability(caps, "avx512_dq")) return true;
    for (const auto& [name, value] : caps)  // Arm: bf16 / sve_bf16 style flags
      if (name.find("bf16") != std::string::npos && value.isBool() && value.toBool()) return true;
    return false;
  }();
  return native;
}

}  // namespace

bool autocast_pays_off(c10::DeviceType device) {
  if (device != c10::DeviceType::CPU) return true;
  if (const char* forced = std::getenv("MEDSYNTH_CPU_BF16"); forced && *forced) return std::string(forced) != "0";
  return cpu_has_native_bf16();
}

AutocastScope::AutocastScope(bool enabled, c10::DeviceType device, std::optional<c10::ScalarType> dtype)
    : enabled_(enabled && autocast_pays_off(device)), device_(device) {
  if (!enabled_) return;
  previous_enabled_ = at::autocast::is_autocast_enabled(device_);
  previous_dtype_ = at::autocast::get_autocast_dtype(device_);
  at::autocast::set_autocast_enabled(device_, true);
  at::autocast::set_autocast_dtype(device_, dtype.value_or(device_ == c10::DeviceType::CUDA ? at::kHalf : at::kBFloat16));
  at::autocast::increment_nesting();
}

AutocastScope::~AutocastScope() {
  if (!enabled_) return;
  if (at::autocast::decrement_nesting() == 0) at::autocast::clear_cache();
  at::autocast::set_autocast_enabled(device_, previous_enabled_);
  at::autocast::set_autocast_dtype(device_, previous_dtype_);
}

}  // namespace medsynth
