// End to end through the real MainWindow and the real engine: pick the KL
// autoencoder template, shrink it to a tiny job in the form, ask for two
// processes, press Launch, watch the loss chart fill while it runs, see it
// finish and appear in the history. Then stop a run and resume it.
// Needs `medsynth-engine launch` (two processes); skipped with a message if absent.
#include <QApplication>
#include <QImage>
#include <QLineEdit>
#include <QMessageBox>
#include <QTimer>
#include <QPushButton>
#include <QSpinBox>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QtTest>

#include "app/jobs/job_field_catalog.hpp"
#include "app/runs/run_model.hpp"
#include "ui/history/run_history_widget.hpp"
#include "ui/history/run_table_model.hpp"
#include "ui/jobs/field_editor.hpp"
#include "ui/jobs/job_editor_widget.hpp"
#include "ui/jobs/job_form.hpp"
#include "ui/jobs/template_picker.hpp"
#include "ui/machine/machine_panel.hpp"
#include "ui/monitor/metric_chart_view.hpp"
#include "app/session/run_controller.hpp"
#include "ui/monitor/run_monitor_widget.hpp"
#include "app/session/launch_coordinator.hpp"
#include "ui/shell/main_window.hpp"
#include "app/settings/settings_store.hpp"
#include "ui_test_support.hpp"

using namespace medsynth;
using namespace medsynth::ui;

namespace {

constexpr int k_run_timeout_ms = 300000;  // a loaded 2-core machine; a quiet one needs ~15 s

void set_spin(JobForm* form, const QString& path, int value) {
  auto* spin = qobject_cast<QSpinBox*>(form->editor(path)->input());
  QVERIFY2(spin, qPrintable(path));
  spin->setValue(value);
}

// The rest of the tiny job, as the overrides a user would paste: through the
// same field editors' parsing, into the document.
void apply_overrides(app::JobDocument* doc, const QStringList& overrides) {
  for (const QString& o : overrides) {
    const QString path = o.section('=', 0, 0);
    const std::optional<app::JobField> field = app::find_job_field(path);
    QVERIFY2(field, qPrintable(path));
    QString error;
    const QVariant value = FieldEditor::parse_text(o.section('=', 1), *field, &error);
    QVERIFY2(error.isEmpty(), qPrintable(o + ": " + error));
    doc->set_value(path, value);
  }
}

// While it runs, answers any message box (e.g. "discard the edited job?") the
// way a user would; the caller stops it when the action that may ask is done.
class MessageBoxAnswerer {
 public:
  explicit MessageBoxAnswerer(QMessageBox::StandardButton button) {
    timer_.setInterval(20);
    QObject::connect(&timer_, &QTimer::timeout, [this, button] {
      if (auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget())) {
        ++answered_;
        box->button(button)->click();
      }
    });
    timer_.start();
  }
  int answered() const { return answered_; }

 private:
  QTimer timer_;
  int answered_ = 0;
};

double non_background_fraction(const QImage& image) {
  const QRgb corner = image.pixel(0, image.height() - 1);
  qint64 differ = 0;
  for (int y = 0; y < image.height(); y += 4) {
    for (int x = 0; x < image.width(); x += 4) differ += image.pixel(x, y) != corner;
  }
  return double(differ) / ((image.height() / 4) * (image.width() / 4));
}

}  // namespace

