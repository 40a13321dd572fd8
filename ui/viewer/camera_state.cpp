#include "ui/viewer/camera_state.hpp"

#include <algorithm>
#include <cmath>

#include "ui/viewer/slice_geometry.hpp"

namespace medsynth::ui {

bool nearly_equal(const CameraState& a, const CameraState& b, double tolerance) {
  const double scale_mm = std::max(1.0, std::sqrt(dot(sub(a.position, a.focal_point), sub(a.position, a.focal_point))));
  const auto close = [&](const Vec3& x, const Vec3& y, double s) {
    for (int i = 0; i < 3; ++i)
      if (std::abs(x[i] - y[i]) > tolerance * s) return false;
    return true;
  };
  return a.parallel == b.parallel && close(a.position, b.position, scale_mm) &&
         close(a.focal_point, b.focal_point, scale_mm) && close(a.view_up, b.view_up, 1.0) &&
         std::abs(a.view_angle - b.view_angle) <= tolerance * 180.0 &&
         std::abs(a.parallel_scale - b.parallel_scale) <= tolerance * scale_mm;
}

}  // namespace medsynth::ui
