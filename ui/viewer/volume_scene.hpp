// The 3D view's VTK scene: a vtkVolume drawn by vtkSmartVolumeMapper with a
// transfer-function preset. GPU ray casting on real GPUs; VTK's CPU ray
// caster when the GL renderer is a software rasteriser (llvmpipe), where it
// is several times faster (PLATFORM-NOTES.md). No Qt widgets: VolumeRenderView
// and snapshot_volume() host it. Internal to medsynth_viewer.
#pragma once

#include <vtkNew.h>

#include "ui/viewer/camera_state.hpp"
#include "ui/viewer/volume_rendering_preset.hpp"

class vtkColorTransferFunction;
class vtkImageData;
class vtkMatrix4x4;
class vtkPiecewiseFunction;
class vtkRenderer;
class vtkSmartVolumeMapper;
class vtkVolume;
class vtkVolumeProperty;

namespace medsynth::ui {

class VolumeScene {
 public:
  VolumeScene();
  ~VolumeScene();
  VolumeScene(const VolumeScene&) = delete;
  VolumeScene& operator=(const VolumeScene&) = delete;

  vtkRenderer* renderer() const;

  void set_image(vtkImageData* image, vtkMatrix4x4* index_to_world, const VolumeGeometry& geometry,
                 const IntensityStats& stats);
  void clear_image();
  bool has_image() const { return has_image_; }

  void set_preset(VolumePreset preset);
  VolumePreset preset() const { return preset_; }

  // true: CPU ray casting (vtkFixedPointVolumeRayCastMapper inside the smart
  // mapper); false: the smart mapper's default (GPU when available).
  void set_software_ray_casting(bool software);
  bool software_ray_casting() const { return software_; }
  // What the smart mapper actually used in the last render ("GPU", "CPU ray cast", ...).
  QString last_render_mode() const;

  // Seen from the front (anterior), superior up, the whole grid in view.
  void reset_camera();
  CameraState camera_state() const;
  void set_camera_state(const CameraState& state);

 private:
  vtkNew<vtkRenderer> renderer_;
  vtkNew<vtkSmartVolumeMapper> mapper_;
  vtkNew<vtkVolume> volume_;
  vtkNew<vtkVolumeProperty> property_;
  vtkNew<vtkColorTransferFunction> color_;
  vtkNew<vtkPiecewiseFunction> opacity_;
  VolumeGeometry geometry_;
  IntensityStats stats_;
  VolumePreset preset_ = VolumePreset::mri;
  bool has_image_ = false;
  bool software_ = false;
};

}  // namespace medsynth::ui
