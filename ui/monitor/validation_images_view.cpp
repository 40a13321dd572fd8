#include "ui/monitor/validation_images_view.hpp"

#include <QGridLayout>
#include <QLabel>
#include <QPixmap>

namespace medsynth::ui {

namespace {

const QStringList& planes() {
  static const QStringList names{QStringLiteral("axial"), QStringLiteral("coronal"), QStringLiteral("sagittal")};
  return names;
}

}  // namespace

ValidationImagesView::ValidationImagesView(QWidget* parent) : QWidget(parent) {
  auto* grid = new QGridLayout(this);
  grid->setContentsMargins(4, 4, 4, 4);
  grid->setSpacing(4);
  caption_ = new QLabel(this);
  caption_->setObjectName("validation_images_caption");
  grid->addWidget(caption_, 0, 0, 1, static_cast<int>(planes().size()));
  int column = 0;
  for (const QString& plane : planes()) {
    auto* title = new QLabel(plane, this);
    title->setAlignment(Qt::AlignHCenter);
    grid->addWidget(title, 1, column);
    auto* label = new QLabel(this);
    label->setObjectName(plane);
    label->setAlignment(Qt::AlignHCenter | Qt::AlignTop);  // right under its title
    // Scaled to the cell by rescale(): the label must not ask for the
    // picture's own size, or a 512-voxel CT would push the charts aside.
    label->setMinimumSize(48, 48);
    label->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Ignored);
    grid->addWidget(label, 2, column);  // no alignment here: that would shrink it to its size hint
    grid->setColumnStretch(column, 1);
    labels_.insert(plane, label);
    ++column;
  }
  grid->setRowStretch(2, 1);
  clear();
}

void ValidationImagesView::clear() {
  shown_ = {};
  images_.clear();
  for (QLabel* label : std::as_const(labels_)) label->clear();
  caption_->clear();
  hide();
}

void ValidationImagesView::show_images(const app::ValidationImageSet& images) {
  if (images.empty()) {
    clear();
    return;
  }
  if (images.step == shown_.step && images.paths == shown_.paths) return;
  shown_ = images;
  images_.clear();
  for (const QString& plane : planes()) {
    QImage image(images.paths.value(plane));
    if (!image.isNull()) images_.insert(plane, image);
  }
  caption_->setText(tr("Validation at step %1 — held-out input (left) | output (right)").arg(images.step));
  caption_->setToolTip(images.paths.value(QStringLiteral("axial")));
  show();
  rescale();
}

QString ValidationImagesView::caption_text() const { return caption_->text(); }

void ValidationImagesView::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  rescale();
}

void ValidationImagesView::rescale() {
  for (auto it = labels_.begin(); it != labels_.end(); ++it) {
    const QImage image = images_.value(it.key());
    if (image.isNull()) {
      it.value()->setText(shown_.paths.contains(it.key()) ? tr("(not readable here)") : QString());
      continue;
    }
    // Nearest neighbour: a small volume's voxels stay visible as voxels.
    it.value()->setPixmap(
        QPixmap::fromImage(image).scaled(it.value()->size(), Qt::KeepAspectRatio, Qt::FastTransformation));
  }
}

}  // namespace medsynth::ui
