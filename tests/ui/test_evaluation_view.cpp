// The run monitor's Evaluate tab on a real evaluation (tests/app/fixtures/
// evaluated: `medsynth-engine evaluate` of a few-step ldm-tiny run with one
// training phantom planted among its images): the tab loads RUN/evaluation/
// evaluation.json by itself, shows every metric, both HU histograms and the
// flagged pair, "Compare side by side" asks for that pair, and the report
// exports as HTML and PDF. Screenshots go to test-output/ui/.
#include <QChart>
#include <QChartView>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QListWidget>
#include <QPainter>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTextDocument>
#include <QtTest>

#include "app/runs/event_stream_reader.hpp"
#include "app/runs/run_model.hpp"
#include "ui/monitor/metric_chart_view.hpp"
#include "ui/monitor/evaluation_view.hpp"
#include "ui/monitor/run_monitor_widget.hpp"
#include "ui/monitor/stage_sections.hpp"
#include "ui_test_support.hpp"

using namespace medsynth;
using namespace medsynth::ui;

namespace {
QString fixture(const QString& name) { return QStringLiteral(MEDSYNTH_APP_FIXTURES "/") + name; }

bool copy_file(const QString& from, const QString& to) {
  QDir().mkpath(QFileInfo(to).absolutePath());
  QFile::remove(to);
  return QFile::copy(from, to);
}
}  // namespace

class TestEvaluationView : public QObject {
  Q_OBJECT

 private slots:
  void the_evaluate_tab_shows_the_run_evaluation_and_exports_it() {
    QTemporaryDir run;
    for (const char* file : {"events.jsonl", "job.yaml", "evaluation/evaluation.json", "evaluation/evaluation.txt"})
      QVERIFY(copy_file(fixture(QStringLiteral("evaluated/")) + file, run.filePath(QLatin1String(file))));
    app::RunModel model;
    model.set_run_dir(run.path());
    RunMonitorWidget monitor;
    monitor.resize(1400, 900);
    QSignalSpy compare(&monitor, &RunMonitorWidget::compare_requested);
    monitor.set_model(&model);
    EvaluationView* view = monitor.evaluation_view();
    QVERIFY(view->report().has_value());

    auto* metrics = view->findChild<QTableWidget*>(QStringLiteral("evaluation_metrics"));
    QVERIFY(metrics);
    QCOMPARE(metrics->rowCount(), static_cast<int>(view->report()->metrics.size()));
    QStringList shown;
    for (int i = 0; i < metrics->rowCount(); ++i) shown << metrics->item(i, 0)->text();
    QVERIFY(shown.contains(QStringLiteral("ms_ssim_fidelity")) && shown.contains(QStringLiteral("hu_w1")));
    auto* chart = view->findChild<QChartView*>(QStringLiteral("hu_histograms"));
    QVERIFY(chart && chart->chart());
    QCOMPARE(chart->chart()->series().size(), 2);

    auto* flagged = view->findChild<QListWidget*>(QStringLiteral("flagged_pairs"));
    QVERIFY(flagged);
    QCOMPARE(flagged->count(), 1);
    QVERIFY2(flagged->item(0)->text().contains(QLatin1String("image_planted_copy.nii.gz")), qPrintable(flagged->item(0)->text()));
    auto* compare_button = view->findChild<QPushButton*>(QStringLiteral("compare_flagged"));
    QVERIFY(compare_button && compare_button->isEnabled());
    compare_button->click();
    QCOMPARE(compare.size(), 1);
    QVERIFY(compare[0][0].toString().endsWith(QLatin1String("/output/image_planted_copy.nii.gz")));
    QVERIFY(compare[0][1].toString().contains(QLatin1String("/reference-phantoms/phantom-")));

    // Screenshots for people: the tab, and the report's page as the PDF prints it.
    auto* tabs = monitor.findChild<QTabWidget*>(QStringLiteral("log_tabs"));
    QVERIFY(tabs);
    tabs->setCurrentWidget(view);
    QDir().mkpath(test::output_dir());
    QVERIFY(monitor.grab().save(test::output_dir() + QStringLiteral("/evaluate-tab.png")));

    const QString html = run.filePath(QStringLiteral("report.html"));
    QCOMPARE(view->export_report(html), QString());
    QFile html_file(html);
    QVERIFY(html_file.open(QIODevice::ReadOnly));
    const QByteArray page = html_file.readAll();
    QVERIFY(page.contains("<td>memorization_flagged</td>"));
    QVERIFY(page.contains("src=\"data:image/png;base64,iVBOR"));  // a real PNG
    const QString pdf = run.filePath(QStringLiteral("report.pdf"));
    QCOMPARE(view->export_report(pdf), QString());
    QFile pdf_file(pdf);
    QVERIFY(pdf_file.open(QIODevice::ReadOnly));
    QVERIFY(pdf_file.read(5) == "%PDF-");
    QVERIFY2(pdf_file.size() > 20000, "the PDF holds the chart image");

    QTextDocument document;  // the page as the PDF prints it (the chart as a resource)
    document.addResource(QTextDocument::ImageResource, QUrl(QStringLiteral("chart.png")), QImage::fromData(view->chart_png(), "PNG"));
    document.setHtml(QString::fromUtf8(page).replace(QRegularExpression(QStringLiteral("src=\"data:[^\"]*\"")), QStringLiteral("src=\"chart.png\"")));
    document.setTextWidth(900);
    QImage image(900, static_cast<int>(document.size().height()) + 20, QImage::Format_RGB32);
    image.fill(Qt::white);
    QPainter painter(&image);
    document.drawContents(&painter);
    painter.end();
    QVERIFY(image.save(test::output_dir() + QStringLiteral("/evaluation-report-page.png")));
  }

  // Issue 23.2: an ldm run (its stream replayed) draws each stage's loss in
  // that stage's own section (stage metrics count the stage's own steps, so
  // they do not share an x axis), and the run stays one run.
  void an_ldm_run_draws_each_stage_in_its_section() {
    app::RunModel model;
    app::EventStreamReader reader(&model);
    RunMonitorWidget monitor;
    monitor.set_model(&model);
    QFile stream(fixture(QStringLiteral("evaluated/events.jsonl")));
    QVERIFY(stream.open(QIODevice::ReadOnly));
    reader.feed(stream.readAll());
    reader.finish();
    for (const char* stage_loss : {"autoencoder/train/loss", "diffusion/train/loss"}) {
      auto* loss = monitor.findChild<MetricChartView*>(QLatin1String(stage_loss));
      QVERIFY2(loss, stage_loss);
      QCOMPARE(loss->curve_count(), 1);
      QCOMPARE(loss->metric(0), QLatin1String(stage_loss));
    }
    QCOMPARE(monitor.stage_sections()->stage_names().size(), 5);
    QCOMPARE(model.status(), app::RunStatus::finished);
    QCOMPARE(model.stages().size(), 5);
  }

  void without_an_evaluation_the_tab_says_how_to_make_one() {
    QTemporaryDir run;
    app::RunModel model;
    model.set_run_dir(run.path());
    RunMonitorWidget monitor;
    monitor.set_model(&model);
    QVERIFY(!monitor.evaluation_view()->report().has_value());
    auto* header = monitor.evaluation_view()->findChild<QLabel*>(QStringLiteral("evaluation_header"));
    QVERIFY(header && header->text().contains(QLatin1String("medsynth-engine evaluate")));
    QVERIFY(!monitor.evaluation_view()->findChild<QPushButton*>(QStringLiteral("export_report"))->isEnabled());
  }
};

QTEST_MAIN(TestEvaluationView)
#include "test_evaluation_view.moc"
