// What the run monitor's header says about one run (issue 52): the title, the
// status badge, the step and rate, the ETA, restarts, unusable stream lines
// and the failure, computed from a RunModel without widgets. The monitor
// widget only puts these into its labels, and tests/app read them directly.
#pragma once

#include <QString>

namespace medsynth::app {

class RunModel;
enum class RunStatus;

struct RunMonitorTexts {
  QString title;          // "quickstart — autoencoder · 1 process · effective batch 2 · cpu"
  QString title_tooltip;  // the run directory, in native separators
  QString status;         // "finished (completed)", "unknown (interrupted?)", …
  QString status_colour;  // the badge's background, "#rrggbb"
  int progress_maximum = 1;
  int progress_value = 0;
  QString step;        // "step 30 / 30", "image 2 / 4", "stage diffusion (started) · step 5 / 10"
  QString throughput;  // "12.3 samples/s", "— samples/s" before the first rate
  QString eta;         // "ETA 3 min 2 s" while running, "took 4 min 33 s" after, else empty
  QString restarts;    // "restarts: 2"
  bool show_restarts = false;
  QString unusable_lines;  // "⚠ unusable lines: 1 not JSON, …"; empty when every line was read
  QString unusable_lines_tooltip;
  QString failure;  // the failure's message, shown unless the run finished
  bool show_failure = false;
  bool pipeline = false;            // stage sections replace the fixed charts
  bool show_metric_charts = false;  // loss/PSNR/SSIM charts: not for pipelines or generate runs
};

// The texts for `model`; null gives "No run" and nothing else.
RunMonitorTexts run_monitor_texts(const RunModel* model);

// "42 s", "3 min 2 s", "2 h 5 min"; "—" for a negative or unknown duration.
QString duration_text(double seconds);
// The status badge's colour.
QString status_colour(RunStatus status);

}  // namespace medsynth::app
