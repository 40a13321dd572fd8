// RecentFiles: lists in QSettings under "recent/jobs", "runs/roots", "engine/path".
#include "app/settings/recent_files.hpp"

#include <QDir>
#include <QFileInfo>

namespace medsynth::app {

namespace {
const QString k_jobs = QStringLiteral("recent/jobs");
const QString k_roots = QStringLiteral("runs/roots");
const QString k_engine = QStringLiteral("engine/path");

QString normalized(const QString& path) { return QDir::cleanPath(QFileInfo(path).absoluteFilePath()); }
}  // namespace

RecentFiles::RecentFiles(const QString& settings_file, int max_entries)
    : settings_(settings_file.isEmpty() ? std::make_unique<QSettings>()
                                        : std::make_unique<QSettings>(settings_file, QSettings::IniFormat)),
      max_entries_(std::max(1, max_entries)) {}

QStringList RecentFiles::recent_jobs() const { return settings_->value(k_jobs).toStringList(); }

void RecentFiles::add_recent_job(const QString& path) {
  if (path.isEmpty()) return;
  const QString p = normalized(path);
  QStringList jobs = recent_jobs();
  jobs.removeAll(p);
  jobs.prepend(p);
  while (jobs.size() > max_entries_) jobs.removeLast();
  settings_->setValue(k_jobs, jobs);
}

void RecentFiles::remove_recent_job(const QString& path) {
  QStringList jobs = recent_jobs();
  jobs.removeAll(normalized(path));
  settings_->setValue(k_jobs, jobs);
}

void RecentFiles::clear_recent_jobs() { settings_->remove(k_jobs); }

QStringList RecentFiles::run_roots() const {
  const QStringList roots = settings_->value(k_roots).toStringList();
  return roots.isEmpty() ? QStringList{QDir::current().absoluteFilePath(QStringLiteral("runs"))} : roots;
}

void RecentFiles::set_run_roots(const QStringList& roots) {
  QStringList clean;
  for (const auto& r : roots)
    if (!r.isEmpty() && !clean.contains(normalized(r))) clean << normalized(r);
  settings_->setValue(k_roots, clean);
}

void RecentFiles::add_run_root(const QString& root) {
  QStringList roots = settings_->value(k_roots).toStringList();
  roots << root;
  set_run_roots(roots);
}

QString RecentFiles::engine_path() const { return settings_->value(k_engine).toString(); }

void RecentFiles::set_engine_path(const QString& path) {
  if (path.isEmpty())
    settings_->remove(k_engine);
  else
    settings_->setValue(k_engine, normalized(path));
}

}  // namespace medsynth::app
