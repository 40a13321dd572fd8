// "Export DICOM…" in the volume viewer under Xvfb: a CT phantom (with a
// medsynth provenance extension) opened in the viewer, the dialog opened from
// the toolbar and filled in, the export run off the GUI thread; the series is
// read back with the engine's read_volume (voxels within the rescale rounding,
// geometry), every file goes through dcmdump (skipped, saying why, without
// it) and carries the synthetic mark; a non-empty folder is refused with a
// message and nothing is written. The dialog's picture goes to
// test-output/ui/viewer-export-dicom-dialog.png.
#include <cmath>

#include <QComboBox>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QLineEdit>
#include <QProcess>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QToolButton>
#include <QtTest>

#include "contract/generation_provenance.hpp"
#include "ui/viewer/dicom_export_dialog.hpp"
#include "ui/viewer/viewer_toolbar.hpp"
#include "ui/viewer/volume_viewer_widget.hpp"
#include "viewer_test_volumes.hpp"
#include "volume/nifti_extension.hpp"
#include "volume/volume_io.hpp"

using namespace medsynth;
using namespace medsynth::ui;
namespace vt = medsynth::viewer_test;

namespace {

constexpr int k_timeout_ms = 60000;  // llvmpipe and the writer share 2 cores

}  // namespace

class ViewerDicomExportTest : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir dir_;
  QString ct_path_, series_dir_;
  Volume ct_ = vt::ct_phantom();
  std::unique_ptr<VolumeViewerWidget> viewer_;

  DicomExportDialog* open_dialog() {
    QToolButton* button = viewer_->toolbar()->export_dicom_button();
    if (button == nullptr || !button->isEnabled()) return nullptr;
    button->click();
    return viewer_->export_dialog();
  }

 private slots:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    ct_path_ = vt::write_nifti(ct_, dir_.filePath("ct_phantom.nii.gz"));
    const GenerationProvenance p = vt::sample_provenance();
    add_nifti_comment_extension(ct_path_.toStdString(), provenance_json(p));

    viewer_ = std::make_unique<VolumeViewerWidget>();
    viewer_->resize(1000, 800);
    viewer_->show();
    QVERIFY(QTest::qWaitForWindowExposed(viewer_.get()));
    QVERIFY(!viewer_->toolbar()->export_dicom_button()->isEnabled());  // nothing to export yet
    QVERIFY(viewer_->open_export_dialog() == nullptr);
    QSignalSpy loaded(viewer_.get(), &VolumeViewerWidget::volume_loaded);
    viewer_->open_volume(ct_path_);
    QVERIFY(QTest::qWaitFor([&] { return loaded.count() > 0 || !viewer_->error_text().isEmpty(); }, k_timeout_ms));
    QVERIFY2(viewer_->has_volume(), qPrintable(viewer_->error_text()));
    QVERIFY(viewer_->toolbar()->export_dicom_button()->isEnabled());
  }

  void export_writes_a_series_that_reads_back() {
    DicomExportDialog* dialog = open_dialog();
    QVERIFY(dialog != nullptr);
    QVERIFY(dialog->isVisible());
    // Preselected from the volume: CT (HU values), the synthetic patient.
    QCOMPARE(dialog->fields().modality, DicomModality::ct);
    QCOMPARE(dialog->patient_name_edit()->text(), QStringLiteral("SYNTHETIC^MEDSYNTH"));
    QCOMPARE(dialog->out_dir_edit()->text(), dir_.filePath("ct_phantom-dicom"));
    const QString summary = dialog->summary_text();
    QVERIFY2(summary.contains("32 files"), qPrintable(summary));
    QVERIFY(summary.contains("seed 1234"));
    QVERIFY(summary.contains("sha256 0123456789abcdef"));
    QVERIFY(summary.contains("marked synthetic"));

    series_dir_ = dir_.filePath("export/ct-series");
    dialog->out_dir_edit()->setText(series_dir_);
    dialog->patient_id_edit()->setText(QStringLiteral("MEDSYNTH-SYNTHETIC-0042"));
    dialog->series_description_edit()->setText(QStringLiteral("viewer export test (synthetic)"));
    QVERIFY(dialog->summary_text().contains("CT Image Storage"));

    // The picture for people: the filled-in dialog before Export.
    QTest::qWait(0);
    const QString out = QStringLiteral(MEDSYNTH_UI_TEST_OUTPUT);
    QVERIFY(QDir().mkpath(out));
    QVERIFY(dialog->grab().save(out + "/viewer-export-dicom-dialog.png"));

    QSignalSpy finished(dialog, &DicomExportDialog::export_finished);
    dialog->export_button()->click();
    QVERIFY(dialog->is_exporting());  // the click returned before the files were written
    QCOMPARE(finished.count(), 0);
    QVERIFY(QTest::qWaitFor([&] { return viewer_->message_text().contains("DICOM"); }, k_timeout_ms));
    QVERIFY2(viewer_->message_text().startsWith("DICOM series written to " + series_dir_ + " (32 files"),
             qPrintable(viewer_->message_text()));
    QVERIFY(QTest::qWaitFor([&] { return viewer_->export_dialog() == nullptr; }, k_timeout_ms));  // closed

    const QStringList files = QDir(series_dir_).entryList({"*.dcm"}, QDir::Files, QDir::Name);
    QCOMPARE(files.size(), 32);
    QCOMPARE(files.first(), QStringLiteral("slice_0001.dcm"));
    QCOMPARE(QDir(dir_.filePath("export")).entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden),
             QStringList{"ct-series"});  // no temp folder left

    const Volume back = read_volume(series_dir_.toStdString());
    QCOMPARE(back.size, ct_.size);
    for (int i = 0; i < 3; ++i) {
      QVERIFY(std::abs(back.spacing[i] - ct_.spacing[i]) < 1e-4);
      QVERIFY(std::abs(back.origin[i] - ct_.origin[i]) < 1e-4);
    }
    for (int i = 0; i < 9; ++i) QVERIFY(std::abs(back.direction[i] - ct_.direction[i]) < 1e-4);
    double worst = 0;
    for (std::size_t i = 0; i < ct_.voxels.size(); ++i)
      worst = std::max(worst, std::abs(static_cast<double>(back.voxels[i]) - ct_.voxels[i]));
    QVERIFY2(worst <= 0.5, qPrintable(QString("largest voxel difference %1 HU").arg(worst)));

    // The synthetic mark, in the bytes of every file (implicit VR: text as is).
    for (const QString& name : files) {
      QFile file(QDir(series_dir_).filePath(name));
      QVERIFY(file.open(QIODevice::ReadOnly));
      const QByteArray bytes = file.readAll();
      QVERIFY2(bytes.contains("SYNTHETIC IMAGE generated by medsynth"), qPrintable(name));
      QVERIFY(bytes.contains("Provenance: seed 1234, unet checkpoint sha256 0123456789abcdef"));
      QVERIFY(bytes.contains("MEDSYNTH-SYNTHETIC-0042"));
    }
  }

  void dcmdump_reads_every_file() {
    QVERIFY(!series_dir_.isEmpty());
    const QString dcmdump = QStandardPaths::findExecutable(QStringLiteral("dcmdump"));
    if (dcmdump.isEmpty()) QSKIP("dcmdump not found (package dcmtk): the files were not checked with DCMTK");
    const QStringList files = QDir(series_dir_).entryList({"*.dcm"}, QDir::Files, QDir::Name);
    QCOMPARE(files.size(), 32);
    for (const QString& name : files) {
      QProcess process;
      process.start(dcmdump, {QDir(series_dir_).filePath(name)});
      QVERIFY(process.waitForFinished(30000));
      const QString out = QString::fromUtf8(process.readAllStandardOutput());
      const QString err = QString::fromUtf8(process.readAllStandardError());
      QVERIFY2(process.exitCode() == 0, qPrintable(name + ": " + err));
      QVERIFY2(!err.contains("W: ") && !err.contains("E: "), qPrintable(name + ": " + err));
      QVERIFY2(out.contains("(0028,0301) CS [NO]"), qPrintable(name));  // BurnedInAnnotation
      QVERIFY(out.contains(QRegularExpression(R"(\(0020,4000\) LT \[SYNTHETIC IMAGE generated by medsynth)")));
      QVERIFY(out.contains(QRegularExpression(R"(\(0008,2111\) ST \[SYNTHETIC IMAGE generated by medsynth)")));
      QVERIFY(out.contains(R"((0008,0008) CS [DERIVED\SECONDARY\AXIAL])"));
      QVERIFY(out.contains("(0008,0060) CS [CT]"));
      QVERIFY(out.contains("(0010,0010) PN [SYNTHETIC^MEDSYNTH]"));
      QVERIFY(out.contains("(0010,0020) LO [MEDSYNTH-SYNTHETIC-0042]"));
      QVERIFY(out.contains("(0008,103e) LO [viewer export test (synthetic)]"));
    }
  }

  void non_empty_folder_is_refused_and_nothing_written() {
    const QString full = dir_.filePath("full");
    QVERIFY(QDir().mkpath(full));
    QFile keep(full + "/notes.txt");
    QVERIFY(keep.open(QIODevice::WriteOnly));
    keep.write("keep me");
    keep.close();

    DicomExportDialog* dialog = open_dialog();
    QVERIFY(dialog != nullptr);
    dialog->out_dir_edit()->setText(full);
    QSignalSpy finished(dialog, &DicomExportDialog::export_finished);
    dialog->export_button()->click();
    QVERIFY(!dialog->is_exporting());
    QCOMPARE(dialog->message_text(),
             full + ": folder is not empty; DICOM export writes only into a new or empty folder");
    QVERIFY(dialog->isVisible());  // stays open to choose another folder
    QCOMPARE(finished.count(), 0);
    QCOMPARE(QDir(full).entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden), QStringList{"notes.txt"});
    QCOMPARE(QDir(dir_.path()).entryList({".full.tmp-*"}, QDir::AllEntries | QDir::Hidden), QStringList{});
    dialog->reject();
    QVERIFY(QTest::qWaitFor([&] { return viewer_->export_dialog() == nullptr; }, k_timeout_ms));
  }

  void cleanupTestCase() { viewer_.reset(); }
};

QTEST_MAIN(ViewerDicomExportTest)
#include "viewer_dicom_export_test.moc"
