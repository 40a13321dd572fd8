#include "ui/viewer/label_map.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include "core/volume_file_names.hpp"
#include "volume/label_palette.hpp"

namespace medsynth::ui {

namespace {

bool close(double a, double b, double tolerance) { return std::abs(a - b) <= tolerance; }

QString triple(const std::array<double, 3>& v) {
  return QStringLiteral("%1 x %2 x %3").arg(v[0], 0, 'g', 6).arg(v[1], 0, 'g', 6).arg(v[2], 0, 'g', 6);
}

}  // namespace

std::uint8_t label_slot(float value) { return label_palette_slot(value); }

Rgb label_color(int slot) {
  const LabelColour c = label_palette_colour(slot);
  return {c[0], c[1], c[2]};
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

QString edited_label_path(const QString& label_path, const QString& image_path) {
  static const QString edited = QStringLiteral("-edited.nii.gz");
  static const QString painted = QStringLiteral("-painted_label.nii.gz");
  if (label_path.isEmpty()) {
    if (image_path.isEmpty()) return {};
    return QString::fromStdString(volume_file_stem(image_path.toStdString())) + painted;
  }
  if (label_path.endsWith(edited) || label_path.endsWith(painted)) return label_path;  // the editor's own file
  return QString::fromStdString(volume_file_stem(label_path.toStdString())) + edited;
}

}  // namespace medsynth::ui
