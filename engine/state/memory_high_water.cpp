#include "state/memory_high_water.hpp"

#include <ATen/DeviceAccelerator.h>
#include <sys/resource.h>

#include <cstdio>

namespace medsynth {

namespace {

constexpr double k_gib = 1024.0 * 1024.0 * 1024.0;

std::string gib_text(double gib) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f GiB", gib);
  return text;
}

}  // namespace

MemoryHighWater memory_high_water(const c10::Device& device) {
  MemoryHighWater m;
  rusage usage{};
  if (getrusage(RUSAGE_SELF, &usage) == 0)
    m.resident_gib = static_cast<double>(usage.ru_maxrss) * 1024.0 / k_gib;  // KiB on Linux
  if (device.is_cuda()) {
    const auto stats = at::accelerator::getDeviceStats(device.index());
    constexpr auto all = static_cast<std::size_t>(c10::CachingDeviceAllocator::StatType::AGGREGATE);
    m.device = device.str();
    m.device_allocated_gib = static_cast<double>(stats.allocated_bytes[all].peak) / k_gib;
    m.device_reserved_gib = static_cast<double>(stats.reserved_bytes[all].peak) / k_gib;
  }
  return m;
}

std::string describe(const MemoryHighWater& m) {
  std::string text = "peak memory: " + gib_text(m.resident_gib) + " resident";
  if (m.device_allocated_gib)
    text += "; " + m.device + " " + gib_text(*m.device_allocated_gib) + " allocated, " +
            gib_text(*m.device_reserved_gib) + " reserved";
  return text;
}

EventFields event_fields(const MemoryHighWater& m) {
  EventFields fields{{"peak_resident_gib", m.resident_gib}};
  if (m.device_allocated_gib) {
    fields.emplace_back("peak_device", m.device);
    fields.emplace_back("peak_device_allocated_gib", *m.device_allocated_gib);
    fields.emplace_back("peak_device_reserved_gib", *m.device_reserved_gib);
  }
  return fields;
}

}  // namespace medsynth
