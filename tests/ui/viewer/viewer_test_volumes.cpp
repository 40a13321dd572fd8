#include "viewer_test_volumes.hpp"

#include <cmath>
#include <random>

#include <QDir>
#include <QFile>
#include <QFileInfo>

#include "volume/volume_io.hpp"

namespace medsynth::viewer_test {

using ui::VolumeGeometry;

float ramp_value(std::int64_t i, std::int64_t j, std::int64_t k) {
  return static_cast<float>(i + 100 * j + 10000 * k);
}

Volume ramp_volume() {
  Volume v = make_volume({24, 20, 16}, {0.8, 1.2, 2.5});
  const double a = 30.0 * M_PI / 180.0;
  v.direction = {std::cos(a), -std::sin(a), 0.0, std::sin(a), std::cos(a), 0.0, 0.0, 0.0, 1.0};
  v.origin = {-10.0, 5.0, 20.0};
  for (std::size_t k = 0; k < v.size[2]; ++k)
    for (std::size_t j = 0; j < v.size[1]; ++j)
      for (std::size_t i = 0; i < v.size[0]; ++i)
        v.at(i, j, k) = ramp_value(static_cast<std::int64_t>(i), static_cast<std::int64_t>(j),
                                   static_cast<std::int64_t>(k));
  return v;
}

Volume ct_phantom() {
  Volume v = make_volume({48, 48, 32}, {1.0, 1.0, 2.0});
  v.origin = {-23.5, -23.5, -31.0};
  const auto inside = [](double x, double y, double z, double cx, double cy, double cz, double rx, double ry,
                         double rz) {
    const double dx = (x - cx) / rx, dy = (y - cy) / ry, dz = (z - cz) / rz;
    return dx * dx + dy * dy + dz * dz <= 1.0;
  };
  for (std::size_t k = 0; k < v.size[2]; ++k)
    for (std::size_t j = 0; j < v.size[1]; ++j)
      for (std::size_t i = 0; i < v.size[0]; ++i) {
        const double x = v.origin[0] + i * v.spacing[0], y = v.origin[1] + j * v.spacing[1],
                     z = v.origin[2] + k * v.spacing[2];
        float hu = -1000.0f;
        if (inside(x, y, z, 0, 0, 0, 21, 16, 30)) hu = 40.0f;
        if (inside(x, y, z, -9, -1, 2, 7, 10, 20) || inside(x, y, z, 9, -1, 2, 7, 10, 20)) hu = -800.0f;
        if (std::hypot(x, y - 9.0) <= 3.5 && std::abs(z) <= 26) hu = 700.0f;
        v.at(i, j, k) = hu;
      }
  return v;
}

Box marker_box() { return {{6.0, -14.0, 4.0}, {14.0, -6.0, 12.0}}; }

Vec3 marker_center() {
  const Box b = marker_box();
  return {(b.min[0] + b.max[0]) / 2, (b.min[1] + b.max[1]) / 2, (b.min[2] + b.max[2]) / 2};
}

Volume marker_volume() {
  Volume v = make_volume({40, 40, 30}, {1.0, 1.0, 1.5});
  v.direction = {-1, 0, 0, 0, -1, 0, 0, 0, 1};
  v.origin = {19.5, 19.5, -21.75};
  const Box box = marker_box();
  const VolumeGeometry geometry(v);
  for (std::size_t k = 0; k < v.size[2]; ++k)
    for (std::size_t j = 0; j < v.size[1]; ++j)
      for (std::size_t i = 0; i < v.size[0]; ++i) {
        const Vec3 w = geometry.voxel_center(
            {static_cast<std::int64_t>(i), static_cast<std::int64_t>(j), static_cast<std::int64_t>(k)});
        bool in = true;
        for (int a = 0; a < 3; ++a) in = in && w[a] >= box.min[a] && w[a] <= box.max[a];
        v.at(i, j, k) = in ? 1000.0f : 0.0f;
      }
  return v;
}

QString write_nifti(const Volume& volume, const QString& path) {
  write_volume(volume, path.toStdString());
  return path;
}

QString write_truncated_copy(const QString& valid_path, const QString& out_path) {
  QFile in(valid_path);
  if (!in.open(QIODevice::ReadOnly)) return {};
  const QByteArray bytes = in.readAll();
  QFile out(out_path);
  if (!out.open(QIODevice::WriteOnly)) return {};
  out.write(bytes.left(bytes.size() / 2));
  return out_path;
}

QString write_garbage(const QString& path) {
  std::mt19937 random(7);
  QByteArray bytes(4096, '\0');
  for (auto& b : bytes) b = static_cast<char>(random() & 0xff);
  QFile out(path);
  if (!out.open(QIODevice::WriteOnly)) return {};
  out.write(bytes);
  return path;
}

GenerationProvenance sample_provenance() {
  GenerationProvenance p;
  p.engine_version = "0.9.0";
  p.unet_checkpoint = "/runs/ldm/checkpoints/unet-last.safetensors";
  p.unet_checkpoint_hash = "0123456789abcdef";
  p.autoencoder_checkpoint = "/runs/ae/checkpoints/last.safetensors";
  p.autoencoder_checkpoint_hash = "fedcba9876543210";
  p.scheduler = "rectified_flow";
  p.num_inference_steps = 30;
  p.seed = 1234;
  return p;
}

QString engine_program() {
  QString engine = qEnvironmentVariable("MEDSYNTH_ENGINE");
#ifdef MEDSYNTH_ENGINE_DEFAULT
  if (engine.isEmpty()) engine = QStringLiteral(MEDSYNTH_ENGINE_DEFAULT);
#endif
  return QFileInfo(engine).isExecutable() ? engine : QString();
}

QString test_output_dir() {
  QString dir = qEnvironmentVariable("MEDSYNTH_VIEWER_TEST_OUTPUT");
#ifdef MEDSYNTH_VIEWER_TEST_OUTPUT_DEFAULT
  if (dir.isEmpty()) dir = QStringLiteral(MEDSYNTH_VIEWER_TEST_OUTPUT_DEFAULT);
#endif
  if (dir.isEmpty()) dir = QDir::tempPath() + QStringLiteral("/medsynth-viewer-test-output");
  QDir().mkpath(dir);
  return dir;
}

namespace {
double grey(QRgb p) { return (qRed(p) + qGreen(p) + qBlue(p)) / 3.0; }
}  // namespace

double image_stddev(const QImage& image) {
  if (image.isNull()) return 0.0;
  double sum = 0.0, sum2 = 0.0;
  const double n = static_cast<double>(image.width()) * image.height();
  for (int y = 0; y < image.height(); ++y)
    for (int x = 0; x < image.width(); ++x) {
      const double g = grey(image.pixel(x, y));
      sum += g;
      sum2 += g * g;
    }
  const double mean = sum / n;
  return std::sqrt(std::max(0.0, sum2 / n - mean * mean));
}

double mean_abs_difference(const QImage& a, const QImage& b) {
  if (a.size() != b.size() || a.isNull()) return -1.0;
  double sum = 0.0;
  for (int y = 0; y < a.height(); ++y)
    for (int x = 0; x < a.width(); ++x) sum += std::abs(grey(a.pixel(x, y)) - grey(b.pixel(x, y)));
  return sum / (static_cast<double>(a.width()) * a.height());
}

QPointF bright_centroid(const QImage& image, int threshold, int* count) {
  double sx = 0.0, sy = 0.0;
  int n = 0;
  for (int y = 0; y < image.height(); ++y)
    for (int x = 0; x < image.width(); ++x)
      if (grey(image.pixel(x, y)) > threshold) {
        sx += x;
        sy += y;
        ++n;
      }
  if (count != nullptr) *count = n;
  return n > 0 ? QPointF(sx / n, sy / n) : QPointF(-1, -1);
}

}  // namespace medsynth::viewer_test
