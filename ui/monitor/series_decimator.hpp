// Reduces a metric series to what a chart can show: at most `max_points`
// points, keeping every bucket's minimum and maximum so spikes (a diverging
// loss, a NaN rollback) stay visible however long the run is. Pure logic, no
// widgets: used by MetricChartView on every refresh and unit-tested in
// tests/ui/test_series_decimator.cpp.
//
// Buckets split the x (step) range evenly, one per horizontal pixel or so;
// each bucket contributes its first-by-step extreme then the other, so the
// output's x values never decrease even when the input's do (a restarted run
// repeats steps). Cost: O(n) per call, no allocation beyond the output.
#pragma once

#include <QList>
#include <QPointF>
#include <QString>
#include <span>

namespace medsynth::ui {

struct SeriesDecimatorOptions {
  // Upper bound of points returned (≥ 4). Two per bucket: min and max.
  int max_points = 2000;

  // Empty when valid, else a message naming the field.
  QString validate() const;
};

class SeriesDecimator {
 public:
  explicit SeriesDecimator(SeriesDecimatorOptions options = {});

  // Points with a non-finite x or y are skipped. Input of at most max_points
  // finite points is returned sorted by x (stable), otherwise decimated.
  QList<QPointF> decimate(std::span<const QPointF> points) const;
  // The same, limited further to `buckets` buckets (e.g. the plot's width in pixels).
  QList<QPointF> decimate(std::span<const QPointF> points, int buckets) const;

  const SeriesDecimatorOptions& options() const { return options_; }

 private:
  SeriesDecimatorOptions options_;
};

}  // namespace medsynth::ui
