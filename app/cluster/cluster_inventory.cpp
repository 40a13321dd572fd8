// ClusterInventory: CLUSTER.yaml texts in QSettings.
#include "app/cluster/cluster_inventory.hpp"

#include <QSettings>

namespace medsynth::app {

ClusterInventory::ClusterInventory(QSettings* settings) : settings_(settings) {}

QStringList ClusterInventory::names() const {
  QStringList names;
  for (const ClusterSpec& c : clusters()) names << c.name;
  return names;
}

QList<ClusterSpec> ClusterInventory::clusters() const {
  QList<ClusterSpec> out;
  if (!settings_) return out;
  settings_->beginGroup(QStringLiteral("clusters"));
  QStringList keys = settings_->childKeys();
  keys.sort();
  for (const QString& key : keys) {
    QString error;
    if (auto spec = parse_cluster_yaml(settings_->value(key).toString(), QStringLiteral("settings: clusters/") + key, &error)) out << *spec;
  }
  settings_->endGroup();
  return out;
}

std::optional<ClusterSpec> ClusterInventory::find(const QString& name) const {
  for (const ClusterSpec& c : clusters())
    if (c.name == name) return c;
  return std::nullopt;
}

QString ClusterInventory::put(const ClusterSpec& cluster) {
  if (const QStringList problems = cluster.validate(); !problems.isEmpty()) return problems.join(QLatin1Char('\n'));
  if (!settings_) return QStringLiteral("no settings to store the cluster in");
  settings_->setValue(QStringLiteral("clusters/") + cluster.name, cluster_to_yaml(cluster));
  return {};
}

bool ClusterInventory::remove(const QString& name) {
  if (!settings_ || !settings_->contains(QStringLiteral("clusters/") + name)) return false;
  settings_->remove(QStringLiteral("clusters/") + name);
  return true;
}

}  // namespace medsynth::app
