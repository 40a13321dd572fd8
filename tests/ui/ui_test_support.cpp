#include "ui_test_support.hpp"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QProcessEnvironment>

namespace medsynth::ui::test {

QString engine_path() {
  const QString env = QProcessEnvironment::systemEnvironment().value(QStringLiteral("MEDSYNTH_ENGINE"));
  return env.isEmpty() ? QStringLiteral(MEDSYNTH_ENGINE_DEFAULT) : env;
}

QString output_dir() {
  const QString dir = QStringLiteral(MEDSYNTH_TEST_OUTPUT_DIR);
  QDir().mkpath(dir);
  return dir;
}

QString source_dir() { return QStringLiteral(MEDSYNTH_SOURCE_DIR); }

QString quickstart_job() { return QStringLiteral(MEDSYNTH_SOURCE_DIR "/resources/jobs/quickstart.yaml"); }

QStringList tiny_job_overrides(int steps, int val_every) {
  return {QStringLiteral("data.num_train=4"),
          QStringLiteral("data.num_val=2"),
          QStringLiteral("data.phantom_size=[32,32,32]"),
          QStringLiteral("data.patch_size=[16,16,16]"),
          QStringLiteral("model.autoencoder.num_channels=[8,16,16]"),
          QStringLiteral("model.autoencoder.num_res_blocks=[1,1,1]"),
          QStringLiteral("model.autoencoder.norm_num_groups=4"),
          QStringLiteral("training.max_steps=%1").arg(steps),
          QStringLiteral("training.val_every_steps=%1").arg(val_every),
          QStringLiteral("training.batch_size=1"),
          QStringLiteral("training.val_sliding_window=false"),
          QStringLiteral("output.save_reconstructions=0"),
          QStringLiteral("output.log_every_steps=5"),
          QStringLiteral("output.tensorboard=false")};
}

bool engine_has_launch() {
  QProcess p;
  p.start(engine_path(), {QStringLiteral("launch"), QStringLiteral("--help")});
  if (!p.waitForFinished(30000)) {
    p.kill();
    p.waitForFinished();
    return false;
  }
  return p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0;
}

QString run_tiny_job(const QString& runs_dir, int processes, QString* error, int steps, int val_every) {
  QStringList args;
  if (processes > 1) args << QStringLiteral("launch") << QStringLiteral("--nproc-per-node") << QString::number(processes);
  args << QStringLiteral("train") << quickstart_job() << tiny_job_overrides(steps, val_every)
       << QStringLiteral("--runs-dir") << runs_dir << QStringLiteral("--no-progress") << QStringLiteral("--quiet");
  QProcess p;
  p.setProcessChannelMode(QProcess::SeparateChannels);
  p.start(engine_path(), args);
  if (!p.waitForFinished(600000) || p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0) {
    *error = QStringLiteral("engine %1 failed (exit %2): %3")
                 .arg(args.join(' '))
                 .arg(p.exitCode())
                 .arg(QString::fromUtf8(p.readAllStandardError().right(2000)));
    return {};
  }
  const QStringList dirs = QDir(runs_dir).entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Time);
  if (dirs.isEmpty()) {
    *error = QStringLiteral("no run directory under %1").arg(runs_dir);
    return {};
  }
  return QDir(runs_dir).filePath(dirs.front());  // the newest
}

bool relocate_fixture_run(const QString& fixture_dir, const QString& dest, QString* error) {
  QFile events(fixture_dir + QStringLiteral("/events.jsonl"));
  if (!events.open(QIODevice::ReadOnly)) {
    *error = QStringLiteral("%1: %2").arg(events.fileName(), events.errorString());
    return false;
  }
  QByteArray stream = events.readAll();
  const QByteArray key = R"("run_dir":")";
  const qsizetype at = stream.indexOf(key);
  if (at < 0) {
    *error = events.fileName() + QStringLiteral(": no run_started names a run directory");
    return false;
  }
  const qsizetype start = at + key.size();
  const QByteArray recorded = stream.mid(start, stream.indexOf('"', start) - start);
  stream.replace(recorded, QDir::cleanPath(dest).toUtf8());
  QDirIterator it(fixture_dir, QDir::Files, QDirIterator::Subdirectories);
  while (it.hasNext()) {
    const QString from = it.next();
    const QString to = dest + QLatin1Char('/') + QDir(fixture_dir).relativeFilePath(from);
    QDir().mkpath(QFileInfo(to).absolutePath());
    QFile::remove(to);
    if (!QFile::copy(from, to)) {
      *error = QStringLiteral("cannot copy %1 to %2").arg(from, to);
      return false;
    }
  }
  QFile out(dest + QStringLiteral("/events.jsonl"));
  if (!out.open(QIODevice::WriteOnly | QIODevice::Truncate) || out.write(stream) != stream.size()) {
    *error = QStringLiteral("%1: %2").arg(out.fileName(), out.errorString());
    return false;
  }
  return true;
}

}  // namespace medsynth::ui::test
