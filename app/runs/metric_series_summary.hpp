// What the console says about one metric series beside its chart: the last
// raw value, the best so far and its step (higher or lower is better by the
// metric's name), and the series as CSV for export. GUI-free: the chart
// (ui/monitor/metric_chart_view) shows and exports what this computes.
#pragma once

#include <QList>
#include <QPair>
#include <QString>
#include <optional>

#include "app/runs/run_model.hpp"

namespace medsynth::app {

// Losses, L1 and distances (FID, MMD) fall as a model improves; PSNR, SSIM,
// the C-index and the rest rise. "val/psnr" -> true, "train/diffusion_loss" -> false.
bool metric_higher_is_better(const QString& metric);

struct SeriesSummary {
  MetricPoint last;  // the newest finite point
  MetricPoint best;  // the best finite point so far (the first of equals)
};
// nullopt when the series has no finite point.
std::optional<SeriesSummary> summarize_series(const QVector<MetricPoint>& points, const QString& metric);

// "step,<label>,..." then one row per step any curve has, values as the events
// gave them (17 significant digits; empty where a curve has no point at that
// step, "nan"/"inf"/"-inf" for non-finite ones).
QString metric_series_csv(const QList<QPair<QString, const RunModel*>>& curves, const QString& metric);

}  // namespace medsynth::app
