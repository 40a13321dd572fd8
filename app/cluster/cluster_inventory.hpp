// The clusters the console knows, kept in its settings (QSettings group
// "clusters", one CLUSTER.yaml text per cluster: the same format as the
// files `medsynth run --cluster` reads, so a cluster can be exported and
// imported). Nothing secret is stored: ClusterSpec has no such field.
#pragma once

#include <QList>
#include <QString>
#include <optional>

#include "app/cluster/cluster_spec.hpp"

class QSettings;

namespace medsynth::app {

class ClusterInventory {
 public:
  explicit ClusterInventory(QSettings* settings);  // not owned

  QList<ClusterSpec> clusters() const;  // sorted by name; unreadable entries are skipped
  QStringList names() const;
  std::optional<ClusterSpec> find(const QString& name) const;
  // Adds or replaces (by name). Returns "" or the validation problems.
  QString put(const ClusterSpec& cluster);
  bool remove(const QString& name);

 private:
  QSettings* settings_;
};

}  // namespace medsynth::app
