// Viewer benchmark (label `bench`, never run by CI, no time assertions):
//   - frames per second while rotating a 128^3 volume in azimuth steps, CPU
//     vs GPU ray casting, at still and at interactive quality;
//   - frames per second while scrolling through the slices of an axial view;
//   - time to the first frame after opening a 256x256x128 .nii.gz.
// Median of 5 runs after 2 warm-ups; prints a table with the machine (CPU
// model, GL renderer). Run: xvfb-run -a -s "-screen 0 1280x1024x24" bench_viewer [--frames N]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <random>
#include <vector>

#include <QApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QOpenGLContext>
#include <QOpenGLFunctions>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <vtkCamera.h>
#include <vtkGenericOpenGLRenderWindow.h>
#include <vtkImageData.h>
#include <vtkMatrix4x4.h>
#include <vtkRenderer.h>
#include <vtkVersion.h>

#include "ui/viewer/slice_scene.hpp"
#include "ui/viewer/slice_view.hpp"
#include "ui/viewer/volume_render_view.hpp"
#include "ui/viewer/volume_scene.hpp"
#include "ui/viewer/volume_viewer_widget.hpp"
#include "ui/viewer/vtk_volume_bridge.hpp"
#include "viewer_test_volumes.hpp"
#include "volume/volume_io.hpp"

using namespace medsynth;
using namespace medsynth::ui;
namespace vt = medsynth::viewer_test;

namespace {

constexpr int k_warmups = 2;
constexpr int k_runs = 5;

// A smooth 3D phantom with shells and noise, so that ray casting has work.
Volume phantom(std::array<std::size_t, 3> size) {
  Volume v = make_volume(size, {1.0, 1.0, 1.0});
  std::mt19937 random(3);
  std::normal_distribution<float> noise(0.0f, 20.0f);
  const double cx = size[0] / 2.0, cy = size[1] / 2.0, cz = size[2] / 2.0;
  for (std::size_t k = 0; k < size[2]; ++k)
    for (std::size_t j = 0; j < size[1]; ++j)
      for (std::size_t i = 0; i < size[0]; ++i) {
        const double r = std::sqrt(std::pow((i - cx) / cx, 2) + std::pow((j - cy) / cy, 2) + std::pow((k - cz) / cz, 2));
        float value = r < 0.9 ? 300.0f : 0.0f;
        if (r < 0.6) value = 700.0f + 200.0f * static_cast<float>(std::sin(i * 0.2) * std::cos(j * 0.15));
        if (r < 0.25) value = 1200.0f;
        v.at(i, j, k) = value + noise(random);
      }
  return v;
}

struct Stat {
  double median, min, max;
};

Stat summarize(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return {values[values.size() / 2], values.front(), values.back()};
}

// Runs `once` 2 + 5 times and summarizes the last 5 results.
Stat measure(const std::function<double()>& once) {
  std::vector<double> results;
  for (int i = 0; i < k_warmups + k_runs; ++i) {
    const double r = once();
    if (i >= k_warmups) results.push_back(r);
  }
  return summarize(results);
}

// One frame through the normal path (update -> paintGL), finished on the GL side.
bool render_once(VtkOpenGLWidget* view) {
  QSignalSpy rendered(view, &VtkOpenGLWidget::frame_rendered);
  view->update();
  if (!rendered.wait(120000)) return false;
  view->makeCurrent();
  view->context()->functions()->glFinish();
  view->doneCurrent();
  return true;
}

QString cpu_model() {
  QFile cpuinfo(QStringLiteral("/proc/cpuinfo"));
  if (!cpuinfo.open(QIODevice::ReadOnly)) return QStringLiteral("unknown CPU");
  int cores = 0;
  QString model;
  for (const QByteArray& line : cpuinfo.readAll().split('\n')) {
    if (line.startsWith("model name")) {
      ++cores;
      if (model.isEmpty()) model = QString::fromLatin1(line.mid(line.indexOf(':') + 1)).trimmed();
    }
  }
  return QStringLiteral("%1 (%2 logical cores)").arg(model).arg(cores);
}

struct Row {
  QString what, mode, unit;
  Stat stat;
};

}  // namespace

