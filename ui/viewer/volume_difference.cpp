#include "ui/viewer/volume_difference.hpp"

#include <cmath>
#include <limits>

#include <QStringList>

namespace medsynth::ui {

namespace {

QString describe_size(const Volume& v) {
  return QStringLiteral("%1x%2x%3").arg(v.size[0]).arg(v.size[1]).arg(v.size[2]);
}

template <typename Array>
bool close(const Array& a, const Array& b, double tolerance) {
  for (std::size_t i = 0; i < a.size(); ++i)
    if (!(std::abs(a[i] - b[i]) <= tolerance)) return false;
  return true;
}

template <typename Array>
QString describe(const Array& values) {
  QStringList parts;
  for (double v : values) parts << QString::number(v, 'g', 6);
  return parts.join(QLatin1Char(' '));
}

}  // namespace

QString grid_mismatch(const Volume& a, const Volume& b, const GridTolerance& tolerance) {
  if (a.size != b.size) return QStringLiteral("size differs: %1 vs %2").arg(describe_size(a), describe_size(b));
  if (a.voxels.size() != a.voxel_count() || b.voxels.size() != b.voxel_count())
    return QStringLiteral("a volume has no voxel data");
  if (!close(a.spacing, b.spacing, tolerance.spacing_mm))
    return QStringLiteral("spacing differs: %1 mm vs %2 mm").arg(describe(a.spacing), describe(b.spacing));
  if (!close(a.origin, b.origin, tolerance.origin_mm))
    return QStringLiteral("origin differs: %1 mm vs %2 mm").arg(describe(a.origin), describe(b.origin));
  if (!close(a.direction, b.direction, tolerance.direction))
    return QStringLiteral("direction differs: %1 vs %2").arg(describe(a.direction), describe(b.direction));
  return {};
}

DifferenceResult difference_volume(const Volume& a, const Volume& b, const GridTolerance& tolerance) {
  DifferenceResult result;
  result.error = grid_mismatch(a, b, tolerance);
  if (!result.error.isEmpty()) return result;
  auto out = std::make_shared<Volume>();
  out->size = a.size;
  out->spacing = a.spacing;
  out->origin = a.origin;
  out->direction = a.direction;
  out->voxels.resize(a.voxels.size());
  double max_abs = 0.0;
  for (std::size_t i = 0; i < a.voxels.size(); ++i) {
    const float d = a.voxels[i] - b.voxels[i];
    if (std::isfinite(d)) {
      out->voxels[i] = d;
      max_abs = std::max(max_abs, static_cast<double>(std::abs(d)));
    } else {
      out->voxels[i] = std::numeric_limits<float>::quiet_NaN();
    }
  }
  result.max_abs = max_abs;
  result.volume = std::move(out);
  return result;
}

}  // namespace medsynth::ui
