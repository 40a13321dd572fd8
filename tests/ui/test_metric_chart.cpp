// Issue 38, charts: a sparse series (validation) is drawn as it is, not
// smoothed below its real end; a one-run chart's title says the last raw
// value and the best so far (higher or lower by the metric); a single point
// is drawn inside the axes; and the chart exports as CSV equal to the events
// it shows, and as a PNG.
#include <QFile>
#include <QImage>
#include <QTemporaryDir>
#include <QValueAxis>
#include <QXmlStreamReader>
#include <QtTest>

#include "app/runs/metric_series_summary.hpp"
#include "app/runs/run_model.hpp"
#include "ui/monitor/metric_chart_view.hpp"

using namespace medsynth;
using namespace medsynth::ui;

class TestMetricChart : public QObject {
  Q_OBJECT

 private slots:
  void sparse_series_end_at_their_real_value_and_the_readout_names_it() {
    app::RunModel model;
    const double psnr[] = {24.0, 29.5, 30.9, 31.28};
    for (int i = 0; i < 4; ++i) model.append_metric("val/psnr", 100 * (i + 1), psnr[i], true);
    for (int i = 1; i <= 100; ++i) model.append_metric("train/loss", i, 1.0 / i + (i % 2) * 0.05, true);
    MetricChartView chart(nullptr, {.smoothing = 0.6});
    chart.resize(600, 400);
    chart.add_curve("run", &model, "val/psnr");
    chart.set_title("Validation PSNR (dB)");
    chart.refresh();
    QCOMPARE(chart.displayed_points(0).size(), 4);
    QCOMPARE(chart.displayed_points(0).back().y(), 31.28);  // smoothing 0.6 drew ~30.5 before
    QCOMPARE(chart.readout(), QStringLiteral("last 31.28 · best 31.28 @ 400"));
    // A dense series is still smoothed (TensorBoard's EMA), and a loss's best is its lowest.
    chart.set_metric("train/loss");
    chart.refresh();
    QVERIFY(chart.displayed_points(0).back().y() != model.series("train/loss").back().value);
    QVERIFY2(chart.readout().startsWith(QStringLiteral("last 0.01 · best 0.01 @ 100")), qPrintable(chart.readout()));
  }

  void a_single_point_is_drawn_inside_the_axes() {
    app::RunModel model;
    model.append_metric("val/ssim", 250, 0.83, true);
    MetricChartView chart;
    chart.resize(600, 400);
    chart.add_curve("run", &model, "val/ssim");
    chart.refresh();
    QCOMPARE(chart.displayed_points(0).size(), 1);
    const auto axes = chart.chart()->axes();
    QCOMPARE(axes.size(), 2);
    const auto* x = qobject_cast<QValueAxis*>(axes[0]);
    const auto* y = qobject_cast<QValueAxis*>(axes[1]);
    QVERIFY(x && y);
    QVERIFY(x->min() <= 250 && 250 <= x->max() && x->min() < x->max());
    QVERIFY(y->min() < 0.83 && 0.83 < y->max());
  }