#ifndef MEDSYNTH_VERSION
#define MEDSYNTH_VERSION "0.0.0"
#endif

constexpr const char* k_usage =
    "Usage: bench_viewer [--frames N] [Qt options such as -platform offscreen]\n"
    "\n"
    "Viewer benchmark: frames per second rotating a 128^3 volume (CPU vs GPU ray\n"
    "casting), scrolling axial slices, and the time to the first frame of a\n"
    "256x256x128 .nii.gz. Needs a display (xvfb-run -a). Prints a table; asserts nothing.\n"
    "\n"
    "  --frames N   frames per timed run (at least 2, default 12)\n"
    "  --help       print this and exit\n"
    "  --version    print the version and exit\n";

int main(int argc, char** argv) {
  // --help and --version answer before QApplication, which needs a display.
  int frames = 12;
  for (int i = 1; i < argc; ++i) {
    const QByteArray arg(argv[i]);
    if (arg == "-h" || arg == "--help") {
      std::fputs(k_usage, stdout);
      return 0;
    }
    if (arg == "--version") {
      std::printf("bench_viewer %s\n", MEDSYNTH_VERSION);
      return 0;
    }
    if (arg == "--frames" && i + 1 < argc) {
      bool ok = false;
      frames = QByteArray(argv[++i]).toInt(&ok);
      if (!ok || frames < 2) {
        std::fprintf(stderr, "bench_viewer: --frames must be an integer >= 2, got '%s'\n\n%s", argv[i], k_usage);
        return 2;
      }
    }
  }
  QApplication app(argc, argv);
  QTemporaryDir dir;
  std::vector<Row> rows;

  // --- Rotation, 128^3 ---
  const auto small = std::make_shared<Volume>(phantom({128, 128, 128}));
  const VolumeGeometry small_geometry(*small);
  const IntensityStats small_stats = intensity_stats(small->voxels.data(), small->voxels.size());
  const auto image = make_image_data(*small);
  const auto matrix = index_to_world_matrix(*small);
  QString renderer;
  for (RayCastMode mode : {RayCastMode::cpu, RayCastMode::gpu}) {
    VolumeRenderView view(mode);
    view.resize(512, 512);
    view.show();
    if (!QTest::qWaitForWindowExposed(&view)) {
      std::fprintf(stderr, "bench_viewer: no window (run under xvfb-run)\n");
      return 1;
    }
    view.scene().set_preset(VolumePreset::ct_bone);
    view.scene().set_image(image, matrix, small_geometry, small_stats);
    render_once(&view);
    renderer = view.gl_renderer();
    const QString mode_name = view.scene().last_render_mode();
    // GPU ray casting on a software rasteriser is slow: fewer frames per run.
    const int n = mode == RayCastMode::gpu ? std::max(2, frames / 4) : frames;
    for (const auto& [quality, rate] : {std::pair{QStringLiteral("still"), 0.0001}, std::pair{QStringLiteral("interactive"), 15.0}}) {
      view.render_window()->SetDesiredUpdateRate(rate);
      const Stat fps = measure([&] {
        QElapsedTimer timer;
        timer.start();
        for (int f = 0; f < n; ++f) {
          view.scene().renderer()->GetActiveCamera()->Azimuth(360.0 / n);
          render_once(&view);
        }
        return n / (timer.nsecsElapsed() * 1e-9);
      });
      rows.push_back({QStringLiteral("rotate 128^3 (%1, %2 frames/run)").arg(quality).arg(n), mode_name,
                      QStringLiteral("fps"), fps});
    }
  }

  // --- Slice scrolling, 128^3 axial at 512x512 ---
  {
    SliceView view(SliceOrientation::axial);
    view.resize(512, 512);
    view.show();
    if (!QTest::qWaitForWindowExposed(&view)) return 1;
    view.set_volume(small, small_geometry, image, matrix);
    view.set_window_level(percentile_window_level(small_stats));
    render_once(&view);
    const Stat fps = measure([&] {
      QElapsedTimer timer;
      timer.start();
      for (int f = 0; f < 64; ++f) {
        view.set_cursor(small_geometry.voxel_center({64, 64, 32 + f}));
        render_once(&view);
      }
      return 64 / (timer.nsecsElapsed() * 1e-9);
    });
    rows.push_back({QStringLiteral("scroll axial slices of 128^3 (64 frames/run)"), QStringLiteral("2D reslice"),
                    QStringLiteral("fps"), fps});
  }

  // --- Time to first frame, 256x256x128 .nii.gz ---
  {
    const QString path = dir.filePath(QStringLiteral("big.nii.gz"));
    write_volume(phantom({256, 256, 128}), path.toStdString());
    std::vector<double> load_ms, frame_ms;
    for (int i = 0; i < k_warmups + k_runs; ++i) {
      VolumeViewerWidget viewer;
      viewer.resize(1024, 800);
      viewer.show();
      if (!QTest::qWaitForWindowExposed(&viewer)) return 1;
      QCoreApplication::processEvents();
      std::vector<VtkOpenGLWidget*> views{viewer.slice_view(SliceOrientation::axial),
                                          viewer.slice_view(SliceOrientation::coronal),
                                          viewer.slice_view(SliceOrientation::sagittal), viewer.volume_view()};
      QSignalSpy loaded(&viewer, &VolumeViewerWidget::volume_loaded);
      QElapsedTimer timer;
      timer.start();
      double loaded_at = -1.0;
      std::vector<bool> drawn(views.size(), false);
      std::vector<QMetaObject::Connection> connections;
      for (std::size_t v = 0; v < views.size(); ++v)
        connections.push_back(QObject::connect(views[v], &VtkOpenGLWidget::frame_rendered, [&, v] {
          if (loaded_at >= 0.0) drawn[v] = true;
        }));
      QObject::connect(&viewer, &VolumeViewerWidget::volume_loaded, [&] { loaded_at = timer.nsecsElapsed() * 1e-6; });
      viewer.open_volume(path);
      const bool ok = QTest::qWaitFor([&] { return std::all_of(drawn.begin(), drawn.end(), [](bool b) { return b; }); },
                                      120000);
      const double total = timer.nsecsElapsed() * 1e-6;
      for (auto& c : connections) QObject::disconnect(c);
      if (!ok) {
        std::fprintf(stderr, "bench_viewer: the views did not render within 2 minutes\n");
        return 1;
      }
      if (i >= k_warmups) {
        load_ms.push_back(loaded_at);
        frame_ms.push_back(total);
      }
    }
    rows.push_back({QStringLiteral("open 256x256x128 .nii.gz: volume loaded (read + stats)"), QStringLiteral("worker thread"),
                    QStringLiteral("ms"), summarize(load_ms)});
    rows.push_back({QStringLiteral("open 256x256x128 .nii.gz: first frame in all 4 views"), QStringLiteral("-"),
                    QStringLiteral("ms"), summarize(frame_ms)});
  }

  std::printf("\nmedsynth viewer benchmark — median of %d runs after %d warm-ups\n", k_runs, k_warmups);
  std::printf("machine : %s\n", qPrintable(cpu_model()));
  std::printf("GL      : %s\n", qPrintable(renderer));
  std::printf("Qt %s, VTK %s, platform %s\n\n", qVersion(), vtkVersion::GetVTKVersion(),
              qPrintable(QGuiApplication::platformName()));
  std::printf("| %-58s | %-13s | %10s | %10s | %10s |\n", "measurement", "mode", "median", "min", "max");
  std::printf("|%s|%s|%s|%s|%s|\n", QByteArray(60, '-').constData(), QByteArray(15, '-').constData(),
              QByteArray(12, '-').constData(), QByteArray(12, '-').constData(), QByteArray(12, '-').constData());
  for (const Row& r : rows)
    std::printf("| %-58s | %-13s | %6.1f %-3s | %6.1f %-3s | %6.1f %-3s |\n", qPrintable(r.what), qPrintable(r.mode),
                r.stat.median, qPrintable(r.unit), r.stat.min, qPrintable(r.unit), r.stat.max, qPrintable(r.unit));
  return 0;
}
