// One slice view's VTK scene: the resliced image (vtkImageResliceMapper,
// slice through the crosshair point, facing the camera), the crosshair,
// orientation letters, a title and a scale bar, an optional label-map layer
// over the image (LabelOverlayLayer, stacked with vtkImageStack so that the
// two coplanar slices never z-fight), and the orthographic camera
// described by SliceCamera (slice_geometry.hpp). No Qt widgets: SliceView
// hosts it in a VtkOpenGLWidget, snapshot_volume() in an offscreen window.
// Internal to medsynth_viewer.
#pragma once

#include <vtkNew.h>
#include <vtkSmartPointer.h>

#include "ui/viewer/colormap.hpp"
#include "ui/viewer/label_overlay_layer.hpp"
#include "ui/viewer/slice_geometry.hpp"
#include "ui/viewer/window_level.hpp"

class vtkActor2D;
class vtkCallbackCommand;
class vtkImageData;
class vtkImageProperty;
class vtkImageResliceMapper;
class vtkImageSlice;
class vtkImageStack;
class vtkMatrix4x4;
class vtkObject;
class vtkPoints;
class vtkPolyData;
class vtkRenderer;
class vtkTextActor;

namespace medsynth::ui {

class SliceScene {
 public:
  explicit SliceScene(SliceOrientation orientation);
  ~SliceScene();
  SliceScene(const SliceScene&) = delete;
  SliceScene& operator=(const SliceScene&) = delete;

  SliceOrientation orientation() const { return orientation_; }
  vtkRenderer* renderer() const;

  void set_image(vtkImageData* image, vtkMatrix4x4* index_to_world, const VolumeGeometry& geometry);
  void clear_image();
  bool has_image() const { return has_image_; }
  const VolumeGeometry& geometry() const { return geometry_; }

  void set_cursor(const Vec3& world);
  const Vec3& cursor() const { return cursor_; }
  void set_window_level(const WindowLevel& window_level);
  void set_colormap(Colormap map);
  void set_annotations_visible(bool visible);
  // The label map drawn over the image (empty until set_labels is called).
  LabelOverlayLayer& label_overlay() { return overlay_; }
  const LabelOverlayLayer& label_overlay() const { return overlay_; }

  // View state: zoom 1 fits the whole grid; pan_center is the in-plane point
  // at the view's centre (its offset along the normal is ignored).
  void reset_view();
  void set_zoom(double zoom);
  double zoom() const { return zoom_; }
  void set_pan_center(const Vec3& world);
  const Vec3& pan_center() const { return pan_center_; }

  // The camera for a viewport of width x height pixels (any unit: only the
  // aspect matters for the fit). Pure: the same numbers VTK gets.
  SliceCamera camera(int width, int height) const;

 private:
  static void on_render_start(vtkObject* caller, unsigned long event, void* client, void* call_data);
  void prepare_render();  // camera + overlays for the renderer's current size
  void update_crosshair();
  void update_scale_bar(const SliceCamera& camera);
  void update_title();
  double fit_scale(double aspect) const;

  SliceOrientation orientation_;
  ViewAxes axes_;
  VolumeGeometry geometry_;
  bool has_image_ = false;
  bool annotations_ = true;
  Vec3 cursor_{0.0, 0.0, 0.0};
  Vec3 pan_center_{0.0, 0.0, 0.0};
  double zoom_ = 1.0;

  vtkNew<vtkRenderer> renderer_;
  vtkNew<vtkImageResliceMapper> mapper_;
  vtkNew<vtkImageSlice> slice_;
  vtkNew<vtkImageProperty> property_;
  LabelOverlayLayer overlay_;
  vtkNew<vtkImageStack> stack_;  // layer 0 the image, layer 1 the labels
  vtkNew<vtkCallbackCommand> start_callback_;
  vtkNew<vtkPoints> crosshair_points_;
  vtkNew<vtkPolyData> crosshair_;
  vtkNew<vtkActor2D> crosshair_actor_;
  vtkNew<vtkPoints> scale_bar_points_;
  vtkNew<vtkPolyData> scale_bar_;
  vtkNew<vtkActor2D> scale_bar_actor_;
  vtkNew<vtkTextActor> scale_bar_text_;
  vtkNew<vtkTextActor> title_;
  vtkNew<vtkTextActor> labels_[4];  // left, right, top, bottom
};

}  // namespace medsynth::ui
