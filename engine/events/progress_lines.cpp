#include "events/progress_lines.hpp"

#include <iostream>
#include <sstream>

namespace medsynth {

ProgressLines::ProgressLines(ProgressLinesOptions options) : options_(std::move(options)) {}

std::chrono::steady_clock::time_point ProgressLines::now() const {
  return options_.clock ? options_.clock() : std::chrono::steady_clock::now();
}

void ProgressLines::report(std::string_view phase, std::int64_t done, std::int64_t total) {
  std::lock_guard lock(mutex_);
  const auto t = now();
  const bool new_phase = phase != phase_;
  const bool last = done >= total;
  const bool due = std::chrono::duration<double>(t - last_line_).count() >= options_.every_s;
  if (!new_phase && !last && !due) return;
  phase_ = std::string(phase);
  last_line_ = t;
  std::ostringstream line;
  if (!options_.prefix.empty()) line << options_.prefix << ": ";
  line << phase << ' ' << done << '/' << total << '\n';
  std::ostream& out = options_.out ? *options_.out : std::cerr;
  out << line.str() << std::flush;
}

}  // namespace medsynth
