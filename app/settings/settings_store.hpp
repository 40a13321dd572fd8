// The console's persisted preferences (QSettings): window geometry and state,
// theme, the last launch choices (processes, max restarts), and - through
// app::RecentFiles, in the same settings file - recent job files and the
// run-history roots. Used by MainWindow, ThemeController,
// JobEditorWidget (recent jobs) and MachinePanel. Tests pass an INI file so
// they never touch the user's settings.
//
// GUI thread only (QSettings writes are small and cached by Qt).
#pragma once

#include <QByteArray>
#include <QString>
#include <QStringList>
#include <memory>

#include "app/settings/recent_files.hpp"

QT_BEGIN_NAMESPACE
class QSettings;
QT_END_NAMESPACE

namespace medsynth::app {

class SettingsStore {
 public:
  static constexpr int k_max_recent_jobs = 10;

  // ini_file empty: the application's QSettings (main() sets organization and
  // application name "medsynth"); else that INI file.
  explicit SettingsStore(const QString& ini_file = {});
  ~SettingsStore();
  SettingsStore(const SettingsStore&) = delete;
  SettingsStore& operator=(const SettingsStore&) = delete;

  QByteArray window_geometry() const;
  void set_window_geometry(const QByteArray& geometry);
  QByteArray window_state() const;
  void set_window_state(const QByteArray& state);

  QString theme() const;  // "light" or "dark"
  void set_theme(const QString& theme);

  // Most recent first, no duplicates, at most k_max_recent_jobs (app::RecentFiles).
  QStringList recent_jobs() const;
  void add_recent_job(const QString& path);
  void remove_recent_job(const QString& path);

  // Defaults to "runs" under the working directory (app::RecentFiles).
  QStringList runs_roots() const;
  void set_runs_roots(const QStringList& roots);

  int processes() const;  // 0 when never set
  void set_processes(int n);
  int max_restarts() const;
  void set_max_restarts(int n);

  void sync();
  // The underlying settings, for stores of their own (app::ClusterInventory).
  QSettings* qsettings() const { return settings_.get(); }
  QString file_name() const;

 private:
  std::unique_ptr<QSettings> settings_;
  app::RecentFiles recent_;
};

}  // namespace medsynth::app
