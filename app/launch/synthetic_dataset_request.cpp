#include "app/launch/synthetic_dataset_request.hpp"

#include <QDir>
#include <QFileInfo>

#include "core/volume_file_names.hpp"
#include "eval/memorization_limits.hpp"
#include "contract/generated_file_names.hpp"
#include "contract/run_directory.hpp"

namespace medsynth::app {

namespace {

QString file_stem(const QString& path) {
  return QString::fromStdString(volume_file_stem(QFileInfo(path).fileName().toStdString()));
}

bool is_empty_or_missing(const QString& dir) {
  const QFileInfo info(dir);
  return !info.exists() || (info.isDir() && QDir(dir).isEmpty(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden));
}

// The volumes a folder may hold, as evaluate --train lists them: its volume
// files and its subfolders (a DICOM series each, perhaps). An upper bound: a
// folder it finds too few in is too small for certain.
std::size_t volumes_in_folder(const QString& folder) {
  const QDir dir(folder);
  std::size_t found = static_cast<std::size_t>(dir.entryList(QDir::Dirs | QDir::NoDotAndDotDot).size());
  for (const QString& name : dir.entryList(QDir::Files)) found += is_volume_file_name(name.toStdString()) ? 1 : 0;
  return found;
}

}  // namespace

QStringList dataset_label_files(const QString& labels) {
  const QFileInfo info(labels);
  if (info.isFile()) return is_volume_file_name(info.fileName().toStdString()) ? QStringList{labels} : QStringList{};
  if (!info.isDir()) return {};
  QStringList files;
  const QDir dir(labels);
  for (const QString& name : dir.entryList(QDir::Files, QDir::Name))
    if (is_volume_file_name(name.toStdString())) files << dir.filePath(name);
  return files;
}

QStringList SyntheticDatasetRequest::validate() const {
  QStringList problems;
  const auto problem = [&](const char* field, const QString& reason) {
    problems << QStringLiteral("%1: %2").arg(QLatin1String(field), reason);
  };
  if (run_dir.isEmpty())
    problem(dataset_field::run,
            QStringLiteral("choose the MAISI run to generate with (an import-maisi run directory)"));
  else if (!QFileInfo(QDir(run_dir).filePath(QLatin1String(k_job_file))).isFile())
    problem(dataset_field::run, QStringLiteral("%1 is not a run directory (it has no job.yaml)").arg(run_dir));
  if (labels.isEmpty())
    problem(dataset_field::labels, QStringLiteral("choose a folder of label maps (or one file)"));
  else if (!QFileInfo::exists(labels))
    problem(dataset_field::labels, QStringLiteral("%1 does not exist").arg(labels));
  else if (dataset_label_files(labels).isEmpty())
    problem(dataset_field::labels,
            QStringLiteral("%1 holds no volume files (%2)")
                .arg(labels, QString::fromUtf8(k_volume_file_extensions_text.data(),
                                               static_cast<qsizetype>(k_volume_file_extensions_text.size()))));
  if (source == DatasetLabelSource::segmentations && segmentation_format.trimmed().isEmpty())
    problem(dataset_field::segmentation_format, QStringLiteral("totalsegmentator, vista3d or a map JSON"));
  if (cases < 1 || cases > 10000)
    problem(dataset_field::cases, QStringLiteral("must be in [1, 10000] (got %1)").arg(cases));
  if (base_seed < 0) problem(dataset_field::base_seed, QStringLiteral("must be >= 0 (got %1)").arg(base_seed));
  if (quality_check) {
    if (quality_statistics.isEmpty())
      problem(dataset_field::quality_statistics,
              QStringLiteral("choose the organ statistics (image_median_statistics_ct.json)"));
    else if (!QFileInfo(quality_statistics).isFile())
      problem(dataset_field::quality_statistics, QStringLiteral("%1 does not exist").arg(quality_statistics));
    if (quality_tries < 1 || quality_tries > 100)
      problem(dataset_field::quality_tries, QStringLiteral("must be in [1, 100] (got %1)").arg(quality_tries));
  }
  if (audit) {
    if (audit_train.isEmpty())
      problem(dataset_field::audit_train, QStringLiteral("choose the training CT folder the audit compares with"));
    else if (!QFileInfo(audit_train).isDir())
      problem(dataset_field::audit_train, QStringLiteral("%1 is not a folder").arg(audit_train));
    else if (const auto found = volumes_in_folder(audit_train); found < k_memorization_min_training_cases)
      problem(dataset_field::audit_train,
              QStringLiteral("%1 holds %2 training volume(s); the memorization audit needs at least %3 (each is "
                             "compared with its nearest other training case)")
                  .arg(audit_train)
                  .arg(found)
                  .arg(k_memorization_min_training_cases));
  }
  if (output_dir.isEmpty())
    problem(dataset_field::output_dir, QStringLiteral("choose the dataset folder"));
  else if (!is_empty_or_missing(output_dir))
    problem(dataset_field::output_dir,
            QStringLiteral("%1 is not empty (a dataset goes into a new or empty folder)").arg(output_dir));
  return problems;
}

SyntheticDatasetPlan plan_synthetic_dataset(const SyntheticDatasetRequest& r) {
  SyntheticDatasetPlan plan;
  const QStringList sources = dataset_label_files(r.labels);
  if (sources.isEmpty()) return plan;
  const QDir out(r.output_dir);
  // The pairs get a folder of their own: evaluate and dataset-card read
  // every volume of the folder they are given (not the prepared labels, not DICOM).
  const QString pairs_dir = out.filePath(QStringLiteral("pairs"));
  const QDir pairs(pairs_dir);
  const int tries = r.quality_check ? r.quality_tries : 1;
  QStringList prepared;
  for (int i = 0; i < r.cases; ++i) {
    DatasetCase c;
    c.index = i;
    c.label_source = sources[i % sources.size()];
    c.label_map = c.label_source;
    if (r.source == DatasetLabelSource::segmentations) {
      c.label_map = out.filePath(QStringLiteral("labels/%1_maisi.nii.gz").arg(file_stem(c.label_source)));
      if (!prepared.contains(c.label_map)) {
        prepared << c.label_map;
        c.steps.push_back({QStringLiteral("prepare-label"),
                           {QStringLiteral("prepare-label"), c.label_source, QStringLiteral("--from"),
                            r.segmentation_format, QStringLiteral("--out"), c.label_map}});
      }
    }
    c.seed = r.base_seed + i * tries;
    c.image = pairs.filePath(QString::fromStdString(generated_image_name(c.seed, 0, 1, true)));
    c.label = QString::fromStdString(paired_label_path(c.image.toStdString()));
    QStringList generate{QStringLiteral("generate"),     r.run_dir,
                         QStringLiteral("--label"),      c.label_map,
                         QStringLiteral("--output-dir"), pairs_dir,
                         QStringLiteral("--num-images"), QStringLiteral("1"),
                         QStringLiteral("--base-seed"),  QString::number(c.seed)};
    if (r.quality_check) {
      c.quality_report = QString::fromStdString(quality_report_path(c.image.toStdString()));
      generate << QStringLiteral("--quality-check") << r.quality_statistics << QStringLiteral("--quality-tries")
               << QString::number(r.quality_tries);
    }
    c.steps.push_back({QStringLiteral("generate"), generate});
    if (r.export_format == DatasetExport::dicom) {
      c.dicom_dir = out.filePath(QStringLiteral("dicom/case-%1").arg(i + 1, 4, 10, QLatin1Char('0')));
      c.steps.push_back({QStringLiteral("export-dicom"),
                         {QStringLiteral("export-dicom"), c.image, c.dicom_dir, QStringLiteral("--label"), c.label}});
    }
    plan.cases.push_back(std::move(c));
  }
  if (r.audit)
    plan.finish.push_back({QStringLiteral("evaluate"),
                           {QStringLiteral("evaluate"), pairs_dir, QStringLiteral("--reference"), r.audit_train,
                            QStringLiteral("--train"), r.audit_train, QStringLiteral("--out"),
                            pairs.filePath(QStringLiteral("evaluation"))}});
  plan.finish.push_back({QStringLiteral("dataset-card"), {QStringLiteral("dataset-card"), pairs_dir}});
  plan.pairs_dir = pairs_dir;
  plan.card = pairs.filePath(QStringLiteral("dataset-card.md"));
  return plan;
}

}  // namespace medsynth::app
