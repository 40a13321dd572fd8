#include "ui/viewer/volume_scene.hpp"

#include <QString>

#include <vtkCamera.h>
#include <vtkColorTransferFunction.h>
#include <vtkImageData.h>
#include <vtkMatrix4x4.h>
#include <vtkPiecewiseFunction.h>
#include <vtkRenderer.h>
#include <vtkSmartVolumeMapper.h>
#include <vtkVolume.h>
#include <vtkVolumeProperty.h>

#include "ui/viewer/slice_geometry.hpp"
#include "ui/viewer/vtk_volume_bridge.hpp"

namespace medsynth::ui {

VolumeScene::VolumeScene() {
  renderer_->SetBackground(0.08, 0.09, 0.11);
  renderer_->SetBackgroundAlpha(1.0);
  property_->SetColor(color_);
  property_->SetScalarOpacity(opacity_);
  property_->SetInterpolationTypeToLinear();
  property_->ShadeOn();
  property_->SetAmbient(0.3);
  property_->SetDiffuse(0.7);
  property_->SetSpecular(0.2);
  mapper_->SetInteractiveUpdateRate(8.0);  // coarser sampling while the user drags
  volume_->SetMapper(mapper_);
  volume_->SetProperty(property_);
  volume_->VisibilityOff();
  renderer_->AddVolume(volume_);
}

VolumeScene::~VolumeScene() = default;

vtkRenderer* VolumeScene::renderer() const { return renderer_; }

void VolumeScene::set_image(vtkImageData* image, vtkMatrix4x4* index_to_world, const VolumeGeometry& geometry,
                            const IntensityStats& stats) {
  geometry_ = geometry;
  stats_ = stats;
  mapper_->SetInputData(image);
  volume_->SetUserMatrix(index_to_world);
  volume_->VisibilityOn();
  has_image_ = true;
  set_preset(preset_);
  reset_camera();
}

void VolumeScene::clear_image() {
  volume_->VisibilityOff();
  mapper_->SetInputData(static_cast<vtkImageData*>(nullptr));
  has_image_ = false;
}

void VolumeScene::set_preset(VolumePreset preset) {
  preset_ = preset;
  fill_transfer_functions(transfer_function(preset, stats_), color_, opacity_);
}

void VolumeScene::set_software_ray_casting(bool software) {
  software_ = software;
  if (software)
    mapper_->SetRequestedRenderModeToRayCast();
  else
    mapper_->SetRequestedRenderModeToDefault();
}

QString VolumeScene::last_render_mode() const {
  switch (mapper_->GetLastUsedRenderMode()) {
    case vtkSmartVolumeMapper::GPURenderMode: return QStringLiteral("GPU ray cast");
    case vtkSmartVolumeMapper::RayCastRenderMode: return QStringLiteral("CPU ray cast");
    case vtkSmartVolumeMapper::OSPRayRenderMode: return QStringLiteral("OSPRay");
    default: return QStringLiteral("none");
  }
}

void VolumeScene::reset_camera() {
  if (!has_image_) return;
  const auto b = geometry_.world_bounds();
  const Vec3 centre{(b[0] + b[1]) / 2, (b[2] + b[3]) / 2, (b[4] + b[5]) / 2};
  vtkCamera* camera = renderer_->GetActiveCamera();
  // Facing the patient (looking posterior, +y in LPS), superior up: the
  // 3D view then matches the coronal slice's orientation.
  camera->SetFocalPoint(centre.data());
  const Vec3 eye = sub(centre, Vec3{0.0, geometry_.diagonal() * 2.0, 0.0});
  camera->SetPosition(eye.data());
  camera->SetViewUp(0.0, 0.0, 1.0);
  renderer_->ResetCamera(b.data());
}

CameraState VolumeScene::camera_state() const {
  vtkCamera* camera = renderer_->GetActiveCamera();
  CameraState s;
  camera->GetPosition(s.position.data());
  camera->GetFocalPoint(s.focal_point.data());
  camera->GetViewUp(s.view_up.data());
  s.view_angle = camera->GetViewAngle();
  s.parallel_scale = camera->GetParallelScale();
  s.parallel = camera->GetParallelProjection() != 0;
  return s;
}

void VolumeScene::set_camera_state(const CameraState& s) {
  vtkCamera* camera = renderer_->GetActiveCamera();
  camera->SetPosition(s.position.data());
  camera->SetFocalPoint(s.focal_point.data());
  camera->SetViewUp(s.view_up.data());
  camera->SetViewAngle(s.view_angle);
  camera->SetParallelScale(s.parallel_scale);
  camera->SetParallelProjection(s.parallel ? 1 : 0);
  renderer_->ResetCameraClippingRange();
}

}  // namespace medsynth::ui
