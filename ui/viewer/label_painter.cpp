#include "ui/viewer/label_painter.hpp"

#include <algorithm>

#include "ui/viewer/label_overlay_controller.hpp"
#include "ui/viewer/slice_geometry.hpp"
#include "ui/viewer/slice_view.hpp"
#include "ui/viewer/volume_viewer_widget.hpp"

namespace medsynth::ui {

LabelPainter::LabelPainter(VolumeViewerWidget* viewer, QObject* parent) : QObject(parent), viewer_(viewer) {
  for (SliceOrientation o : {SliceOrientation::axial, SliceOrientation::coronal, SliceOrientation::sagittal}) {
    SliceView* view = viewer_->slice_view(o);
    connect(view, &SliceView::paint_pressed, this, [this, view](const VoxelProbe& p) { on_pressed(view, p); });
    connect(view, &SliceView::paint_dragged, this, [this, view](const VoxelProbe& p) { on_dragged(view, p); });
    connect(view, &SliceView::paint_released, this, &LabelPainter::on_released);
  }
}

LabelOverlayController* LabelPainter::overlay() const { return viewer_->label_overlay(); }

void LabelPainter::set_tool(LabelTool tool) {
  if (tool == tool_) return;
  tool_ = tool;
  for (SliceOrientation o : {SliceOrientation::axial, SliceOrientation::coronal, SliceOrientation::sagittal})
    viewer_->slice_view(o)->set_painting(tool != LabelTool::navigate);
  emit tool_changed(tool);
}

void LabelPainter::set_label(int value) { label_ = std::max(value, 0); }

void LabelPainter::set_radius_mm(double radius) { radius_mm_ = std::max(radius, 0.0); }

bool LabelPainter::can_undo() const { return overlay()->edits() && overlay()->edits()->can_undo(); }

bool LabelPainter::can_redo() const { return overlay()->edits() && overlay()->edits()->can_redo(); }

void LabelPainter::undo() {
  if (!can_undo()) return;
  overlay()->redraw_voxels(overlay()->edits()->undo());
  emit stroke_finished();
}

void LabelPainter::redo() {
  if (!can_redo()) return;
  overlay()->redraw_voxels(overlay()->edits()->redo());
  emit stroke_finished();
}

void LabelPainter::fill_between_slices() {
  LabelEdits* edits = overlay()->edit();
  if (!edits) return;
  const std::vector<std::size_t> changed = edits->fill_between_slices(stroke_axis_, static_cast<float>(label_));
  if (changed.empty()) return;
  overlay()->redraw_voxels(changed);
  emit stroke_finished();
}

int LabelPainter::normal_axis_of(const SliceView* view) const {
  const auto volume = viewer_->volume();
  return volume ? normal_index_axis(*volume, view_axes(view->orientation()).projection) : 2;
}

void LabelPainter::apply_at(int normal_axis, const Index3& index) {
  LabelEdits* edits = overlay()->edit();
  if (!edits) return;
  std::vector<std::size_t> changed;
  switch (tool_) {
    case LabelTool::brush:
      changed = edits->paint(normal_axis, index, radius_mm_, static_cast<float>(label_));
      break;
    case LabelTool::eraser:
      changed = edits->paint(normal_axis, index, radius_mm_, 0.0f);
      break;
    case LabelTool::fill:
      changed = edits->fill(normal_axis, index, static_cast<float>(label_));
      break;
    case LabelTool::sphere:
      changed = edits->paint_sphere(index, radius_mm_, static_cast<float>(label_));
      break;
    case LabelTool::navigate:
      break;
  }
  if (changed.empty()) return;
  stroke_changed_ = true;
  overlay()->redraw_voxels(changed);
}

void LabelPainter::on_pressed(SliceView* view, const VoxelProbe& probe) {
  if (tool_ == LabelTool::navigate || !probe.inside) return;
  LabelEdits* edits = overlay()->edit();
  if (!edits) return;
  stroke_axis_ = normal_axis_of(view);
  stroke_changed_ = false;
  edits->begin_stroke();
  apply_at(stroke_axis_, probe.index);
  last_ = probe.index;
  if (tool_ == LabelTool::fill) on_released();  // a fill is one click
}

void LabelPainter::on_dragged(SliceView* /*view*/, const VoxelProbe& probe) {
  if (!last_ || !probe.inside || tool_ == LabelTool::fill) return;
  // Stamp along the line from the last voxel: one stamp per voxel step.
  const Index3 from = *last_;
  std::int64_t steps = 0;
  for (std::size_t a = 0; a < 3; ++a) {
    const std::int64_t d = probe.index[a] - from[a];
    steps = std::max(steps, d < 0 ? -d : d);
  }
  for (std::int64_t s = 1; s <= steps; ++s) {
    Index3 at{};
    for (std::size_t a = 0; a < 3; ++a) at[a] = from[a] + (probe.index[a] - from[a]) * s / steps;
    at[static_cast<std::size_t>(stroke_axis_)] = from[static_cast<std::size_t>(stroke_axis_)];  // stay on the slice
    apply_at(stroke_axis_, at);
  }
  last_ = probe.index;
}

void LabelPainter::on_released() {
  if (!last_) return;
  last_.reset();
  if (LabelEdits* edits = overlay()->edits()) edits->end_stroke();
  if (stroke_changed_) emit stroke_finished();
  stroke_changed_ = false;
}

}  // namespace medsynth::ui
