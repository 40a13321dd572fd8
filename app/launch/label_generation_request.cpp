#include "app/launch/label_generation_request.hpp"

#include <QDir>
#include <QFileInfo>

#include "core/volume_file_names.hpp"
#include "contract/run_directory.hpp"

namespace medsynth::app {

QStringList LabelGenerationRequest::validate() const {
  QStringList problems;
  if (run_dir.isEmpty())
    problems << QStringLiteral("run_dir: choose the MAISI run to generate with (an import-maisi run directory)");
  else if (!QFileInfo(QDir(run_dir).filePath(QLatin1String(k_job_file))).isFile())
    problems
        << QStringLiteral("run_dir: %1 is not a run directory (it has no %2)").arg(run_dir, QLatin1String(k_job_file));
  if (label_map.isEmpty())
    problems << QStringLiteral("label_map: save the label map first");
  else if (!QFileInfo(label_map).isFile())
    problems << QStringLiteral("label_map: %1 does not exist").arg(label_map);
  if (output_dir.isEmpty()) problems << QStringLiteral("output_dir: empty");
  if (!inpaint_image.isEmpty() && !QFileInfo(inpaint_image).isFile())
    problems << QStringLiteral("inpaint_image: %1 does not exist").arg(inpaint_image);
  if (nproc_per_node < 1) problems << QStringLiteral("nproc_per_node: must be >= 1 (got %1)").arg(nproc_per_node);
  return problems;
}

LaunchRequest label_generation_launch_request(const LabelGenerationRequest& r) {
  LaunchRequest l;
  l.generate_run_dir = r.run_dir;
  l.nproc_per_node = r.nproc_per_node;
  l.generate_arguments << QStringLiteral("--label") << r.label_map << QStringLiteral("--output-dir") << r.output_dir
                       << QStringLiteral("--num-images") << QStringLiteral("1");
  if (!r.inpaint_image.isEmpty()) {
    l.generate_arguments << QStringLiteral("--inpaint") << r.inpaint_image << QStringLiteral("--region") << r.label_map;
    QStringList classes;
    for (int c : r.region_classes) classes << QString::number(c);
    if (!classes.isEmpty()) l.generate_arguments << QStringLiteral("--region-classes") << classes.join(',');
  }
  return l;
}

QString run_dir_of(const QString& path) {
  if (path.isEmpty()) return {};
  QFileInfo info(path);
  QDir dir = info.isDir() ? QDir(info.absoluteFilePath()) : info.absoluteDir();
  for (;;) {
    if (QFileInfo(dir.filePath(QLatin1String(k_job_file))).isFile()) return dir.absolutePath();
    if (!dir.cdUp()) return {};
  }
}

QString label_generation_output_dir(const QString& run_dir, const QString& label_map, const QDateTime& now) {
  const QString stem = QString::fromStdString(volume_file_stem(QFileInfo(label_map).fileName().toStdString()));
  return QDir(run_dir).filePath(
      QStringLiteral("output/from-%1-%2").arg(stem, now.toString(QStringLiteral("yyyyMMdd-HHmmss-zzz"))));
}

}  // namespace medsynth::app
