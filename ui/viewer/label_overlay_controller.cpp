#include "ui/viewer/label_overlay_controller.hpp"

#include <algorithm>
#include <cmath>

#include <QFileInfo>

#include <vtkDataArray.h>
#include <vtkPointData.h>

#include <vtkImageData.h>
#include <vtkMatrix4x4.h>
#include <vtkSmartPointer.h>

#include "core/error.hpp"
#include "ui/viewer/label_edits.hpp"
#include "ui/viewer/label_map.hpp"
#include "ui/viewer/label_overlay_layer.hpp"
#include "ui/viewer/slice_scene.hpp"
#include "ui/viewer/slice_view.hpp"
#include "ui/viewer/volume_loader.hpp"

namespace medsynth::ui {

struct LabelOverlayController::VtkData {
  vtkSmartPointer<vtkMatrix4x4> matrix;
  vtkSmartPointer<vtkImageData> label_image;
};

LabelOverlayController::LabelOverlayController(std::array<SliceView*, 3> views, VolumeReadOptions read_options,
                                               QObject* parent)
    : QObject(parent), views_(views), vtk_(std::make_unique<VtkData>()) {
  loader_ = new VolumeLoader(this, read_options);
  connect(loader_, &VolumeLoader::loaded, this, &LabelOverlayController::on_loaded);
  connect(loader_, &VolumeLoader::failed, this, [this](const QString& path, const QString& message) {
    if (path != pending_path_) return;  // read for an image no longer shown
    pending_path_.clear();
    emit failed(message);
  });
}

LabelOverlayController::~LabelOverlayController() = default;

void LabelOverlayController::set_image(std::shared_ptr<const Volume> image, const QString& image_path,
                                       vtkMatrix4x4* index_to_world) {
  image_ = std::move(image);
  image_path_ = image_path;
  vtk_->matrix = index_to_world;
  pending_path_.clear();
  clear();
}

void LabelOverlayController::open(const QString& path) {
  pending_path_ = path;
  loader_->load(path);
}

bool LabelOverlayController::is_loading() const { return loader_->is_loading() && !pending_path_.isEmpty(); }

void LabelOverlayController::on_loaded(const LoadedVolume& loaded) {
  if (loaded.path != pending_path_) return;
  pending_path_.clear();
  QString error;
  if (set_labels(loaded.volume, loaded.path, &error))
    emit this->loaded(loaded.path);
  else
    emit failed(error);
}

bool LabelOverlayController::set_labels(std::shared_ptr<const Volume> labels, const QString& path, QString* error) {
  QString problem;
  if (!labels)
    problem = QStringLiteral("%1: no label map").arg(path);
  else if (!image_)
    problem = QStringLiteral("label map %1: open an image first; a label map is drawn over an image").arg(path);
  else
    problem = label_grid_mismatch(*image_, *labels, QFileInfo(image_path_).fileName(), QFileInfo(path).fileName());
  if (!problem.isEmpty()) {
    if (error) *error = problem;
    return false;
  }
  edits_.reset();
  labels_ = std::move(labels);
  path_ = path;
  vtk_->label_image = make_label_image_data(*labels_);
  apply_to_views();
  emit changed();
  return true;
}

void LabelOverlayController::clear() {
  const bool had = labels_ != nullptr;
  edits_.reset();
  labels_.reset();
  vtk_->label_image = nullptr;
  path_.clear();
  apply_to_views();
  if (had) emit changed();
}

std::optional<int> LabelOverlayController::label_at(const Index3& index) const {
  if (!labels_) return std::nullopt;
  for (int a = 0; a < 3; ++a)
    if (index[a] < 0 || index[a] >= static_cast<std::int64_t>(labels_->size[static_cast<std::size_t>(a)]))
      return std::nullopt;
  const float v = labels_->at(static_cast<std::size_t>(index[0]), static_cast<std::size_t>(index[1]),
                              static_cast<std::size_t>(index[2]));
  return std::isfinite(v) ? static_cast<int>(std::lround(v)) : 0;
}

LabelEdits* LabelOverlayController::edit() {
  if (edits_) return edits_.get();
  if (!image_) return nullptr;
  std::shared_ptr<Volume> editable;
  if (labels_) {
    editable = std::make_shared<Volume>(*labels_);
  } else {
    editable = std::make_shared<Volume>(*image_);
    std::fill(editable->voxels.begin(), editable->voxels.end(), 0.0f);
    vtk_->label_image = make_label_image_data(*editable);
  }
  edits_ = std::make_unique<LabelEdits>(editable);
  const bool was_new = labels_ == nullptr;
  labels_ = std::move(editable);
  if (was_new) {
    apply_to_views();
    emit changed();
  }
  return edits_.get();
}

void LabelOverlayController::redraw_voxels(const std::vector<std::size_t>& offsets) {
  if (!labels_ || !vtk_->label_image) return;
  auto* label_slots = static_cast<unsigned char*>(vtk_->label_image->GetScalarPointer());
  const std::size_t n = labels_->voxels.size();
  for (std::size_t offset : offsets)
    if (offset < n) label_slots[offset] = label_slot(labels_->voxels[offset]);
  vtk_->label_image->GetPointData()->GetScalars()->Modified();
  vtk_->label_image->Modified();
  for (SliceView* view : views_) view->request_render();
  emit edited();
}

bool LabelOverlayController::is_modified() const { return edits_ && edits_->modified(); }

bool LabelOverlayController::save(const QString& path, QString* error) {
  if (!labels_) {
    if (error) *error = QStringLiteral("%1: there is no label map to save").arg(path);
    return false;
  }
  try {
    write_volume(*labels_, path.toStdString());
  } catch (const std::exception& e) {
    if (error) *error = QString::fromUtf8(e.what());
    return false;
  }
  path_ = path;
  if (edits_) edits_->mark_saved();
  emit saved(path);
  emit edited();
  return true;
}

void LabelOverlayController::set_opacity(double opacity) {
  opacity = std::clamp(opacity, 0.0, 1.0);
  if (opacity == opacity_) return;
  opacity_ = opacity;
  apply_to_views();
  emit changed();
}

void LabelOverlayController::set_visible(bool visible) {
  if (visible == visible_) return;
  visible_ = visible;
  apply_to_views();
  emit changed();
}

void LabelOverlayController::apply_to_views() {
  for (SliceView* view : views_) {
    LabelOverlayLayer& layer = view->scene().label_overlay();
    if (vtk_->label_image)
      layer.set_labels(vtk_->label_image, vtk_->matrix);
    else
      layer.clear();
    layer.set_opacity(opacity_);
    layer.set_visible(visible_);
    view->request_render();
  }
}

}  // namespace medsynth::ui
