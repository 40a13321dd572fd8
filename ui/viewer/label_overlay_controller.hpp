// The label map of one VolumeViewerWidget: loads it off the GUI thread
// (its own VolumeLoader), refuses one whose grid differs from the image's
// (label_grid_mismatch: the message names both files), turns it into the
// label image once and hands it to the three slice views' LabelOverlayLayer,
// and keeps the overlay's opacity and visibility. A new image clears the
// labels (they belonged to the old one). GUI thread only.
#pragma once

#include <array>
#include <memory>
#include <optional>

#include <QObject>
#include <QString>

#include "ui/viewer/volume_geometry.hpp"
#include "volume/volume_io.hpp"

class vtkMatrix4x4;

namespace medsynth::ui {

class SliceView;
class VolumeLoader;
struct LoadedVolume;

class LabelOverlayController : public QObject {
  Q_OBJECT

 public:
  LabelOverlayController(std::array<SliceView*, 3> views, VolumeReadOptions read_options,
                         QObject* parent = nullptr);
  ~LabelOverlayController() override;

  // The image labels must fit (null: none). Clears the current labels.
  void set_image(std::shared_ptr<const Volume> image, const QString& image_path, vtkMatrix4x4* index_to_world);

  // Reads `path` in the background; loaded or failed follows.
  void open(const QString& path);
  // Shows labels at once; false and *error (naming both files) when refused.
  bool set_labels(std::shared_ptr<const Volume> labels, const QString& path, QString* error = nullptr);
  void clear();

  bool has_labels() const { return labels_ != nullptr; }
  bool is_loading() const;
  QString path() const { return path_; }
  std::shared_ptr<const Volume> labels() const { return labels_; }
  // The label value at a voxel of the image grid; nullopt outside or without labels.
  std::optional<int> label_at(const Index3& index) const;

  double opacity() const { return opacity_; }
  bool visible() const { return visible_; }

 public slots:
  void set_opacity(double opacity);  // clamped to [0, 1]
  void set_visible(bool visible);

 signals:
  void loaded(const QString& path);
  void failed(const QString& message);
  // Labels, opacity or visibility changed (the toolbar follows this).
  void changed();

 private:
  void on_loaded(const LoadedVolume& loaded);
  void apply_to_views();

  std::array<SliceView*, 3> views_;
  VolumeLoader* loader_ = nullptr;
  std::shared_ptr<const Volume> image_;
  QString image_path_;
  struct VtkData;  // the placement matrix and the label image (VTK stays out of this header)
  std::unique_ptr<VtkData> vtk_;
  std::shared_ptr<const Volume> labels_;
  QString path_;
  QString pending_path_;  // the label file being read for the current image
  double opacity_ = 0.5;
  bool visible_ = true;
};

}  // namespace medsynth::ui
