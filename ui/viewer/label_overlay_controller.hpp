// The label map of one VolumeViewerWidget: loads it off the GUI thread
// (its own VolumeLoader), refuses one whose grid differs from the image's
// (label_grid_mismatch: the message names both files), turns it into the
// label image once and hands it to the three slice views' LabelOverlayLayer,
// and keeps the overlay's opacity and visibility. A new image clears the
// labels (they belonged to the old one). It also makes the map editable
// (issue 39.2): edit() hands out the LabelEdits of a copy (or of a new empty
// map on the image's grid), redraw_voxels() shows what an edit changed, and
// save() writes the map as NIfTI. GUI thread only.
#pragma once

#include <array>
#include <memory>
#include <optional>
#include <vector>

#include <QObject>
#include <QString>

#include "ui/viewer/volume_geometry.hpp"
#include "volume/volume_io.hpp"

class vtkMatrix4x4;

namespace medsynth::ui {

class LabelEdits;
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

  // The edits of the shown map, made editable on first use: the map read
  // from a file is copied (the file stays as it was), and without one a new
  // map of zeros on the image's grid is shown. Null without an image.
  LabelEdits* edit();
  LabelEdits* edits() const { return edits_.get(); }
  // Redraws the voxels (offsets into the map) an edit changed; edited() follows.
  void redraw_voxels(const std::vector<std::size_t>& offsets);
  // Edited since it was read, created or last saved.
  bool is_modified() const;
  // Writes the map to `path` (NIfTI, the image's grid, atomically: a crash
  // leaves the old file whole); path() becomes `path`. false and *error
  // (naming the file) when there is no map or the write fails.
  bool save(const QString& path, QString* error = nullptr);

 public slots:
  void set_opacity(double opacity);  // clamped to [0, 1]
  void set_visible(bool visible);

 signals:
  void loaded(const QString& path);
  void failed(const QString& message);
  // Labels, opacity or visibility changed (the toolbar follows this).
  void changed();
  // Voxels of the map changed (an edit, an undo); is_modified() may have changed.
  void edited();
  // The map was written to `path`.
  void saved(const QString& path);

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
  std::unique_ptr<LabelEdits> edits_;  // set once the map is edited; labels_ is its map
  QString path_;
  QString pending_path_;  // the label file being read for the current image
  double opacity_ = 0.5;
  bool visible_ = true;
};

}  // namespace medsynth::ui
