// The "Synthetic dataset" dialog (issue 39.5): the File menu opens it; the
// form says what is missing as it is filled (the run, the labels, the
// statistics once the quality check is on, a dataset folder that is not
// empty) and only then enables "Make the dataset"; a real run of the engine
// on the miniature NV-Generate folder (3 cases from 2 painted label maps,
// quality check, DICOM export) fills one row per case as it goes, and the
// screenshot build/test-output/ui/synthetic-dataset-dialog.png shows it done.
#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QLineEdit>
#include <QProcess>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>

#include "app/settings/settings_store.hpp"
#include "ui/jobs/synthetic_dataset_dialog.hpp"
#include "ui/shell/main_window.hpp"
#include "ui_test_support.hpp"
#include "volume/volume_io.hpp"

using namespace medsynth;
using namespace medsynth::ui;

namespace {

// `organ` in a block of the grid's middle, the body (200) around it.
void write_label(const Volume& grid, float organ, const QString& path) {
  Volume v = grid;
  for (std::size_t k = 0; k < v.size[2]; ++k)
    for (std::size_t j = 0; j < v.size[1]; ++j)
      for (std::size_t i = 0; i < v.size[0]; ++i)
        v.at(i, j, k) = (k > v.size[2] / 4 && k < 3 * v.size[2] / 4 && i > 3 && i + 4 < v.size[0]) ? organ : 200.0f;
  write_volume(v, path.toStdString());
}

bool write_text(const QString& path, const QByteArray& text) {
  QFile f(path);
  return f.open(QIODevice::WriteOnly) && f.write(text) == text.size();
}

}  // namespace

class SyntheticDatasetDialogTest : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir dir_;
  QString engine_, run_dir_, labels_, statistics_;

 private slots:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    engine_ = test::engine_path();
    QVERIFY2(!engine_.isEmpty(), "medsynth-engine is not built");
    run_dir_ = dir_.filePath("maisi-run");
    for (const QStringList& args :
         {QStringList{"import-maisi", test::source_dir() + "/tests/engine/diffusion/data/maisi_folder", "--out",
                      run_dir_},
          QStringList{"generate", run_dir_, "--num-images", "1"}}) {
      QProcess p;
      p.start(engine_, args);
      QVERIFY2(p.waitForFinished(120000) && p.exitCode() == 0, p.readAllStandardError().constData());
    }
    const Volume grid = read_volume((run_dir_ + "/output/image_seed0_rank0.nii.gz").toStdString());
    labels_ = dir_.filePath("painted");
    QDir().mkpath(labels_);
    write_label(grid, 1.0f, labels_ + "/ct_a-painted_label.nii.gz");
    write_label(grid, 3.0f, labels_ + "/ct_b-painted_label.nii.gz");
    statistics_ = dir_.filePath("statistics.json");
    QVERIFY(write_text(statistics_, R"({"liver": {"sigma_6_low": -1e6, "sigma_6_high": 1e6, "percentile_0_5": -1e6,
      "percentile_99_5": 1e6}, "spleen": {"sigma_6_low": 5000, "sigma_6_high": 6000, "percentile_0_5": 5000,
      "percentile_99_5": 6000}})"));
  }

  void the_file_menu_opens_it_and_a_dataset_is_made_case_by_case() {
    app::SettingsStore settings(dir_.filePath("settings.ini"));
    MainWindow window(&settings);
    auto* action = window.findChild<QAction*>("action_synthetic_dataset");
    QVERIFY(action);
    action->trigger();
    auto* dialog = window.findChild<SyntheticDatasetDialog*>();
    QVERIFY(dialog && dialog->isVisible());
    qputenv("MEDSYNTH_ENGINE", engine_.toUtf8());

    QVERIFY(!dialog->start_button()->isEnabled());
    QVERIFY2(dialog->problems_text().contains("MAISI run:") && dialog->problems_text().contains("Labels:"),
             qPrintable(dialog->problems_text()));
    dialog->run_edit()->setText(run_dir_);
    dialog->labels_edit()->setText(labels_);
    dialog->cases_box()->setValue(3);
    dialog->quality_check()->setChecked(true);
    QVERIFY(dialog->problems_text().contains("Organ statistics:"));
    QVERIFY(!dialog->start_button()->isEnabled());
    dialog->statistics_edit()->setText(statistics_);
    dialog->export_box()->setCurrentIndex(dialog->export_box()->findData(static_cast<int>(app::DatasetExport::dicom)));
    dialog->output_edit()->setText(labels_);  // not empty: refused by name
    QVERIFY(dialog->problems_text().contains("Dataset folder: " + labels_ + " is not empty"));
    const QString out = dir_.filePath("dataset");
    dialog->output_edit()->setText(out);
    QVERIFY2(dialog->problems_text().isEmpty(), qPrintable(dialog->problems_text()));
    QVERIFY(dialog->start_button()->isEnabled());

    QSignalSpy written(dialog, &SyntheticDatasetDialog::dataset_written);
    QSignalSpy changed(dialog->flow(), &app::SyntheticDatasetFlow::case_changed);
    dialog->start_button()->click();
    QTableWidget* table = dialog->cases_table();
    QCOMPARE(table->rowCount(), 3);
    QCOMPARE(table->item(1, 1)->text(), QStringLiteral("ct_b-painted_label.nii.gz"));
    QCOMPARE(table->item(2, 2)->text(), QStringLiteral("4"));  // seeds 0, 2, 4: two tries each
    QVERIFY(dialog->stop_button()->isEnabled());
    QVERIFY(QTest::qWaitFor([&] { return written.count() > 0 || !dialog->flow()->is_running(); }, 240000));
    QVERIFY2(written.count() == 1, qPrintable(dialog->summary_text()));
    QVERIFY(changed.count() >= 9);  // generating, exporting, done per case, as they happened
    for (int row = 0; row < 3; ++row) QCOMPARE(table->item(row, 3)->text(), QStringLiteral("done"));
    QVERIFY2(table->item(0, 4)->text().contains("quality check passed"), qPrintable(table->item(0, 4)->text()));
    QVERIFY2(table->item(1, 4)->text().contains("quality check failed after 2 tries: spleen"),
             qPrintable(table->item(1, 4)->text()));
    QVERIFY(table->item(2, 4)->text().contains("dicom/case-0003"));
    QVERIFY2(dialog->summary_text().contains("3 of 3 cases made, 0 failed"), qPrintable(dialog->summary_text()));
    QVERIFY(QFileInfo::exists(written.front().front().toString()));
    QVERIFY(dialog->log_text().contains("$ medsynth-engine dataset-card"));
    QVERIFY(!dialog->stop_button()->isEnabled());
    QVERIFY(dialog->grab().save(test::output_dir() + "/synthetic-dataset-dialog.png"));
    qunsetenv("MEDSYNTH_ENGINE");
  }
};

QTEST_MAIN(SyntheticDatasetDialogTest)
#include "test_synthetic_dataset_dialog.moc"
