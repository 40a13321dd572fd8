// A 3D view's camera as plain numbers, so that CompareWidget can link two
// viewers' cameras through signals without exposing VTK types.
#pragma once

#include "ui/viewer/volume_geometry.hpp"

namespace medsynth::ui {

struct CameraState {
  Vec3 position{0.0, 0.0, 1.0};
  Vec3 focal_point{0.0, 0.0, 0.0};
  Vec3 view_up{0.0, 1.0, 0.0};
  double view_angle = 30.0;     // degrees, perspective
  double parallel_scale = 1.0;  // mm, parallel projection
  bool parallel = false;
  bool operator==(const CameraState&) const = default;
};

// Equal within `tolerance` (relative to the camera distance), to stop two
// linked views from echoing each other's tiny float round-off.
bool nearly_equal(const CameraState& a, const CameraState& b, double tolerance = 1e-9);

}  // namespace medsynth::ui