class TestMainWindowE2E : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir dir_;
  std::unique_ptr<medsynth::app::SettingsStore> settings_;
  std::unique_ptr<MainWindow> window_;

  void prepare_tiny_job(int steps, int val_every) {
    JobEditorWidget* editor = window_->job_editor();
    // Pick the template as a user does (discarding the edits of a previous job).
    QVERIFY(editor->template_picker()->select("kl-autoencoder-amp"));
    {
      MessageBoxAnswerer discard(QMessageBox::Discard);
      QTest::mouseClick(editor->template_picker()->findChild<QPushButton*>("use_template"), Qt::LeftButton);
    }
    QVERIFY(!window_->document()->template_id().isEmpty());
    QCOMPARE(window_->document()->value("training.max_steps").toInt(), 700);  // the template's own value
    QCOMPARE(window_->document()->template_id(), QStringLiteral("kl-autoencoder-amp"));
    // The main knobs in the form, the rest as overrides.
    set_spin(editor->form(), "training.max_steps", steps);
    set_spin(editor->form(), "training.val_every_steps", val_every);
    set_spin(editor->form(), "training.batch_size", 1);
    QStringList rest = test::tiny_job_overrides(steps, val_every);
    rest.removeIf([](const QString& o) { return o.startsWith("training.max_steps") || o.startsWith("training.val_every") ||
                                                o.startsWith("training.batch_size"); });
    apply_overrides(window_->document(), rest);
    QVERIFY2(window_->document()->is_valid(), qPrintable(window_->document()->issues().value(0).to_string()));
  }

 private slots:
  void initTestCase() {
    if (!test::engine_has_launch()) {
      QSKIP("medsynth-engine launch --help fails: the distributed launcher has not landed in this build; "
            "the two-process end-to-end test needs it (re-run once it does).");
    }
    qputenv("MEDSYNTH_ENGINE", test::engine_path().toUtf8());
    settings_ = std::make_unique<medsynth::app::SettingsStore>(dir_.filePath("settings.ini"));
    window_ = std::make_unique<MainWindow>(settings_.get());
    CommandLineOptions options;
    options.runs_dirs << dir_.filePath("runs");
    window_->apply_command_line(options);
    window_->resize(1600, 1000);
    window_->show();
    QVERIFY(QTest::qWaitForWindowExposed(window_.get()));
    window_->probe_machine();
    QTRY_VERIFY_WITH_TIMEOUT(window_->machine_panel()->has_machine_info(), 60000);
  }

  // A failed test leaves no run behind for the next one.
  void cleanup() {
    if (!window_ || !window_->coordinator()->active()) return;
    window_->coordinator()->stop_active();
    QTRY_VERIFY_WITH_TIMEOUT(window_->coordinator()->active() == nullptr, 120000);
  }

  void cleanupTestCase() { window_.reset(); }

  void launch_two_processes_and_watch_it_finish() {
    prepare_tiny_job(30, 15);
    if (QTest::currentTestFailed()) return;
    MachinePanel* machine = window_->machine_panel();
    QVERIFY(machine->max_processes() >= 2);
    machine->processes_spin_box()->setValue(2);
    QVERIFY2(window_->job_editor()->effective_batch_text().contains("× 2 process"),
             qPrintable(window_->job_editor()->effective_batch_text()));

    QPushButton* launch = window_->job_editor()->launch_button();
    QVERIFY(launch->isEnabled());
    QTest::mouseClick(launch, Qt::LeftButton);
    RunController* run = window_->coordinator()->active();
    QVERIFY2(run, qPrintable(window_->last_status_message()));
    QVERIFY(!launch->isEnabled());  // one run at a time
    RunMonitorWidget* monitor = window_->monitor_for(run);
    QVERIFY(monitor);
    QCOMPARE(window_->tabs()->currentWidget(), monitor);

    // The loss chart fills while the run goes on.
    MetricChartView* loss = monitor->chart("train/loss");
    QTRY_VERIFY_WITH_TIMEOUT(!loss->displayed_points(0).isEmpty(), k_run_timeout_ms);
    const bool still_running = run->model()->status() == app::RunStatus::running;
    const QString shot = test::output_dir() + "/main-window-running.png";
    QString error;
    QVERIFY2(window_->save_screenshot(shot, &error), qPrintable(error));
    qInfo("screenshot: %s (taken while %s)", qPrintable(shot), still_running ? "running" : "already finished");
    QVERIFY(non_background_fraction(QImage(shot)) > 0.05);

    QTRY_VERIFY_WITH_TIMEOUT(!run->is_live(), k_run_timeout_ms);
    QCOMPARE(run->model()->status(), app::RunStatus::finished);
    QVERIFY2(monitor->status_text().startsWith("finished"), qPrintable(monitor->status_text()));
    QCOMPARE(run->model()->world_size(), 2);
    QCOMPARE(run->model()->current_step(), 30);
    QCOMPARE(run->model()->series("val/psnr").size(), 2);
    QTRY_COMPARE(monitor->log_ranks().size(), 2);  // rank 0 and rank 1 (and no launcher tab without launcher lines)
    QVERIFY(launch->isEnabled());

    // The history shows it (the window refreshes the store when a run ends).
    RunHistoryWidget* history = window_->history();
    QTRY_VERIFY_WITH_TIMEOUT(history->table_model()->row_of(run->run_dir()) >= 0, 15000);
    RunTableModel* table = history->table_model();
    const int row = table->row_of(run->run_dir());
    QCOMPARE(table->data(table->index(row, RunTableModel::status)).toString(), QStringLiteral("finished"));
    QCOMPARE(table->data(table->index(row, RunTableModel::world)).toInt(), 2);
    window_->tabs()->setCurrentWidget(history);
    QVERIFY(window_->save_screenshot(test::output_dir() + "/history.png"));
    window_->tabs()->setCurrentWidget(window_->job_editor());
    QVERIFY(window_->save_screenshot(test::output_dir() + "/job-editor.png"));
    qInfo("screenshots: %s/history.png, job-editor.png", qPrintable(test::output_dir()));
  }

  void stop_then_resume() {
    prepare_tiny_job(60, 30);
    if (QTest::currentTestFailed()) return;
    window_->machine_panel()->processes_spin_box()->setValue(1);
    window_->activateWindow();  // shortcuts act in the active window
    QVERIFY(QTest::qWaitForWindowActive(window_.get()));
    QTest::keyClick(window_.get(), Qt::Key_R, Qt::ControlModifier);  // Ctrl+R launches
    RunController* run = window_->coordinator()->active();
    QVERIFY2(run, qPrintable(window_->last_status_message()));
    RunMonitorWidget* monitor = window_->monitor_for(run);
    QTRY_VERIFY_WITH_TIMEOUT(!run->model()->series("train/loss").isEmpty(), k_run_timeout_ms);
    QVERIFY(monitor->stop_button()->isEnabled());
    QTest::mouseClick(monitor->stop_button(), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(!run->is_live(), 120000);
    QCOMPARE(run->model()->status(), app::RunStatus::stopped);
    const qint64 stopped_at = run->model()->current_step();
    QVERIFY(stopped_at < 60);

    QVERIFY(monitor->resume_button()->isEnabled());
    QTest::mouseClick(monitor->resume_button(), Qt::LeftButton);
    RunController* resumed = window_->coordinator()->active();
    QVERIFY2(resumed && resumed != run, qPrintable(window_->last_status_message()));
    QTRY_VERIFY_WITH_TIMEOUT(!resumed->is_live(), k_run_timeout_ms);
    QVERIFY2(resumed->model()->status() == app::RunStatus::finished, qPrintable(resumed->model()->failure_message()));
    QVERIFY2(resumed->model()->current_step() == 60,
             qPrintable(QStringLiteral("resumed %1 at step %2 of %3; stopped %4 at %5 of %6")
                            .arg(resumed->run_dir()).arg(resumed->model()->current_step())
                            .arg(resumed->model()->total_steps()).arg(run->run_dir()).arg(stopped_at)
                            .arg(run->model()->total_steps())));
    // It continued from the checkpoint, not from step 0.
    QVERIFY(resumed->model()->series("train/loss").front().step > 5);
  }
};

QTEST_MAIN(TestMainWindowE2E)
#include "test_main_window_e2e.moc"
