// The row of controls above VolumeViewerWidget's views: window/level preset,
// colormap, 3D transfer-function preset, the label map (LabelOverlayControls:
// open, show/hide, opacity), reset, screenshot and Export DICOM…. Emits what the
// user picked; the show_* setters reflect the viewer's state without emitting.
#pragma once

#include <optional>

#include <QWidget>

#include "ui/viewer/colormap.hpp"
#include "ui/viewer/volume_rendering_preset.hpp"
#include "ui/viewer/window_level.hpp"

class QAction;
class QComboBox;
class QLabel;
class QToolButton;

namespace medsynth::ui {

class LabelOverlayControls;

class ViewerToolbar : public QWidget {
  Q_OBJECT

 public:
  explicit ViewerToolbar(bool volume_rendering, QWidget* parent = nullptr);

  // nullopt shows "Custom" (after a mouse drag or a linked viewer's change).
  void show_window_preset(std::optional<WindowPreset> preset);
  void show_colormap(Colormap map);
  void show_volume_preset(VolumePreset preset);
  void set_window_level_text(const WindowLevel& window_level);
  // The volume's modality, "CT" or "MRI", marked "(guessed)" when the file
  // records none and it was read off the intensities; CT's window and level
  // are then shown in HU.
  void show_modality(bool ct, bool guessed);
  QLabel* modality_label() const { return modality_label_; }

  QComboBox* window_box() const { return window_box_; }
  QComboBox* colormap_box() const { return colormap_box_; }
  QComboBox* volume_box() const { return volume_box_; }
  LabelOverlayControls* label_controls() const { return label_controls_; }
  QToolButton* export_dicom_button() const { return export_dicom_; }
  QAction* export_dicom_action() const { return export_dicom_action_; }
  // Export DICOM… needs a volume.
  void set_export_enabled(bool enabled);
  // "Edit labels…" is shown where someone opens the label editor for it (the console's viewer tabs).
  void offer_label_editing(bool offered);
  QToolButton* edit_labels_button() const { return edit_labels_; }

 signals:
  void window_preset_chosen(medsynth::ui::WindowPreset preset);
  void colormap_chosen(medsynth::ui::Colormap map);
  void volume_preset_chosen(medsynth::ui::VolumePreset preset);
  void reset_requested();
  void screenshot_requested();
  void export_dicom_requested();
  void edit_labels_requested();

 private:
  QComboBox* window_box_ = nullptr;
  QComboBox* colormap_box_ = nullptr;
  QComboBox* volume_box_ = nullptr;
  QLabel* window_level_label_ = nullptr;
  QLabel* modality_label_ = nullptr;
  QString unit_;  // " HU" for CT
  LabelOverlayControls* label_controls_ = nullptr;
  QToolButton* export_dicom_ = nullptr;  // the buttons of the two actions below
  QToolButton* edit_labels_ = nullptr;
  QAction* export_dicom_action_ = nullptr;
  QAction* edit_labels_action_ = nullptr;
};

}  // namespace medsynth::ui
