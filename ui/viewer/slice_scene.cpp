#include "ui/viewer/slice_scene.hpp"

#include <algorithm>
#include <cmath>

#include <vtkActor2D.h>
#include <vtkCallbackCommand.h>
#include <vtkCamera.h>
#include <vtkCellArray.h>
#include <vtkCommand.h>
#include <vtkCoordinate.h>
#include <vtkImageData.h>
#include <vtkImageProperty.h>
#include <vtkImageResliceMapper.h>
#include <vtkImageSlice.h>
#include <vtkImageStack.h>
#include <vtkLookupTable.h>
#include <vtkMatrix4x4.h>
#include <vtkPoints.h>
#include <vtkPolyData.h>
#include <vtkPolyDataMapper2D.h>
#include <vtkProperty2D.h>
#include <vtkRenderer.h>
#include <vtkTextActor.h>
#include <vtkTextProperty.h>

#include "ui/viewer/vtk_volume_bridge.hpp"

namespace medsynth::ui {

namespace {

constexpr double k_fit_margin = 1.04;

void style_text(vtkTextActor* actor, int size, double r, double g, double b) {
  vtkTextProperty* p = actor->GetTextProperty();
  p->SetFontSize(size);
  p->SetColor(r, g, b);
  p->SetFontFamilyToArial();
  p->BoldOn();
  p->ShadowOn();
  actor->SetTextScaleModeToNone();
}

void place_normalized(vtkTextActor* actor, double x, double y, int horizontal, int vertical) {
  actor->GetPositionCoordinate()->SetCoordinateSystemToNormalizedViewport();
  actor->SetPosition(x, y);
  actor->GetTextProperty()->SetJustification(horizontal);
  actor->GetTextProperty()->SetVerticalJustification(vertical);
}

// Two independent line segments over a 4-point polydata.
void make_two_segments(vtkPoints* points, vtkPolyData* poly) {
  points->SetNumberOfPoints(4);
  for (vtkIdType i = 0; i < 4; ++i) points->SetPoint(i, 0.0, 0.0, 0.0);
  vtkNew<vtkCellArray> lines;
  const vtkIdType a[2] = {0, 1};
  const vtkIdType b[2] = {2, 3};
  lines->InsertNextCell(2, a);
  lines->InsertNextCell(2, b);
  poly->SetPoints(points);
  poly->SetLines(lines);
}

}  // namespace

SliceScene::SliceScene(SliceOrientation orientation) : orientation_(orientation), axes_(view_axes(orientation)) {
  renderer_->SetBackground(0.0, 0.0, 0.0);
  renderer_->SetBackgroundAlpha(1.0);

  mapper_->SliceFacesCameraOn();
  mapper_->SliceAtFocalPointOn();
  mapper_->JumpToNearestSliceOn();
  mapper_->BorderOn();  // whole voxels out to the grid's edge, as the probe sees them
  property_->SetInterpolationTypeToNearest();
  property_->UseLookupTableScalarRangeOff();  // window/level set the table's range
  property_->SetLookupTable(make_lookup_table(Colormap::grey));
  slice_->SetMapper(mapper_);
  slice_->SetProperty(property_);
  slice_->VisibilityOff();
  property_->SetLayerNumber(0);
  stack_->AddImage(slice_);
  stack_->AddImage(overlay_.prop());
  stack_->SetActiveLayer(0);
  renderer_->AddViewProp(stack_);

  // Crosshair: drawn in 2D on top of the slice, positioned in world coordinates.
  make_two_segments(crosshair_points_, crosshair_);
  vtkNew<vtkCoordinate> world;
  world->SetCoordinateSystemToWorld();
  vtkNew<vtkPolyDataMapper2D> crosshair_mapper;
  crosshair_mapper->SetInputData(crosshair_);
  crosshair_mapper->SetTransformCoordinate(world);
  crosshair_actor_->SetMapper(crosshair_mapper);
  crosshair_actor_->GetProperty()->SetColor(0.35, 0.85, 1.0);
  crosshair_actor_->GetProperty()->SetOpacity(0.7);
  crosshair_actor_->GetProperty()->SetLineWidth(1.0);
  crosshair_actor_->VisibilityOff();
  renderer_->AddViewProp(crosshair_actor_);

  // Scale bar: a bar with end ticks in viewport pixels, updated every frame.
  scale_bar_points_->SetNumberOfPoints(6);
  for (vtkIdType i = 0; i < 6; ++i) scale_bar_points_->SetPoint(i, 0.0, 0.0, 0.0);
  vtkNew<vtkCellArray> bar_lines;
  const vtkIdType bar[2] = {0, 1}, left_tick[2] = {2, 3}, right_tick[2] = {4, 5};
  bar_lines->InsertNextCell(2, bar);
  bar_lines->InsertNextCell(2, left_tick);
  bar_lines->InsertNextCell(2, right_tick);
  scale_bar_->SetPoints(scale_bar_points_);
  scale_bar_->SetLines(bar_lines);
  vtkNew<vtkPolyDataMapper2D> bar_mapper;
  bar_mapper->SetInputData(scale_bar_);
  scale_bar_actor_->SetMapper(bar_mapper);
  scale_bar_actor_->GetProperty()->SetColor(1.0, 1.0, 1.0);
  scale_bar_actor_->GetProperty()->SetLineWidth(2.0);
  renderer_->AddViewProp(scale_bar_actor_);
  style_text(scale_bar_text_, 13, 1.0, 1.0, 1.0);
  renderer_->AddViewProp(scale_bar_text_);

  const OrientationLabels letters = orientation_labels(axes_);
  const QString texts[4] = {letters.left, letters.right, letters.top, letters.bottom};
  for (int i = 0; i < 4; ++i) {
    style_text(labels_[i], 18, 1.0, 0.8, 0.3);
    labels_[i]->SetInput(texts[i].toLatin1().constData());
    renderer_->AddViewProp(labels_[i]);
  }
  place_normalized(labels_[0], 0.01, 0.5, VTK_TEXT_LEFT, VTK_TEXT_CENTERED);
  place_normalized(labels_[1], 0.99, 0.5, VTK_TEXT_RIGHT, VTK_TEXT_CENTERED);
  place_normalized(labels_[2], 0.5, 0.99, VTK_TEXT_CENTERED, VTK_TEXT_TOP);
  place_normalized(labels_[3], 0.5, 0.01, VTK_TEXT_CENTERED, VTK_TEXT_BOTTOM);
  style_text(title_, 13, 0.85, 0.85, 0.85);
  place_normalized(title_, 0.01, 0.99, VTK_TEXT_LEFT, VTK_TEXT_TOP);
  renderer_->AddViewProp(title_);
  update_title();

  start_callback_->SetCallback(&SliceScene::on_render_start);
  start_callback_->SetClientData(this);
  renderer_->AddObserver(vtkCommand::StartEvent, start_callback_);
  set_annotations_visible(true);
}

SliceScene::~SliceScene() {
  start_callback_->SetClientData(nullptr);
  renderer_->RemoveObserver(start_callback_);
}

vtkRenderer* SliceScene::renderer() const { return renderer_; }

void SliceScene::set_image(vtkImageData* image, vtkMatrix4x4* index_to_world, const VolumeGeometry& geometry) {
  geometry_ = geometry;
  mapper_->SetInputData(image);
  slice_->SetUserMatrix(index_to_world);
  slice_->VisibilityOn();
  has_image_ = true;
  cursor_ = geometry_.center();
  reset_view();
  set_annotations_visible(annotations_);
}

void SliceScene::clear_image() {
  slice_->VisibilityOff();
  mapper_->SetInputData(static_cast<vtkImageData*>(nullptr));
  overlay_.clear();
  has_image_ = false;
  geometry_ = VolumeGeometry();
  set_annotations_visible(annotations_);
}

void SliceScene::set_cursor(const Vec3& world) {
  cursor_ = world;
  update_title();
}

void SliceScene::set_window_level(const WindowLevel& window_level) {
  property_->SetColorWindow(window_level.window);
  property_->SetColorLevel(window_level.level);
}

void SliceScene::set_colormap(Colormap map) { property_->SetLookupTable(make_lookup_table(map)); }

void SliceScene::set_annotations_visible(bool visible) {
  annotations_ = visible;
  const bool on = visible && has_image_;
  crosshair_actor_->SetVisibility(on);
  scale_bar_actor_->SetVisibility(on);
  scale_bar_text_->SetVisibility(on);
  title_->SetVisibility(on);
  for (auto& label : labels_) label->SetVisibility(on);
}

void SliceScene::reset_view() {
  const auto b = geometry_.world_bounds();
  pan_center_ = has_image_ ? Vec3{(b[0] + b[1]) / 2, (b[2] + b[3]) / 2, (b[4] + b[5]) / 2} : Vec3{0, 0, 0};
  zoom_ = 1.0;
}

void SliceScene::set_zoom(double zoom) { zoom_ = std::clamp(zoom, 0.05, 100.0); }

void SliceScene::set_pan_center(const Vec3& world) { pan_center_ = world; }

double SliceScene::fit_scale(double aspect) const {
  if (!has_image_) return 1.0;
  // Half-extents of the grid's corners along the screen axes, around the pan centre's default.
  double right_min = 1e300, right_max = -1e300, up_min = 1e300, up_max = -1e300;
  const auto size = geometry_.size();
  for (int corner = 0; corner < 8; ++corner) {
    Vec3 index{};
    for (int a = 0; a < 3; ++a) index[a] = (corner >> a & 1) ? static_cast<double>(size[a]) - 0.5 : -0.5;
    const Vec3 w = geometry_.index_to_world(index);
    right_min = std::min(right_min, dot(w, axes_.right));
    right_max = std::max(right_max, dot(w, axes_.right));
    up_min = std::min(up_min, dot(w, axes_.up));
    up_max = std::max(up_max, dot(w, axes_.up));
  }
  const double half_up = (up_max - up_min) / 2.0;
  const double half_right = (right_max - right_min) / 2.0;
  return std::max({half_up, half_right / std::max(aspect, 1e-6), 1e-3}) * k_fit_margin;
}

SliceCamera SliceScene::camera(int width, int height) const {
  SliceCamera camera;
  camera.axes = axes_;
  camera.width = std::max(width, 1);
  camera.height = std::max(height, 1);
  const Vec3& n = axes_.projection;
  camera.focal = add(pan_center_, scale(n, dot(sub(cursor_, pan_center_), n)));
  camera.parallel_scale = fit_scale(static_cast<double>(camera.width) / camera.height) / zoom_;
  return camera;
}

void SliceScene::on_render_start(vtkObject*, unsigned long, void* client, void*) {
  if (auto* scene = static_cast<SliceScene*>(client)) scene->prepare_render();
}

void SliceScene::prepare_render() {
  const int* size = renderer_->GetSize();
  const SliceCamera cam = camera(size[0], size[1]);
  vtkCamera* c = renderer_->GetActiveCamera();
  const double distance = std::max(geometry_.diagonal(), 10.0) * 2.0;
  c->ParallelProjectionOn();
  c->SetFocalPoint(cam.focal.data());
  const Vec3 eye = sub(cam.focal, scale(axes_.projection, distance));
  c->SetPosition(eye.data());
  c->SetViewUp(axes_.up.data());
  c->SetParallelScale(cam.parallel_scale);
  c->SetClippingRange(distance * 0.25, distance * 1.75);
  update_crosshair();
  update_scale_bar(cam);
}

void SliceScene::update_crosshair() {
  const double reach = std::max(geometry_.diagonal(), 1.0) * 2.0;
  const Vec3 points[4] = {sub(cursor_, scale(axes_.right, reach)), add(cursor_, scale(axes_.right, reach)),
                          sub(cursor_, scale(axes_.up, reach)), add(cursor_, scale(axes_.up, reach))};
  for (vtkIdType i = 0; i < 4; ++i) crosshair_points_->SetPoint(i, points[i].data());
  crosshair_points_->Modified();
}

void SliceScene::update_scale_bar(const SliceCamera& cam) {
  const double mpp = cam.mm_per_pixel();
  const double length_mm = nice_scale_bar_length(mpp, cam.width * 0.25);
  const double length_px = length_mm > 0.0 ? length_mm / mpp : 0.0;
  constexpr double x0 = 14.0, y0 = 14.0, tick = 6.0;
  const double x1 = x0 + length_px;
  const double coords[6][2] = {{x0, y0}, {x1, y0}, {x0, y0}, {x0, y0 + tick}, {x1, y0}, {x1, y0 + tick}};
  for (vtkIdType i = 0; i < 6; ++i) scale_bar_points_->SetPoint(i, coords[i][0], coords[i][1], 0.0);
  scale_bar_points_->Modified();
  const QString label = length_mm >= 10.0 || length_mm == std::floor(length_mm)
                            ? QStringLiteral("%1 mm").arg(length_mm, 0, 'f', 0)
                            : QStringLiteral("%1 mm").arg(length_mm, 0, 'g', 3);
  scale_bar_text_->SetInput(label.toLatin1().constData());
  // Viewport coordinates, not display ones: the snapshot puts four views in one window.
  scale_bar_text_->GetPositionCoordinate()->SetCoordinateSystemToViewport();
  scale_bar_text_->SetPosition(x0, y0 + tick + 3);
}

void SliceScene::update_title() {
  QString text = orientation_name(orientation_);
  if (has_image_) {
    // Slice number along the index axis best aligned with the view normal.
    const auto& d = geometry_.direction();
    int axis = 0;
    double best = -1.0;
    for (int c = 0; c < 3; ++c) {
      const double a = std::abs(d[c] * axes_.projection[0] + d[3 + c] * axes_.projection[1] +
                                d[6 + c] * axes_.projection[2]);
      if (a > best) {
        best = a;
        axis = c;
      }
    }
    const Index3 index = geometry_.nearest_index(cursor_);
    text += QStringLiteral("  %1/%2").arg(index[axis] + 1).arg(geometry_.size()[axis]);
  }
  title_->SetInput(text.toLatin1().constData());
}

}  // namespace medsynth::ui
