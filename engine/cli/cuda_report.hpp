// What `info` reports about CUDA: LibTorch's CUDA and cuDNN versions, the
// driver's, and each GPU's name and memory. Read through the CUDA driver
// library (libcuda.so.1, opened at run time like NCCL in verb_info.cpp) and
// LibTorch's CUDA hooks, so this file needs no CUDA header and builds against
// a CPU-only LibTorch too. Where there is no GPU, driver or cuDNN the fields
// are empty (the JSON writes null and []). Called by verb_info.cpp only.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace medsynth::cli {

struct GpuReport {
  int index = 0;                  // as cuda:N (after CUDA_VISIBLE_DEVICES)
  std::string name;               // "NVIDIA H100 80GB HBM3"
  std::int64_t memory_bytes = 0;  // total device memory
  std::string compute_capability; // "9.0"
  int multiprocessors = 0;
};

struct CudaReport {
  std::optional<std::string> cuda_version;         // the CUDA runtime LibTorch was built with, "13.2"
  std::optional<std::string> cuda_driver_version;  // the CUDA version the installed driver supports
  std::optional<std::string> cudnn_version;        // the cuDNN LibTorch loaded, when a GPU can use it
  std::vector<GpuReport> gpus;                     // empty without a usable GPU
};

// `cuda_usable`: torch::cuda::is_available() (GPUs are listed only then).
CudaReport probe_cuda(bool cuda_usable);

}  // namespace medsynth::cli
