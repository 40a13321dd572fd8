#include "app/export/dicom_export_plan.hpp"

#include <exception>

#include <QDir>
#include <QFileInfo>
#include <QStringList>

#include "config/job_loader.hpp"
#include "core/error.hpp"
#include "contract/volume_provenance.hpp"

namespace medsynth::app {
namespace {

QString modality_name(DicomModality modality) {
  return modality == DicomModality::mr ? QStringLiteral("MR") : QStringLiteral("CT");
}

// The file name without its volume extension (".nii.gz" counts as one).
QString volume_stem(const QString& path) {
  QString name = QFileInfo(path).fileName();
  for (const QString& ext : {QStringLiteral(".nii.gz"), QStringLiteral(".nii"), QStringLiteral(".nrrd"),
                             QStringLiteral(".nhdr"), QStringLiteral(".mha"), QStringLiteral(".mhd")})
    if (name.endsWith(ext, Qt::CaseInsensitive)) return name.left(name.size() - ext.size());
  return name;
}

}  // namespace

DicomExportSource make_dicom_export_source(const QString& path, const Volume& volume,
                                           std::optional<GenerationProvenance> provenance, bool values_look_like_hu) {
  return {path, volume.size, volume.spacing, std::move(provenance), values_look_like_hu};
}

DicomModality suggested_dicom_modality(const DicomExportSource& source) {
  if (source.provenance && !source.provenance->job_yaml.empty()) {
    try {
      const JobSpec job = load_job_text(source.provenance->job_yaml, "provenance job");
      return job.data.modality == Modality::mri ? DicomModality::mr : DicomModality::ct;
    } catch (const std::exception&) {
      // A job this console cannot read (another version): fall back to the values.
    }
  }
  return source.values_look_like_hu ? DicomModality::ct : DicomModality::mr;
}

DicomExportFields default_dicom_export_fields(const DicomExportSource& source) {
  const DicomExportOptions engine_defaults;
  DicomExportFields fields;
  const QFileInfo file(source.path);
  if (!source.path.isEmpty())
    fields.out_dir = QDir(file.absolutePath()).filePath(volume_stem(source.path) + QStringLiteral("-dicom"));
  fields.modality = suggested_dicom_modality(source);
  fields.patient_name = QString::fromStdString(engine_defaults.patient_name);
  fields.patient_id = QString::fromStdString(engine_defaults.patient_id);
  fields.series_description = QString::fromStdString(engine_defaults.series_description);
  return fields;
}

DicomExportRequest build_dicom_export_request(const DicomExportSource& source, const DicomExportFields& fields) {
  DicomExportRequest request;
  request.options.modality = fields.modality;
  request.options.patient_name = fields.patient_name.trimmed().toStdString();
  request.options.patient_id = fields.patient_id.trimmed().toStdString();
  request.options.series_description = fields.series_description.trimmed().toStdString();
  request.options.source = source.path.toStdString();
  if (source.provenance) request.options.provenance = provenance_summary(*source.provenance);
  try {
    check_dicom_export_options(request.options);
  } catch (const std::exception& e) {
    request.error = QString::fromStdString(e.what());
    return request;
  }
  const QString out_dir = fields.out_dir.trimmed();
  if (out_dir.isEmpty()) {
    request.error = QStringLiteral("output folder: choose a new or empty folder for the series");
    return request;
  }
  // The engine's rule (write_dicom_series refuses the same), said before any work starts.
  const QFileInfo info(out_dir);
  if (info.exists() && !info.isDir()) {
    request.error = QStringLiteral("%1: exists and is not a folder; DICOM export needs a new or empty folder").arg(out_dir);
    return request;
  }
  if (info.isDir() && !QDir(out_dir).isEmpty(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden | QDir::System)) {
    request.error = QStringLiteral("%1: folder is not empty; DICOM export writes only into a new or empty folder")
                        .arg(out_dir);
    return request;
  }
  request.out_dir = out_dir.toStdString();
  return request;
}

QString dicom_export_summary(const DicomExportSource& source, const DicomExportFields& fields) {
  QStringList lines;
  const auto& n = source.size;
  const auto& s = source.spacing;
  lines << QStringLiteral("%1 files (slice_0001.dcm …), one per axial slice of %2 × %3 voxels")
               .arg(n[2])
               .arg(n[0])
               .arg(n[1]);
  lines << QStringLiteral("Spacing %1 × %2 × %3 mm")
               .arg(s[0], 0, 'g', 6)
               .arg(s[1], 0, 'g', 6)
               .arg(s[2], 0, 'g', 6);
  lines << QStringLiteral("%1 Image Storage, int16 pixels with rescale%2")
               .arg(modality_name(fields.modality),
                    fields.modality == DicomModality::ct ? QStringLiteral(" (HU)") : QString());
  if (source.provenance) {
    const GenerationProvenance& p = *source.provenance;
    lines << QStringLiteral("Provenance: seed %1, %2 %3 steps, medsynth %4")
                 .arg(p.seed)
                 .arg(QString::fromStdString(p.scheduler))
                 .arg(p.num_inference_steps)
                 .arg(QString::fromStdString(p.engine_version));
    const QString algorithm = QString::fromStdString(p.hash_algorithm);
    lines << QStringLiteral("  UNet checkpoint %1 (%2 %3)")
                 .arg(QFileInfo(QString::fromStdString(p.unet_checkpoint)).fileName(), algorithm,
                      QString::fromStdString(p.unet_checkpoint_hash));
    lines << QStringLiteral("  autoencoder checkpoint %1 (%2 %3)")
                 .arg(QFileInfo(QString::fromStdString(p.autoencoder_checkpoint)).fileName(), algorithm,
                      QString::fromStdString(p.autoencoder_checkpoint_hash));
    if (!p.controlnet_checkpoint_hash.empty())
      lines << QStringLiteral("  ControlNet %1 %2, label map %1 %3")
                   .arg(algorithm, QString::fromStdString(p.controlnet_checkpoint_hash),
                        QString::fromStdString(p.label_hash));
  } else {
    lines << QStringLiteral("Provenance: none recorded in the file");
  }
  lines << QStringLiteral("Every file is marked synthetic: ImageType DERIVED\\SECONDARY, ImageComments and "
                          "DerivationDescription \"SYNTHETIC IMAGE generated by medsynth …\", BurnedInAnnotation NO");
  return lines.join(QLatin1Char('\n'));
}

QString DicomExportOutcome::message() const {
  if (!ok()) return QStringLiteral("DICOM export failed: %1").arg(error);
  return QStringLiteral("DICOM series written to %1 (%2 files, marked synthetic)").arg(out_dir).arg(file_count);
}

DicomExportOutcome run_dicom_export(const Volume& volume, const DicomExportRequest& request) {
  DicomExportOutcome outcome;
  outcome.out_dir = QString::fromStdString(request.out_dir);
  if (!request.ok()) {
    outcome.error = request.error;
    return outcome;
  }
  try {
    write_dicom_series(volume, request.options, request.out_dir);
  } catch (const std::exception& e) {
    outcome.error = QString::fromStdString(e.what());
    return outcome;
  } catch (...) {
    outcome.error = QStringLiteral("%1: unknown error while writing the DICOM series").arg(outcome.out_dir);
    return outcome;
  }
  outcome.file_count = static_cast<int>(
      QDir(outcome.out_dir).entryList({QStringLiteral("*.dcm")}, QDir::Files).size());
  return outcome;
}

}  // namespace medsynth::app
