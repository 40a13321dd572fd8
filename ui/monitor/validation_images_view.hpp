// The run monitor's panel of the latest validation's slices: axial, coronal
// and sagittal, each the held-out input beside the model's output, as the
// engine wrote them (PNG files listed by app::latest_validation_images). The
// same pictures as TensorBoard's val/images/* tags. Hidden while a run has
// none (ldm, controlnet and survival runs, or tensorboard_images: false).
#pragma once

#include <QHash>
#include <QImage>
#include <QWidget>

#include "app/runs/validation_image_set.hpp"

QT_BEGIN_NAMESPACE
class QLabel;
QT_END_NAMESPACE

namespace medsynth::ui {

class ValidationImagesView : public QWidget {
  Q_OBJECT

 public:
  explicit ValidationImagesView(QWidget* parent = nullptr);

  // Shows these images; a file that cannot be read (a remote run's) leaves
  // its place saying so. The same step again reloads nothing.
  void show_images(const app::ValidationImageSet& images);
  void clear();

  qint64 step() const { return shown_.step; }
  // The picture shown for a plane ("axial"), null when none (tests).
  QImage image(const QString& plane) const { return images_.value(plane); }
  QString caption_text() const;

 protected:
  void resizeEvent(QResizeEvent* event) override;

 private:
  void rescale();

  app::ValidationImageSet shown_;
  QLabel* caption_ = nullptr;
  QHash<QString, QLabel*> labels_;
  QHash<QString, QImage> images_;
};

}  // namespace medsynth::ui
