#include "ui/viewer/label_map.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include "core/volume_file_names.hpp"

namespace medsynth::ui {

namespace {

// Slots 1..12: saturated colours that stay distinct from each other and from
// grey levels; the order puts the most common organ labels of a small label
// map on clearly different hues.
constexpr std::array<Rgb, 12> k_label_palette{{
    {0.90, 0.10, 0.10},  // 1 red
    {0.10, 0.75, 0.20},  // 2 green
    {0.15, 0.40, 1.00},  // 3 blue
    {1.00, 0.85, 0.10},  // 4 yellow
    {0.85, 0.20, 0.85},  // 5 magenta
    {0.10, 0.85, 0.85},  // 6 cyan
    {1.00, 0.55, 0.10},  // 7 orange
    {0.55, 0.30, 0.95},  // 8 violet
    {0.60, 0.90, 0.25},  // 9 lime
    {0.95, 0.45, 0.60},  // 10 pink
    {0.55, 0.35, 0.15},  // 11 brown
    {0.20, 0.55, 0.55},  // 12 teal
}};

Rgb hsl_to_rgb(double h, double s, double l) {
  const auto channel = [&](double n) {
    const double k = std::fmod(n + h * 12.0, 12.0);
    const double a = s * std::min(l, 1.0 - l);
    return l - a * std::max(-1.0, std::min({k - 3.0, 9.0 - k, 1.0}));
  };
  return {channel(0.0), channel(8.0), channel(4.0)};
}

bool close(double a, double b, double tolerance) { return std::abs(a - b) <= tolerance; }

QString triple(const std::array<double, 3>& v) {
  return QStringLiteral("%1 x %2 x %3").arg(v[0], 0, 'g', 6).arg(v[1], 0, 'g', 6).arg(v[2], 0, 'g', 6);
}

}  // namespace

std::uint8_t label_slot(float value) {
  if (!std::isfinite(value)) return 0;
  const double rounded = std::nearbyint(static_cast<double>(value));
  if (rounded <= 0.0) return 0;
  const auto v = static_cast<std::uint64_t>(std::min(rounded, 1e18));
  return static_cast<std::uint8_t>(1 + (v - 1) % (k_label_slots - 1));
}

Rgb label_color(int slot) {
  if (slot <= 0 || slot >= k_label_slots) return {0.0, 0.0, 0.0};
  if (slot <= static_cast<int>(k_label_palette.size())) return k_label_palette[static_cast<std::size_t>(slot - 1)];
  constexpr double golden = 0.618033988749895;
  const double hue = std::fmod(0.03 + slot * golden, 1.0);
  return hsl_to_rgb(hue, 0.85, slot % 2 == 0 ? 0.50 : 0.62);
}

QString label_grid_mismatch(const Volume& image, const Volume& label, const QString& image_name,
                            const QString& label_name) {
  const QString both = QStringLiteral("label map %1 does not fit image %2: ").arg(label_name, image_name);
  if (image.size != label.size)
    return both + QStringLiteral("size %1 x %2 x %3 voxels vs %4 x %5 x %6")
                      .arg(label.size[0]).arg(label.size[1]).arg(label.size[2])
                      .arg(image.size[0]).arg(image.size[1]).arg(image.size[2]);
  for (int a = 0; a < 3; ++a) {
    const auto i = static_cast<std::size_t>(a);
    if (!close(image.spacing[i], label.spacing[i], 1e-4 * std::max(1.0, std::abs(image.spacing[i]))))
      return both + QStringLiteral("spacing %1 mm vs %2 mm").arg(triple(label.spacing), triple(image.spacing));
  }
  // Half a percent of a voxel: far below anything visible, far above NIfTI's float rounding.
  for (int a = 0; a < 3; ++a) {
    const auto i = static_cast<std::size_t>(a);
    if (!close(image.origin[i], label.origin[i], 5e-3 * image.spacing[i]))
      return both + QStringLiteral("origin %1 mm vs %2 mm").arg(triple(label.origin), triple(image.origin));
  }
  for (std::size_t i = 0; i < 9; ++i)
    if (!close(image.direction[i], label.direction[i], 1e-4))
      return both + QStringLiteral("the axes' directions differ");
  return {};
}

QString sibling_label_path(const QString& image_path) {
  const auto label = paired_label_name(image_path.toStdString());
  return label ? QString::fromStdString(*label) : QString();
}

}  // namespace medsynth::ui
