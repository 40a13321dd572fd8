#include "ui/viewer/label_overlay_controls.hpp"

#include <cmath>

#include <QCheckBox>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QSignalBlocker>
#include <QSlider>
#include <QToolButton>

namespace medsynth::ui {

LabelOverlayControls::LabelOverlayControls(QWidget* parent) : QWidget(parent) {
  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  open_ = new QToolButton(this);
  open_->setObjectName(QStringLiteral("open_label_map"));
  open_->setText(tr("Label map…"));
  open_->setToolTip(tr("Open a label map (.nii/.nii.gz on the image's grid) to draw over the image"));
  visible_ = new QCheckBox(tr("Labels"), this);
  visible_->setObjectName(QStringLiteral("label_visible"));
  visible_->setChecked(true);
  opacity_ = new QSlider(Qt::Horizontal, this);
  opacity_->setObjectName(QStringLiteral("label_opacity"));
  opacity_->setRange(0, 100);
  opacity_->setValue(50);
  opacity_->setFixedWidth(90);
  opacity_->setToolTip(tr("Label opacity"));
  layout->addWidget(open_);
  layout->addWidget(visible_);
  layout->addWidget(opacity_);
  connect(open_, &QToolButton::clicked, this, &LabelOverlayControls::open_requested);
  connect(visible_, &QCheckBox::toggled, this, &LabelOverlayControls::visible_toggled);
  connect(opacity_, &QSlider::valueChanged, this, [this](int value) { emit opacity_chosen(value / 100.0); });
  show_state(false, true, 0.5, QString());
}

void LabelOverlayControls::show_state(bool has_labels, bool visible, double opacity, const QString& label_path) {
  const QSignalBlocker block_box(visible_);
  const QSignalBlocker block_slider(opacity_);
  visible_->setChecked(visible);
  opacity_->setValue(static_cast<int>(std::lround(opacity * 100.0)));
  visible_->setEnabled(has_labels);
  opacity_->setEnabled(has_labels);
  visible_->setToolTip(has_labels ? tr("Show the label map %1 (opacity %2 %)")
                                        .arg(QFileInfo(label_path).fileName())
                                        .arg(opacity_->value())
                                  : tr("No label map: open one with “Label map…”"));
}

}  // namespace medsynth::ui
