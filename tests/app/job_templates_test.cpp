// The built-in templates: all seed workflows present, compiled in; the
// supported ones validate with the config library (data paths aside), the
// pending ones can never be launched.
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include "app/jobs/job_document.hpp"
#include "app/jobs/job_templates.hpp"
#include "app/launch/local_launcher.hpp"
#include "app_test_support.hpp"
#include "config/job_loader.hpp"

using namespace medsynth::app;

namespace {
// Every seed workflow trains now; a template of a workflow the engine does
// not train must still never launch, so the pending checks also run on one
// made up here.
QList<JobTemplate> with_a_pending_template() {
  QList<JobTemplate> list = builtin_templates();
  JobTemplate t;
  t.id = QStringLiteral("future-workflow");
  t.title = QStringLiteral("A workflow the engine does not train");
  t.workflow = QStringLiteral("test");
  t.description = QStringLiteral("test");
  t.engine_supported = false;
  t.pending_reason = QStringLiteral("engine support pending (test)");
  t.yaml = QStringLiteral("# Pending keys: none\nname: future\ntask: segmentation\n");
  list << t;
  return list;
}
}  // namespace

class JobTemplatesTest : public QObject {
  Q_OBJECT

 private slots:
  void all_seed_workflows_are_there() {
    QStringList ids;
    for (const auto& t : builtin_templates()) {
      ids << t.id;
      QVERIFY2(!t.yaml.isEmpty(), qPrintable(t.id + ": resource missing"));
      QVERIFY(!t.title.isEmpty() && !t.description.isEmpty() && !t.workflow.isEmpty());
      QCOMPARE(t.engine_supported, t.pending_reason.isEmpty());
    }
    QCOMPARE(ids, (QStringList{"kl-autoencoder-amp", "maisi-autoencoder", "maisi3d-rflow", "maisi3d-ddpm", "fast-ddpm",
                               "fast-ddpm-brats", "ldm-tiny", "ldm-vqgan-tiny", "vqgan-patches", "vqgan-tiny",
                               "resnet-survival", "survival-tiny"}));
    QVERIFY(!find_template(QStringLiteral("nope")));
    // The supported templates are the shipped job files themselves.
    QCOMPARE(find_template(QStringLiteral("kl-autoencoder-amp"))->yaml.toUtf8(),
             test::read_all(test::source_dir() + "/resources/jobs/quickstart.yaml"));
    QCOMPARE(find_template(QStringLiteral("maisi-autoencoder"))->yaml.toUtf8(),
             test::read_all(test::source_dir() + "/resources/jobs/maisi-autoencoder.yaml"));
    QCOMPARE(find_template(QStringLiteral("vqgan-patches"))->yaml.toUtf8(),
             test::read_all(test::source_dir() + "/resources/jobs/vqgan-ctpa-patches.yaml"));
    for (const char* id : {"maisi3d-rflow", "maisi3d-ddpm", "fast-ddpm", "fast-ddpm-brats", "ldm-tiny",
                           "ldm-vqgan-tiny", "vqgan-tiny", "resnet-survival", "survival-tiny"})
      QCOMPARE(find_template(QString::fromLatin1(id))->yaml.toUtf8(),
               test::read_all(test::source_dir() + "/resources/jobs/" + QString::fromLatin1(id) + ".yaml"));
  }

  void supported_templates_validate() {
    // A template of real data only (fast-ddpm-brats: BraTS case folders)
    // names a folder this machine lacks; given one, it validates.
    QTemporaryDir cases;
    for (const char* contrast : {"t1n", "t1c", "t2w", "t2f"})
      QVERIFY(test::write_all(cases.filePath(QStringLiteral("c1/c1-%1.nii.gz").arg(QLatin1String(contrast))), "x"));
    for (const auto& t : builtin_templates()) {
      if (!t.engine_supported) continue;
      JobDocument doc;
      doc.load_template(t);
      QStringList problems;
      for (const auto& i : doc.issues())
        if (i.path != QLatin1String("data.path")) problems << i.to_string();
      QVERIFY2(problems.isEmpty(), qPrintable(t.id + ": " + problems.join("; ")));
      if (!doc.spec()) QVERIFY(doc.set_value(QStringLiteral("data.path"), cases.path()));
      QVERIFY(doc.spec().has_value());
      QVERIFY2(doc.spec()->task == "autoencoder" || doc.spec()->task == "ldm" || doc.spec()->task == "vqgan" ||
                   doc.spec()->task == "survival" || doc.spec()->task == "translation",
               qPrintable(t.id));
      QVERIFY(doc.is_launchable());
    }
  }

  void pending_templates_are_never_launchable() {
    const QString engine = test::engine_path();
    for (const auto& t : with_a_pending_template()) {
      if (t.engine_supported) continue;
      QVERIFY2(t.pending_reason.contains(QStringLiteral("engine support pending")), qPrintable(t.id));
      QVERIFY2(t.yaml.contains(QStringLiteral("Pending keys")), qPrintable(t.id + ": no header naming the pending keys"));
      JobDocument doc;
      doc.load_template(t);
      QString why;
      QVERIFY(!doc.is_launchable(&why));
      QCOMPARE(why, t.pending_reason);
      // Even a valid-looking request refuses, before any process starts.
      QTemporaryDir tmp;
      QString error;
      QVERIFY(doc.save(tmp.filePath(t.id + ".yaml"), &error));
      LaunchRequest request;
      request.job_file = doc.path();
      request.pending_reason = doc.pending_reason();
      QVERIFY(request.validate().front().contains(t.pending_reason));
      LocalLauncherOptions options;
      options.engine = engine.isEmpty() ? QStringLiteral("/bin/true") : engine;
      LocalLauncher launcher(nullptr, options);
      QSignalSpy refused(&launcher, &Launcher::failed_to_start);
      QSignalSpy finished(&launcher, &Launcher::finished);
      QSignalSpy started(&launcher, &Launcher::started);
      launcher.start(request);
      QCOMPARE(refused.size(), 1);
      QCOMPARE(finished.size(), 1);
      QVERIFY(!launcher.is_running());
      QCOMPARE(started.size(), 0);
      // And the config library refuses the task itself.
      QVERIFY(!doc.is_valid());
      bool task_refused = false;
      for (const auto& i : doc.issues()) task_refused = task_refused || i.path == QLatin1String("task");
      QVERIFY2(task_refused, qPrintable(t.id));
    }
  }
};

QTEST_GUILESS_MAIN(JobTemplatesTest)
#include "job_templates_test.moc"
