// `medsynth-engine info [--json]`: what this engine is built with and what it
// can use here: versions (medsynth, LibTorch, CUDA, cuDNN, NCCL, ITK),
// devices, threads, CPU and memory. The console calls it to fill its machine panel.
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

}  // namespace

Action add_info_verb(CLI::App& app) {
  auto json = std::make_shared<bool>(false);
  auto* cmd = app.add_subcommand("info", "Versions, devices and threads of this engine");
  cmd->add_flag("--json", *json, "Print one JSON object");
  return [json] {
    const bool cuda = torch::cuda::is_available();
    nlohmann::json devices = nlohmann::json::array();
    devices.push_back({{"type", "cpu"}, {"name", cpu_model()}, {"cores", std::thread::hardware_concurrency()}});
    for (int64_t i = 0; cuda && i < static_cast<int64_t>(torch::cuda::device_count()); ++i)
      devices.push_back({{"type", "cuda"}, {"index", i}});
    nlohmann::json info = {
        {"medsynth", MEDSYNTH_VERSION},
        {"libtorch", TORCH_VERSION},
        {"cuda_available", cuda},
        {"cuda_device_count", cuda ? torch::cuda::device_count() : 0},
        {"cudnn_available", cuda && torch::cuda::cudnn_is_available()},
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
                << " (" << info["cuda_device_count"] << " devices)\nNCCL " << info["nccl"].get<std::string>() << "\nITK "
                << info["itk"].get<std::string>() << "\noneDNN: " << (at::hasMKLDNN() ? "yes" : "no") << "\nthreads: " << at::get_num_threads()
                << " of " << std::thread::hardware_concurrency() << "\nCPU: " << cpu_model() << "\nmemory: " << info["memory_gib"] << " GiB\n";
    }
    return 0;
  };
}

}  // namespace medsynth::cli
