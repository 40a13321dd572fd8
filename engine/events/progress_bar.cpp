#include "events/progress_bar.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>

#include "core/error.hpp"

namespace medsynth {
namespace {

std::string format_duration(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "--:--";
  const auto total = static_cast<std::int64_t>(std::llround(seconds));
  const auto h = total / 3600, m = (total / 60) % 60, s = total % 60;
  char buf[32];
  if (h > 0)
    std::snprintf(buf, sizeof(buf), "%lld:%02lld:%02lld", static_cast<long long>(h), static_cast<long long>(m),
                  static_cast<long long>(s));
  else
    std::snprintf(buf, sizeof(buf), "%02lld:%02lld", static_cast<long long>(m), static_cast<long long>(s));
  return buf;
}

std::string printf_string(const char* fmt, double v) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), fmt, v);
  return buf;
}

int terminal_width(int fd) {
  winsize ws{};
  if (::ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
  return 80;
}

}  // namespace

ProgressBar::ProgressBar(ProgressBarOptions options) : options_(std::move(options)) {
  if (options_.width < 0) throw UsageError("ProgressBarOptions.width: must be >= 0 (got " + std::to_string(options_.width) + ")");
  if (!(options_.min_redraw_s >= 0.0)) throw UsageError("ProgressBarOptions.min_redraw_s: must be >= 0");
  if (!(options_.eta_smoothing > 0.0 && options_.eta_smoothing <= 1.0))
    throw UsageError("ProgressBarOptions.eta_smoothing: must be in (0, 1]");
  active_ = options_.force || ::isatty(options_.fd) == 1;
  start_ = now();
}

ProgressBar::~ProgressBar() {
  std::lock_guard lock(mutex_);
  if (line_open_) write_locked("\n");  // leave the shell prompt on a line of its own
}

std::chrono::steady_clock::time_point ProgressBar::now() const {
  return options_.clock ? options_.clock() : std::chrono::steady_clock::now();
}

void ProgressBar::update(const ProgressState& state) {
  std::lock_guard lock(mutex_);
  const auto t = now();
  state_ = state;
  // The first update only sets the baseline: the time before it is start-up
  // (model build, data cache), not step time, and would inflate the ETA.
  if (!last_step_ || state.step < *last_step_) {
    last_step_ = state.step;
    last_step_time_ = t;
  } else if (state.step > *last_step_) {
    const double per_step = std::chrono::duration<double>(t - last_step_time_).count() /
                            static_cast<double>(state.step - *last_step_);
    ema_step_s_ = ema_step_s_ ? options_.eta_smoothing * per_step + (1.0 - options_.eta_smoothing) * *ema_step_s_
                              : per_step;
    last_step_ = state.step;
    last_step_time_ = t;
  }
  if (!active_) return;
  const bool done = state.total_steps > 0 && state.step >= state.total_steps;
  const double since_draw = std::chrono::duration<double>(t - last_draw_).count();
  if (!drawn_once_ || done || since_draw >= options_.min_redraw_s) {
    draw_locked();
    last_draw_ = t;
    drawn_once_ = true;
  }
}

void ProgressBar::finish() {
  std::lock_guard lock(mutex_);
  if (!active_ || !line_open_) return;  // nothing drawn, or already finished: finish() is idempotent
  draw_locked();
  write_locked("\n");
  line_open_ = false;
  drawn_once_ = false;
}

void ProgressBar::print_above(std::string_view text) {
  std::lock_guard lock(mutex_);
  std::string out;
  if (active_ && line_open_) out = "\r\x1b[K";
  out.append(text);
  if (!text.empty() && text.back() != '\n') out.push_back('\n');
  write_locked(out);
  if (active_ && line_open_) draw_locked();
}

std::string ProgressBar::render() const {
  std::lock_guard lock(mutex_);
  return render_locked();
}

std::optional<double> ProgressBar::seconds_per_step() const {
  std::lock_guard lock(mutex_);
  return ema_step_s_;
}

std::string ProgressBar::render_locked() const {
  const auto& s = state_;
  const double fraction =
      s.total_steps > 0 ? std::clamp(static_cast<double>(s.step) / static_cast<double>(s.total_steps), 0.0, 1.0) : 0.0;
  std::string head = "step " + std::to_string(s.step) + "/" + std::to_string(s.total_steps) + " " +
                     std::to_string(static_cast<int>(fraction * 100.0)) + "%";
  std::string tail;
  if (s.epochs > 0) tail += " epoch " + std::to_string(s.epoch) + "/" + std::to_string(s.epochs);
  if (s.loss) tail += " loss " + printf_string("%.4g", *s.loss);
  if (s.samples_per_s) tail += " " + printf_string("%.1f", *s.samples_per_s) + " samples/s";
  // The training bar showed no rate without samples/s (issue 53 item 6):
  // the smoothed step time that the ETA uses, as steps/s or s/step.
  else if (ema_step_s_ && *ema_step_s_ > 0.0)
    tail += *ema_step_s_ <= 1.0 ? " " + printf_string("%.3g", 1.0 / *ema_step_s_) + " steps/s"
                                : " " + printf_string("%.3g", *ema_step_s_) + " s/step";
  const double elapsed = std::chrono::duration<double>(last_step_ ? last_step_time_ - start_ : now() - start_).count();
  const double eta = ema_step_s_ && s.total_steps >= s.step
                         ? *ema_step_s_ * static_cast<double>(s.total_steps - s.step)
                         : -1.0;
  tail += " " + format_duration(elapsed) + "<" + format_duration(eta);

  const int width = options_.width > 0 ? options_.width : terminal_width(options_.fd);
  // The bar takes what is left of the line, 10 to 30 cells, or is dropped on narrow terminals.
  const int room = width - 1 - static_cast<int>(head.size() + tail.size()) - 3;
  std::string bar;
  if (room >= 10) {
    const int cells = std::min(room, 30);
    const int filled = static_cast<int>(fraction * cells);
    bar = " [" + std::string(static_cast<std::size_t>(filled), '#') +
          std::string(static_cast<std::size_t>(cells - filled), '-') + "]";
  }
  std::string line = head + bar + tail;
  // One column short of the width: a full line would make the terminal wrap.
  if (width > 1 && line.size() > static_cast<std::size_t>(width - 1)) line.resize(static_cast<std::size_t>(width - 1));
  return line;
}

void ProgressBar::draw_locked() {
  std::string out = "\r";
  out += render_locked();
  out += "\x1b[K";
  write_locked(out);
  line_open_ = true;
}

// Best effort on purpose: a terminal that went away must not stop training;
// the log file and the event stream are the records that count.
void ProgressBar::write_locked(std::string_view bytes) const {
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(options_.fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += static_cast<std::size_t>(n);
  }
}

}  // namespace medsynth
