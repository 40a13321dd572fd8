// `medsynth-engine info [--json]`: what this engine is built with and what it
// can use here: versions (medsynth, LibTorch, CUDA, cuDNN, NCCL, ITK),
// devices (each GPU's name and memory), threads, CPU and memory. The console
// calls it to fill its machine panel; the cuda tests check the GPU fields.
#include <ATen/Parallel.h>
#include <ATen/Context.h>
#include <CLI/CLI.hpp>
#include <dlfcn.h>
#include <torch/cuda.h>
#include <torch/version.h>
#include <unistd.h>

#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <thread>

#include "cli/cuda_report.hpp"
#include "cli/verbs.hpp"
#include "volume/itk_version.hpp"

namespace medsynth::cli {
namespace {

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  return "unknown";
}

double memory_gib() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  double kb = 0;
  in >> key >> kb;
  return kb / (1024.0 * 1024.0);
}

// NCCL's runtime version, read from the library LibTorch loaded (or would load).
std::string nccl_version() {
  void* lib = dlopen("libnccl.so.2", RTLD_LAZY | RTLD_NOLOAD);
  if (!lib) lib = dlopen("libnccl.so.2", RTLD_LAZY);
  if (!lib) return "unavailable";
  using GetVersion = int (*)(int*);
  auto fn = reinterpret_cast<GetVersion>(dlsym(lib, "ncclGetVersion"));
  int v = 0;
  if (!fn || fn(&v) != 0) return "unknown";
  return std::to_string(v / 10000) + "." + std::to_string((v % 10000) / 100) + "." + std::to_string(v % 100);
}

nlohmann::json optional_text(const std::optional<std::string>& value) { return value ? nlohmann::json(*value) : nlohmann::json(nullptr); }

double gib(std::int64_t bytes) { return static_cast<double>(bytes) / (1024.0 * 1024.0 * 1024.0); }

}  // namespace

Action add_info_verb(CLI::App& app) {
  auto json = std::make_shared<bool>(false);
  auto* cmd = app.add_subcommand("info", "Versions, devices and threads of this engine");
  cmd->add_flag("--json", *json, "Print one JSON object");
  return [json] {
    const bool cuda = torch::cuda::is_available();
    nlohmann::json devices = nlohmann::json::array();
    devices.push_back({{"type", "cpu"}, {"name", cpu_model()}, {"cores", std::thread::hardware_concurrency()}});
    const CudaReport report = probe_cuda(cuda);
    nlohmann::json gpus = nlohmann::json::array();
    for (const auto& g : report.gpus)
      gpus.push_back({{"index", g.index},
                      {"name", g.name},
                      {"memory_bytes", g.memory_bytes},
                      {"memory_gib", gib(g.memory_bytes)},
                      {"compute_capability", g.compute_capability},
                      {"multiprocessors", g.multiprocessors}});
    for (int64_t i = 0; cuda && i < static_cast<int64_t>(torch::cuda::device_count()); ++i) {
      nlohmann::json device = {{"type", "cuda"}, {"index", i}};
      for (const auto& g : report.gpus)
        if (g.index == i) device.update({{"name", g.name}, {"memory_gib", gib(g.memory_bytes)}});
      devices.push_back(device);
    }
    nlohmann::json info = {
        {"medsynth", MEDSYNTH_VERSION},
        {"libtorch", TORCH_VERSION},
        {"cuda_available", cuda},
        {"cuda_device_count", cuda ? torch::cuda::device_count() : 0},
        {"cudnn_available", cuda && torch::cuda::cudnn_is_available()},
        {"cuda_version", optional_text(report.cuda_version)},                // LibTorch's CUDA runtime (null: a CPU-only LibTorch)
        {"cuda_driver_version", optional_text(report.cuda_driver_version)},  // null: no NVIDIA driver
        {"cudnn_version", optional_text(report.cudnn_version)},              // null: no GPU that can use it
        {"gpus", gpus},                                                      // [] without a usable GPU
        {"nccl", nccl_version()},
        {"gloo", true},
        {"itk", itk_version()},
        {"mkldnn", at::hasMKLDNN()},
        {"threads", at::get_num_threads()},
        {"interop_threads", at::get_num_interop_threads()},
        {"hardware_threads", std::thread::hardware_concurrency()},
        {"memory_gib", memory_gib()},
        {"devices", devices},
    };
    if (*json) {
      std::cout << info.dump() << "\n";
    } else {
      std::cout << "medsynth-engine " << MEDSYNTH_VERSION << "\nLibTorch " << TORCH_VERSION << "\nCUDA available: " << (cuda ? "yes" : "no")
                << " (" << info["cuda_device_count"] << " devices)\nCUDA " << report.cuda_version.value_or("none") << " (driver "
                << report.cuda_driver_version.value_or("none") << "), cuDNN " << report.cudnn_version.value_or("none") << "\n";
      for (const auto& g : report.gpus)
        std::cout << "GPU " << g.index << ": " << g.name << ", " << gib(g.memory_bytes) << " GiB, compute capability " << g.compute_capability
                  << ", " << g.multiprocessors << " SMs\n";
      std::cout << "NCCL " << info["nccl"].get<std::string>() << "\nITK "
                << info["itk"].get<std::string>() << "\noneDNN: " << (at::hasMKLDNN() ? "yes" : "no") << "\nthreads: " << at::get_num_threads()
                << " of " << std::thread::hardware_concurrency() << "\nCPU: " << cpu_model() << "\nmemory: " << info["memory_gib"] << " GiB\n";
    }
    return 0;
  };
}

}  // namespace medsynth::cli
