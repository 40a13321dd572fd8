#include "cli/cuda_report.hpp"

#include <ATen/detail/CUDAHooksInterface.h>
#include <dlfcn.h>

#include <array>
#include <exception>

namespace medsynth::cli {
namespace {

// CUDA encodes versions as major * 1000 + minor * 10 (13020 -> "13.2").
std::string cuda_version_text(long v) { return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10); }

// cuDNN 9 encodes major * 10000 + minor * 100 + patch; cuDNN 8 major * 1000 + ...
std::string cudnn_version_text(long v) {
  const long major = v >= 90000 ? v / 10000 : v / 1000;
  const long minor = v >= 90000 ? (v % 10000) / 100 : (v % 1000) / 100;
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(v % 100);
}

// The few driver API entry points used, by their C signatures (CUresult is an
// int enum, CUdevice an int; 0 is CUDA_SUCCESS).
struct DriverApi {
  using Init = int (*)(unsigned);
  using IntOut = int (*)(int*);
  using DeviceGet = int (*)(int*, int);
  using DeviceName = int (*)(char*, int, int);
  using DeviceMemory = int (*)(std::size_t*, int);
  using DeviceAttribute = int (*)(int*, int, int);
  Init init = nullptr;
  IntOut driver_version = nullptr, device_count = nullptr;
  DeviceGet device_get = nullptr;
  DeviceName device_name = nullptr;
  DeviceMemory total_memory = nullptr;
  DeviceAttribute attribute = nullptr;

  static std::optional<DriverApi> open() {
    void* lib = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
    if (!lib) lib = dlopen("libcuda.so.1", RTLD_LAZY);
    if (!lib) return std::nullopt;
    DriverApi api;
    api.init = reinterpret_cast<Init>(dlsym(lib, "cuInit"));
    api.driver_version = reinterpret_cast<IntOut>(dlsym(lib, "cuDriverGetVersion"));
    api.device_count = reinterpret_cast<IntOut>(dlsym(lib, "cuDeviceGetCount"));
    api.device_get = reinterpret_cast<DeviceGet>(dlsym(lib, "cuDeviceGet"));
    api.device_name = reinterpret_cast<DeviceName>(dlsym(lib, "cuDeviceGetName"));
    api.total_memory = reinterpret_cast<DeviceMemory>(dlsym(lib, "cuDeviceTotalMem_v2"));
    api.attribute = reinterpret_cast<DeviceAttribute>(dlsym(lib, "cuDeviceGetAttribute"));
    if (!api.init || !api.driver_version || !api.device_count || !api.device_get || !api.device_name || !api.total_memory || !api.attribute)
      return std::nullopt;
    return api;
  }
};

constexpr int k_attribute_multiprocessors = 16;        // CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT
constexpr int k_attribute_capability_major = 75;       // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR
constexpr int k_attribute_capability_minor = 76;       // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR

void add_driver_facts(CudaReport& report, bool list_gpus) {
  const auto api = DriverApi::open();
  if (!api) return;
  if (int v = 0; api->driver_version(&v) == 0 && v > 0) report.cuda_driver_version = cuda_version_text(v);
  if (!list_gpus || api->init(0) != 0) return;
  int count = 0;
  if (api->device_count(&count) != 0) return;
  for (int i = 0; i < count; ++i) {
    int device = 0;
    if (api->device_get(&device, i) != 0) continue;
    GpuReport gpu;
    gpu.index = i;
    std::array<char, 256> name{};
    if (api->device_name(name.data(), static_cast<int>(name.size()), device) == 0) gpu.name = name.data();
    std::size_t bytes = 0;
    if (api->total_memory(&bytes, device) == 0) gpu.memory_bytes = static_cast<std::int64_t>(bytes);
    int major = 0, minor = 0;
    if (api->attribute(&major, k_attribute_capability_major, device) == 0 && api->attribute(&minor, k_attribute_capability_minor, device) == 0)
      gpu.compute_capability = std::to_string(major) + "." + std::to_string(minor);
    api->attribute(&gpu.multiprocessors, k_attribute_multiprocessors, device);
    report.gpus.push_back(gpu);
  }
}

}  // namespace

CudaReport probe_cuda(bool cuda_usable) {
  CudaReport report;
  const auto& hooks = at::detail::getCUDAHooks();
  // The default hooks of a CPU-only LibTorch throw; so may a broken install.
  try {
    if (const long v = hooks.versionCUDART(); v > 0) report.cuda_version = cuda_version_text(v);
  } catch (const std::exception&) {
  }
  try {
    if (cuda_usable && hooks.hasCuDNN()) report.cudnn_version = cudnn_version_text(hooks.versionRuntimeCuDNN());
  } catch (const std::exception&) {
  }
  add_driver_facts(report, cuda_usable);
  return report;
}

}  // namespace medsynth::cli
