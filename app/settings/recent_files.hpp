// Recently used job files and the run roots the history shows, kept in
// QSettings (organization/application set by the ui's main()). Used by the
// ui's File menu and run history. Tests pass their own QSettings file.
#pragma once

#include <QSettings>
#include <QString>
#include <QStringList>
#include <memory>

namespace medsynth::app {

class RecentFiles {
 public:
  static constexpr int k_default_max = 10;

  // settings_file empty: the application's QSettings; else an INI file (tests).
  explicit RecentFiles(const QString& settings_file = {}, int max_entries = k_default_max);

  // Most recent first, no duplicates (compared as absolute paths), at most max entries.
  QStringList recent_jobs() const;
  void add_recent_job(const QString& path);
  void remove_recent_job(const QString& path);
  void clear_recent_jobs();

  // Folders scanned for runs; defaults to "runs" under the current directory.
  QStringList run_roots() const;
  void set_run_roots(const QStringList& roots);
  void add_run_root(const QString& root);

  // The engine binary the user chose (empty: found automatically).
  QString engine_path() const;
  void set_engine_path(const QString& path);

 private:
  std::unique_ptr<QSettings> settings_;
  int max_entries_;
};

}  // namespace medsynth::app
