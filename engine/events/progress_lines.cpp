#include "events/progress_lines.hpp"

#include <unistd.h>

#include <algorithm>
#include <iostream>
#include <sstream>

namespace medsynth {

ProgressLines::ProgressLines(ProgressLinesOptions options) : options_(std::move(options)) {
  terminal_ = options_.terminal.value_or(!options_.out && ::isatty(STDERR_FILENO) == 1);
}

void ProgressLines::draw_bar(std::ostream& out, std::string_view phase, std::int64_t done, std::int64_t total) {
  constexpr int width = 30;
  const double fraction =
      total > 0 ? std::clamp(static_cast<double>(done) / static_cast<double>(total), 0.0, 1.0) : 0.0;
  const int filled = static_cast<int>(fraction * width);
  std::ostringstream line;
  line << "\r\033[K";  // to the line's start, and clear it
  if (!options_.prefix.empty()) line << options_.prefix << ": ";
  line << phase << " [" << std::string(static_cast<std::size_t>(filled), '#')
       << std::string(static_cast<std::size_t>(width - filled), '.') << "] " << done << '/' << total << ' '
       << static_cast<int>(fraction * 100.0) << '%';
  if (done >= total) line << '\n';
  out << line.str() << std::flush;
  bar_open_ = done < total;
}

std::chrono::steady_clock::time_point ProgressLines::now() const {
  return options_.clock ? options_.clock() : std::chrono::steady_clock::now();
}

void ProgressLines::report(std::string_view phase, std::int64_t done, std::int64_t total) {
  std::lock_guard lock(mutex_);
  const auto t = now();
  const bool new_phase = phase != phase_;
  const bool last = done >= total;
  std::ostream& out = options_.out ? *options_.out : std::cerr;
  if (terminal_) {
    const bool due = std::chrono::duration<double>(t - last_line_).count() >= 0.1;
    if (!new_phase && !last && !due) return;
    if (new_phase && bar_open_) out << '\n';  // the unfinished phase's bar stays as it was
    phase_ = std::string(phase);
    last_line_ = t;
    draw_bar(out, phase, done, total);
    return;
  }
  const bool due = std::chrono::duration<double>(t - last_line_).count() >= options_.every_s;
  if (!new_phase && !last && !due) return;
  phase_ = std::string(phase);
  last_line_ = t;
  std::ostringstream line;
  if (!options_.prefix.empty()) line << options_.prefix << ": ";
  line << phase << ' ' << done << '/' << total << '\n';
  out << line.str() << std::flush;
}

}  // namespace medsynth