  void csv_export_equals_the_events_and_png_export_writes_the_chart() {
    app::RunModel a, b;
    for (int i = 1; i <= 5; ++i) a.append_metric("val/psnr", 10 * i, 20.0 + i / 3.0, true);
    b.append_metric("val/psnr", 20, 18.5, true);
    b.append_metric("val/psnr", 60, std::numeric_limits<double>::quiet_NaN(), false);
    MetricChartView chart;
    chart.resize(600, 400);
    chart.add_curve("lr 1e-4", &a, "val/psnr");
    chart.add_curve("lr 3e-4, warm", &b, "val/psnr");
    chart.refresh();
    QTemporaryDir dir;
    const QString csv = dir.filePath("psnr.csv");
    QString error;
    QVERIFY2(chart.export_csv(csv, &error), qPrintable(error));
    QFile file(csv);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QStringList lines = QString::fromUtf8(file.readAll()).split('\n', Qt::SkipEmptyParts);
    QCOMPARE(lines.front(), QStringLiteral("step,lr 1e-4,\"lr 3e-4, warm\""));
    QCOMPARE(lines.size(), 1 + 6);  // steps 10..50 and 60
    // Every event's value comes back exactly.
    for (const app::MetricPoint& p : a.series("val/psnr")) {
      const QString row = lines[static_cast<int>(p.step / 10)];
      QCOMPARE(row.section(',', 0, 0).toLongLong(), p.step);
      QCOMPARE(row.section(',', 1, 1).toDouble(), p.value);
    }
    QCOMPARE(lines[2], QStringLiteral("20,20.666666666666668,18.5"));
    QCOMPARE(lines[6], QStringLiteral("60,,nan"));
    // Issue 53 item 9: the hover readout is not part of an exported picture,
    // and is still on screen after it.
    const QString hovered = chart.show_hover_at_step(30);
    QVERIFY(hovered.contains(QStringLiteral("step 30")));
    const QString png = dir.filePath("psnr.png");
    QVERIFY2(chart.export_png(png, &error), qPrintable(error));
    QCOMPARE(chart.hover_text(), hovered);
    const QImage image(png);
    QVERIFY(!image.isNull());
    QVERIFY(image.width() >= 300);
    // Issue 38: SVG too, as vector graphics with the curves' paths and the legend's text.
    const QString svg = dir.filePath("psnr.svg");
    QVERIFY2(chart.export_svg(svg, &error), qPrintable(error));
    QFile svg_file(svg);
    QVERIFY(svg_file.open(QIODevice::ReadOnly));
    QXmlStreamReader xml(&svg_file);
    int paths = 0;
    bool root_is_svg = false, legend_text = false, hover_in_svg = false;
    while (!xml.atEnd()) {
      if (xml.readNext() != QXmlStreamReader::StartElement) {
        if (xml.isCharacters() && xml.text().contains(QStringLiteral("lr 1e-4"))) legend_text = true;
        if (xml.isCharacters() && xml.text().contains(QStringLiteral("step 30"))) hover_in_svg = true;
        continue;
      }
      if (xml.name() == QStringLiteral("svg") && paths == 0) root_is_svg = true;
      if (xml.name() == QStringLiteral("path") || xml.name() == QStringLiteral("polyline")) ++paths;
    }
    QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
    QVERIFY2(!hover_in_svg, "the SVG holds the hover readout");
    // Two runs' curves: the export is named by the chart alone; one run's: by the run too.
    chart.set_title(QStringLiteral("val/psnr"));
    QCOMPARE(chart.default_export_name(), QStringLiteral("val-psnr"));
    MetricChartView single;
    app::RunModel run;
    run.set_run_dir(dir.filePath("quickstart-20261201-061234"));
    run.append_metric("val/psnr", 10, 21.0, true);
    single.add_curve("val/psnr", &run, "val/psnr");
    single.set_title(QStringLiteral("val/psnr"));
    QCOMPARE(single.default_export_name(), QStringLiteral("quickstart-20261201-061234-val-psnr"));
    QVERIFY(root_is_svg);
    QVERIFY2(paths >= 2, qPrintable(QString::number(paths)));
    QVERIFY(legend_text);
    QVERIFY(!chart.export_svg(dir.filePath("no/such/folder/x.svg"), &error));
    QVERIFY(!chart.export_csv(dir.filePath("no/such/folder/x.csv"), &error));
    QVERIFY2(error.contains("no/such/folder"), qPrintable(error));
  }

  void the_direction_of_better_follows_the_metric() {
    QVERIFY(app::metric_higher_is_better("val/psnr"));
    QVERIFY(app::metric_higher_is_better("val/c_index"));
    QVERIFY(!app::metric_higher_is_better("train/diffusion_loss"));
    QVERIFY(!app::metric_higher_is_better("val/l1"));
    QVERIFY(!app::metric_higher_is_better("eval/fid_2_5d"));
  }
};

QTEST_MAIN(TestMetricChart)
#include "test_metric_chart.moc"
