// The volume viewer (issue 6): axial, coronal and sagittal slice views with a
// linked crosshair, a 3D rendering, window/level presets and colormaps, the
// voxel value and LPS position under the mouse, drag-and-drop, screenshots,
// export as a DICOM series (DicomExportDialog).
// Volumes open off the GUI thread (VolumeLoader); a file the volume layer
// rejects shows its message inside the widget, never a crash. A label map can
// be drawn over the slices (LabelOverlayController: fixed colours, opacity,
// show/hide); opening X_image.nii.gz also opens X_label.nii.gz beside it.
//
// For the console:   auto* viewer = new VolumeViewerWidget(parent);
//                    viewer->open_volume(path);        // --open-volume FILE
// CompareWidget and SamplesPanel embed it. GUI thread only; needs a GL
// platform (xcb/Xvfb), like every VtkOpenGLWidget.
#pragma once

#include <array>
#include <memory>
#include <optional>

#include <QImage>
#include <QWidget>

#include "ui/viewer/camera_state.hpp"
#include "ui/viewer/colormap.hpp"
#include "ui/viewer/slice_geometry.hpp"
#include "ui/viewer/volume_loader.hpp"
#include "ui/viewer/volume_render_view.hpp"
#include "ui/viewer/volume_rendering_preset.hpp"
#include "ui/viewer/window_level.hpp"

class QLabel;
class QMimeData;

namespace medsynth::ui {

class DicomExportDialog;
class LabelOverlayController;
class SliceView;
class ViewerToolbar;

struct ViewerOptions {
  bool volume_rendering = true;  // the 3D view (off for difference images)
  bool controls = true;          // the toolbar row
  bool accept_drops = true;
  RayCastMode ray_cast_mode = RayCastMode::automatic;
  // A viewer shows what it can: NaN/Inf voxels (a diverged sample) read as
  // 0 with a warning in the message line instead of refusing the file.
  VolumeReadOptions read_options{.reject_non_finite = false};
  PercentileOptions percentiles;
  // Empty when valid, else one line per bad field.
  QStringList validate() const;
};

class VolumeViewerWidget : public QWidget {
  Q_OBJECT

 public:
  // Throws std::invalid_argument when options.validate() is not empty (a
  // programming error, not a user one).
  explicit VolumeViewerWidget(QWidget* parent = nullptr, ViewerOptions options = {});
  ~VolumeViewerWidget() override;

  // Starts loading a .nii/.nii.gz file or a DICOM folder in the background;
  // volume_loaded or load_failed follows. The current volume stays until then.
  void open_volume(const QString& path);
  // Shows an in-memory volume at once (difference images, tests).
  void set_volume(std::shared_ptr<const Volume> volume, const QString& label);
  void clear();
  bool has_volume() const;
  bool is_loading() const;
  std::shared_ptr<const Volume> volume() const;
  QString volume_label() const;  // the path or label of what is shown
  const IntensityStats& intensity_statistics() const;

  // A label map over the image, on the image's grid (else refused with a
  // message naming both files); label_map_loaded or label_map_failed follows.
  void open_label_map(const QString& path);
  bool set_label_map(std::shared_ptr<const Volume> labels, const QString& label, QString* error = nullptr);
  void clear_label_map();
  bool has_label_map() const;
  QString label_map_path() const;
  LabelOverlayController* label_overlay() const;

  // The message shown in the widget (error, loading, hint); empty when none.
  QString message_text() const;
  // The last load error (empty after a successful load).
  QString error_text() const;
  QString status_text() const;

  WindowLevel window_level() const;
  std::optional<WindowPreset> window_preset() const;  // nullopt: custom
  void apply_window_preset(WindowPreset preset);
  Colormap colormap() const;
  VolumePreset volume_preset() const;

  Vec3 cursor() const;
  void scroll_slice(SliceOrientation orientation, int steps);
  VoxelProbe probe(SliceOrientation orientation, const QPointF& widget_position) const;

  CameraState camera() const;

  SliceView* slice_view(SliceOrientation orientation) const;
  VolumeRenderView* volume_view() const;  // null without volume rendering
  ViewerToolbar* toolbar() const;         // null without controls

  // "Export DICOM…" (the toolbar button): the dialog for the shown volume,
  // opened window-modal without blocking; null without a volume. Its outcome
  // (folder and file count, or the engine's message) goes to the message line.
  DicomExportDialog* open_export_dialog();
  DicomExportDialog* export_dialog() const;  // the open one, or null

  // The views as one image (2x2: axial, coronal / sagittal, 3D).
  QImage grab_views();
  bool save_screenshot(const QString& png_path, QString* error = nullptr);

 public slots:
  void set_window_level(const medsynth::ui::WindowLevel& window_level);
  void set_colormap(medsynth::ui::Colormap map);
  void set_volume_preset(medsynth::ui::VolumePreset preset);
  // Snapped to the nearest voxel centre inside the grid.
  void set_cursor(const medsynth::ui::Vec3& world);
  void set_camera(const medsynth::ui::CameraState& state);
  void set_slice_view_state(medsynth::ui::SliceOrientation orientation, double zoom,
                            const medsynth::ui::Vec3& pan_center);
  void reset_views();
  void set_label_opacity(double opacity);  // 0..1
  void set_labels_visible(bool visible);
  // "Label map…": a file dialog, then open_label_map.
  void open_label_map_dialog();
  void show_message(const QString& text, bool is_error);

 signals:
  void volume_loaded(const QString& label);
  void load_failed(const QString& message);
  void label_map_loaded(const QString& path);
  void label_map_failed(const QString& message);
  void cursor_changed(const medsynth::ui::Vec3& world);
  void voxel_hovered(const medsynth::ui::VoxelProbe& probe);
  void status_text_changed(const QString& text);
  void window_level_changed(const medsynth::ui::WindowLevel& window_level);
  void colormap_changed(medsynth::ui::Colormap map);
  void camera_changed(const medsynth::ui::CameraState& state);
  void slice_view_changed(medsynth::ui::SliceOrientation orientation, double zoom,
                          const medsynth::ui::Vec3& pan_center);
  // The toolbar's Screenshot button, when someone listens (the console shows
  // a file dialog and calls save_screenshot); otherwise the viewer saves
  // viewer-screenshot.png beside the volume itself.
  void screenshot_requested();

 protected:
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dragMoveEvent(QDragMoveEvent* event) override;
  void dropEvent(QDropEvent* event) override;

 private:
  struct Private;
  void build_views();
  void connect_slice_view(SliceView* view);
  void show_loaded(const LoadedVolume& loaded);
  void update_status(const VoxelProbe& probe);
  void render_all();

  std::unique_ptr<Private> d_;
};

// The first local file or folder in a drag's data; empty if none.
QString dropped_volume_path(const QMimeData* mime);

}  // namespace medsynth::ui

Q_DECLARE_METATYPE(medsynth::ui::WindowLevel)
Q_DECLARE_METATYPE(medsynth::ui::SliceOrientation)
