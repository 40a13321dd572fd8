#include "ui/viewer/volume_render_view.hpp"

#include <vtkCallbackCommand.h>
#include <vtkCommand.h>
#include <vtkGenericOpenGLRenderWindow.h>
#include <vtkGenericRenderWindowInteractor.h>
#include <vtkInteractorStyleTrackballCamera.h>
#include <vtkNew.h>
#include <vtkRenderer.h>

#include "ui/viewer/gl_renderer_info.hpp"
#include "ui/viewer/volume_scene.hpp"

namespace medsynth::ui {

namespace {
void on_interaction(vtkObject*, unsigned long, void* client, void*) {
  auto* view = static_cast<VolumeRenderView*>(client);
  emit view->camera_changed(view->camera());
}
}  // namespace

VolumeRenderView::VolumeRenderView(RayCastMode mode, QWidget* parent)
    : VtkOpenGLWidget(parent), scene_(std::make_unique<VolumeScene>()), mode_(mode) {
  render_window()->AddRenderer(scene_->renderer());
  vtkNew<vtkInteractorStyleTrackballCamera> style;
  style->SetDefaultRenderer(scene_->renderer());
  interactor()->SetInteractorStyle(style);
  vtkNew<vtkCallbackCommand> callback;
  callback->SetCallback(on_interaction);
  callback->SetClientData(this);
  interaction_tag_ = style->AddObserver(vtkCommand::InteractionEvent, callback);
  end_interaction_tag_ = style->AddObserver(vtkCommand::EndInteractionEvent, callback);
  connect(this, &VtkOpenGLWidget::gl_initialized, this, &VolumeRenderView::apply_mode);
  refine_timer_ = new QTimer(this);
  refine_timer_->setSingleShot(true);
  refine_timer_->setInterval(400);
  connect(refine_timer_, &QTimer::timeout, this, [this] {
    render_window()->SetDesiredUpdateRate(interactor()->GetStillUpdateRate());
    request_render();
  });
  setToolTip(tr("Left drag: rotate · Middle/Shift+left: pan · Wheel/right drag: zoom"));
}

VolumeRenderView::~VolumeRenderView() {
  if (auto* style = interactor()->GetInteractorStyle()) {
    style->RemoveObserver(interaction_tag_);
    style->RemoveObserver(end_interaction_tag_);
  }
}

bool VolumeRenderView::software_ray_casting() const { return scene_->software_ray_casting(); }

void VolumeRenderView::set_ray_cast_mode(RayCastMode mode) {
  mode_ = mode;
  apply_mode();
  request_render();
}

void VolumeRenderView::apply_mode() {
  switch (mode_) {
    case RayCastMode::gpu: scene_->set_software_ray_casting(false); break;
    case RayCastMode::cpu: scene_->set_software_ray_casting(true); break;
    case RayCastMode::automatic: {
      const QString renderer = is_gl_ready() ? gl_renderer() : gl_renderer_string();
      scene_->set_software_ray_casting(is_software_gl_renderer(renderer));
      break;
    }
  }
}

CameraState VolumeRenderView::camera() const { return scene_->camera_state(); }

void VolumeRenderView::set_camera(const CameraState& state) {
  scene_->set_camera_state(state);
  request_render();
}

void VolumeRenderView::render_progressively() {
  render_window()->SetDesiredUpdateRate(interactor()->GetDesiredUpdateRate());
  request_render();
  refine_timer_->start();
}

void VolumeRenderView::reset_camera() {
  scene_->reset_camera();
  request_render();
}

}  // namespace medsynth::ui
