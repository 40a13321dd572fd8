// The one-line training progress bar on stderr, for a person watching a
// terminal. Drawn only when stderr is a TTY (or when forced); in a pipe, a
// log file or under SLURM it stays silent and the RunLogger/event stream
// report progress instead. Called by the trainer (update/finish) and by
// RunLogger (print_above, so log lines do not tear the bar). Thread-safe.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

namespace medsynth {

struct ProgressBarOptions {
  int fd = 2;                   // stderr
  bool force = false;           // draw even if fd is not a TTY (tests, `script` captures)
  int width = 0;                // columns; 0 = the terminal's width (80 if unknown)
  double min_redraw_s = 0.1;    // at most ~10 redraws per second
  double eta_smoothing = 0.1;   // weight of the newest step time in the moving average
  // Injected clock for tests; defaults to steady_clock::now.
  std::function<std::chrono::steady_clock::time_point()> clock{};
};

struct ProgressState {
  std::int64_t step = 0;  // steps done
  std::int64_t total_steps = 0;
  std::int64_t epoch = 0;
  std::int64_t epochs = 0;
  std::optional<double> loss{};
  std::optional<double> samples_per_s{};
};

class ProgressBar {
 public:
  // Throws UsageError for bad options (naming the field).
  explicit ProgressBar(ProgressBarOptions options = {});
  ~ProgressBar();
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  // True if the bar draws anything at all (TTY or forced).
  bool active() const noexcept { return active_; }

  // Records the state (and the step time for the ETA); redraws if the last
  // redraw is older than min_redraw_s or the run just reached total_steps.
  void update(const ProgressState& state);
  // Draws the final state and ends the line; a second call does nothing.
  // Further updates start a new line.
  void finish();
  // Writes `text` (one or more whole lines) above the bar: clears the bar's
  // line, writes text, redraws the bar. Writes text alone if inactive.
  void print_above(std::string_view text);

  // The bar's text for the current state (no control characters), for tests.
  std::string render() const;
  // Smoothed seconds per step; empty until two updates have advanced the step.
  std::optional<double> seconds_per_step() const;

 private:
  std::chrono::steady_clock::time_point now() const;
  std::string render_locked() const;
  void draw_locked();
  void write_locked(std::string_view bytes) const;

  ProgressBarOptions options_;
  bool active_ = false;
  mutable std::mutex mutex_;
  ProgressState state_;
  bool line_open_ = false;  // the bar is on screen and the cursor is on its line
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_draw_;
  bool drawn_once_ = false;
  std::optional<std::int64_t> last_step_;
  std::chrono::steady_clock::time_point last_step_time_;
  std::optional<double> ema_step_s_;
};

}  // namespace medsynth
