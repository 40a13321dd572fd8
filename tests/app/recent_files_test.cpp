// RecentFiles: most recent first, no duplicates, bounded; run roots and engine path.
#include <QTemporaryDir>
#include <QTest>

#include "app/settings/recent_files.hpp"

using namespace medsynth::app;

class RecentFilesTest : public QObject {
  Q_OBJECT

 private slots:
  void keeps_recent_jobs_in_order() {
    QTemporaryDir tmp;
    const QString ini = tmp.filePath(QStringLiteral("settings.ini"));
    {
      RecentFiles recent(ini, 3);
      recent.add_recent_job(tmp.filePath("a.yaml"));
      recent.add_recent_job(tmp.filePath("b.yaml"));
      recent.add_recent_job(tmp.filePath("sub/../a.yaml"));  // the same file again
      recent.add_recent_job(tmp.filePath("c.yaml"));
      recent.add_recent_job(tmp.filePath("d.yaml"));
      QCOMPARE(recent.recent_jobs(), (QStringList{tmp.filePath("d.yaml"), tmp.filePath("c.yaml"), tmp.filePath("a.yaml")}));
      recent.remove_recent_job(tmp.filePath("c.yaml"));
      recent.set_run_roots({tmp.filePath("runs"), tmp.filePath("runs/"), QString()});
      recent.set_engine_path(tmp.filePath("bin/medsynth-engine"));
    }
    RecentFiles again(ini, 3);  // persisted
    QCOMPARE(again.recent_jobs(), (QStringList{tmp.filePath("d.yaml"), tmp.filePath("a.yaml")}));
    QCOMPARE(again.run_roots(), QStringList{tmp.filePath("runs")});
    again.add_run_root(tmp.filePath("other"));
    QCOMPARE(again.run_roots().size(), 2);
    QCOMPARE(again.engine_path(), tmp.filePath("bin/medsynth-engine"));
    again.clear_recent_jobs();
    QVERIFY(again.recent_jobs().isEmpty());
  }
};

QTEST_GUILESS_MAIN(RecentFilesTest)
#include "recent_files_test.moc"
