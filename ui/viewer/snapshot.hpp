// Headless snapshot of a volume: axial, coronal and sagittal slices through
// a point (default: the centre) and a 3D rendering, in one PNG (2x2: axial,
// coronal / sagittal, 3D) — for `medsynth snapshot IN OUT`, reports and CI.
// Renders in an offscreen VTK window: needs an X display (Xvfb is enough),
// shows no window and needs no QApplication.
//
// For the console:   return snapshot_volume(in, out, options);   // main()
#pragma once

#include <optional>

#include <QImage>
#include <QString>
#include <QStringList>

#include "ui/viewer/colormap.hpp"
#include "ui/viewer/volume_geometry.hpp"
#include "ui/viewer/volume_render_view.hpp"
#include "ui/viewer/volume_rendering_preset.hpp"
#include "ui/viewer/window_level.hpp"
#include "volume/volume_io.hpp"

namespace medsynth::ui {

struct SnapshotOptions {
  int width = 1024;   // whole image, pixels (each quadrant is half of it)
  int height = 1024;
  WindowPreset window_preset = WindowPreset::automatic;
  std::optional<WindowLevel> window_level;  // overrides window_preset
  Colormap colormap = Colormap::grey;
  std::optional<VolumePreset> volume_preset;  // default: suggested from the intensities
  std::optional<Vec3> cursor;                 // LPS mm; default: the central voxel
  bool annotations = true;                    // orientation letters, scale bar, crosshair
  RayCastMode ray_cast_mode = RayCastMode::automatic;
  // NaN/Inf voxels read as 0 with a warning (see SnapshotResult::warnings).
  VolumeReadOptions read_options{.reject_non_finite = false};
  // Empty when valid, else one line per bad field.
  QStringList validate() const;
};

// Exit codes as the engine uses them: 0 ok, 1 rendering or writing failed,
// 2 bad options, 3 the input volume is unusable.
struct SnapshotResult {
  int exit_code = 0;
  QString message;  // what went wrong (naming the file), or what was written
  QImage image;     // the rendered snapshot when exit_code == 0
  QStringList warnings;  // lenient findings of the volume reader
  QString gl_renderer;
};

// Renders and writes out_png (an empty out_png renders only: tests, previews).
SnapshotResult render_snapshot(const QString& in, const QString& out_png, const SnapshotOptions& options = {});

// The command-line edge: render_snapshot, then the message on stderr when it
// failed (and any warnings). Returns the exit code.
int snapshot_volume(const QString& in, const QString& out_png, const SnapshotOptions& options = {});

}  // namespace medsynth::ui
