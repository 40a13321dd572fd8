#include "ui/history/run_table_model.hpp"

#include <QBrush>
#include <QColor>
#include <QDir>
#include <QLocale>

#include "app/runs/run_comparison.hpp"

namespace medsynth::ui {

namespace {

// The run's value, or a pipeline stage's (app::headline_metric): an ldm run's
// PSNR is its autoencoder stage's, its loss the diffusion stage's.
QVariant metric_or_empty(const app::RunSummary& r, const char* key) {
  const auto v = app::headline_metric(r.final_metrics, QString::fromLatin1(key));
  return v ? QVariant(*v) : QVariant();
}

QString format_time(const QDateTime& t) {
  return t.isValid() ? t.toLocalTime().toString(QStringLiteral("yyyy-MM-dd hh:mm:ss")) : QString();
}

}  // namespace

RunTableModel::RunTableModel(app::RunStore* store, QObject* parent) : QAbstractTableModel(parent), store_(store) {
  connect(store_, &app::RunStore::refreshed, this, &RunTableModel::reload);
  reload();
}

void RunTableModel::reload() {
  beginResetModel();
  runs_ = store_->runs();
  endResetModel();
}

int RunTableModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : static_cast<int>(runs_.size()); }
int RunTableModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : column_count; }

int RunTableModel::row_of(const QString& run_dir) const {
  const QString clean = QDir::cleanPath(run_dir);
  for (int i = 0; i < runs_.size(); ++i) {
    if (QDir::cleanPath(runs_[i].run_dir) == clean) return i;
  }
  return -1;
}

QVariant RunTableModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= runs_.size()) return {};
  const app::RunSummary& r = runs_[index.row()];
  if (role == k_run_dir_role) return r.run_dir;
  if (role == Qt::ToolTipRole) {
    QString tip = QDir::toNativeSeparators(r.run_dir);
    if (!r.failure_message.isEmpty()) tip += "\n" + r.failure_message;
    if (r.unreadable_lines > 0) tip += tr("\n%1 unreadable event lines").arg(r.unreadable_lines);
    return tip;
  }
  if (role == Qt::ForegroundRole && index.column() == status) {
    switch (r.status) {
      case app::RunStatus::finished: return QBrush(QColor(0x2c, 0xa0, 0x2c));
      case app::RunStatus::failed: return QBrush(QColor(0xd6, 0x27, 0x28));
      case app::RunStatus::stopped: return QBrush(QColor(0xe0, 0x8a, 0x00));
      case app::RunStatus::running: return QBrush(QColor(0x1f, 0x77, 0xb4));
      default: return {};
    }
  }
  if (role == Qt::TextAlignmentRole && index.column() >= steps) return int(Qt::AlignRight | Qt::AlignVCenter);
  const bool sort = role == k_sort_role;
  if (role != Qt::DisplayRole && !sort) return {};
  switch (index.column()) {
    case name: return r.name;
    case task: return r.task;
    case status: {
      if (sort) return static_cast<int>(r.status);
      QString text = app::to_string(r.status);
      if (r.status == app::RunStatus::unknown) text = tr("interrupted");
      if (r.status == app::RunStatus::finished && r.finish_reason == QLatin1String("stopped")) text += tr(" (stopped)");
      return text;
    }
    case started: return sort ? QVariant(r.started) : QVariant(format_time(r.started));
    case ended: return sort ? QVariant(r.ended) : QVariant(format_time(r.ended));
    case steps:
      if (sort) return r.steps;
      return r.total_steps > 0 ? QStringLiteral("%1 / %2").arg(r.steps).arg(r.total_steps) : QString::number(r.steps);
    case world: return r.world_size > 0 ? QVariant(r.world_size) : QVariant();
    case loss: {
      const QVariant v = metric_or_empty(r, "train/loss");
      return sort || !v.isValid() ? v : QVariant(QString::number(v.toDouble(), 'g', 4));
    }
    case psnr: {
      const QVariant v = metric_or_empty(r, "val/psnr");
      return sort || !v.isValid() ? v : QVariant(QString::number(v.toDouble(), 'f', 2));
    }
    case ssim: {
      const QVariant v = metric_or_empty(r, "val/ssim");
      return sort || !v.isValid() ? v : QVariant(QString::number(v.toDouble(), 'f', 4));
    }
    case fid: {  // evaluate's, with a feature network (2.5D), else the 3D one
      QVariant v = metric_or_empty(r, "eval/fid");
      if (!v.isValid()) v = metric_or_empty(r, "eval/fid_3d");
      return sort || !v.isValid() ? v : QVariant(QString::number(v.toDouble(), 'g', 4));
    }
    case memorized: {
      const QVariant v = metric_or_empty(r, "eval/memorization_flagged");
      return sort || !v.isValid() ? v : QVariant(QString::number(v.toInt()));
    }
    case sweep:
      return r.sweep;
    default: return {};
  }
}

QVariant RunTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case name: return tr("Run");
    case task: return tr("Task");
    case status: return tr("Status");
    case started: return tr("Started");
    case ended: return tr("Ended");
    case steps: return tr("Steps");
    case world: return tr("Processes");
    case loss: return tr("Final loss");
    case psnr: return tr("PSNR");
    case ssim: return tr("SSIM");
    case fid:
      return tr("FID");
    case memorized:
      return tr("Memorized");
    default: return {};
  }
}

}  // namespace medsynth::ui
