// Shared helpers of the tests/app suites: where the engine binary, the source
// tree and the recorded run directories (fixtures/, made by
// fixtures/make_fixtures.sh from real engine runs) are.
#pragma once

#include <QByteArray>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QString>

namespace medsynth::app::test {

// $MEDSYNTH_ENGINE, else the engine of this build tree; empty when neither exists.
inline QString engine_path() {
  const QString env = qEnvironmentVariable("MEDSYNTH_ENGINE");
  if (!env.isEmpty()) return QFileInfo(env).isExecutable() ? env : QString();
  const QString built = QStringLiteral(MEDSYNTH_ENGINE_DEFAULT);
  return QFileInfo(built).isExecutable() ? built : QString();
}

inline QString source_dir() { return QStringLiteral(MEDSYNTH_SOURCE_DIR); }
inline QString fixture(const QString& name) { return QStringLiteral(MEDSYNTH_APP_FIXTURES "/") + name; }

inline QByteArray read_all(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

inline bool write_all(const QString& path, const QByteArray& bytes, QIODevice::OpenMode mode = QIODevice::WriteOnly) {
  QDir().mkpath(QFileInfo(path).absolutePath());
  QFile f(path);
  if (!f.open(mode)) return false;
  return f.write(bytes) == bytes.size();
}

// Copies a fixture run directory (events.jsonl, job.yaml, logs/) into dest.
inline bool copy_run(const QString& from, const QString& dest) {
  for (const QString& rel : {QStringLiteral("events.jsonl"), QStringLiteral("job.yaml")})
    if (QFile::exists(from + "/" + rel) && !write_all(dest + "/" + rel, read_all(from + "/" + rel))) return false;
  const QDir logs(from + "/logs");
  for (const auto& name : logs.entryList(QDir::Files))
    if (!write_all(dest + "/logs/" + name, read_all(logs.filePath(name)))) return false;
  return true;
}

}  // namespace medsynth::app::test
