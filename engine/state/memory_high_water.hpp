// The most memory a process has needed so far: its peak resident set and, on
// a GPU, the caching allocator's peaks (allocated: what tensors held;
// reserved: what the allocator took from the driver, which decides an
// out-of-memory). Every training run, pipeline and `generate` reports it at
// its end (a log line, and run_finished's "extra"), so a job sized for one
// GPU can be checked against another (docs/gpu-presets.md sizes the presets
// from these numbers).
#pragma once

#include <c10/core/Device.h>

#include <optional>
#include <string>

#include "contract/event_fields.hpp"

namespace medsynth {

struct MemoryHighWater {
  double resident_gib = 0;  // the process's peak RSS since it started
  std::string device;       // the accelerator the peaks below are of ("cuda:0"); empty on a CPU
  std::optional<double> device_allocated_gib, device_reserved_gib;
};

// Of this process, and of `device` when it is an accelerator.
MemoryHighWater memory_high_water(const c10::Device& device);

// "peak memory: 2.41 GiB resident; cuda:0 5.10 GiB allocated, 6.02 GiB reserved"
std::string describe(const MemoryHighWater& m);
// The run_finished fields: peak_resident_gib, and peak_device,
// peak_device_allocated_gib, peak_device_reserved_gib on an accelerator.
EventFields event_fields(const MemoryHighWater& m);

}  // namespace medsynth
