#include "app/settings/settings_store.hpp"

#include <QSettings>

namespace medsynth::app {

namespace {
const QString k_geometry = QStringLiteral("window/geometry");
const QString k_state = QStringLiteral("window/state");
const QString k_theme = QStringLiteral("ui/theme");
const QString k_processes = QStringLiteral("launch/processes");
const QString k_restarts = QStringLiteral("launch/max_restarts");
}  // namespace

SettingsStore::SettingsStore(const QString& ini_file)
    : settings_(ini_file.isEmpty() ? std::make_unique<QSettings>()
                                   : std::make_unique<QSettings>(ini_file, QSettings::IniFormat)),
      recent_(ini_file, k_max_recent_jobs) {}

SettingsStore::~SettingsStore() = default;

QByteArray SettingsStore::window_geometry() const { return settings_->value(k_geometry).toByteArray(); }
void SettingsStore::set_window_geometry(const QByteArray& geometry) { settings_->setValue(k_geometry, geometry); }
QByteArray SettingsStore::window_state() const { return settings_->value(k_state).toByteArray(); }
void SettingsStore::set_window_state(const QByteArray& state) { settings_->setValue(k_state, state); }

QString SettingsStore::theme() const {
  const QString t = settings_->value(k_theme, QStringLiteral("light")).toString();
  return t == QLatin1String("dark") ? t : QStringLiteral("light");
}
void SettingsStore::set_theme(const QString& theme) { settings_->setValue(k_theme, theme); }

QStringList SettingsStore::recent_jobs() const { return recent_.recent_jobs(); }
void SettingsStore::add_recent_job(const QString& path) { recent_.add_recent_job(path); }
void SettingsStore::remove_recent_job(const QString& path) { recent_.remove_recent_job(path); }
QStringList SettingsStore::runs_roots() const { return recent_.run_roots(); }
void SettingsStore::set_runs_roots(const QStringList& roots) { recent_.set_run_roots(roots); }

int SettingsStore::processes() const { return settings_->value(k_processes, 0).toInt(); }
void SettingsStore::set_processes(int n) { settings_->setValue(k_processes, n); }
int SettingsStore::max_restarts() const { return settings_->value(k_restarts, 0).toInt(); }
void SettingsStore::set_max_restarts(int n) { settings_->setValue(k_restarts, n); }

void SettingsStore::sync() { settings_->sync(); }
QString SettingsStore::file_name() const { return settings_->fileName(); }

}  // namespace medsynth::app
