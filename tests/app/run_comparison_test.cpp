// Issue 38: runs of different tasks line up in the history (a pipeline
// stage's metric stands for the run's), and the job diff lists exactly the
// fields that differ among runs, an unreadable job saying so.
#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include "app/runs/run_comparison.hpp"

using namespace medsynth::app;

namespace {

void write_job(const QString& dir, const QByteArray& text) {
  QDir().mkpath(dir);
  QFile f(QDir(dir).filePath(QStringLiteral("job.yaml")));
  QVERIFY(f.open(QIODevice::WriteOnly));
  f.write(text);
}

}  // namespace

class TestRunComparison : public QObject {
  Q_OBJECT

 private slots:
  void a_pipeline_stages_metric_stands_for_the_run() {
    const QMap<QString, double> ldm{{"autoencoder/val/psnr", 28.9},
                                    {"autoencoder/train/loss", 0.4},
                                    {"diffusion/train/loss", 0.07},
                                    {"eval/fid_3d", 12.5}};
    QCOMPARE(*headline_metric(ldm, "val/psnr"), 28.9);
    QCOMPARE(*headline_metric(ldm, "train/loss"), 0.07);  // the later stage's
    QCOMPARE(*headline_metric(ldm, "eval/fid_3d"), 12.5);
    QVERIFY(!headline_metric(ldm, "val/ssim"));
    const QMap<QString, double> autoencoder{{"val/psnr", 31.3}, {"autoencoder/val/psnr", 1.0}};
    QCOMPARE(*headline_metric(autoencoder, "val/psnr"), 31.3);  // its own name first
  }

  // Issue 53 item 9: a narrow legend cut every quick-start run to
  // "quickstart-20261201-…"; the legend names keep what differs.
  void legend_names_keep_what_differs_between_runs() {
    const QString dots = QStringLiteral(" \u2026");
    QCOMPARE(distinct_run_labels({"quickstart-20261201-061234", "quickstart-20261201-071010"}),
             QStringList({"quickstart" + dots + "061234", "quickstart" + dots + "071010"}));
    QCOMPARE(
        distinct_run_labels({"quickstart-20261201-061234", "quickstart-20261202-071010", "quickstart-20261202-0812"}),
        QStringList({"quickstart-20261201-061234", "quickstart-20261202-071010", "quickstart-20261202-0812"}));
    // Different jobs, a difference right after the first word, one run: as they are.
    QCOMPARE(distinct_run_labels({"ldm-tiny-20261201-0612", "quickstart-20261201-0612"}),
             QStringList({"ldm-tiny-20261201-0612", "quickstart-20261201-0612"}));
    QCOMPARE(distinct_run_labels({"lr-1e4", "lr-3e4"}), QStringList({"lr-1e4", "lr-3e4"}));
    QCOMPARE(distinct_run_labels({"quickstart-20261201-061234"}), QStringList({"quickstart-20261201-061234"}));
    QCOMPARE(distinct_run_labels({"run-a-b", "run-a-b-2"}), QStringList({"run-a-b", "run-a-b-2"}));
  }

  void the_job_diff_lists_exactly_the_differing_fields() {
    QTemporaryDir dir;
    const QString a = dir.filePath("a"), b = dir.filePath("b"), c = dir.filePath("c"), d = dir.filePath("d");
    const QByteArray base =
        "name: x\ntask: autoencoder\ntraining:\n  lr: 0.001\n  batch_size: 2\ndata:\n  patch_size: [32, 32, 32]\n";
    write_job(a, base);
    write_job(b, QByteArray(base).replace("lr: 0.001", "lr: 0.0003"));
    write_job(c, QByteArray(base).replace("[32, 32, 32]", "[64, 64, 64]") + "output:\n  tensorboard: true\n");
    auto diff = job_differences({a, b, c});
    QCOMPARE(diff.size(), 3);
    QStringList paths;
    for (const auto& d : diff) paths << d.path;
    QCOMPARE(paths, (QStringList{"data.patch_size", "training.lr", "output.tensorboard"}));
    QCOMPARE(diff[0].values, (QStringList{"[32, 32, 32]", "[32, 32, 32]", "[64, 64, 64]"}));
    QCOMPARE(diff[1].values, (QStringList{"0.001", "0.0003", "0.001"}));
    QCOMPARE(diff[2].values, (QStringList{"(absent)", "(absent)", "true"}));
    QVERIFY(job_differences({a, a}).isEmpty());
    // A run whose job.yaml is missing: every field differs, and says why.
    QDir().mkpath(d);
    diff = job_differences({a, d});
    QVERIFY(!diff.isEmpty());
    QVERIFY2(diff.front().values[1].startsWith("(unreadable"), qPrintable(diff.front().values[1]));
  }
};

QTEST_GUILESS_MAIN(TestRunComparison)
#include "run_comparison_test.moc"
