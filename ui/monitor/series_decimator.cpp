#include "ui/monitor/series_decimator.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

namespace medsynth::ui {

QString SeriesDecimatorOptions::validate() const {
  if (max_points < 4) return QStringLiteral("max_points: must be >= 4 (got %1)").arg(max_points);
  return {};
}

SeriesDecimator::SeriesDecimator(SeriesDecimatorOptions options) : options_(options) {
  if (const QString error = options_.validate(); !error.isEmpty()) throw std::invalid_argument(error.toStdString());
}

QList<QPointF> SeriesDecimator::decimate(std::span<const QPointF> points) const {
  return decimate(points, options_.max_points / 2);
}

namespace {

bool finite(const QPointF& p) { return std::isfinite(p.x()) && std::isfinite(p.y()); }

QList<QPointF> sorted_finite(std::span<const QPointF> points) {
  QList<QPointF> out;
  out.reserve(static_cast<qsizetype>(points.size()));
  bool sorted = true;
  for (const QPointF& p : points) {
    if (!finite(p)) continue;
    if (!out.isEmpty() && p.x() < out.back().x()) sorted = false;
    out.push_back(p);
  }
  if (!sorted) std::stable_sort(out.begin(), out.end(), [](const QPointF& a, const QPointF& b) { return a.x() < b.x(); });
  return out;
}

// Per bucket: the points holding the smallest and largest y.
struct Bucket {
  QPointF low{0, std::numeric_limits<double>::infinity()};
  QPointF high{0, -std::numeric_limits<double>::infinity()};
  bool used = false;
};

}  // namespace

QList<QPointF> SeriesDecimator::decimate(std::span<const QPointF> points, int buckets) const {
  buckets = std::clamp(buckets, 2, options_.max_points / 2);
  qsizetype finite_count = 0;
  double x_min = std::numeric_limits<double>::infinity();
  double x_max = -std::numeric_limits<double>::infinity();
  for (const QPointF& p : points) {
    if (!finite(p)) continue;
    ++finite_count;
    x_min = std::min(x_min, p.x());
    x_max = std::max(x_max, p.x());
  }
  if (finite_count <= 2 * buckets) return sorted_finite(points);

  std::vector<Bucket> bins(static_cast<size_t>(buckets));
  const double width = x_max - x_min;
  for (const QPointF& p : points) {
    if (!finite(p)) continue;
    // All points share one x when width == 0: one bucket holds them.
    int index = width > 0 ? static_cast<int>((p.x() - x_min) / width * buckets) : 0;
    index = std::clamp(index, 0, buckets - 1);
    Bucket& b = bins[static_cast<size_t>(index)];
    b.used = true;
    // Ties keep the earlier step, so a flat series decimates to its bucket edges.
    if (p.y() < b.low.y() || (p.y() == b.low.y() && p.x() < b.low.x())) b.low = p;
    if (p.y() > b.high.y() || (p.y() == b.high.y() && p.x() < b.high.x())) b.high = p;
  }

  QList<QPointF> out;
  out.reserve(2 * buckets);
  for (const Bucket& b : bins) {
    if (!b.used) continue;
    if (b.low == b.high) {
      out.push_back(b.low);
    } else if (b.low.x() <= b.high.x()) {
      out.push_back(b.low);
      out.push_back(b.high);
    } else {
      out.push_back(b.high);
      out.push_back(b.low);
    }
  }
  return out;
}

}  // namespace medsynth::ui
