// The 3D view of VolumeViewerWidget: a VtkOpenGLWidget showing a VolumeScene,
// rotated/zoomed/panned with VTK's trackball-camera style. Decides GPU vs CPU
// ray casting once its GL context exists (software rasteriser -> CPU).
#pragma once

#include <memory>

#include <QTimer>

#include "ui/viewer/camera_state.hpp"
#include "ui/viewer/volume_rendering_preset.hpp"
#include "ui/viewer/vtk_opengl_widget.hpp"

namespace medsynth::ui {

class VolumeScene;

enum class RayCastMode { automatic, gpu, cpu };

class VolumeRenderView : public VtkOpenGLWidget {
  Q_OBJECT

 public:
  explicit VolumeRenderView(RayCastMode mode = RayCastMode::automatic, QWidget* parent = nullptr);
  ~VolumeRenderView() override;

  VolumeScene& scene() { return *scene_; }
  // Whether CPU ray casting is in use (known once the GL context exists).
  bool software_ray_casting() const;
  void set_ray_cast_mode(RayCastMode mode);

  CameraState camera() const;
  // Applies a camera from a linked view; does not emit camera_changed.
  void set_camera(const CameraState& state);
  void reset_camera();
  // After the volume or the transfer function changed: one quick frame at
  // interactive quality now, the full-quality frame once things are quiet
  // (a still CPU ray cast of a large volume takes seconds on llvmpipe).
  void render_progressively();

 signals:
  // The user moved the camera (rotate, zoom, pan).
  void camera_changed(const medsynth::ui::CameraState& state);

 private:
  void apply_mode();
  std::unique_ptr<VolumeScene> scene_;
  QTimer* refine_timer_ = nullptr;
  RayCastMode mode_;
  unsigned long interaction_tag_ = 0;
  unsigned long end_interaction_tag_ = 0;
};

}  // namespace medsynth::ui

Q_DECLARE_METATYPE(medsynth::ui::CameraState)
