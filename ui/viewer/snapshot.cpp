#include "ui/viewer/snapshot.hpp"

#include <array>
#include <cstdio>
#include <cstring>

#include <vtkImageData.h>
#include <vtkMatrix4x4.h>
#include <vtkNew.h>
#include <vtkOpenGLRenderWindow.h>
#include <vtkOpenGLState.h>
#include <vtkRenderWindow.h>
#include <vtkRenderer.h>
#include <vtkUnsignedCharArray.h>
#include <vtkWindowToImageFilter.h>
#include <vtkPointData.h>

#include "ui/viewer/gl_renderer_info.hpp"
#include "ui/viewer/slice_scene.hpp"
#include "ui/viewer/volume_loader.hpp"
#include "ui/viewer/volume_scene.hpp"
#include "ui/viewer/vtk_volume_bridge.hpp"
#include "ui/viewer/x11_display_probe.hpp"

namespace medsynth::ui {

QStringList SnapshotOptions::validate() const {
  QStringList problems;
  if (read_options.max_voxels == 0) problems << QStringLiteral("read_options.max_voxels: must be > 0");
  if (width < 64 || width > 8192) problems << QStringLiteral("width: must be in [64, 8192] (got %1)").arg(width);
  if (height < 64 || height > 8192) problems << QStringLiteral("height: must be in [64, 8192] (got %1)").arg(height);
  if (window_level && !(window_level->window > 0.0))
    problems << QStringLiteral("window_level.window: must be > 0 (got %1)").arg(window_level->window);
  return problems;
}

namespace {

// VTK's image rows start at the bottom; QImage's at the top.
QImage to_qimage(vtkImageData* image) {
  int dims[3];
  image->GetDimensions(dims);
  auto* pixels = vtkUnsignedCharArray::SafeDownCast(image->GetPointData()->GetScalars());
  if (pixels == nullptr || pixels->GetNumberOfComponents() != 3 || dims[0] <= 0 || dims[1] <= 0) return {};
  QImage out(dims[0], dims[1], QImage::Format_RGB888);
  const unsigned char* src = pixels->GetPointer(0);
  for (int y = 0; y < dims[1]; ++y)
    std::memcpy(out.scanLine(dims[1] - 1 - y), src + static_cast<std::size_t>(y) * dims[0] * 3,
                static_cast<std::size_t>(dims[0]) * 3);
  return out.convertToFormat(QImage::Format_RGB32);
}

// Reads the volume and its geometry; false, with the result's exit code and
// message set, when the file is unusable.
bool load_snapshot_volume(const QString& in, const SnapshotOptions& options, LoadedVolume* loaded,
                          VolumeGeometry* geometry, SnapshotResult* result) {
  try {
    *loaded = load_volume_file(in, options.read_options);
    *geometry = VolumeGeometry(*loaded->volume);
  } catch (const std::exception& e) {
    result->exit_code = 3;
    result->message = describe_load_error(in, e);
    return false;
  }
  return true;
}

// False, with the result's exit code and message set, when there is no X display to render on.
bool check_display(SnapshotResult* result) {
  if (!x11_display_available()) {
    result->exit_code = 1;
    result->message = QStringLiteral(
                          "snapshot needs an X display to render (none at DISPLAY=\"%1\"); run it under "
                          "xvfb-run -a")
                          .arg(QString::fromLocal8Bit(qgetenv("DISPLAY")));
    return false;
  }
  return true;
}

WindowLevel snapshot_window_level(const SnapshotOptions& options, const LoadedVolume& loaded) {
  return options.window_level                               ? *options.window_level
         : options.window_preset == WindowPreset::automatic ? percentile_window_level(loaded.stats)
                                                            : window_preset_info(options.window_preset).window_level;
}

// The centre of the voxel nearest the asked-for point (default: the volume's centre).
Vec3 snapshot_cursor(const SnapshotOptions& options, const VolumeGeometry& geometry) {
  return geometry.voxel_center(geometry.clamp(geometry.nearest_index(options.cursor.value_or(geometry.center()))));
}

// The GL renderer is known once the context exists: decide CPU vs GPU ray casting then.
void choose_ray_casting(vtkRenderWindow* window, RayCastMode mode, VolumeScene* volume, SnapshotResult* result) {
  if (auto* gl = vtkOpenGLRenderWindow::SafeDownCast(window)) {
    gl->Initialize();
    result->gl_renderer = QString::fromStdString(gl->GetState()->GetRenderer());
    remember_gl_renderer(result->gl_renderer);
  }
  const bool software =
      mode == RayCastMode::cpu || (mode == RayCastMode::automatic && is_software_gl_renderer(result->gl_renderer));
  volume->set_software_ray_casting(software);
}

// What the window drew, then the window finalized.
QImage grab_and_finalize(vtkRenderWindow* window) {
  vtkNew<vtkWindowToImageFilter> grab;
  grab->SetInput(window);
  grab->SetInputBufferTypeToRGB();
  grab->ReadFrontBufferOff();
  grab->Update();
  QImage image = to_qimage(grab->GetOutput());
  window->Finalize();
  return image;
}

// Checks the rendered image, writes it to out_png when one is named, and says so in the result.
void finish_snapshot(const QString& in, const QString& out_png, SnapshotResult* result) {
  if (result->image.isNull()) {
    result->exit_code = 1;
    result->message = QStringLiteral("%1: rendering produced no image").arg(in);
    return;
  }
  if (!out_png.isEmpty() && !result->image.save(out_png, "PNG")) {
    result->exit_code = 1;
    result->message = QStringLiteral("%1: cannot write the PNG file").arg(out_png);
    return;
  }
  result->message = out_png.isEmpty() ? QStringLiteral("rendered %1").arg(in) : QStringLiteral("wrote %1").arg(out_png);
}

}  // namespace

SnapshotResult render_snapshot(const QString& in, const QString& out_png, const SnapshotOptions& options) {
  SnapshotResult result;
  if (const QStringList problems = options.validate(); !problems.isEmpty()) {
    result.exit_code = 2;
    result.message = QStringLiteral("snapshot options: ") + problems.join(QStringLiteral("; "));
    return result;
  }
  LoadedVolume loaded;
  VolumeGeometry geometry;
  if (!load_snapshot_volume(in, options, &loaded, &geometry, &result)) return result;
  result.warnings = loaded.warnings;
  if (!check_display(&result)) return result;

  const auto image = make_image_data(*loaded.volume);
  const auto matrix = index_to_world_matrix(*loaded.volume);
  vtkNew<vtkRenderWindow> window;
  window->SetOffScreenRendering(1);
  window->SetMultiSamples(0);
  window->SetSize(options.width, options.height);

  const WindowLevel wl = snapshot_window_level(options, loaded);
  const Vec3 cursor = snapshot_cursor(options, geometry);

  // Quadrants as in VolumeViewerWidget: axial, coronal / sagittal, 3D.
  SliceScene axial(SliceOrientation::axial), coronal(SliceOrientation::coronal), sagittal(SliceOrientation::sagittal);
  const std::array<std::pair<SliceScene*, std::array<double, 4>>, 3> slices{{
      {&axial, {0.0, 0.5, 0.5, 1.0}},
      {&coronal, {0.5, 0.5, 1.0, 1.0}},
      {&sagittal, {0.0, 0.0, 0.5, 0.5}},
  }};
  for (const auto& [scene, viewport] : slices) {
    scene->set_image(image, matrix, geometry);
    scene->set_cursor(cursor);
    scene->set_window_level(wl);
    scene->set_colormap(options.colormap);
    scene->set_annotations_visible(options.annotations);
    scene->renderer()->SetViewport(viewport.data());
    window->AddRenderer(scene->renderer());
  }
  VolumeScene volume;
  volume.set_preset(options.volume_preset.value_or(
      choose_volume_preset(loaded.stats, loaded.provenance ? loaded.provenance->modality : std::string()).preset));
  volume.set_image(image, matrix, geometry, loaded.stats);
  volume.renderer()->SetViewport(0.5, 0.0, 1.0, 0.5);
  window->AddRenderer(volume.renderer());

  choose_ray_casting(window, options.ray_cast_mode, &volume, &result);
  window->Render();

  result.image = grab_and_finalize(window);
  finish_snapshot(in, out_png, &result);
  return result;
}

int snapshot_volume(const QString& in, const QString& out_png, const SnapshotOptions& options) {
  const SnapshotResult result = render_snapshot(in, out_png, options);
  for (const QString& warning : result.warnings)
    std::fprintf(stderr, "medsynth snapshot: warning: %s\n", qPrintable(warning));
  if (result.exit_code != 0) std::fprintf(stderr, "medsynth snapshot: %s\n", qPrintable(result.message));
  return result.exit_code;
}

}  // namespace medsynth::ui
