#include "ui/viewer/viewer_toolbar.hpp"

#include <QAction>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QToolBar>
#include <QToolButton>

#include "ui/viewer/label_overlay_controls.hpp"

namespace medsynth::ui {

namespace {

constexpr int k_custom = -1;  // item data of the "Custom" window entry

// A label and the controls it names, kept together when the toolbar
// overflows into its menu.
QWidget* group(QWidget* parent, const QString& label, std::initializer_list<QWidget*> controls) {
  auto* box = new QWidget(parent);
  auto* row = new QHBoxLayout(box);
  row->setContentsMargins(4, 0, 4, 0);
  if (!label.isEmpty()) row->addWidget(new QLabel(label, box));
  for (QWidget* c : controls) row->addWidget(c);
  return box;
}

}  // namespace

ViewerToolbar::ViewerToolbar(bool volume_rendering, QWidget* parent) : QWidget(parent) {
  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(2, 2, 2, 2);
  // A QToolBar, not a row of widgets: on a narrow window (a 1366 px laptop
  // with the Machine panel open) what does not fit goes into its overflow
  // menu instead of widening the window past the screen (issue 38).
  auto* bar = new QToolBar(this);
  bar->setObjectName(QStringLiteral("viewer_toolbar"));
  bar->setFloatable(false);
  bar->setMovable(false);
  layout->addWidget(bar);

  window_box_ = new QComboBox(this);
  window_box_->setObjectName(QStringLiteral("window_preset"));
  for (const auto& info : window_presets())
    window_box_->addItem(QString::fromLatin1(info.name), static_cast<int>(info.preset));
  window_box_->addItem(tr("Custom"), k_custom);
  window_box_->setToolTip(tr("Window/level preset (right-drag in a slice view to adjust)"));
  window_level_label_ = new QLabel(this);
  window_level_label_->setObjectName(QStringLiteral("window_level_text"));
  modality_label_ = new QLabel(this);
  modality_label_->setObjectName(QStringLiteral("modality_text"));
  bar->addWidget(group(bar, tr("Window:"), {window_box_, window_level_label_, modality_label_}));

  colormap_box_ = new QComboBox(this);
  colormap_box_->setObjectName(QStringLiteral("colormap"));
  for (Colormap map : image_colormaps()) colormap_box_->addItem(colormap_name(map), static_cast<int>(map));
  bar->addWidget(group(bar, tr("Colours:"), {colormap_box_}));

  volume_box_ = new QComboBox(this);
  volume_box_->setObjectName(QStringLiteral("volume_preset"));
  for (VolumePreset preset : volume_presets())
    volume_box_->addItem(volume_preset_name(preset), static_cast<int>(preset));
  bar->addWidget(group(bar, tr("3D:"), {volume_box_}))->setVisible(volume_rendering);

  label_controls_ = new LabelOverlayControls(this);
  bar->addWidget(label_controls_);

  // The commands are actions, not tool buttons put in as widgets: a QToolBar
  // outside a QMainWindow overflows into a popup menu, and a menu can hold
  // actions but not a toolbar's custom widgets, so with buttons the "»"
  // opened an empty, disabled menu and these were out of reach at 1366 px
  // (issue 53 item 1). Each action's button keeps the object name tests and
  // style sheets know.
  const auto command = [bar](const QString& text, const QString& name, const QString& tip) {
    auto* action = bar->addAction(text);
    action->setToolTip(tip.isEmpty() ? text : tip);
    bar->widgetForAction(action)->setObjectName(name);
    return action;
  };
  edit_labels_action_ = command(tr("Edit labels…"), QStringLiteral("edit_labels"),
                                tr("Paint, fix and save the label map, and generate from it (a new tab)"));
  edit_labels_action_->setVisible(false);

  auto* spacer = new QWidget(bar);
  spacer->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
  bar->addWidget(spacer);
  auto* reset = command(tr("Reset views"), QStringLiteral("reset_views"), {});
  auto* screenshot = command(tr("Screenshot…"), QStringLiteral("screenshot"), {});
  export_dicom_action_ = command(tr("Export DICOM…"), QStringLiteral("export_dicom"),
                                 tr("Write the volume as a DICOM CT/MR series, marked synthetic"));
  export_dicom_action_->setEnabled(false);
  export_dicom_ = qobject_cast<QToolButton*>(bar->widgetForAction(export_dicom_action_));
  edit_labels_ = qobject_cast<QToolButton*>(bar->widgetForAction(edit_labels_action_));

  connect(window_box_, &QComboBox::activated, this, [this](int row) {
    const int value = window_box_->itemData(row).toInt();
    if (value != k_custom) emit window_preset_chosen(static_cast<WindowPreset>(value));
  });
  connect(colormap_box_, &QComboBox::activated, this,
          [this](int row) { emit colormap_chosen(static_cast<Colormap>(colormap_box_->itemData(row).toInt())); });
  connect(volume_box_, &QComboBox::activated, this, [this](int row) {
    emit volume_preset_chosen(static_cast<VolumePreset>(volume_box_->itemData(row).toInt()));
  });
  connect(reset, &QAction::triggered, this, &ViewerToolbar::reset_requested);
  connect(screenshot, &QAction::triggered, this, &ViewerToolbar::screenshot_requested);
  connect(export_dicom_action_, &QAction::triggered, this, &ViewerToolbar::export_dicom_requested);
  connect(edit_labels_action_, &QAction::triggered, this, &ViewerToolbar::edit_labels_requested);
}

void ViewerToolbar::offer_label_editing(bool offered) { edit_labels_action_->setVisible(offered); }

void ViewerToolbar::set_export_enabled(bool enabled) { export_dicom_action_->setEnabled(enabled); }

void ViewerToolbar::show_window_preset(std::optional<WindowPreset> preset) {
  const QSignalBlocker block(window_box_);
  window_box_->setCurrentIndex(window_box_->findData(preset ? static_cast<int>(*preset) : k_custom));
}

void ViewerToolbar::show_colormap(Colormap map) {
  const QSignalBlocker block(colormap_box_);
  const int row = colormap_box_->findData(static_cast<int>(map));
  if (row < 0) {
    colormap_box_->addItem(colormap_name(map), static_cast<int>(map));  // e.g. diverging, for differences
    colormap_box_->setCurrentIndex(colormap_box_->count() - 1);
  } else {
    colormap_box_->setCurrentIndex(row);
  }
}

void ViewerToolbar::show_volume_preset(VolumePreset preset) {
  const QSignalBlocker block(volume_box_);
  volume_box_->setCurrentIndex(volume_box_->findData(static_cast<int>(preset)));
}

void ViewerToolbar::set_window_level_text(const WindowLevel& wl) {
  window_level_label_->setText(
      QStringLiteral("W %1%3  L %2%3").arg(wl.window, 0, 'g', 4).arg(wl.level, 0, 'g', 4).arg(unit_));
}

void ViewerToolbar::show_modality(bool ct, bool guessed) {
  unit_ = ct ? QStringLiteral(" HU") : QString();
  modality_label_->setText((ct ? tr("CT") : tr("MRI")) + (guessed ? tr(" (guessed)") : QString()));
  modality_label_->setToolTip(guessed ? tr("The file records no modality: read off its intensities (air near -1000 "
                                           "and denser tissue: CT)")
                                      : tr("The modality the file's medsynth provenance records"));
}

}  // namespace medsynth::ui
