// RunMonitorWidget, LogView and the run history on a real run: the test runs
// the engine once (a tiny job; two processes when `launch` exists), then
// follows the run directory, replays its events with garbage mixed in, and
// compares it with a modified copy in the history.
#include <QColor>
#include <QComboBox>
#include <QDir>
#include <QDirIterator>
#include <QFileInfo>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProgressBar>
#include <QSet>
#include <QPushButton>
#include <QTableView>
#include <QTemporaryDir>
#include <QTableWidget>
#include <QtTest>

#include "app/runs/event_stream_reader.hpp"
#include "app/runs/run_store.hpp"
#include "ui/history/compare_runs_dialog.hpp"
#include "ui/history/run_history_widget.hpp"
#include "ui/history/run_table_model.hpp"
#include "ui/monitor/evaluation_view.hpp"
#include "ui/monitor/log_view.hpp"
#include "ui/monitor/metric_chart_view.hpp"
#include "app/session/run_controller.hpp"
#include "ui/monitor/run_monitor_widget.hpp"
#include "ui/monitor/validation_images_view.hpp"
#include "ui_test_support.hpp"

using namespace medsynth;
using namespace medsynth::ui;

namespace {

// `from` and everything under it, to `to` (created).
bool copy_tree(const QString& from, const QString& to) {
  QDirIterator it(from, QDir::Files | QDir::NoDotAndDotDot | QDir::Hidden, QDirIterator::Subdirectories);
  while (it.hasNext()) {
    const QString file = it.next();
    const QString target = to + "/" + QDir(from).relativeFilePath(file);
    if (!QDir().mkpath(QFileInfo(target).path()) || !QFile::copy(file, target)) return false;
  }
  return QFileInfo(to).isDir();
}

}  // namespace

