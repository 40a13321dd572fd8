// Progress of a long command that is not training (evaluate, encode,
// generate, export-dicom), as plain lines on stderr: the first and the
// last step of each phase and at most one line every `every_s` seconds in
// between, so a terminal, a pipe and a SLURM log alike show that it moves
// (issue 38: these commands printed only at the end; at MAISI size that is
// hours, and a hang looked like progress). On a terminal the phase is a bar
// redrawn in place instead (at most ten times a second), ended by a newline
// when the phase ends. Training has its bar and events. Thread-safe.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

namespace medsynth {

struct ProgressLinesOptions {
  std::string prefix;           // "evaluate": each line starts "evaluate: "
  std::ostream* out = nullptr;  // null: std::cerr
  double every_s = 10.0;        // between the first and the last step of a phase
  // A bar redrawn in place: unset, when `out` is null and stderr is a terminal.
  std::optional<bool> terminal;
  // Injected clock for tests; defaults to steady_clock::now.
  std::function<std::chrono::steady_clock::time_point()> clock{};
};

class ProgressLines {
 public:
  explicit ProgressLines(ProgressLinesOptions options);

  // `done` of `total` in `phase` ("reading generated volumes"): a line
  // "PREFIX: PHASE DONE/TOTAL (RATE, elapsed E, ETA T)" when it is the
  // phase's first report (no timing yet), its last step ("(in E, RATE)"), or
  // every_s after the previous line.
  void report(std::string_view phase, std::int64_t done, std::int64_t total);

 private:
  std::chrono::steady_clock::time_point now() const;

  void draw_bar(std::ostream& out, std::string_view phase, std::int64_t done, std::int64_t total,
                const std::string& when);
  std::string timing(std::int64_t done, std::int64_t total, std::chrono::steady_clock::time_point t) const;

  ProgressLinesOptions options_;
  bool terminal_ = false;
  bool bar_open_ = false;  // a bar is drawn without its newline yet
  std::mutex mutex_;
  std::string phase_;
  std::chrono::steady_clock::time_point last_line_{};
  std::chrono::steady_clock::time_point phase_start_{};  // the phase's first report
  std::int64_t phase_first_done_ = 0;
};

}  // namespace medsynth
