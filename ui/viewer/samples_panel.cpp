#include "ui/viewer/samples_panel.hpp"

#include <QCheckBox>
#include <QDir>
#include <QFileInfo>
#include <QHeaderView>
#include <QSplitter>
#include <QTreeWidget>
#include <QVBoxLayout>

#include "app/runs/run_model.hpp"

namespace medsynth::ui {

namespace {
enum Column { k_step = 0, k_kind = 1, k_file = 2 };
constexpr int k_path_role = Qt::UserRole + 1;
}  // namespace

SamplesPanel::SamplesPanel(QWidget* parent, ViewerOptions viewer_options) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  auto* splitter = new QSplitter(Qt::Horizontal, this);
  layout->addWidget(splitter);

  auto* side = new QWidget(splitter);
  auto* side_layout = new QVBoxLayout(side);
  side_layout->setContentsMargins(0, 0, 0, 0);
  list_ = new QTreeWidget(side);
  list_->setObjectName(QStringLiteral("samples_list"));
  list_->setColumnCount(3);
  list_->setHeaderLabels({tr("Step"), tr("Kind"), tr("File")});
  list_->setRootIsDecorated(false);
  list_->setSelectionMode(QAbstractItemView::SingleSelection);
  list_->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
  list_->header()->setStretchLastSection(true);
  list_->setMinimumWidth(220);
  side_layout->addWidget(list_);
  follow_ = new QCheckBox(tr("Follow newest"), side);
  follow_->setChecked(true);
  side_layout->addWidget(follow_);

  viewer_ = new VolumeViewerWidget(splitter, viewer_options);
  splitter->addWidget(side);
  splitter->addWidget(viewer_);
  splitter->setStretchFactor(1, 3);
  splitter->setSizes({280, 820});

  connect(list_, &QTreeWidget::itemActivated, this,
          [this](QTreeWidgetItem* item) { open_row(list_->indexOfTopLevelItem(item)); });
  connect(list_, &QTreeWidget::itemClicked, this,
          [this](QTreeWidgetItem* item) { open_row(list_->indexOfTopLevelItem(item)); });
}

SamplesPanel::~SamplesPanel() = default;

bool SamplesPanel::is_volume_artifact(const QString& path, const QString& kind) {
  return kind == QLatin1String("volume") || path.endsWith(QLatin1String(".nii")) ||
         path.endsWith(QLatin1String(".nii.gz"));
}

void SamplesPanel::set_run_dir(const QString& run_dir) { run_dir_ = run_dir; }

void SamplesPanel::set_run_model(app::RunModel* model) {
  disconnect(artifact_connection_);
  disconnect(cleared_connection_);
  model_ = model;
  clear();
  if (model == nullptr) return;
  set_run_dir(model->run_dir());
  const bool follow = follow_newest();
  // Show only the newest of the existing ones once, not each in turn.
  set_follow_newest(false);
  for (const auto& artifact : model->artifacts()) add_artifact(artifact.path, artifact.kind, artifact.step);
  set_follow_newest(follow);
  if (follow && sample_count() > 0) select_sample(sample_count() - 1);
  artifact_connection_ = connect(model, &app::RunModel::artifact_added, this, [this](const app::Artifact& a) {
    if (model_ != nullptr && run_dir_.isEmpty()) set_run_dir(model_->run_dir());
    add_artifact(a.path, a.kind, a.step);
  });
  cleared_connection_ = connect(model, &app::RunModel::cleared, this, &SamplesPanel::clear);
}

QString SamplesPanel::resolve(const QString& path) const {
  if (QFileInfo(path).isAbsolute() || run_dir_.isEmpty()) return QDir::cleanPath(path);
  return QDir::cleanPath(QDir(run_dir_).filePath(path));
}

void SamplesPanel::add_artifact(const QString& path, const QString& kind, qint64 step) {
  if (!is_volume_artifact(path, kind)) return;
  const QString absolute = resolve(path);
  // The same file written again (a later step overwrote it): move it to the end.
  for (int row = 0; row < list_->topLevelItemCount(); ++row) {
    if (list_->topLevelItem(row)->data(k_file, k_path_role).toString() == absolute) {
      delete list_->takeTopLevelItem(row);
      break;
    }
  }
  auto* item = new QTreeWidgetItem();
  item->setText(k_step, QString::number(step));
  item->setText(k_kind, kind);
  const QString relative = run_dir_.isEmpty() ? absolute : QDir(run_dir_).relativeFilePath(absolute);
  item->setText(k_file, relative.startsWith(QLatin1String("..")) ? absolute : relative);
  item->setToolTip(k_file, absolute);
  item->setData(k_file, k_path_role, absolute);
  list_->addTopLevelItem(item);
  emit sample_added(absolute);
  if (follow_newest()) select_sample(list_->topLevelItemCount() - 1);
}

int SamplesPanel::sample_count() const { return list_->topLevelItemCount(); }

QString SamplesPanel::sample_path(int row) const {
  const QTreeWidgetItem* item = list_->topLevelItem(row);
  return item != nullptr ? item->data(k_file, k_path_role).toString() : QString();
}

QString SamplesPanel::current_path() const { return current_; }

void SamplesPanel::select_sample(int row) {
  QTreeWidgetItem* item = list_->topLevelItem(row);
  if (item == nullptr) return;
  list_->setCurrentItem(item);
  open_row(row);
}

void SamplesPanel::open_row(int row) {
  const QString path = sample_path(row);
  if (path.isEmpty() || path == current_) return;
  current_ = path;
  viewer_->open_volume(path);
  emit sample_opened(path);
}

bool SamplesPanel::follow_newest() const { return follow_->isChecked(); }
void SamplesPanel::set_follow_newest(bool follow) { follow_->setChecked(follow); }

void SamplesPanel::clear() {
  list_->clear();
  current_.clear();
  viewer_->clear();
}

}  // namespace medsynth::ui
