// The label-map part of the viewer's toolbar: "Label map…" (open one), a
// "Labels" check box (show/hide the overlay) and an opacity slider (0–100 %).
// The toggle and the slider are disabled until a label map is shown. Emits
// what the user did; show_state() reflects LabelOverlayController without
// emitting. Part of ViewerToolbar.
#pragma once

#include <QWidget>

class QCheckBox;
class QSlider;
class QToolButton;

namespace medsynth::ui {

class LabelOverlayControls : public QWidget {
  Q_OBJECT

 public:
  explicit LabelOverlayControls(QWidget* parent = nullptr);

  void show_state(bool has_labels, bool visible, double opacity, const QString& label_path);

  QToolButton* open_button() const { return open_; }
  QCheckBox* visible_box() const { return visible_; }
  QSlider* opacity_slider() const { return opacity_; }

 signals:
  void open_requested();
  void visible_toggled(bool visible);
  void opacity_chosen(double opacity);

 private:
  QToolButton* open_ = nullptr;
  QCheckBox* visible_ = nullptr;
  QSlider* opacity_ = nullptr;
};

}  // namespace medsynth::ui
