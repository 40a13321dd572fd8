#include "ui/monitor/series_smoothing.hpp"

#include <algorithm>
#include <cmath>

namespace medsynth::ui {

QList<QPointF> finite_points(const QVector<app::MetricPoint>& points) {
  QList<QPointF> out;
  out.reserve(points.size());
  for (const app::MetricPoint& p : points) {
    if (p.finite && std::isfinite(p.value)) out.push_back(QPointF(static_cast<double>(p.step), p.value));
  }
  return out;
}

QList<QPointF> smooth_ema(const QVector<app::MetricPoint>& points, double weight) {
  weight = std::clamp(weight, 0.0, 0.999);
  if (weight <= 0.0) return finite_points(points);
  QList<QPointF> out;
  out.reserve(points.size());
  double last = 0.0;
  double debias_weight = 1.0;  // weight^count: 1 - it is the mass accumulated so far
  for (const app::MetricPoint& p : points) {
    if (!p.finite || !std::isfinite(p.value)) continue;
    last = last * weight + (1.0 - weight) * p.value;
    debias_weight *= weight;
    out.push_back(QPointF(static_cast<double>(p.step), last / (1.0 - debias_weight)));
  }
  return out;
}

}  // namespace medsynth::ui
