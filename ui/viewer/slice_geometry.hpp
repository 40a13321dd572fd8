// How the three slice views look at the patient, and the pure display <->
// world math of an orthographic slice view. Convention: radiological, in
// ITK's LPS world (+x left, +y posterior, +z superior):
//   axial    - seen from the feet: patient right on screen left, anterior up;
//   coronal  - seen from the front: patient right on screen left, superior up;
//   sagittal - seen from the patient's left: anterior on screen left, superior up.
// SliceScene applies exactly this camera to VTK, and SliceView uses
// display_to_world() for the value under the cursor, so what is probed is what
// is drawn (a GUI test checks both against VTK's own coordinate conversion).
#pragma once

#include <QPointF>
#include <QString>

#include "ui/viewer/volume_geometry.hpp"

namespace medsynth::ui {

enum class SliceOrientation { axial, coronal, sagittal };

QString orientation_name(SliceOrientation orientation);

// Unit world directions of the screen's right and up and of the projection
// (from the eye into the screen). right = projection x up, as VTK's camera has it.
struct ViewAxes {
  Vec3 right;
  Vec3 up;
  Vec3 projection;
};

ViewAxes view_axes(SliceOrientation orientation);

// The anatomical letter (L/R, P/A, S/I) of a world direction's dominant axis.
QString orientation_letter(const Vec3& direction);

struct OrientationLabels {
  QString left, right, top, bottom;
};
OrientationLabels orientation_labels(const ViewAxes& axes);

// An orthographic view of `width` x `height` logical pixels centred on
// `focal` (which lies in the displayed slice), `parallel_scale` mm from the
// centre to the top edge (VTK's definition). Pixel (0,0) is Qt's top-left.
struct SliceCamera {
  Vec3 focal{0.0, 0.0, 0.0};
  ViewAxes axes{};
  double parallel_scale = 1.0;
  int width = 1;
  int height = 1;

  double mm_per_pixel() const;
  // The world point seen at the centre of the pixel containing `pos`.
  Vec3 display_to_world(const QPointF& pos) const;
  // The Qt position at which a world point is seen (its offset along the
  // projection is ignored).
  QPointF world_to_display(const Vec3& world) const;
};

// A round scale-bar length (1, 2 or 5 x 10^k mm) no longer than
// target_pixels at this zoom; 0 when the input is not usable.
double nice_scale_bar_length(double mm_per_pixel, double target_pixels);

// Vector helpers shared by the viewer's geometry code.
Vec3 add(const Vec3& a, const Vec3& b);
Vec3 sub(const Vec3& a, const Vec3& b);
Vec3 scale(const Vec3& a, double s);
double dot(const Vec3& a, const Vec3& b);
Vec3 cross(const Vec3& a, const Vec3& b);

}  // namespace medsynth::ui
