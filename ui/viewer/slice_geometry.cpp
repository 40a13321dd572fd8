#include "ui/viewer/slice_geometry.hpp"

#include <cmath>

namespace medsynth::ui {

QString orientation_name(SliceOrientation orientation) {
  switch (orientation) {
    case SliceOrientation::axial: return QStringLiteral("Axial");
    case SliceOrientation::coronal: return QStringLiteral("Coronal");
    case SliceOrientation::sagittal: return QStringLiteral("Sagittal");
  }
  return {};
}

ViewAxes view_axes(SliceOrientation orientation) {
  switch (orientation) {
    // From the feet: screen right = patient left (+x), up = anterior (-y), looking superior (+z).
    case SliceOrientation::axial: return {{1, 0, 0}, {0, -1, 0}, {0, 0, 1}};
    // From the front: right = +x, up = superior (+z), looking posterior (+y).
    case SliceOrientation::coronal: return {{1, 0, 0}, {0, 0, 1}, {0, 1, 0}};
    // From the patient's left: right = posterior (+y), up = +z, looking towards the right (-x).
    case SliceOrientation::sagittal: return {{0, 1, 0}, {0, 0, 1}, {-1, 0, 0}};
  }
  return {{1, 0, 0}, {0, 1, 0}, {0, 0, -1}};
}

QString orientation_letter(const Vec3& d) {
  int axis = 0;
  for (int a = 1; a < 3; ++a)
    if (std::abs(d[a]) > std::abs(d[axis])) axis = a;
  static const char* positive[] = {"L", "P", "S"};
  static const char* negative[] = {"R", "A", "I"};
  return QString::fromLatin1(d[axis] >= 0 ? positive[axis] : negative[axis]);
}

OrientationLabels orientation_labels(const ViewAxes& axes) {
  return {orientation_letter(scale(axes.right, -1.0)), orientation_letter(axes.right), orientation_letter(axes.up),
          orientation_letter(scale(axes.up, -1.0))};
}

double SliceCamera::mm_per_pixel() const { return 2.0 * parallel_scale / std::max(height, 1); }

Vec3 SliceCamera::display_to_world(const QPointF& pos) const {
  const double mpp = mm_per_pixel();
  const double dx = (std::floor(pos.x()) + 0.5 - width / 2.0) * mpp;
  const double dy = (height / 2.0 - (std::floor(pos.y()) + 0.5)) * mpp;
  return add(focal, add(scale(axes.right, dx), scale(axes.up, dy)));
}

QPointF SliceCamera::world_to_display(const Vec3& world) const {
  const double mpp = mm_per_pixel();
  const Vec3 d = sub(world, focal);
  return {width / 2.0 + dot(d, axes.right) / mpp, height / 2.0 - dot(d, axes.up) / mpp};
}

double nice_scale_bar_length(double mm_per_pixel, double target_pixels) {
  if (!(mm_per_pixel > 0.0) || !(target_pixels > 0.0) || !std::isfinite(mm_per_pixel)) return 0.0;
  const double max_mm = mm_per_pixel * target_pixels;
  double decade = std::pow(10.0, std::floor(std::log10(max_mm)));
  for (double m : {5.0, 2.0, 1.0})
    if (m * decade <= max_mm) return m * decade;
  return decade / 2.0;  // only reached through rounding at an exact power of ten
}

Vec3 add(const Vec3& a, const Vec3& b) { return {a[0] + b[0], a[1] + b[1], a[2] + b[2]}; }
Vec3 sub(const Vec3& a, const Vec3& b) { return {a[0] - b[0], a[1] - b[1], a[2] - b[2]}; }
Vec3 scale(const Vec3& a, double s) { return {a[0] * s, a[1] * s, a[2] * s}; }
double dot(const Vec3& a, const Vec3& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
Vec3 cross(const Vec3& a, const Vec3& b) {
  return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}

}  // namespace medsynth::ui