class TestRunMonitor : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir runs_;
  QString run_dir_;
  int processes_ = 1;
  QByteArray events_;

  // The run in a shown 1400 x 900 monitor, followed to its end.
  static void follow_to_end(RunController& run, RunMonitorWidget& monitor) {
    monitor.resize(1400, 900);
    monitor.set_controller(&run);
    monitor.show();
    QTRY_VERIFY_WITH_TIMEOUT(monitor.status_text().startsWith("finished"), 15000);
  }

  // A copy of the run whose train/loss is doubled: a second, different run.
  QString make_doubled_copy(const QString& name = QStringLiteral("copy-20261122-000000")) {
    const QString copy = runs_.filePath(name);
    QDir().mkpath(copy);
    // The copy's job differs in its learning rate: the compare dialog's job diff shows it.
    QFile job(QDir(run_dir_).filePath("job.yaml"));
    if (!job.open(QIODevice::ReadOnly)) return {};
    QByteArray text = job.readAll();
    const qsizetype lr = text.indexOf("\n  lr: ");
    if (lr < 0) return {};
    text.insert(text.indexOf('\n', lr + 1), "7");  // 1e-3 -> 1e-37, say: any other value
    QFile copied(QDir(copy).filePath("job.yaml"));
    if (!copied.open(QIODevice::WriteOnly)) return {};
    copied.write(text);
    copied.close();
    QByteArray out;
    for (const QByteArray& line : events_.split('\n')) {
      if (line.isEmpty()) continue;
      QJsonObject e = QJsonDocument::fromJson(line).object();
      if (e.value("type") == "metric" && e.value("name") == "train/loss") e["value"] = e.value("value").toDouble() * 2;
      if (e.value("type") == "run_started") e["run_dir"] = copy;
      out += QJsonDocument(e).toJson(QJsonDocument::Compact) + '\n';
    }
    QFile f(QDir(copy).filePath("events.jsonl"));
    if (!f.open(QIODevice::WriteOnly)) return {};
    f.write(out);
    return copy;
  }

 private slots:
  void initTestCase() {
    QVERIFY(runs_.isValid());
    processes_ = test::engine_has_launch() ? 2 : 1;
    if (processes_ == 1) qWarning("medsynth-engine launch is missing: one process only (TODO: two when it lands)");
    QString error;
    run_dir_ = test::run_tiny_job(runs_.path(), processes_, &error);
    QVERIFY2(!run_dir_.isEmpty(), qPrintable(error));
    QFile f(QDir(run_dir_).filePath("events.jsonl"));
    QVERIFY(f.open(QIODevice::ReadOnly));
    events_ = f.readAll();
    QVERIFY(events_.contains("run_finished"));
  }

  void monitor_follows_a_run_directory() {
    RunController run(run_dir_);
    RunMonitorWidget monitor;
    follow_to_end(run, monitor);
    if (QTest::currentTestFailed()) return;
    QTRY_VERIFY(!monitor.chart("train/loss")->displayed_points(0).isEmpty());
    const app::RunModel* m = run.model();
    // Every finite point of a short series is drawn (no decimation below the
    // limit); charts are redrawn one per event-loop turn, hence the waits.
    QCOMPARE(m->series("val/psnr").size(), 2);  // validated at steps 15 and 30
    QTRY_COMPARE(monitor.chart("val/psnr")->displayed_points(0).size(), m->series("val/psnr").size());
    QTRY_VERIFY(!monitor.chart("val/ssim")->displayed_points(0).isEmpty());
    QTRY_VERIFY(!monitor.chart("lr")->displayed_points(0).isEmpty());
    QTRY_COMPARE(monitor.chart("train/loss")->displayed_raw_points(0).size(), m->series("train/loss").size());
    QVERIFY(monitor.chart("train/loss")->log_scale());
    // Log scale draws log10 of the values.
    const QPointF last_loss = monitor.chart("train/loss")->displayed_raw_points(0).back();
    QVERIFY(qFuzzyCompare(std::pow(10.0, last_loss.y()), m->series("train/loss").back().value));

    QTRY_COMPARE(monitor.log_ranks().size(), processes_);
    for (int rank = 0; rank < processes_; ++rank) {
      LogView* log = monitor.log_view(rank);
      QVERIFY(log);
      QTRY_VERIFY(!log->visible_lines().isEmpty());
      QVERIFY(log->visible_lines().join('\n').contains("run finished"));
    }
    QCOMPARE(monitor.progress_bar()->value(), monitor.progress_bar()->maximum());
    QCOMPARE(monitor.progress_bar()->maximum(), 30);
    QVERIFY(!monitor.resume_button()->isEnabled());  // finished runs have nothing to resume
    QVERIFY(!monitor.stop_button()->isVisible());    // a followed run is not ours to stop
    QVERIFY(monitor.garbage_text().isEmpty());
    QVERIFY(!monitor.throughput_text().startsWith("—"));
  }

  // Issue 36.3: the run view shows the last validation's slices, the PNGs
  // the engine wrote (this job writes no TensorBoard files: the PNGs come
  // anyway), input beside output, and lists them nowhere else. The
  // screenshot is docs/images/run-monitor-validation-images.png.
  void validation_images_show_the_last_validation() {
    RunController run(run_dir_);
    RunMonitorWidget monitor;
    follow_to_end(run, monitor);
    if (QTest::currentTestFailed()) return;
    ValidationImagesView* panel = monitor.validation_images();
    QTRY_VERIFY(panel->isVisible());
    QCOMPARE(panel->step(), qint64(30));
    QVERIFY(panel->caption_text().contains(QStringLiteral("step 30")));
    const QString dir = QDir(run_dir_).filePath(QStringLiteral("output/val-images"));
    for (const QString plane : {QStringLiteral("axial"), QStringLiteral("coronal"), QStringLiteral("sagittal")}) {
      const QImage shown = panel->image(plane);
      QVERIFY2(!shown.isNull(), qPrintable(plane));
      QCOMPARE(shown.size(), QSize(2 * 32 + 2, 32));  // the 32^3 phantom beside its reconstruction
      QCOMPARE(shown, QImage(dir + QStringLiteral("/step000030-%1.png").arg(plane)));
      QCOMPARE(shown.pixelColor(32, 16), QColor(Qt::white));  // the gap between input and output
    }
    for (const QString& path : monitor.listed_file_paths()) QVERIFY2(!path.endsWith(".png"), qPrintable(path));
    monitor.refresh_now();
    QVERIFY(monitor.grab().save(test::output_dir() + QStringLiteral("/run-monitor-validation-images.png")));
  }

  // Issue 38: a run copied from the cluster (rsync to a laptop) showed "no
  // such file" for its samples and "No evaluation yet", because the stream's
  // absolute paths won over the folder opened. The ldm fixture was recorded
  // under /tmp/tmp.caTRIu0Dfe/...; here it is copied elsewhere, with its
  // evaluation and its checkpoint files, and opened.
  void a_moved_ldm_run_shows_its_samples_evaluation_and_checkpoints() {
    const QString fixtures = test::source_dir() + "/tests/app/fixtures";
    QTemporaryDir laptop;  // not under runs_: the history test counts those
    QVERIFY(laptop.isValid());
    const QString moved = laptop.filePath("ldm-tiny-copied");
    QVERIFY(copy_tree(fixtures + "/ldm", moved));
    QVERIFY(copy_tree(fixtures + "/evaluated/evaluation", moved + "/evaluation"));
    QFile events(moved + "/events.jsonl");
    QVERIFY(events.open(QIODevice::ReadOnly));
    const QByteArray stream = events.readAll();
    const QString recorded = QStringLiteral("/tmp/tmp.caTRIu0Dfe/ldm/ldm-tiny-20261125-220547");
    QVERIFY(stream.contains(recorded.toUtf8()));
    QVERIFY(!QFileInfo::exists(recorded));
    // The checkpoints the stream names, as they would have been copied.
    for (const QString& rel : {"autoencoder/checkpoints/last.safetensors", "diffusion/checkpoints/last.safetensors"}) {
      QDir().mkpath(QFileInfo(moved + "/" + rel).path());
      QFile f(moved + "/" + rel);
      QVERIFY(f.open(QIODevice::WriteOnly));
    }
    RunController run(moved);
    RunMonitorWidget monitor;
    monitor.resize(1366, 768);
    monitor.set_controller(&run);
    monitor.show();
    QTRY_VERIFY_WITH_TIMEOUT(monitor.status_text().startsWith("finished"), 15000);
    const app::RunModel* m = run.model();
    QCOMPARE(m->run_dir(), QDir(moved).absolutePath());
    QCOMPARE(m->recorded_run_dir(), recorded);
    QVERIFY(!m->artifacts().isEmpty());
    for (const auto& a : m->artifacts()) QVERIFY2(QFileInfo::exists(a.path), qPrintable(a.path));
    QVERIFY(!m->checkpoints().isEmpty());
    for (const auto& c : m->checkpoints()) QVERIFY2(c.path.startsWith(m->run_dir() + "/"), qPrintable(c.path));
    QVERIFY(QFileInfo::exists(m->run_dir() + "/autoencoder/checkpoints/last.safetensors"));
    for (const auto& s : m->stages()) QVERIFY2(s.dir.isEmpty() || s.dir.startsWith(m->run_dir()), qPrintable(s.dir));
    QTRY_VERIFY(monitor.evaluation_view()->report().has_value());
    bool sample_listed = false;
    for (const QString& path : monitor.listed_file_paths())
      sample_listed = sample_listed || (path.endsWith(".nii.gz") && QFileInfo::exists(path));
    QVERIFY(sample_listed);
    // Each file once (last.safetensors was listed at every checkpoint step).
    const QStringList listed = monitor.listed_file_paths();
    QCOMPARE(QSet<QString>(listed.begin(), listed.end()).size(), listed.size());
    QVERIFY(monitor.grab().save(test::output_dir() + "/moved-ldm-run.png"));
  }

  void the_metric_chooser_shows_any_metric() {
    RunController run(run_dir_);
    RunMonitorWidget monitor;
    monitor.set_controller(&run);
    QTRY_VERIFY_WITH_TIMEOUT(monitor.status_text().startsWith("finished"), 15000);
    QTRY_VERIFY(monitor.metric_chooser()->count() >= 5);
    monitor.metric_chooser()->setCurrentText("train/recon_loss");
    QCOMPARE(monitor.custom_chart()->metric(0), QStringLiteral("train/recon_loss"));
    monitor.set_smoothing(0.0);
    monitor.custom_chart()->refresh();
    QCOMPARE(monitor.custom_chart()->displayed_points(0).size(), run.model()->series("train/recon_loss").size());
  }

  void hover_shows_step_and_value() {
    RunController run(run_dir_);
    RunMonitorWidget monitor;
    monitor.resize(1400, 900);
    monitor.set_controller(&run);
    monitor.show();
    QVERIFY(QTest::qWaitForWindowExposed(&monitor));
    QTRY_VERIFY_WITH_TIMEOUT(monitor.status_text().startsWith("finished"), 15000);
    const app::MetricPoint first = run.model()->series("val/psnr").front();
    const QString text = monitor.chart("val/psnr")->show_hover_at_step(first.step + 1);  // the nearest point
    QVERIFY2(text.contains(QStringLiteral("step %1").arg(first.step)), qPrintable(text));
    QVERIFY2(text.contains(QString::number(first.value, 'g', 5)), qPrintable(text));
    // The mouse does the same.
    MetricChartView* chart = monitor.chart("val/psnr");
    const QRectF area = chart->chart()->plotArea();
    QTest::mouseMove(chart->viewport(), area.center().toPoint());
    QTRY_VERIFY(chart->hover_text().startsWith("step "));
  }

  void replayed_events_with_garbage_are_counted_not_fatal() {
    app::RunModel model;
    app::EventStreamReader reader(&model);
    RunMonitorWidget monitor;
    monitor.set_model(&model);
    // Garbage between the real events, fed in odd-sized chunks.
    QByteArray stream;
    int n = 0;
    for (const QByteArray& line : events_.split('\n')) {
      if (line.isEmpty()) continue;
      stream += line + '\n';
      if (++n % 7 == 0) stream += "{not json\n{\"v\":1,\"type\":\"mystery\",\"time\":\"x\"}\n";
    }
    for (qsizetype i = 0; i < stream.size(); i += 97) reader.feed(QByteArrayView(stream.constData() + i, std::min<qsizetype>(97, stream.size() - i)));
    reader.finish();
    QTRY_VERIFY(monitor.status_text().startsWith("finished"));
    QVERIFY2(monitor.garbage_text().contains("not JSON"), qPrintable(monitor.garbage_text()));
    QVERIFY(monitor.garbage_text().contains("unknown type"));
    QTRY_VERIFY(!monitor.chart("train/loss")->displayed_points(0).isEmpty());
    QCOMPARE(model.series("val/psnr").size(), 2);
    QTRY_COMPARE(monitor.chart("val/psnr")->displayed_points(0).size(), 2);
  }

  void redraws_are_coalesced() {
    app::RunModel model;
    app::EventStreamReader reader(&model);
    RunMonitorWidget monitor;
    monitor.set_model(&model);
    const int before = monitor.refresh_count();
    // 20 000 points in 200 chunks with no event loop in between: one redraw follows.
    for (int chunk = 0; chunk < 200; ++chunk) {
      QByteArray bytes;
      for (int i = 0; i < 100; ++i) {
        const int step = chunk * 100 + i;
        bytes += QStringLiteral("{\"v\":1,\"type\":\"metric\",\"time\":\"2026-11-22T05:46:24.478Z\",\"rank\":0,"
                                "\"step\":%1,\"name\":\"train/loss\",\"value\":%2}\n")
                     .arg(step)
                     .arg(1.0 / (1 + step))
                     .toUtf8();
      }
      reader.feed(bytes);
    }
    QCOMPARE(monitor.refresh_count(), before);  // nothing drawn synchronously
    QTRY_COMPARE(monitor.refresh_count(), before + 1);
    MetricChartView* loss = monitor.chart("train/loss");
    QTRY_VERIFY(!loss->displayed_points(0).isEmpty());
    const QList<QPointF> drawn = loss->displayed_points(0);
    QVERIFY(drawn.size() <= 2000);
    QCOMPARE(drawn.back().x(), 19999.0);
  }

  // A generate run (its run_started says extra.verb "generate") counts
  // images, not steps, and shows no training charts waiting for data.
  void a_generate_run_counts_images_and_shows_no_training_charts() {
    app::RunModel model;
    app::EventStreamReader reader(&model);
    RunMonitorWidget monitor;
    monitor.set_model(&model);
    monitor.show();
    reader.feed(QByteArrayLiteral(
        "{\"v\":1,\"type\":\"run_started\",\"time\":\"2026-11-27T09:00:00Z\",\"rank\":0,\"run_dir\":\"/r\","
        "\"job_name\":\"maisi\",\"task\":\"ldm\",\"config_hash\":\"0\",\"world_size\":1,\"effective_batch\":1,"
        "\"total_steps\":2,\"device\":\"cpu\",\"extra\":{\"verb\":\"generate\"}}\n"
        "{\"v\":1,\"type\":\"progress\",\"time\":\"2026-11-27T09:01:00Z\",\"rank\":0,\"step\":1,"
        "\"total_steps\":2,\"epoch\":0,\"epochs\":1,\"samples_per_s\":0.02,\"eta_s\":60}\n"));
    QVERIFY(model.is_generation());
    QTRY_COMPARE(monitor.step_text(), QStringLiteral("image 1 / 2"));
    QVERIFY(!monitor.chart("train/loss")->isVisible());
    QVERIFY(!monitor.chart("val/psnr")->isVisible());
    // A training run keeps its steps and charts.
    app::RunModel training;
    app::EventStreamReader training_reader(&training);
    monitor.set_model(&training);
    training_reader.feed(QByteArrayLiteral(
        "{\"v\":1,\"type\":\"run_started\",\"time\":\"2026-11-27T09:00:00Z\",\"rank\":0,\"run_dir\":\"/t\","
        "\"job_name\":\"q\",\"task\":\"autoencoder\",\"config_hash\":\"0\",\"world_size\":1,"
        "\"effective_batch\":1,\"total_steps\":100,\"device\":\"cpu\"}\n"));
    QVERIFY(!training.is_generation());
    QTRY_COMPARE(monitor.step_text(), QStringLiteral("step 0 / 100"));
    QTRY_VERIFY(monitor.chart("train/loss")->isVisible());
  }

  void empty_charts_show_that_they_wait() {
    app::RunModel model;
    RunMonitorWidget monitor;
    monitor.set_model(&model);
    MetricChartView* psnr = monitor.chart("val/psnr");
    QVERIFY2(psnr->chart()->title().contains("no data yet"), qPrintable(psnr->chart()->title()));
    model.append_metric("val/psnr", 15, 12.5, true);
    QTRY_VERIFY(!psnr->chart()->title().contains("no data yet"));
    QCOMPARE(psnr->displayed_points(0).size(), 1);
  }

  void log_view_filters_by_level_and_text() {
    app::RunModel model;
    const QDateTime t = QDateTime::currentDateTimeUtc();
    model.append_log({t, 0, "info", "validation at step 15"});
    model.append_log({t, 0, "warn", "step 16: non-finite loss, step skipped"});
    model.append_log({t, 0, "", "  continuation of the warning"});
    model.append_log({t, 0, "error", "rank 1 exited"});
    model.append_log({t, 1, "info", "another rank"});
    LogView view;
    view.set_source(&model, 0);
    QCOMPARE(view.visible_lines().size(), 4);
    view.set_min_level("warn");
    QCOMPARE(view.visible_lines().size(), 3);  // the continuation keeps its warning's level
    view.set_min_level("error");
    QCOMPARE(view.visible_lines().size(), 1);
    QVERIFY(view.visible_lines().front().contains("ERROR"));
    view.set_min_level("");
    view.set_filter_text("STEP");
    QCOMPARE(view.visible_lines().size(), 2);
    view.set_filter_text("");
    model.append_log({t, 0, "info", "a new line"});
    QTRY_COMPARE(view.visible_lines().size(), 5);
  }

  void history_lists_runs_and_compares_them() {
    const QString copy = make_doubled_copy();
    QVERIFY(!copy.isEmpty());
    app::RunStore store;
    store.set_roots({runs_.path()});
    RunHistoryWidget history(&store);
    history.resize(1200, 500);
    history.show();
    QSignalSpy refreshed(&store, &app::RunStore::refreshed);
    history.refresh();
    QTRY_COMPARE_WITH_TIMEOUT(history.row_count(), 2, 15000);
    RunTableModel* table = history.table_model();
    const int row = table->row_of(run_dir_);
    QVERIFY(row >= 0);
    QCOMPARE(table->data(table->index(row, RunTableModel::status)).toString(), QStringLiteral("finished"));
    QCOMPARE(table->data(table->index(row, RunTableModel::world)).toInt(), processes_);
    QVERIFY(table->data(table->index(row, RunTableModel::psnr)).isValid());
    QCOMPARE(table->data(table->index(row, RunTableModel::steps)).toString(), QStringLiteral("30 / 30"));

    QSignalSpy open(&history, &RunHistoryWidget::open_run_requested);
    history.select_runs({run_dir_});
    const QModelIndex index = history.table()->selectionModel()->selectedRows().front();
    const QPoint cell = history.table()->visualRect(index).center();
    // A double click is a press, a release and a double-click event, as from a mouse.
    QTest::mouseClick(history.table()->viewport(), Qt::LeftButton, {}, cell);
    QTest::mouseDClick(history.table()->viewport(), Qt::LeftButton, {}, cell);
    QTRY_COMPARE(open.count(), 1);
    QCOMPARE(open.front().front().toString(), run_dir_);

    const QString third = make_doubled_copy(QStringLiteral("copy-20261122-000001"));
    QVERIFY(!third.isEmpty());
    history.refresh();
    QTRY_COMPARE_WITH_TIMEOUT(history.row_count(), 3, 15000);
    // Issue 38: three runs compare too (up to eight).
    history.select_runs({run_dir_, copy, third});
    QCOMPARE(history.selected_run_dirs().size(), 3);
    QVERIFY(history.findChild<QPushButton*>("compare")->isEnabled());
    history.compare_selected();
    auto* three = history.findChild<CompareRunsDialog*>();
    QVERIFY(three);
    QCOMPARE(three->chart()->curve_count(), 3);
    QCOMPARE(three->differences()->columnCount(), 3);
    QCOMPARE(three->differences()->verticalHeaderItem(0)->text(), QStringLiteral("training.lr"));
    QCOMPARE(three->differences()->item(0, 1)->text(), three->differences()->item(0, 2)->text());  // both copies' lr

    delete three;

    history.select_runs({run_dir_, copy});
    QCOMPARE(history.selected_run_dirs().size(), 2);
    auto* compare = history.findChild<QPushButton*>("compare");
    QVERIFY(compare->isEnabled());
    QTest::mouseClick(compare, Qt::LeftButton);
    auto* dialog = history.findChild<CompareRunsDialog*>();
    QVERIFY(dialog);
    QCOMPARE(dialog->chart()->curve_count(), 2);
    QTRY_VERIFY(!dialog->chart()->displayed_points(0).isEmpty() && !dialog->chart()->displayed_points(1).isEmpty());
    // The copy's loss is twice the original's: the overlay shows two different curves.
    dialog->chart()->set_log_scale(false);
    dialog->chart()->set_smoothing(0.0);
    const QList<QPointF> a = dialog->chart()->displayed_points(0), b = dialog->chart()->displayed_points(1);
    QCOMPARE(a.size(), b.size());
    QVERIFY(qFuzzyCompare(b.back().y(), 2 * a.back().y()));
    QTRY_VERIFY(dialog->metric_names().contains("val/psnr"));
    dialog->set_metric("val/psnr");
    QCOMPARE(dialog->chart()->displayed_points(1).size(), 2);
    // Issue 38: the job diff names the one field that differs, a column per run.
    QTableWidget* diff = dialog->differences();
    QCOMPARE(diff->rowCount(), 1);
    QCOMPARE(diff->columnCount(), 2);
    QCOMPARE(diff->verticalHeaderItem(0)->text(), QStringLiteral("training.lr"));
    QVERIFY(diff->item(0, 0)->text() != diff->item(0, 1)->text());
  }
};

QTEST_MAIN(TestRunMonitor)
#include "test_run_monitor.moc"
