#include "events/progress_lines.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <sstream>

namespace medsynth {

ProgressLines::ProgressLines(ProgressLinesOptions options) : options_(std::move(options)) {
  terminal_ = options_.terminal.value_or(!options_.out && ::isatty(STDERR_FILENO) == 1);
}

void ProgressLines::draw_bar(std::ostream& out, std::string_view phase, std::int64_t done, std::int64_t total,
                             const std::string& when) {
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
  if (!when.empty()) line << ' ' << when;
  if (done >= total) line << '\n';
  out << line.str() << std::flush;
  bar_open_ = done < total;
}

namespace {

// "0.4 s", "12 s", "3 min 05 s", "2 h 07 min": as precise as a person reads it.
std::string duration_text(double s) {
  char text[32];
  if (s < 10.0)
    std::snprintf(text, sizeof text, "%.1f s", s);
  else if (s < 60.0)
    std::snprintf(text, sizeof text, "%.0f s", s);
  else if (s < 3600.0)
    std::snprintf(text, sizeof text, "%d min %02d s", int(s) / 60, int(s) % 60);
  else
    std::snprintf(text, sizeof text, "%d h %02d min", int(s) / 3600, int(s) / 60 % 60);
  return text;
}

std::string rate_text(double per_s) {
  char text[32];
  if (per_s >= 1.0)
    std::snprintf(text, sizeof text, "%.3g/s", per_s);
  else
    std::snprintf(text, sizeof text, "%s each", duration_text(1.0 / per_s).c_str());
  return text;
}

}  // namespace

// Rate, elapsed time and ETA of the phase, from its first report (issue 53
// item 6: generate and evaluate printed counts alone). The first report is
// the phase's start: the steps it counts were done before the clock started.
std::string ProgressLines::timing(std::int64_t done, std::int64_t total,
                                  std::chrono::steady_clock::time_point t) const {
  const double elapsed = std::chrono::duration<double>(t - phase_start_).count();
  const auto steps = done - phase_first_done_;
  if (elapsed <= 0.0 || steps <= 0) return {};
  const double rate = static_cast<double>(steps) / elapsed;
  if (done >= total) return "in " + duration_text(elapsed) + ", " + rate_text(rate);
  return rate_text(rate) + ", elapsed " + duration_text(elapsed) + ", ETA " +
         duration_text(static_cast<double>(total - done) / rate);
}

std::chrono::steady_clock::time_point ProgressLines::now() const {
  return options_.clock ? options_.clock() : std::chrono::steady_clock::now();
}

void ProgressLines::report(std::string_view phase, std::int64_t done, std::int64_t total) {
  std::lock_guard lock(mutex_);
  const auto t = now();
  const bool new_phase = phase != phase_;
  const bool last = done >= total;
  if (new_phase) phase_start_ = t, phase_first_done_ = done;
  std::ostream& out = options_.out ? *options_.out : std::cerr;
  if (terminal_) {
    const bool due = std::chrono::duration<double>(t - last_line_).count() >= 0.1;
    if (!new_phase && !last && !due) return;
    if (new_phase && bar_open_) out << '\n';  // the unfinished phase's bar stays as it was
    phase_ = std::string(phase);
    last_line_ = t;
    draw_bar(out, phase, done, total, timing(done, total, t));
    return;
  }
  const bool due = std::chrono::duration<double>(t - last_line_).count() >= options_.every_s;
  if (!new_phase && !last && !due) return;
  phase_ = std::string(phase);
  last_line_ = t;
  std::ostringstream line;
  if (!options_.prefix.empty()) line << options_.prefix << ": ";
  line << phase << ' ' << done << '/' << total;
  if (const std::string when = timing(done, total, t); !when.empty()) line << " (" << when << ')';
  line << '\n';
  out << line.str() << std::flush;
}

}  // namespace medsynth
