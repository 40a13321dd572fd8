// Per-node status of a cluster run in its monitor tab: node, state
// (connecting, running, disconnected, reattached, stopping, exited, ...) and
// detail (pid, exit code, the error). Follows app::Launcher::nodes_changed;
// hidden for local runs, which have no nodes.
#pragma once

#include <QPointer>
#include <QTableWidget>

#include "app/launch/launcher.hpp"

namespace medsynth::ui {

class NodeTable : public QTableWidget {
  Q_OBJECT

 public:
  explicit NodeTable(QWidget* parent = nullptr);
  void set_launcher(app::Launcher* launcher);  // null: none (hidden)

 private:
  void refresh();
  QPointer<app::Launcher> launcher_;
};

}  // namespace medsynth::ui
