// A run's evaluation as the console shows it: RUN/evaluation/evaluation.json
// (written by `medsynth-engine evaluate` or the ldm pipeline's evaluate stage;
// docs/evaluation.md) read into plain values, and the one-page HTML report a
// researcher takes to a lab meeting. No widgets: the ui's Evaluate tab draws
// from this, and passes its chart as a PNG for the report.
#pragma once

#include <QByteArray>
#include <QString>
#include <QStringList>
#include <QVector>
#include <optional>

namespace medsynth::app {

struct EvaluationMetric {
  QString name;
  std::optional<double> value;  // nullopt: not computed (note says why)
  QString note;
};

struct MemorizationCase {
  QString generated;
  QString nearest;               // by MS-SSIM
  double ms_ssim_ratio = 0.0;
  std::optional<double> latent_ratio;
  bool flagged = false;
};

struct EvaluationReport {
  QString source;                // the file read
  int generated = 0, reference = 0;
  QVector<EvaluationMetric> metrics;
  double histogram_lo = 0.0, histogram_bin_width = 1.0;
  QVector<double> histogram_generated, histogram_reference;  // shares per bin
  double memorization_threshold = 0.0;
  QVector<MemorizationCase> memorization;  // empty: no audit
  QStringList flagged_pairs_text() const;  // "generated ~ nearest (ratio r)" per flagged case
};

// The report in `path`; nullopt with *error naming the file and the problem
// (missing, not JSON, a field of the wrong type).
std::optional<EvaluationReport> read_evaluation_report(const QString& path, QString* error);

// One self-contained HTML page: title, run, the metrics table, the flagged
// pairs, and `chart_png` (the HU histograms) embedded as a data URL.
QString evaluation_report_html(const EvaluationReport& report, const QString& title, const QByteArray& chart_png);

}  // namespace medsynth::app
