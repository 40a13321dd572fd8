#include "app/runs/validation_image_set.hpp"

#include <QFileInfo>
#include <QRegularExpression>

namespace medsynth::app {

QString validation_image_plane(const QString& path) {
  static const QRegularExpression name(QStringLiteral(R"(^step\d+-([a-z]+)\.png$)"));
  const QRegularExpressionMatch m = name.match(QFileInfo(path).fileName());
  return m.hasMatch() ? m.captured(1) : QString();
}

ValidationImageSet latest_validation_images(const QVector<Artifact>& artifacts) {
  ValidationImageSet set;
  for (const Artifact& a : artifacts) {
    if (a.kind != QLatin1String(k_validation_image_kind)) continue;
    const QString plane = validation_image_plane(a.path);
    if (plane.isEmpty() || a.step < set.step) continue;
    if (a.step > set.step) {
      set.step = a.step;
      set.paths.clear();
    }
    set.paths.insert(plane, a.path);
  }
  return set;
}

}  // namespace medsynth::app
