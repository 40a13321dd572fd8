// The label editor's hands (issue 39.2): turns the left button of a
// viewer's three slice views into the brush, eraser or fill of LabelEdits
// on the viewer's label map (made editable on the first stroke, a new map
// of zeros when none is shown), keeps the chosen tool, label value and brush
// radius, and redraws what each stroke changed. A drag is one stroke (one
// undo step); the brush is stamped along the line between mouse positions so
// that a fast drag leaves no gaps. GUI thread only.
#pragma once

#include <array>
#include <optional>

#include <QObject>

#include "ui/viewer/label_edits.hpp"
#include "ui/viewer/volume_geometry.hpp"

namespace medsynth::ui {

class LabelOverlayController;
class SliceView;
class VolumeViewerWidget;

class LabelPainter : public QObject {
  Q_OBJECT

 public:
  explicit LabelPainter(VolumeViewerWidget* viewer, QObject* parent = nullptr);

  LabelTool tool() const { return tool_; }
  int label() const { return label_; }
  double radius_mm() const { return radius_mm_; }

  bool can_undo() const;
  bool can_redo() const;

 public slots:
  // navigate gives the left button back to the crosshair.
  void set_tool(medsynth::ui::LabelTool tool);
  void set_label(int value);          // the value the brush and fill write (>= 0)
  void set_radius_mm(double radius);  // >= 0: 0 paints one voxel
  void undo();
  void redo();
  // Fill between slices of the chosen label along the last stroke's axis
  // (LabelEdits::fill_between_slices); one undo step.
  void fill_between_slices();

 signals:
  // A stroke, a fill, an undo or a redo changed the map.
  void stroke_finished();
  void tool_changed(medsynth::ui::LabelTool tool);

 private:
  void on_pressed(SliceView* view, const VoxelProbe& probe);
  void on_dragged(SliceView* view, const VoxelProbe& probe);
  void on_released();
  void apply_at(int normal_axis, const Index3& index);
  int normal_axis_of(const SliceView* view) const;
  LabelOverlayController* overlay() const;

  VolumeViewerWidget* viewer_;
  LabelTool tool_ = LabelTool::navigate;
  int label_ = 1;
  double radius_mm_ = 3.0;
  // The stroke in progress: its view's normal axis and the last voxel stamped.
  std::optional<Index3> last_;
  int stroke_axis_ = 2;
  bool stroke_changed_ = false;
};

}  // namespace medsynth::ui
