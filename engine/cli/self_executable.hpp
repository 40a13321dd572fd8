// The path of the running medsynth-engine (/proc/self/exe), which the
// launcher starts as its workers and a sweep as its runs.
#pragma once

#include <limits.h>
#include <unistd.h>

#include <string>

#include "core/error.hpp"

namespace medsynth::cli {

inline std::string self_executable() {
  char buffer[PATH_MAX] = {};
  const ssize_t n = ::readlink("/proc/self/exe", buffer, sizeof(buffer) - 1);
  if (n <= 0) throw RuntimeError("medsynth-engine: cannot find its own executable (/proc/self/exe)");
  return std::string(buffer, static_cast<std::size_t>(n));
}

}  // namespace medsynth::cli
