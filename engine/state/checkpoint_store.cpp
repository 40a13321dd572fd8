#include "state/checkpoint_store.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <regex>

#include "core/error.hpp"
#include "contract/run_directory.hpp"

namespace fs = std::filesystem;

namespace medsynth {
namespace {

std::string metric_slug(const std::string& metric) {
  std::string s = metric;
  std::replace(s.begin(), s.end(), '/', '_');
  return s;
}

// "val/psnr" -> "psnr": the seed's names carry the metric's last part only.
std::string metric_short(const std::string& metric) {
  std::string s = metric.substr(metric.rfind('/') + 1);
  std::replace_if(s.begin(), s.end(), [](char c) { return !std::isalnum(static_cast<unsigned char>(c)) && c != '_'; }, '_');
  return s;
}

}  // namespace

CheckpointStore::CheckpointStore(CheckpointStoreOptions options) : options_(std::move(options)) {
  std::error_code ec;
  fs::create_directories(options_.directory, ec);
  if (ec) throw RuntimeError("cannot create " + options_.directory + ": " + ec.message());
  // Temp files of writes that were killed half-way (tensor_file.cpp) are never
  // under a final name; sweep them so they do not accumulate.
  for (const auto& entry : fs::directory_iterator(options_.directory)) {
    const std::string name = entry.path().filename().string();
    if (!name.empty() && name[0] == '.' && name.find(".tmp-") != std::string::npos) fs::remove(entry.path(), ec);
  }
  const std::regex pattern("best-" + metric_slug(options_.metric) + "-(-?[0-9.]+)-step([0-9]+)\\.safetensors");
  const std::regex prefixed(std::regex_replace(options_.name_prefix, std::regex("[.]"), "\\.") + "-epoch([0-9]+)-" +
                            metric_short(options_.metric) + "(-?[0-9]+\\.[0-9]+)\\.safetensors");
  for (const auto& entry : fs::directory_iterator(options_.directory)) {
    std::smatch m;
    const std::string name = entry.path().filename().string();
    if (options_.name_prefix.empty()) {
      if (std::regex_match(name, m, pattern)) best_.push_back({entry.path().string(), std::stod(m[1]), std::stoi(m[2])});
    } else if (std::regex_match(name, m, prefixed)) {
      best_.push_back({entry.path().string(), std::stod(m[2]), 0});
    }
  }
  std::sort(best_.begin(), best_.end(), [this](const auto& a, const auto& b) { return better(a.value, b.value); });
}

bool CheckpointStore::better(double a, double b) const { return options_.mode == "min" ? a < b : a > b; }

std::string CheckpointStore::last_path() const {
  return (fs::path(options_.directory) / k_last_checkpoint_file).string();
}

std::string CheckpointStore::save_last(const TensorFile& file) {
  write_tensor_file(last_path(), file);
  return last_path();
}

std::optional<std::string> CheckpointStore::offer_best(const TensorFile& file, double value, int step, int epoch) {
  if (!std::isfinite(value)) return std::nullopt;  // a NaN is never "best"
  const bool room = static_cast<int>(best_.size()) < options_.keep_best;
  if (!room && !better(value, best_.back().value)) return std::nullopt;
  char name[160];
  if (options_.name_prefix.empty())
    std::snprintf(name, sizeof name, "best-%s-%.2f-step%06d.safetensors", metric_slug(options_.metric).c_str(), value, step);
  else  // seed 002: vqgan-patches-epoch05-psnr31.42 (an equal name in the same epoch is replaced)
    std::snprintf(name, sizeof name, "%s-epoch%02d-%s%.2f.safetensors", options_.name_prefix.c_str(), epoch, metric_short(options_.metric).c_str(), value);
  const std::string path = (fs::path(options_.directory) / name).string();
  write_tensor_file(path, file);
  // Drop a previous entry under the same name (same value and step on resume).
  best_.erase(std::remove_if(best_.begin(), best_.end(), [&](const auto& b) { return b.path == path; }), best_.end());
  best_.push_back({path, value, step});
  std::sort(best_.begin(), best_.end(), [this](const auto& a, const auto& b) { return better(a.value, b.value); });
  while (static_cast<int>(best_.size()) > options_.keep_best) {
    std::error_code ec;
    fs::remove(best_.back().path, ec);
    best_.pop_back();
  }
  return path;
}

}  // namespace medsynth
