// The viewer's DICOM export as data (app/export/dicom_export_plan.hpp), no
// display: defaults that say synthetic, the modality guess (provenance job,
// then the values), field checks naming the field, the output-folder rule,
// the summary, and the engine's own refusal reaching the message.
#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include "app/export/dicom_export_plan.hpp"
#include "viewer_test_volumes.hpp"

using namespace medsynth;
using namespace medsynth::app;
namespace vt = medsynth::viewer_test;

namespace {

// The support's sample, with the job read from `job_file` when given.
GenerationProvenance sample_provenance(const QString& job_file = {}) {
  GenerationProvenance p = vt::sample_provenance();
  if (!job_file.isEmpty()) {
    QFile file(job_file);
    if (file.open(QIODevice::ReadOnly)) p.job_yaml = file.readAll().toStdString();
  }
  return p;
}

}  // namespace

class DicomExportPlanTest : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir dir_;
  Volume ct_ = vt::ct_phantom();

 private slots:
  void defaults_say_synthetic_and_sit_beside_the_file() {
    const auto source = make_dicom_export_source(dir_.filePath("gen/image_seed7.nii.gz"), ct_, std::nullopt, true);
    const DicomExportFields f = default_dicom_export_fields(source);
    QCOMPARE(f.out_dir, dir_.filePath("gen/image_seed7-dicom"));
    QCOMPARE(f.modality, DicomModality::ct);
    QCOMPARE(f.patient_name, QStringLiteral("SYNTHETIC^MEDSYNTH"));
    QCOMPARE(f.patient_id, QStringLiteral("MEDSYNTH-SYNTHETIC"));
    QVERIFY(f.series_description.contains("synthetic"));
  }

  void modality_from_provenance_job_then_values() {
    auto source = make_dicom_export_source("a.nii.gz", ct_, std::nullopt, false);
    QCOMPARE(suggested_dicom_modality(source), DicomModality::mr);  // values not HU-like
    source.values_look_like_hu = true;
    QCOMPARE(suggested_dicom_modality(source), DicomModality::ct);
    // The job that made it says MRI: that wins over HU-looking values.
    source.provenance = sample_provenance(QStringLiteral(MEDSYNTH_SOURCE_DIR "/resources/jobs/fast-ddpm.yaml"));
    QVERIFY(!source.provenance->job_yaml.empty());
    QCOMPARE(suggested_dicom_modality(source), DicomModality::mr);
    source.provenance = sample_provenance(QStringLiteral(MEDSYNTH_SOURCE_DIR "/resources/jobs/ldm-tiny.yaml"));
    source.values_look_like_hu = false;
    QCOMPARE(suggested_dicom_modality(source), DicomModality::ct);
    // An unreadable job falls back to the values.
    source.provenance->job_yaml = "model: [unclosed";
    QCOMPARE(suggested_dicom_modality(source), DicomModality::mr);
  }

  void bad_fields_are_refused_naming_the_field() {
    const auto source = make_dicom_export_source(dir_.filePath("a.nii.gz"), ct_, std::nullopt, true);
    DicomExportFields f = default_dicom_export_fields(source);
    f.patient_name = "SMITH\\JOHN";
    QVERIFY(build_dicom_export_request(source, f).error.startsWith("patient_name:"));
    f = default_dicom_export_fields(source);
    f.patient_id = "  ";
    QVERIFY(build_dicom_export_request(source, f).error.startsWith("patient_id: must not be empty"));
    f = default_dicom_export_fields(source);
    f.series_description = QString::fromUtf8("Lunge \xc3\xa4");
    QVERIFY(build_dicom_export_request(source, f).error.startsWith("series_description: only printable ASCII"));
    f = default_dicom_export_fields(source);
    f.out_dir.clear();
    QVERIFY(build_dicom_export_request(source, f).error.startsWith("output folder:"));
  }

  void output_folder_must_be_new_or_empty() {
    const auto source = make_dicom_export_source(dir_.filePath("a.nii.gz"), ct_, std::nullopt, true);
    DicomExportFields f = default_dicom_export_fields(source);
    f.out_dir = dir_.filePath("new/series");
    DicomExportRequest r = build_dicom_export_request(source, f);
    QVERIFY2(r.ok(), qPrintable(r.error));
    QCOMPARE(QString::fromStdString(r.out_dir), dir_.filePath("new/series"));

    QVERIFY(QDir().mkpath(dir_.filePath("empty")));
    f.out_dir = dir_.filePath("empty");
    QVERIFY(build_dicom_export_request(source, f).ok());

    QVERIFY(QDir().mkpath(dir_.filePath("full")));
    QFile keep(dir_.filePath("full/.hidden"));
    QVERIFY(keep.open(QIODevice::WriteOnly));
    keep.close();
    f.out_dir = dir_.filePath("full");
    r = build_dicom_export_request(source, f);
    QCOMPARE(r.error, dir_.filePath("full") +
                          ": folder is not empty; DICOM export writes only into a new or empty folder");
    f.out_dir = dir_.filePath("full/.hidden");
    QVERIFY(build_dicom_export_request(source, f).error.contains("exists and is not a folder"));
  }

  void engine_refusal_reaches_the_message() {
    // The folder fills up between the check and the export: the engine's
    // UsageError is the message, and nothing is written.
    const auto source = make_dicom_export_source(dir_.filePath("a.nii.gz"), ct_, std::nullopt, true);
    DicomExportFields f = default_dicom_export_fields(source);
    f.out_dir = dir_.filePath("race");
    const DicomExportRequest r = build_dicom_export_request(source, f);
    QVERIFY(r.ok());
    QVERIFY(QDir().mkpath(dir_.filePath("race/other")));
    const DicomExportOutcome outcome = run_dicom_export(ct_, r);
    QVERIFY(!outcome.ok());
    QCOMPARE(outcome.error, dir_.filePath("race") +
                                ": folder is not empty; DICOM export writes only into a new or empty folder");
    QVERIFY(outcome.message().startsWith("DICOM export failed: "));
    QCOMPARE(QDir(dir_.filePath("race")).entryList(QDir::AllEntries | QDir::NoDotAndDotDot),
             QStringList{"other"});
  }

  void summary_says_what_will_be_written() {
    auto source = make_dicom_export_source(dir_.filePath("a.nii.gz"), ct_, std::nullopt, true);
    DicomExportFields f = default_dicom_export_fields(source);
    QString text = dicom_export_summary(source, f);
    QVERIFY2(text.contains("32 files"), qPrintable(text));
    QVERIFY(text.contains("48 × 48 voxels"));
    QVERIFY(text.contains("Spacing 1 × 1 × 2 mm"));
    QVERIFY(text.contains("CT Image Storage"));
    QVERIFY(text.contains("Provenance: none recorded"));
    QVERIFY(text.contains("marked synthetic"));
    source.provenance = sample_provenance();
    f.modality = DicomModality::mr;
    text = dicom_export_summary(source, f);
    QVERIFY(text.contains("MR Image Storage"));
    QVERIFY2(text.contains("seed 1234"), qPrintable(text));
    QVERIFY(text.contains("unet-last.safetensors (sha256 0123456789abcdef)"));
    QVERIFY(text.contains("sha256 fedcba9876543210"));
    // The request carries the engine's provenance line for ImageComments.
    const DicomExportRequest r = build_dicom_export_request(source, f);
    QVERIFY(r.options.provenance.starts_with("seed 1234, unet checkpoint sha256 0123456789abcdef"));
  }
};

QTEST_GUILESS_MAIN(DicomExportPlanTest)
#include "viewer_dicom_export_plan_test.moc"
