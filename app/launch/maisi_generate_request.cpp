#include "app/launch/maisi_generate_request.hpp"
#include "app/launch/local_launcher.hpp"
#include "config/job_fields.hpp"
#include "config/maisi_models.hpp"

#include <cmath>

#include <QDir>
#include <QFileInfo>

namespace medsynth::app {

namespace {

QString number(double v) { return QString::number(v, 'g', 10); }

QString bracketed(const QStringList& items) { return QLatin1Char('[') + items.join(QLatin1Char(',')) + QLatin1Char(']'); }

// "name: must be in [1, 2048] voxels (got 0)" when `value` breaks the rule of
// job field `path` (the engine's own check of the same value).
void check_field(QStringList& problems, const char* path, const QString& name, double value) {
  const JobFieldRow* row = find_job_field_row(path);
  if (!row || (row->range.contains(value) && std::isfinite(value))) return;
  problems << QStringLiteral("%1: %2 (got %3)")
                  .arg(name, QString::fromStdString(row->range.requirement(row->unit)), number(value));
}

}  // namespace

QStringList maisi_models() {
  QStringList names;
  for (const auto& name : maisi_model_names()) names << QString::fromStdString(name);
  return names;
}

QStringList maisi_folder_problems(const QString& folder) {
  if (folder.trimmed().isEmpty()) return {QStringLiteral("folder: choose the NV-Generate-CTMR download")};
  const QDir dir(folder);
  if (!dir.exists()) return {QStringLiteral("folder: %1: no such folder").arg(folder)};
  QStringList problems;
  const QStringList configs =
      QDir(dir.filePath(QStringLiteral("configs"))).entryList({QStringLiteral("config_network_*.json")}, QDir::Files);
  if (configs.isEmpty())
    problems << QStringLiteral("folder: %1 has no configs/config_network_*.json (is it an NV-Generate-CTMR checkout?)")
                    .arg(folder);
  if (!QFileInfo(dir.filePath(QStringLiteral("models"))).isDir())
    problems << QStringLiteral("folder: %1 has no models/ folder (download the MAISI weights into it first)").arg(folder);
  return problems;
}

QStringList MaisiGenerateRequest::validate() const {
  QStringList problems = maisi_folder_problems(folder);
  if (!maisi_models().contains(model))
    problems << QStringLiteral("model: %1 is not one of %2").arg(model, maisi_models().join(QStringLiteral(", ")));
  if (!label_map.isEmpty() && !QFileInfo(label_map).isFile())
    problems << QStringLiteral("label_map: %1: no such file").arg(label_map);
  static const char* axes[3] = {"x", "y", "z"};
  for (int a = 0; a < 3; ++a) {
    const auto i = static_cast<std::size_t>(a);
    check_field(problems, "generate.output_size", QStringLiteral("output_size.%1").arg(axes[a]), output_size[i]);
    check_field(problems, "generate.spacing", QStringLiteral("spacing.%1").arg(axes[a]), spacing[i]);
  }
  check_field(problems, "generate.num_images", QStringLiteral("num_images"), num_images);
  if (modality >= 0) check_field(problems, "generate.modality", QStringLiteral("modality"), modality);
  if (guidance_scale >= 0)
    check_field(problems, "generate.guidance_scale", QStringLiteral("guidance_scale"), guidance_scale);
  if (!finetune_data.isEmpty()) {
    if (!QFileInfo::exists(finetune_data))
      problems << QStringLiteral("finetune_data: %1: no such folder or datalist").arg(finetune_data);
    check_field(problems, "training.max_steps", QStringLiteral("finetune_steps"), finetune_steps);
    if (finetune_steps < 1) problems << QStringLiteral("finetune_steps: must be >= 1 (got %1)").arg(finetune_steps);
  }
  if (nproc_per_node < 1) problems << QStringLiteral("nproc_per_node: must be >= 1 (got %1)").arg(nproc_per_node);
  if (run_dir.isEmpty())
    problems << QStringLiteral("run_dir: missing (where the imported run goes)");
  else if (QFileInfo::exists(run_dir))
    problems << QStringLiteral("run_dir: %1 exists already (import-maisi makes a new run directory)").arg(run_dir);
  return problems;
}

QString default_maisi_run_dir(const QString& runs_dir, const QString& model, const QDateTime& now) {
  return QDir(runs_dir).filePath(
      QStringLiteral("maisi-%1-%2").arg(model, now.toString(QStringLiteral("yyyyMMdd-HHmmss"))));
}

QStringList maisi_import_arguments(const MaisiGenerateRequest& r) {
  return {QStringLiteral("import-maisi"), r.folder, QStringLiteral("--out"), r.run_dir, QStringLiteral("--model"),
          r.model};
}

namespace {

// generate.* of a request, as key=value overrides (both steps take them).
QStringList generate_overrides(const MaisiGenerateRequest& r) {
  QStringList overrides;
  overrides << QStringLiteral("generate.output_size=") +
                   bracketed({QString::number(r.output_size[0]), QString::number(r.output_size[1]),
                              QString::number(r.output_size[2])})
            << QStringLiteral("generate.spacing=") +
                   bracketed({number(r.spacing[0]), number(r.spacing[1]), number(r.spacing[2])});
  if (r.modality >= 0) overrides << QStringLiteral("generate.modality=%1").arg(r.modality);
  if (r.guidance_scale >= 0) overrides << QStringLiteral("generate.guidance_scale=") + number(r.guidance_scale);
  return overrides;
}

}  // namespace

LaunchRequest maisi_generate_launch_request(const MaisiGenerateRequest& r) {
  LaunchRequest l;
  l.generate_run_dir = r.run_dir;
  l.nproc_per_node = r.nproc_per_node;
  l.overrides = generate_overrides(r);
  l.generate_arguments << QStringLiteral("--num-images") << QString::number(r.num_images);
  if (!r.label_map.isEmpty()) l.generate_arguments << QStringLiteral("--label") << r.label_map;
  return l;
}

LaunchRequest maisi_finetune_launch_request(const MaisiGenerateRequest& r) {
  LaunchRequest l;
  l.job_file = r.run_dir;
  l.data_path = r.finetune_data;
  l.runs_dir = QFileInfo(r.run_dir).absolutePath();
  l.nproc_per_node = r.nproc_per_node;
  l.overrides << QStringLiteral("training.max_steps=%1").arg(r.finetune_steps) << generate_overrides(r)
              << QStringLiteral("generate.num_images=%1").arg(r.num_images);
  return l;
}

QStringList maisi_generate_arguments(const MaisiGenerateRequest& r) {
  return local_engine_arguments(r.finetune_data.isEmpty() ? maisi_generate_launch_request(r)
                                                          : maisi_finetune_launch_request(r));
}

GeneratedFiles find_generated_files(const QString& run_dir) {
  return find_generated_files_in(QDir(run_dir).filePath(QStringLiteral("output")));
}

GeneratedFiles find_generated_files_in(const QString& folder) {
  const QDir output(folder);
  const QStringList files = output.entryList({QStringLiteral("*.nii.gz"), QStringLiteral("*.nii")}, QDir::Files,
                                             QDir::Name);
  GeneratedFiles found;
  for (const QString& name : files) {
    if (name.contains(QStringLiteral("_label.nii"))) continue;
    found.image = output.filePath(name);
    break;
  }
  if (found.image.isEmpty()) return found;
  for (const QString& ext : {QStringLiteral(".nii.gz"), QStringLiteral(".nii")}) {
    const QString suffix = QStringLiteral("_image") + ext;
    if (!found.image.endsWith(suffix)) continue;
    const QString label = found.image.left(found.image.size() - suffix.size()) + QStringLiteral("_label") + ext;
    if (QFileInfo::exists(label)) found.label = label;
  }
  return found;
}

}  // namespace medsynth::app
