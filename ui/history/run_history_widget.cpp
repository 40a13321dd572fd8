#include "ui/history/run_history_widget.hpp"

#include <QDir>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>

#include "ui/history/compare_runs_dialog.hpp"
#include "ui/history/run_table_model.hpp"

namespace medsynth::ui {

namespace {
// Curves stay tellable apart (the chart's palette has 8 colours).
constexpr int k_max_compared = 8;
}  // namespace

RunHistoryWidget::RunHistoryWidget(app::RunStore* store, QWidget* parent) : QWidget(parent), store_(store) {
  model_ = new RunTableModel(store_, this);
  proxy_ = new QSortFilterProxyModel(this);
  proxy_->setSourceModel(model_);
  proxy_->setSortRole(RunTableModel::k_sort_role);
  table_ = new QTableView(this);
  table_->setObjectName("run_table");
  table_->setModel(proxy_);
  table_->setSortingEnabled(true);
  table_->sortByColumn(RunTableModel::started, Qt::DescendingOrder);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSelectionMode(QAbstractItemView::ExtendedSelection);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->setAlternatingRowColors(true);
  table_->verticalHeader()->hide();
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  table_->horizontalHeader()->setStretchLastSection(true);

  refresh_ = new QPushButton(tr("Refresh"), this);
  refresh_->setToolTip(tr("Scan the run folders again (F5)"));
  open_ = new QPushButton(tr("Open monitor"), this);
  compare_ = new QPushButton(tr("Compare"), this);
  compare_->setObjectName("compare");
  compare_->setToolTip(tr("Overlay the curves of the two selected runs"));
  auto* add_root = new QPushButton(tr("Add folder…"), this);
  roots_ = new QLabel(this);
  roots_->setWordWrap(true);
  state_ = new QLabel(this);

  auto* bar = new QHBoxLayout();
  bar->addWidget(refresh_);
  bar->addWidget(open_);
  bar->addWidget(compare_);
  bar->addWidget(add_root);
  bar->addWidget(state_);
  bar->addStretch(1);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(bar);
  layout->addWidget(roots_);
  layout->addWidget(table_, 1);

  connect(refresh_, &QPushButton::clicked, this, &RunHistoryWidget::refresh);
  connect(open_, &QPushButton::clicked, this, [this] {
    for (const QString& dir : selected_run_dirs()) emit open_run_requested(dir);
  });
  connect(compare_, &QPushButton::clicked, this, &RunHistoryWidget::compare_selected);
  connect(add_root, &QPushButton::clicked, this, &RunHistoryWidget::add_root);
  connect(table_, &QTableView::doubleClicked, this, [this](const QModelIndex& index) {
    emit open_run_requested(index.data(RunTableModel::k_run_dir_role).toString());
  });
  connect(table_->selectionModel(), &QItemSelectionModel::selectionChanged, this, &RunHistoryWidget::update_buttons);
  connect(store_, &app::RunStore::refreshed, this, &RunHistoryWidget::on_refreshed);
  on_refreshed();
}

int RunHistoryWidget::row_count() const { return proxy_->rowCount(); }

QStringList RunHistoryWidget::selected_run_dirs() const {
  QList<QModelIndex> rows = table_->selectionModel()->selectedRows();
  std::sort(rows.begin(), rows.end(), [](const QModelIndex& a, const QModelIndex& b) { return a.row() < b.row(); });
  QStringList dirs;
  for (const QModelIndex& index : rows) dirs << index.data(RunTableModel::k_run_dir_role).toString();
  return dirs;
}

void RunHistoryWidget::select_runs(const QStringList& run_dirs) {
  QItemSelection selection;
  for (const QString& dir : run_dirs) {
    const int row = model_->row_of(dir);
    if (row < 0) continue;
    const QModelIndex index = proxy_->mapFromSource(model_->index(row, 0));
    selection.select(index, index);
  }
  table_->selectionModel()->select(selection, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
}

void RunHistoryWidget::refresh() {
  state_->setText(tr("Scanning…"));
  refresh_->setEnabled(false);
  store_->refresh();
}

void RunHistoryWidget::on_refreshed() {
  refresh_->setEnabled(true);
  state_->setText(tr("%n run(s)", nullptr, model_->rowCount()));
  QStringList shown;
  for (const QString& r : store_->roots()) shown << QDir::toNativeSeparators(r);
  roots_->setText(tr("Run folders: %1").arg(shown.isEmpty() ? tr("(none)") : shown.join(QStringLiteral("; "))));
  update_buttons();
}

void RunHistoryWidget::update_buttons() {
  const int n = static_cast<int>(table_->selectionModel()->selectedRows().size());
  open_->setEnabled(n >= 1);
  compare_->setEnabled(n >= 2 && n <= k_max_compared);
}

void RunHistoryWidget::compare_selected() {
  const QStringList dirs = selected_run_dirs();
  if (dirs.size() < 2 || dirs.size() > k_max_compared) return;
  auto* dialog = new CompareRunsDialog(dirs, this);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  dialog->show();
}

void RunHistoryWidget::add_root() {
  const QString dir = QFileDialog::getExistingDirectory(this, tr("Add a folder of runs"));
  if (dir.isEmpty()) return;
  QStringList roots = store_->roots();
  if (!roots.contains(dir)) roots << dir;
  store_->set_roots(roots);
  emit roots_changed(roots);
  refresh();
}

}  // namespace medsynth::ui
