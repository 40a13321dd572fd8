// NodeTable: rows from Launcher::nodes().
#include "ui/monitor/node_table.hpp"

#include <QHeaderView>

namespace medsynth::ui {

NodeTable::NodeTable(QWidget* parent) : QTableWidget(0, 3, parent) {
  setObjectName(QStringLiteral("node_table"));
  setHorizontalHeaderLabels({tr("Node"), tr("State"), tr("Detail")});
  horizontalHeader()->setSectionResizeMode(2, QHeaderView::Stretch);
  verticalHeader()->hide();
  setEditTriggers(QAbstractItemView::NoEditTriggers);
  setSelectionMode(QAbstractItemView::NoSelection);
  setMaximumHeight(130);
  hide();
}

void NodeTable::set_launcher(app::Launcher* launcher) {
  if (launcher_) disconnect(launcher_, nullptr, this, nullptr);
  launcher_ = launcher;
  if (launcher_) connect(launcher_, &app::Launcher::nodes_changed, this, &NodeTable::refresh);
  refresh();
}

void NodeTable::refresh() {
  const QList<app::NodeState> nodes = launcher_ ? launcher_->nodes() : QList<app::NodeState>{};
  setVisible(!nodes.isEmpty());
  setRowCount(static_cast<int>(nodes.size()));
  for (int row = 0; row < nodes.size(); ++row) {
    const app::NodeState& n = nodes[row];
    const QStringList cells{n.name, n.state, n.detail};
    for (int c = 0; c < 3; ++c) {
      auto* item = this->item(row, c);
      if (!item) setItem(row, c, item = new QTableWidgetItem);
      item->setText(cells[c]);
    }
    const bool bad = n.state == QStringLiteral("failed") || n.state == QStringLiteral("gone") || n.state == QStringLiteral("disconnected") ||
                     (n.state == QStringLiteral("exited") && n.exit_code != 0);
    item(row, 1)->setForeground(bad ? QColor(QStringLiteral("#c0392b")) : palette().text().color());
  }
}

}  // namespace medsynth::ui
