// A run's Evaluate tab: the evaluation's metrics table, the generated and
// reference HU histograms, the memorization audit's flagged pairs (each opens
// side by side in the compare viewer), and a one-page report export (HTML, or
// PDF when the name ends in .pdf). Reads RUN/evaluation/evaluation.json
// through app::read_evaluation_report. GUI thread only.
#pragma once

#include <QWidget>

#include "app/runs/evaluation_report.hpp"

class QChartView;
class QLabel;
class QListWidget;
class QPushButton;
class QTableWidget;

namespace medsynth::ui {

class EvaluationView : public QWidget {
  Q_OBJECT

 public:
  explicit EvaluationView(QWidget* parent = nullptr);

  // Shows the evaluation in `path`; false (and the reason in the header) when it cannot be read.
  bool load(const QString& path);
  // Shows "no evaluation yet" with how to make one.
  void clear();
  const std::optional<app::EvaluationReport>& report() const { return report_; }
  // Writes the report to `path` (.pdf: PDF, otherwise HTML); returns an error message or "".
  QString export_report(const QString& path) const;
  // The HU histogram chart as PNG bytes (what the report embeds).
  QByteArray chart_png() const;

 signals:
  // "Compare side by side" on a flagged pair: the generated volume and its nearest training case.
  void compare_requested(const QString& generated, const QString& training);

 private:
  void show_report();

  QLabel* header_;
  QTableWidget* metrics_;
  QChartView* chart_;
  QListWidget* flagged_;
  QPushButton* compare_;
  QPushButton* export_;
  std::optional<app::EvaluationReport> report_;
};

}  // namespace medsynth::ui
