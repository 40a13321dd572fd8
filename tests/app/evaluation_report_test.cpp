// RUN/evaluation/evaluation.json as the console reads it: the fixture is a real
// `medsynth-engine evaluate` of a few-step ldm-tiny run with one training
// phantom planted among its images (fixtures/make_fixtures.sh, "evaluated").
#include <QTemporaryDir>
#include <QTest>

#include "app/runs/evaluation_report.hpp"
#include "app_test_support.hpp"

using namespace medsynth::app;

class EvaluationReportTest : public QObject {
  Q_OBJECT

 private slots:
  void reads_every_metric_the_histograms_and_the_flagged_pair() {
    QString error;
    const auto r = read_evaluation_report(test::fixture(QStringLiteral("evaluated/evaluation/evaluation.json")), &error);
    QVERIFY2(r, qPrintable(error));
    QCOMPARE(r->generated, 4);
    QCOMPARE(r->reference, 4);
    QStringList names;
    for (const auto& m : r->metrics) names << m.name;
    for (const char* name : {"hu_w1", "ms_ssim_diversity", "ms_ssim_fidelity", "mmd", "memorization_flagged", "fid"})
      QVERIFY2(names.contains(QLatin1String(name)), name);
    for (const auto& m : r->metrics) {
      if (m.name == QLatin1String("fid")) QVERIFY2(!m.value && m.note.contains(QLatin1String("no --features")), qPrintable(m.note));
      if (m.name == QLatin1String("memorization_flagged")) QCOMPARE(*m.value, 1.0);
    }
    QCOMPARE(r->histogram_generated.size(), r->histogram_reference.size());
    QVERIFY(r->histogram_generated.size() > 100);
    double total = 0;
    for (double v : r->histogram_reference) total += v;
    QVERIFY(std::abs(total - 1.0) < 1e-9);
    QCOMPARE(r->memorization.size(), 4);
    const QStringList flagged = r->flagged_pairs_text();
    QCOMPARE(flagged.size(), 1);
    QVERIFY2(flagged[0].startsWith(QLatin1String("image_planted_copy.nii.gz ~ phantom-")), qPrintable(flagged[0]));
  }

  void the_html_report_holds_the_table_the_flag_and_the_chart() {
    QString error;
    const auto r = read_evaluation_report(test::fixture(QStringLiteral("evaluated/evaluation/evaluation.json")), &error);
    QVERIFY(r);
    const QString html = evaluation_report_html(*r, QStringLiteral("Evaluation of <ldm-tiny>"), QByteArray("\x89PNG fake", 9));
    QVERIFY(html.contains(QLatin1String("<title>Evaluation of &lt;ldm-tiny&gt;</title>")));
    QVERIFY(html.contains(QLatin1String("<td>ms_ssim_fidelity</td>")));
    QVERIFY(html.contains(QLatin1String("class=\"flag\">image_planted_copy.nii.gz ~ phantom-")));
    QVERIFY(html.contains(QLatin1String("src=\"data:image/png;base64,") + QString::fromLatin1(QByteArray("\x89PNG fake", 9).toBase64())));
  }

  void a_broken_file_is_an_error_naming_it() {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("evaluation.json"));
    QVERIFY(test::write_all(path, "{\"metrics\": 5}"));
    QString error;
    QVERIFY(!read_evaluation_report(path, &error));
    QVERIFY2(error.startsWith(path + QStringLiteral(": no 'metrics' list")), qPrintable(error));
    QVERIFY(!read_evaluation_report(dir.filePath(QStringLiteral("missing.json")), &error));
    QVERIFY2(error.contains(QLatin1String("missing.json: cannot read")), qPrintable(error));
  }
};

QTEST_GUILESS_MAIN(EvaluationReportTest)
#include "evaluation_report_test.moc"
