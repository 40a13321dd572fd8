#include "ui/viewer/label_map.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include "core/volume_file_names.hpp"
#include "volume/label_palette.hpp"

namespace medsynth::ui {

namespace {

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
  switch (grid_difference(image, label)) {
    case GridDifference::none:
      return {};
    case GridDifference::size:
      return both + QStringLiteral("size %1 x %2 x %3 voxels vs %4 x %5 x %6")
                        .arg(label.size[0])
                        .arg(label.size[1])
                        .arg(label.size[2])
                        .arg(image.size[0])
                        .arg(image.size[1])
                        .arg(image.size[2]);
    case GridDifference::spacing:
      return both + QStringLiteral("spacing %1 mm vs %2 mm").arg(triple(label.spacing), triple(image.spacing));
    case GridDifference::origin:
      return both + QStringLiteral("origin %1 mm vs %2 mm").arg(triple(label.origin), triple(image.origin));
    case GridDifference::direction:
      return both + QStringLiteral("the axes' directions differ");
  }
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
